"""A trace file read as a stream, kept compact: what `--explain` needs of a 200 MB trace
without holding the whole JSON document in memory.

    read_trace(path)   Trace of the file (.json or .json.gz, gzip told by its magic bytes)
    from_dict(trace)   the same Trace from a trace already loaded as a dict (load_trace's)

The text is decoded in chunks and the traceEvents array is parsed a batch of events at a
time: by msgspec where it is installed (explain_msgspec.py, an optional extra), else by
a pattern for Kineto's own layout (_fast), else by json; each event becomes a small Event
with only the fields the explanation reads, and the rest is dropped at once. The three
keep the same events with the same fields (tests/test_explain_read.py). Equal launch
resources of GPU activities share one dict (Trace.pool): a 200 MB trace holds a few
hundred distinct ones among 150,000 kernels. Old Kineto category names (`Kernel`,
`Runtime`, `Operator`, `Memcpy`, `Memset`) and ROCm's are read as today's. Bad input
raises ReadError with one line.
"""
from __future__ import annotations

import codecs
import gzip
import json
import re
import sys
import zlib
from pathlib import Path

from ..limits import MAX_DEPTH, too_deep
from . import explain_msgspec

CHUNK = 1 << 23  # characters decoded at a time
MAX_VALUE = 1 << 26  # one JSON value (an event, deviceProperties) longer than this is no trace's
# 3,170 years in µs: any ts or dur beyond it is not a time (1e308 would overflow sums). Older
# Kineto writes ts as µs since 1970 (1.7e15 in 2023, HTA's test traces): the bound lies well above
MAX_TIME_US = 1e17

GPU_CATS = ("kernel", "gpu_memcpy", "gpu_memset")
LAUNCH_CATS = ("cuda_runtime", "cuda_driver")
HOST_CATS = ("cpu_op", "user_annotation")
KEPT = GPU_CATS + LAUNCH_CATS + HOST_CATS
# older Kineto (and ROCm builds) name the same categories differently; matched lower-cased
CAT_ALIASES = {"kernel": "kernel", "memcpy": "gpu_memcpy", "memset": "gpu_memset",
               "gpu_memcpy": "gpu_memcpy", "gpu_memset": "gpu_memset",
               "runtime": "cuda_runtime", "cuda_runtime": "cuda_runtime", "hip_runtime": "cuda_runtime",
               "driver": "cuda_driver", "cuda_driver": "cuda_driver", "hip_driver": "cuda_driver",
               "operator": "cpu_op", "cpu_op": "cpu_op", "user_annotation": "user_annotation"}
# the launch resources and placement of a GPU activity, as Kineto's args name them
GPU_ARGS = ("device", "stream", "grid", "block", "registers per thread", "shared memory",
            "est. achieved occupancy %")
_WS = re.compile(r"[ \t\n\r]*")
_NEXT = re.compile(r"[ \t\n\r]*,[ \t\n\r]*\{")  # after an event's "}": the next one's "{"
_DECODER = json.JSONDecoder()
FAST_DECODER = explain_msgspec.AVAILABLE  # False: the pure-Python reader alone, as in the browser


def hashable(value):
    """An id as the trace gives it (an int or a string), or its text where it is anything else."""
    return value if type(value) in (int, str, float) or value is None else str(value)


class ReadError(ValueError):
    """The file is no readable trace; the message is one line (without the path)."""


class Event:
    """One complete ("X") event of a kept category: times in µs as the trace has them; corr,
    the correlation id, of GPU activities and launch calls only; args, the launch resources
    of GPU activities only."""
    __slots__ = ("cat", "name", "ts", "dur", "end", "pid", "tid", "corr", "args")

    def __init__(self, cat, name, ts, dur, pid, tid, corr, args):
        self.cat, self.name, self.ts, self.dur, self.end = cat, name, ts, dur, ts + dur
        self.pid, self.tid, self.corr, self.args = pid, tid, corr, args


class Trace:
    """The kept events, the top-level fields other than traceEvents, and the names of the
    categories the file held (the events' "cat" strings, kept or not: an MTIA or CPU-only
    trace is told by them)."""

    def __init__(self):
        self.events, self.meta, self.categories, self.pool = [], {}, set(), {}
        self.flat_args = {}  # _fast's cache of flat args by the text around their ids

    def add(self, e):
        self.add_all((e,))

    def add_all(self, items):
        """Keep the complete events of kept categories from a batch of decoded events."""
        events, cats, intern, aliases, gpu = self.events, self.categories, sys.intern, CAT_ALIASES, GPU_CATS
        numbers, pool = (int, float), self.pool
        for e in items:
            if type(e) is not dict:
                continue
            raw = e.get("cat")
            if type(raw) is not str:
                continue
            if raw not in cats:
                cats.add(raw)
            if e.get("ph") != "X":
                continue
            cat = aliases.get(raw) or aliases.get(raw.lower())
            if cat is None:
                continue
            ts, dur, name = e.get("ts"), e.get("dur"), e.get("name")
            if (type(ts) not in numbers or type(dur) not in numbers or type(name) is not str
                    or not -MAX_TIME_US <= ts <= MAX_TIME_US or not 0 <= dur <= MAX_TIME_US):
                continue  # NaN fails both comparisons; an int too large for a float fails too
            args = e.get("args")
            if type(args) is not dict:
                args = {}
            kept = shared({k: args[k] for k in GPU_ARGS if k in args}, pool) if cat in gpu else None
            corr = hashable(args.get("correlation")) if cat in gpu or cat in LAUNCH_CATS else None
            events.append(Event(cat, intern(name), float(ts), float(dur), hashable(e.get("pid")),
                                hashable(e.get("tid")), corr, kept))

    def add_structs(self, items):
        """add_all for msgspec's Structs (explain_msgspec.events): the same rules, field by field."""
        events, cats, intern, aliases, gpu = self.events, self.categories, sys.intern, CAT_ALIASES, GPU_CATS
        numbers, pool, unset, plain = (int, float), self.pool, explain_msgspec.UNSET, (int, str)
        ints = frozenset((int, type(unset)))
        none = pool.setdefault((), {})
        for e in items:
            raw = e.cat
            if type(raw) is not str:
                continue
            if raw not in cats:
                cats.add(raw)
            if e.ph != "X":
                continue
            cat = aliases.get(raw) or aliases.get(raw.lower())
            if cat is None:
                continue
            ts, dur, name = e.ts, e.dur, e.name
            if (type(ts) not in numbers or type(dur) not in numbers or type(name) is not str
                    or not -MAX_TIME_US <= ts <= MAX_TIME_US or not 0 <= dur <= MAX_TIME_US):
                continue
            a, pid, tid = e.args, e.pid, e.tid
            kept, corr = None, None
            if a is not None and (cat in gpu or cat in LAUNCH_CATS):  # the ids that pair them
                corr = a.correlation
                if type(corr) is not int:
                    corr = hashable(corr)
            if cat in gpu:
                if a is None:
                    kept = none
                else:
                    values = (a.device, a.stream, a.grid, a.block, a.registers, a.smem, a.occupancy)
                    d, st, g, b, r, sm, o = values
                    if (type(d) in ints and type(st) in ints and type(r) in ints and type(sm) in ints
                            and type(o) in ints and (g is unset or _int3(g)) and (b is unset or _int3(b))):
                        # ints and missing keys only: equal tuples are equal values of equal types
                        key = (d, st, g if g is unset else tuple(g), b if b is unset else tuple(b), r, sm, o)
                        kept = pool.get(key)
                        if kept is None:
                            kept = pool[key] = {k: v for k, v in zip(GPU_ARGS, values, strict=True)
                                                if v is not unset}
                    else:
                        kept = shared({k: v for k, v in zip(GPU_ARGS, values, strict=True) if v is not unset}, pool)
            events.append(Event(cat, intern(name), float(ts), float(dur),
                                pid if type(pid) in plain else hashable(pid),
                                tid if type(tid) in plain else hashable(tid), corr, kept))


def _int3(v):
    """Kineto's grid or block: a list of three ints."""
    return type(v) is list and len(v) == 3 and type(v[0]) is int and type(v[1]) is int and type(v[2]) is int


def shared(kept, pool):
    """kept (a GPU activity's launch resources) with device and stream made hashable, as the
    one dict of the pool with the same keys and values, so equal ones are held once. Its
    repr is the key: JSON's values (numbers, strings, lists, dicts) with equal reprs are
    equal and of equal types (1, 1.0 and True differ, as do -0.0 and 0.0)."""
    for k in ("device", "stream"):
        if k in kept:
            kept[k] = hashable(kept[k])
    try:
        return pool.setdefault(repr(kept), kept)
    except RecursionError:
        return kept


def from_dict(trace):
    """The Trace of a trace already loaded (a dict with a traceEvents list)."""
    found = Trace()
    found.add_all(trace["traceEvents"])
    found.meta = {k: v for k, v in trace.items() if k != "traceEvents"}
    return found


def _chunks(path, max_chars):
    """The file's text in chunks of about CHUNK characters, at most max_chars in all."""
    with open(path, "rb") as f:
        gz = f.read(2) == b"\x1f\x8b"
    raw = gzip.open(path, "rb") if gz else open(path, "rb")  # noqa: SIM115 - closed below
    decode = codecs.getincrementaldecoder("utf-8")().decode
    total = 0
    try:
        while True:
            try:
                block = raw.read(CHUNK)
            except (OSError, EOFError, zlib.error) as err:
                raise ReadError(f"not a readable gzip file ({err})") from None
            try:
                text = decode(block, final=not block)
            except UnicodeDecodeError:
                raise ReadError("not JSON (not UTF-8 text)") from None
            total += len(text)
            if total > max_chars:
                raise ReadError(f"more than {max_chars // 2**20:,} MB of JSON{' once unpacked' if gz else ''}: "
                                "too large for a trace of a few steps; record fewer steps")
            if text:
                yield text
            if not block:
                return
    finally:
        raw.close()


class _Stream:
    """A JSON text read value by value from a chunk iterator."""

    def __init__(self, chunks):
        self.chunks, self.buf, self.pos, self.eof, self.offset = chunks, "", 0, False, 0

    def more(self):
        for text in self.chunks:
            self.offset += self.pos
            self.buf, self.pos = self.buf[self.pos:] + text, 0
            return True
        self.eof = True
        return False

    def peek(self):
        while True:
            self.pos = _WS.match(self.buf, self.pos).end()
            if self.pos < len(self.buf):
                return self.buf[self.pos]
            if not self.more():
                return ""

    def value(self):
        while True:
            self.peek()
            try:
                found, end = _DECODER.raw_decode(self.buf, self.pos)
            except json.JSONDecodeError as err:
                if not self.eof and len(self.buf) - self.pos < MAX_VALUE and self.more():
                    continue
                raise ReadError(f"not JSON ({err.msg} at character {self.offset + err.pos:,})") from None
            except RecursionError:
                raise ReadError(DEEP) from None
            if end == len(self.buf) and not self.eof and self.more():
                continue  # a number may go on in the next chunk
            self.pos = end
            return found

    def take(self, char):
        if self.peek() != char:
            where = self.offset + self.pos
            raise ReadError(f"not JSON (expected {char!r} at character {where:,})")
        self.pos += 1


# the head of a complete event as Kineto writes it (keys in this order, its spacing); the
# fast path reads a batch by this pattern when every complete event in it (_X, which allows
# any spacing) has this head, else by json
_HEAD = re.compile(r'"ph": ?"X", ?"cat": ?"([^"\\]*)", ?"name": ?"([^"\\]*(?:\\.[^"\\]*)*)", ?'
                   r'"pid": ?(-?\d+|"[^"\\]*"), ?"tid": ?(-?\d+|"[^"\\]*"),\s*'
                   r'"ts": ?(-?[0-9.]+(?:[eE][-+]?\d+)?), ?"dur": ?(-?[0-9.]+(?:[eE][-+]?\d+)?)')
_X = re.compile(r'"ph":\s*"X"')
_CAT = re.compile(r'"cat":\s*"([^"\\]*(?:\\.[^"\\]*)*)"')
_ARGS = re.compile(r'\s*,\s*"args":\s*\{')
_CLOSE = re.compile(r'[ \t\n\r]*\}')
# an args key whose value is cut out of the cache key: a JSON integer, then "," or "}"
_VOLATILE = re.compile(r'"(External id|correlation)":[ \t\n\r]*(-?(?:0|[1-9][0-9]*))(?=[ \t\n\r]*[,}])')


def _fast(text, found):
    """Keep the batch's complete events read by _HEAD alone (the args of GPU activities by
    json); False, having kept nothing, when some complete event has another layout."""
    heads = list(_HEAD.finditer(text))
    if not heads or len(heads) != len(_X.findall(text)):
        return False
    try:  # the batch ends with complete events: from the last head on, it parses exactly
        json.loads("[" + text[text.rfind("{", 0, heads[-1].start()):] + "]")
    except (json.JSONDecodeError, RecursionError):
        return False
    events, aliases, intern = [], CAT_ALIASES, sys.intern
    ids, pool, flat = {}, found.pool, found.flat_args
    for m in heads:
        raw, name, pid, tid, ts, dur = m.groups()
        cat = aliases.get(raw) or aliases.get(raw.lower())
        if cat is None:
            continue
        ts, dur = float(ts), float(dur)  # digits only: a huge one is inf, never an error
        if not 0 <= dur <= MAX_TIME_US or not -MAX_TIME_US <= ts <= MAX_TIME_US:
            continue
        if "\\" in name:
            name = json.loads('"' + name + '"')
        kept, corr = None, None
        if cat in GPU_CATS or cat in LAUNCH_CATS:
            got = _args(text, m.end(), cat in GPU_CATS, pool, flat)
            if got is None:
                return False
            kept, corr = got
        pid = ids.get(pid) or ids.setdefault(pid, pid[1:-1] if pid[0] == '"' else int(pid))
        tid = ids.get(tid) or ids.setdefault(tid, tid[1:-1] if tid[0] == '"' else int(tid))
        events.append(Event(cat, intern(name), ts, dur, pid, tid, corr, kept))
    found.events += events
    found.categories.update(c if "\\" not in c else json.loads(f'"{c}"') for c in _CAT.findall(text))
    return True


def _args(text, at, gpu, pool, flat):
    """(launch resources or None, correlation) of the event whose head ends at `at`, as
    add_all keeps them; None where the event goes on otherwise than with its args and "}".

    Kineto's args of a kernel or launch call are flat objects that differ from the last
    one's only in External id and correlation: keyed on the text around those two values
    (flat: its cache), each distinct one is decoded by json once. A key is only made of a
    flat object json read whole, and the values cut out are JSON integers, so a text with
    the same key holds the same other values."""
    a = _ARGS.match(text, at)
    if a is None:
        return (shared({}, pool) if gpu else None, None) if _CLOSE.match(text, at) else None
    start = a.end() - 1
    close = text.find("}", start)
    key = None
    if close > 0 and text.find("{", start + 1, close) < 0:
        parts = _VOLATILE.split(text[start:close + 1])
        key = (gpu, tuple(parts[0::3]), tuple(parts[1::3]))
        hit = flat.get(key)
        if hit is not None and _CLOSE.match(text, close + 1):
            corr = None
            for i in range(len(parts) - 3, 0, -3):  # json keeps the last of a repeated key
                if parts[i] == "correlation":
                    corr = int(parts[i + 1])
                    break
            return hit[0], corr
    try:
        args, stop = _DECODER.raw_decode(text, start)
    except (json.JSONDecodeError, RecursionError):
        return None
    if not _CLOSE.match(text, stop):
        return None
    if type(args) is not dict:
        args = {}
    kept = shared({k: args[k] for k in GPU_ARGS if k in args}, pool) if gpu else None
    if key is not None and stop == close + 1:
        flat[key] = (kept,)
    return kept, hashable(args.get("correlation"))


def _batch(stream, into):
    """Keep the events of the buffer up to its last event boundary (by msgspec, else _fast,
    else one json.loads); False if it holds no such boundary or does not parse. A cut that is not
    between two events of the array (inside a string or a nested value) leaves the batch
    unbalanced, so it does not parse."""
    buf, pos = stream.buf, stream.pos
    cut = len(buf)
    while True:
        cut = buf.rfind("}", pos, cut)
        if cut < 0 or cut - pos < CHUNK // 4:
            return False
        m = _NEXT.match(buf, cut + 1)
        if m:
            break
    text = buf[pos:cut + 1]
    structs = explain_msgspec.events(text) if FAST_DECODER else None
    if structs is not None:
        into.add_structs(structs)
    elif not _fast(text, into):
        try:
            into.add_all(json.loads("[" + text + "]"))
        except (json.JSONDecodeError, RecursionError):
            return False
    stream.pos = m.end() - 1  # at the next event's "{"
    return True


def _events(stream, found):
    """The traceEvents array's values, the "[" taken; stops before its "]"."""
    while True:
        if not stream.eof and len(stream.buf) - stream.pos < CHUNK:
            stream.more()
        if _batch(stream, found):
            continue
        for _ in range(64):  # value by value: the array's end, or a batch that did not parse
            if stream.peek() == "]":
                return
            found.add(stream.value())
            if stream.peek() == ",":
                stream.pos += 1


DEEP = f"JSON nested deeper than {MAX_DEPTH} levels, so not a trace written by torch.profiler"
NO_EVENTS = "JSON without a traceEvents list, so not a trace written by torch.profiler"


def read_trace(path, max_chars=2 * 2**30):
    """The Trace in the file (at most max_chars of text); ReadError (one line) if it is none."""
    stream, found, seen = _Stream(_chunks(Path(path), max_chars)), Trace(), False
    if stream.peek() != "{":
        stream.value()  # not JSON at all, or JSON of another shape
        raise ReadError(NO_EVENTS)
    stream.take("{")
    while stream.peek() != "}":
        key = stream.value()
        stream.take(":")
        if key == "traceEvents" and stream.peek() == "[":
            seen = True
            stream.take("[")
            _events(stream, found)
            stream.take("]")
        elif key == "traceEvents":
            stream.value()
            raise ReadError(NO_EVENTS)
        else:
            found.meta[key] = stream.value()
            if too_deep(found.meta[key]):
                raise ReadError(DEEP)
        if stream.peek() == ",":
            stream.pos += 1
        elif stream.peek() != "}":
            stream.take("}")
    stream.take("}")
    if stream.peek():
        raise ReadError(f"not JSON (extra data at character {stream.offset + stream.pos:,})")
    if not seen:
        raise ReadError(NO_EVENTS)
    return found
