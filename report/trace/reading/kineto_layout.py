"""The pure-Python reader of a batch of trace events written in Kineto's own layout (its
keys in its order, its spacing): stream.py reads a batch by it where msgspec
(msgspec_decoder.py) is missing or rejects the batch, and by json where this declines it.

    read(text, found)  keep the batch's events into the Trace `found` (its GPU ranges into
                       found.gpu_ranges); False, having kept nothing, where some complete
                       event of the batch is laid out otherwise

A regular expression reads each complete event's head (category, name, ids, times) and
json only the args of GPU activities, launch calls and the ops whose inputs are kept, each distinct one once (a kernel's
args differ from the last kernel's only in their ids): the events kept, with their fields,
are those json's reading keeps (tests/test_explain_read.py, tests/test_explain_cases.py).
"""
from __future__ import annotations

import json
import re
import sys

from ..names import GPU_CATS, LAUNCH_CATS
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

_DECODER = json.JSONDecoder()

# the head of a complete event as Kineto writes it (keys in this order, its spacing); read()
# reads a batch by this pattern when every complete event in it (_X, which allows any
# spacing) has this head, else declines it
_HEAD = re.compile(r'"ph": ?"X", ?"cat": ?"([^"\\]*)", ?"name": ?"([^"\\]*(?:\\.[^"\\]*)*)", ?'
                   r'"pid": ?(-?\d+|"[^"\\]*"), ?"tid": ?(-?\d+|"[^"\\]*"),\s*'
                   r'"ts": ?(-?[0-9.]+(?:[eE][-+]?\d+)?), ?"dur": ?(-?[0-9.]+(?:[eE][-+]?\d+)?)')
_X = re.compile(r'"ph":\s*"X"')
_CAT = re.compile(r'"cat":\s*"([^"\\]*(?:\\.[^"\\]*)*)"')
_ARGS = re.compile(r'\s*,\s*"args":\s*\{')
_CLOSE = re.compile(r'[ \t\n\r]*\}')
# an args key whose value is cut out of the cache key: a JSON integer, then "," or "}"
_VOLATILE = re.compile(r'"(External id|correlation)":[ \t\n\r]*(-?(?:0|[1-9][0-9]*))(?=[ \t\n\r]*[,}])')


def read(text, found):
    """Keep the batch's complete events read by _HEAD alone (the args of GPU activities by
    json); False, having kept nothing, when some complete event has another layout."""
    heads = list(_HEAD.finditer(text))
    if not heads or len(heads) != len(_X.findall(text)):
        return False
    try:  # the batch ends with complete events: from the last head on, it parses exactly
        json.loads("[" + text[text.rfind("{", 0, heads[-1].start()):] + "]")
    except (json.JSONDecodeError, RecursionError):
        return False
    events, ranges, aliases, intern = [], [], CAT_ALIASES, sys.intern
    ids, pool, flat = {}, found.pool, found.flat_args
    for m in heads:
        raw, name, pid, tid, ts, dur = m.groups()
        cat = aliases.get(raw) or aliases.get(raw.lower())
        if cat is None:
            continue
        ts, dur = float(ts), float(dur)  # digits only: a huge one is inf, never an error
        if not (MIN_DUR_US <= dur <= MAX_TIME_US or dur == 0) or not -MAX_TIME_US <= ts <= MAX_TIME_US:
            continue
        if "\\" in name:
            name = json.loads('"' + name + '"')
        pid = ids.get(pid) or ids.setdefault(pid, pid[1:-1] if pid[0] == '"' else int(pid))
        tid = ids.get(tid) or ids.setdefault(tid, tid[1:-1] if tid[0] == '"' else int(tid))
        if cat == GPU_RANGE:
            ranges.append(Event(cat, intern(name), ts, dur, pid, tid, None, None))
            continue
        kept, corr = None, None
        if cat in GPU_CATS or cat in LAUNCH_CATS:
            got = _args(text, m.end(), cat in GPU_CATS, pool, flat)
            if got is None:
                return False
            kept, corr = got
        elif cat == "cpu_op" and name in INPUT_OPS:
            got = _inputs(text, m.end(), name)
            if got is False:
                return False
            kept = got
        events.append(Event(cat, intern(name), ts, dur, pid, tid, corr, kept))
    found.events += events
    found.gpu_ranges += ranges
    found.categories.update(c if "\\" not in c else json.loads(f'"{c}"') for c in _CAT.findall(text))
    return True


def _inputs(text, at, name=None):
    """The recorded inputs of an op of INPUT_OPS whose head ends at `at` (json reads its args);
    False where the event goes on otherwise than with its args and "}"."""
    a = _ARGS.match(text, at)
    if a is None:
        return None if _CLOSE.match(text, at) else False
    try:
        args, stop = _DECODER.raw_decode(text, a.end() - 1)
    except (json.JSONDecodeError, RecursionError):
        return False
    if not _CLOSE.match(text, stop):
        return False
    return inputs(args, name) if type(args) is dict else None


def _args(text, at, gpu, pool, flat):
    """(launch resources or None, correlation) of the event whose head ends at `at`, as
    Trace.add_all keeps them; None where the event goes on otherwise than with its args and "}".

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
