"""What a timeline of a trace draws, before any drawing: its pieces (the ProfilerStep
ranges, or windows of GPU activities in a trace without them) and, for one piece, a Panel:
lanes, events, idle gaps by cause, launch links and the stretches with nothing to draw.
output/svg.py draws Panels as SVG. Standard library only (the page's reader runs it in
Pyodide).

    pieces(trace, timeline)    a Trace's Pieces, and the one drawn first (the step whose
                               kernel time is the median, else the first window), from
                               the trace's Timeline where the caller has it
    panel(pieces, i, label)    the Panel of piece i (count pieces in a row)
    namer(founds)              the short name each GPU activity is drawn with
"""
from __future__ import annotations

from ...trace.names import LAUNCH_CATS, short_kernel_name
from ..model.intervals import holes
from ..model.short_names import brief_names
from ..model.steps import Launched, steps
from ..model.timeline import ALL_SYNC_CALLS, Timeline

WINDOW_ACTS = 40  # GPU activities in a window of a trace without ProfilerStep ranges
MAX_DEPTH = 6  # op lanes; deeper ops are not drawn
MAX_OPS = 400  # the longest ops of a piece are drawn, at most this many
MAX_ACTS = 400
HOLE_SHARE, HOLE_US = 0.2, 50.0  # a stretch of nothing drawn this long is cut (svg: BREAK_PX)
KIND = {"kernel": "kernel", "gpu_memcpy": "memcpy", "gpu_memset": "memset"}


class Piece:
    """What one panel draws: [lo, hi] in the trace's µs, its GPU activities (those launched
    in it), and its name (the step's, or the window's number)."""
    __slots__ = ("lo", "cpu_hi", "hi", "acts", "step", "kernel_us", "tid")

    def __init__(self, lo, hi, acts, step, tid):
        self.lo, self.cpu_hi, self.acts, self.step, self.tid = lo, hi, acts, step, tid
        self.hi = max([hi] + [a.e.end for a in acts])
        self.kernel_us = sum(a.e.dur for a in acts)


class Pieces:
    """A trace's pieces (by time), the timeline they come from and the one drawn first. A step's
    GPU activities are those model/steps.py gives it, as explain.py's figures count them."""

    def __init__(self, events, timeline=None):
        self.events = events
        self.timeline = timeline = Timeline(events) if timeline is None else timeline
        self.launched = {}  # id of a launch call -> how many GPU activities it launched
        for a in timeline.acts:
            if a.launch is not None:
                self.launched[id(a.launch)] = self.launched.get(id(a.launch), 0) + 1
        found = steps(events)
        self.items = []
        if found:
            per_step = Launched(timeline.acts).within([(s.ts, s.dur) for s in found])
            for s, acts in zip(found, per_step, strict=True):
                self.items.append(Piece(s.ts, s.end, acts, s.name, s.tid))
            worked = [i for i, p in enumerate(self.items) if p.acts] or list(range(len(self.items)))
            ranked = sorted(worked, key=lambda i: (self.items[i].kernel_us, i))
            self.default, self.counted = ranked[(len(ranked) - 1) // 2], len(ranked)
        else:
            acts = sorted(timeline.acts, key=lambda a: a.launch.ts if a.launch is not None else a.e.ts)
            for i in range(0, len(acts), WINDOW_ACTS):
                group = acts[i:i + WINDOW_ACTS]
                lo = min(a.launch.ts if a.launch is not None else a.e.ts for a in group)
                tids = [a.launch.tid for a in group if a.launch is not None]
                tid = max(set(tids), key=tids.count) if tids else None
                hi = max(a.launch.end if a.launch is not None else a.e.ts for a in group)
                self.items.append(Piece(lo, hi, group, None, tid))
            self.default, self.counted = 0, len(self.items)
        self.steps = bool(found)


def pieces(trace, timeline=None):
    """The Pieces of a Trace (report/trace/reading/stream.py's), from its Timeline where the caller
    has built it (explain.py's: trace-doctor --svg reads the file once); ValueError where it holds
    no GPU activity."""
    found = Pieces(trace.events, timeline)
    if not found.items:
        raise ValueError("no GPU activity to draw")
    return found


class Item:
    """One drawn event: its lane (an index into Panel.lanes), its class, names and times (µs
    from the panel's start)."""
    __slots__ = ("lane", "cls", "name", "full", "start", "dur", "act")

    def __init__(self, lane, cls, name, full, start, dur, act=None):
        self.lane, self.cls, self.name, self.full = lane, cls, name, full
        self.start, self.dur, self.act = start, dur, act


class Panel:
    """One piece's lanes (("ops", depth) / ("runtime",) / ("stream", stream)) and events,
    its idle gaps (start, length, cause, the activity after it), links (launch item,
    activity item) and fans (launch item, [its activity items]: a launch call with more
    than one activity drawn, a CUDA graph's replay). A runtime call's class: "s" a
    synchronize, "l" one that launched a GPU activity, "r" any other."""

    def __init__(self, found, i, label, count=1, short=short_kernel_name):
        first, last = found.items[i], found.items[min(i + count, len(found.items)) - 1]
        piece = first if last is first else Piece(first.lo, last.cpu_hi, [
            a for p in found.items[i:i + count] for a in p.acts], f"{first.step}–{last.step}", first.tid)
        self.label, self.piece, self.span = label, piece, piece.hi - piece.lo
        if not piece.step:
            self.heading = ("window", {"i": i + 1, "n": len(found.items), "acts": len(piece.acts)})
        elif last is first:
            self.heading = ("step", {"step": piece.step, "n": found.counted})
        else:
            self.heading = ("steps", {"step": piece.step, "count": count, "n": found.counted})
        lo, hi, tid = piece.lo, piece.cpu_hi, piece.tid  # the CPU's events: those that start in it
        launch_ids = {id(a.launch) for a in piece.acts if a.launch is not None}
        ops, runtime = [], []
        for e in found.events:
            if e.ts < lo or e.ts > hi:
                continue
            if e.cat in ("cpu_op", "user_annotation") and e.tid == tid:
                ops.append(e)
            elif e.cat in LAUNCH_CATS and (e.tid == tid or id(e) in launch_ids):
                runtime.append(e)
        ops = _nested(ops)
        if len(ops) > MAX_OPS:
            ops = sorted(sorted(ops, key=lambda x: -x[1].dur)[:MAX_OPS], key=lambda x: (x[1].ts, x[0]))
        depths = sorted({d for d, _ in ops})
        self.lanes = [("ops", d) for d in depths] + [("runtime",)]
        streams = sorted({a.stream for a in piece.acts}, key=str)
        self.lanes += [("stream", s) for s in streams]
        at = {lane: n for n, lane in enumerate(self.lanes)}
        self.items = [Item(at[("ops", d)], "o", e.name, e.name, e.ts - lo, e.dur) for d, e in ops]
        by_launch = {}
        for e in sorted(runtime, key=lambda e: e.ts):
            cls = "s" if e.name in ALL_SYNC_CALLS else "l" if id(e) in found.launched else "r"
            item = Item(at[("runtime",)], cls, e.name, e.name, e.ts - lo, e.dur)
            self.items.append(item)
            by_launch[id(e)] = item
        self.links, self.gaps = [], []
        acts = piece.acts[:MAX_ACTS]
        mine = {id(a) for a in acts}
        for a in acts:
            item = Item(at[("stream", a.stream)], KIND[a.e.cat], short(a.e.name), a.e.name,
                        a.e.ts - lo, a.e.dur, a)
            self.items.append(item)
            if a.launch is not None and id(a.launch) in by_launch:
                self.links.append((by_launch[id(a.launch)], item))
            if a.cause and a.prev is not None and id(a.prev) in mine:
                cause = a.cause
                if cause == "host" and found.timeline.opener(a.prev.e.end, a.launch) == "a profiler step (prof.step())":
                    cause = "profiler"
                self.gaps.append((a.prev.e.end - lo, a.gap, cause, item))
        by_item = {}
        for launch, item in self.links:
            by_item.setdefault(id(launch), (launch, []))[1].append(item)
        self.fans = [(launch, items) for launch, items in by_item.values() if len(items) > 1]
        self.breaks = _holes([(i.start, i.start + i.dur) for i in self.items], self.span)
        self.shown = self.span - sum(b - a for a, b in self.breaks)


def _holes(intervals, span):
    """Stretches with nothing drawn longer than HOLE_SHARE of the span (and HOLE_US)."""
    return holes(intervals, max(HOLE_SHARE * span, HOLE_US))


def _nested(ops):
    """[(depth, op)] by start: an op's depth is the number of ops open around it; at most MAX_DEPTH."""
    out, open_ = [], []
    for e in sorted(ops, key=lambda e: (e.ts, -e.dur)):
        while open_ and open_[-1].end <= e.ts:
            open_.pop()
        if len(open_) < MAX_DEPTH:
            out.append((len(open_), e))
        open_.append(e)
    return out


def namer(founds):
    """The name a drawing gives each GPU activity of these Pieces: the tables' short name for a
    long generated name (short_names.brief, none shown twice), else names.short_kernel_name."""
    briefs = brief_names([a.e.name for found in founds for p in found.items for a in p.acts])
    return lambda name: briefs.get(name) or short_kernel_name(name)


def panel(found, i, label, count=1, short=short_kernel_name):
    """Panel of `count` pieces from the i-th (one step, or steps in a row), kernel names by short()."""
    return Panel(found, i, label, count, short)
