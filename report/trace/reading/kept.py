"""What the reader keeps of a trace: the Trace (its kept events, top-level fields, categories
and the GPU's side of record_function ranges), the rules that keep an event, applied to
json's dicts (Trace.add_all) and to msgspec's Structs (Trace.add_structs) alike, and
from_dict, the Trace of a trace already loaded as a dict. stream.py fills a Trace from a
file a batch at a time; kineto_layout.py keeps the same events by its own pattern.
"""
from __future__ import annotations

import sys

from ..names import GPU_CATS, LAUNCH_CATS
from . import msgspec_decoder
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

NO_EVENTS = "JSON without a traceEvents list, so not a trace written by torch.profiler"


class ReadError(ValueError):
    """The file is no readable trace; the message is one line (without the path)."""


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
