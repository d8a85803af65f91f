"""A trace file read as a stream, kept compact: what measurement (trace/analyze.py) and the
trace doctor (`--explain`) read of a trace, a 200 MB one included, without holding the whole
JSON document in memory. This package is the one reader of torch.profiler's trace format.

    read_trace(path)   Trace of the file (.json or .json.gz, gzip told by its magic bytes)
    from_dict(trace)   the same Trace from a trace already loaded as a dict (the doctor's
                       load_trace); ReadError for anything that is no trace

The text is decoded in chunks and the traceEvents array is parsed a batch of events at a
time: by msgspec where it is installed (msgspec_decoder.py, an optional extra), else by
a pattern for Kineto's own layout (kineto_layout.py), else by json; each event becomes a
small Event (events.py) with only the fields measurement and the explanation read, and the
rest is dropped at once; the GPU's side of record_function ranges goes to Trace.gpu_ranges.
The three keep the same events with the same fields (tests/test_explain_read.py). Equal
launch resources of GPU activities share one dict (Trace.pool): a 200 MB trace holds a few
hundred distinct ones among 150,000 kernels. Old Kineto category names (`Kernel`,
`Runtime`, `Operator`, `Memcpy`, `Memset`) and ROCm's are read as today's. Bad input raises
ReadError with one line. Opening a reader's own file for the doctor, with its checks and
messages, is report/doctor/reading/trace_file.py's.
"""
from __future__ import annotations

import codecs
import gzip
import json
import re
import sys
import zlib
from pathlib import Path

from ...limits import MAX_DEPTH, too_deep
from ..names import GPU_CATS, LAUNCH_CATS
from . import kineto_layout, msgspec_decoder
from .events import (
    CAT_ALIASES,
    GPU_ARGS,
    GPU_RANGE,
    INPUT_OPS,
    MAX_TIME_US,
    MIN_DUR_US,
    Event,
    hashable,
    inputs,
    shared,
)

CHUNK = 1 << 23  # characters decoded at a time
# the events kept (events.py) that the reader holds: about 0.6 KB each at the peak of
# explaining (benchmarks/explain_stress.py's plain trace of 67 MB keeps 302,000 and peaks at
# 194 MB), so 5 million take about 3 GB; in the browser (Pyodide, sys.platform "emscripten"),
# whose WebAssembly memory ends at 4 GB, fewer
MAX_EVENTS = 1_500_000 if sys.platform == "emscripten" else 5_000_000
# one JSON value (an event, deviceProperties) is read whole: torch.profiler's largest are an
# event's recorded inputs, a few KB; beyond this many characters the value is refused while it
# is read (a 1.9 GB string packs into 2 MB of gzip, and reading it whole took 4 GB of memory)
MAX_VALUE_CHARS = 1 << 28
_WS = re.compile(r"[ \t\n\r]*")
_NEXT = re.compile(r"[ \t\n\r]*,[ \t\n\r]*\{")  # after an event's "}": the next one's "{"
_DECODER = json.JSONDecoder()
FAST_DECODER = msgspec_decoder.AVAILABLE  # False: the pure-Python reader alone, as in the browser


class ReadError(ValueError):
    """The file is no readable trace; the message is one line (without the path)."""


def _json_fault(err):
    """json's message without its own trailing "at" ("Unterminated string starting at")."""
    return err.msg.removesuffix(" at")


class Trace:
    """The kept events, the top-level fields other than traceEvents, and the names of the
    categories the file held (the events' "cat" strings, kept or not: an MTIA or CPU-only
    trace is told by them); gpu_ranges, the GPU's side of the record_function ranges
    (events.GPU_RANGE), apart from the events (measurement's analyze.py reads them)."""

    def __init__(self):
        self.events, self.meta, self.categories, self.pool = [], {}, set(), {}
        self.gpu_ranges = []
        self.flat_args = {}  # kineto_layout's cache of flat args by the text around their ids

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
                    or not -MAX_TIME_US <= ts <= MAX_TIME_US or not (MIN_DUR_US <= dur <= MAX_TIME_US or dur == 0)):
                continue  # NaN fails both comparisons; an int too large for a float fails too
            if cat == GPU_RANGE:
                self.gpu_ranges.append(Event(cat, intern(name), float(ts), float(dur), hashable(e.get("pid")),
                                             hashable(e.get("tid")), None, None))
                continue
            args = e.get("args")
            if type(args) is not dict:
                args = {}
            kept = shared({k: args[k] for k in GPU_ARGS if k in args}, pool) if cat in gpu else None
            if cat == "cpu_op" and name in INPUT_OPS:
                kept = inputs(args, name)
            corr = hashable(args.get("correlation")) if cat in gpu or cat in LAUNCH_CATS else None
            events.append(Event(cat, intern(name), float(ts), float(dur), hashable(e.get("pid")),
                                hashable(e.get("tid")), corr, kept))

    def add_structs(self, items):
        """add_all for msgspec's Structs (msgspec_decoder.events): the same rules, field by field."""
        events, cats, intern, aliases, gpu = self.events, self.categories, sys.intern, CAT_ALIASES, GPU_CATS
        numbers, pool, unset, plain = (int, float), self.pool, msgspec_decoder.UNSET, (int, str)
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
                    or not -MAX_TIME_US <= ts <= MAX_TIME_US or not (MIN_DUR_US <= dur <= MAX_TIME_US or dur == 0)):
                continue
            a, pid, tid = e.args, e.pid, e.tid
            if cat == GPU_RANGE:
                self.gpu_ranges.append(Event(cat, intern(name), float(ts), float(dur),
                                             pid if type(pid) in plain else hashable(pid),
                                             tid if type(tid) in plain else hashable(tid), None, None))
                continue
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
            elif cat == "cpu_op" and a is not None and name in INPUT_OPS:
                kept = msgspec_decoder.inputs(a, name)
            events.append(Event(cat, intern(name), float(ts), float(dur),
                                pid if type(pid) in plain else hashable(pid),
                                tid if type(tid) in plain else hashable(tid), corr, kept))


def _int3(v):
    """Kineto's grid or block: a list of three ints."""
    return type(v) is list and len(v) == 3 and type(v[0]) is int and type(v[1]) is int and type(v[2]) is int


def from_dict(trace):
    """The Trace of a trace already loaded (a dict with a traceEvents list); ReadError (a
    ValueError) for anything else."""
    if not isinstance(trace, dict) or not isinstance(trace.get("traceEvents"), list):
        raise ReadError(NO_EVENTS)
    found = Trace()
    found.add_all(trace["traceEvents"])
    found.meta = {k: v for k, v in trace.items() if k != "traceEvents"}
    return found


def _chunks(path, max_chars):
    """The file's text in chunks of about CHUNK characters, at most max_chars in all."""
    with open(path, "rb") as f:
        gz = f.read(2) == b"\x1f\x8b"
    raw = gzip.open(path, "rb") if gz else open(path, "rb")  # noqa: SIM115 - closed below
    decode = codecs.getincrementaldecoder("utf-8-sig")().decode  # a byte order mark is no fault
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

    def grow(self, need):
        """Read on until the buffer holds `need` characters from pos, or the text ends; the
        chunks joined once (no copy of the buffer per chunk)."""
        parts, held = [self.buf[self.pos:]], len(self.buf) - self.pos
        for text in self.chunks:
            parts.append(text)
            held += len(text)
            if held >= need:
                break
        else:
            self.eof = True
        self.offset += self.pos
        self.buf, self.pos = "".join(parts), 0
        return len(parts) > 1

    def value(self):
        while True:
            self.peek()
            try:
                found, end = _DECODER.raw_decode(self.buf, self.pos)
            except json.JSONDecodeError as err:
                # cut off by the buffer's end (a string not yet closed, or a fault within a
                # token of the end): read on, twice as much each time, so one value of any
                # size costs its length; any other fault is the text's own
                cut = err.msg.startswith("Unterminated string") or err.pos >= len(self.buf) - 16
                if cut and not self.eof and self.grow(self.need()):
                    continue
                raise ReadError(f"not JSON ({_json_fault(err)} at character {self.offset + err.pos:,})") from None
            except RecursionError:
                raise ReadError(DEEP) from None
            if end == len(self.buf) and not self.eof and self.grow(self.need()):
                continue  # a number may go on in the next chunk
            self.pos = end
            return found

    def need(self):
        """Twice what the buffer holds of the value being read, at most MAX_VALUE_CHARS and
        one; ReadError where it holds more than MAX_VALUE_CHARS already."""
        held = len(self.buf) - self.pos
        if held > MAX_VALUE_CHARS:
            raise ReadError(f"one JSON value of more than {MAX_VALUE_CHARS // 2**20:,} MB at character "
                            f"{self.offset + self.pos:,}, so not a trace written by torch.profiler (its events "
                            "are a few KB each)")
        return min(max(2 * held, CHUNK), MAX_VALUE_CHARS + 1)

    def take(self, char):
        if self.peek() != char:
            where = self.offset + self.pos
            raise ReadError(f"not JSON (expected {char!r} at character {where:,})")
        self.pos += 1




def _batch(stream, into):
    """Keep the events of the buffer up to its last event boundary (by msgspec, else
    kineto_layout.read, else one json.loads); False if it holds no such boundary or does not
    parse. A cut that is not between two events of the array (inside a string or a nested
    value) leaves the batch unbalanced, so it does not parse."""
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
    structs = msgspec_decoder.events(text) if FAST_DECODER else None
    if structs is not None:
        into.add_structs(structs)
    elif not kineto_layout.read(text, into):
        try:
            into.add_all(json.loads("[" + text + "]"))
        except (json.JSONDecodeError, RecursionError):
            return False
    stream.pos = m.end() - 1  # at the next event's "{"
    return True


def _events(stream, found, max_events):
    """The traceEvents array's values, the "[" taken; stops before its "]". ReadError as soon
    as more than max_events are kept (a batch at a time: before the explaining)."""
    while _held(found, max_events):
        if not stream.eof and len(stream.buf) - stream.pos < CHUNK:
            stream.more()
        if _batch(stream, found):
            continue
        for _ in range(64):  # value by value: the array's end, or a batch that did not parse
            if stream.peek() == "]":
                _held(found, max_events)
                return
            found.add(stream.value())
            if stream.peek() == ",":
                stream.pos += 1


def _held(found, max_events):
    """True; ReadError where the trace has more than max_events kept events (GPU ranges counted)."""
    if len(found.events) + len(found.gpu_ranges) > max_events:
        raise ReadError(f"more than {max_events:,} events of the kinds --explain reads (GPU activities, "
                        "launch calls, ops, ranges): more than this reader holds in memory"
                        f"{' in the browser' if sys.platform == 'emscripten' else ''}; record fewer steps")
    return True


DEEP = f"JSON nested deeper than {MAX_DEPTH} levels, so not a trace written by torch.profiler"
NO_EVENTS = "JSON without a traceEvents list, so not a trace written by torch.profiler"


# Python parses no integer of more than sys.get_int_max_str_digits() digits (4,300; CVE-2020-10735)
# and json, msgspec's fallback and kineto_layout raise a plain ValueError there, anywhere in the file
LONG_NUMBER = (f"an integer of more than {sys.get_int_max_str_digits():,} digits, so not a trace written by "
               "torch.profiler")


def long_number(err):
    """True where err is Python's refusal to parse an integer of too many digits."""
    return type(err) is ValueError and "integer string conversion" in str(err)


def read_trace(path, max_chars=2 * 2**30, max_events=MAX_EVENTS):
    """The Trace in the file (at most max_chars of text and max_events kept events);
    ReadError (one line) if it is none."""
    try:
        return _read(path, max_chars, max_events)
    except ValueError as err:
        if long_number(err):
            raise ReadError(LONG_NUMBER) from None
        raise


def _read(path, max_chars, max_events):
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
            _events(stream, found, max_events)
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
