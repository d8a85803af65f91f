"""The GPU's timeline in a trace: launches, streams, busy time and why the GPU was idle.

    Timeline(events)        activities with their launch call, op stack and stream, sorted
    idle_causes(timeline)   per stream (HTA's idle-time breakdown): host / stream / other
    window(...)             one range: span, busy (union over streams), idle split by cause

Idle causes, for the idle time before an activity on its stream (or on the whole GPU):
    host    its launch call began after the GPU had run out of work: the GPU waited for the
            host to issue it (HTA's "host wait")
    stream  it had been launched in time, and another stream ran meanwhile: it waited on
            work on another stream (an event, a stream wait)
    other   it had been launched in time and nothing ran: launch latency, a dependency
This follows Holistic Trace Analysis' idle-time breakdown (hta/analyzers/breakdown_analysis.py,
BreakdownAnalysis._analyze_idle_time_for_stream: "host wait" when the kernel's runtime call
starts after the previous kernel on the stream ends); HTA's "kernel wait" (a gap under a
threshold) is part of "other" here, and "stream" is this module's own.
"""
from __future__ import annotations

import bisect
from collections import Counter

from .explain_read import GPU_CATS, LAUNCH_CATS

# CPU calls that wait for the GPU: their time is not work the CPU had to do; ROCm's are the
# same names with "hip" for "cuda"
SYNC_CALLS = ("cudaDeviceSynchronize", "cudaStreamSynchronize", "cudaEventSynchronize",
              "cuCtxSynchronize", "cuStreamSynchronize", "cuEventSynchronize", "cudaMemcpy")
ALL_SYNC_CALLS = frozenset(SYNC_CALLS + tuple("hip" + c[4:] for c in SYNC_CALLS if c.startswith("cuda")))
# the ATen operations that wait for the GPU because the host needs a value
HOST_READS = {"aten::item": ".item()", "aten::_local_scalar_dense": ".item()",
              "aten::to": "a copy to the host (.cpu(), .to())", "aten::_to_copy": "a copy to the host (.cpu(), .to())",
              "aten::copy_": "a copy to the host (.cpu(), .to())", "aten::nonzero": "aten::nonzero (its size)"}
CAUSES = ("host", "stream", "other")


_KINDS = {}


def kind_of(e):
    """compute, communication (NCCL/RCCL collectives) or memory (copies and sets)."""
    if e.cat != "kernel":
        return "memory"
    found = _KINDS.get(e.name)
    if found is None:
        low = e.name.lower()
        found = _KINDS[e.name] = "communication" if "nccl" in low or "rccl" in low else "compute"
    return found


def merged(intervals):
    """Sorted, non-overlapping (start, end) covering the same time."""
    out = []
    for s, t in sorted(intervals):
        if out and s <= out[-1][1]:
            if t > out[-1][1]:
                out[-1][1] = t
        else:
            out.append([s, t])
    return out


def busy_by(acts, key):
    """{key(a): time covered by its activities}, acts sorted by start (one pass)."""
    open_, total = {}, {}
    for a in acts:
        k, s, t = key(a), a.e.ts, a.e.end
        cur = open_.get(k)
        if cur is None or s > cur[1]:
            if cur is not None:
                total[k] = total.get(k, 0.0) + cur[1] - cur[0]
            open_[k] = [s, t]
        elif t > cur[1]:
            cur[1] = t
    for k, (s, t) in open_.items():
        total[k] = total.get(k, 0.0) + t - s
    return total


def covered(merged_list, s, t, starts=None):
    """Time of [s, t] that a merged interval list covers."""
    starts = starts if starts is not None else [a for a, _ in merged_list]
    i, total = max(bisect.bisect_right(starts, s) - 1, 0), 0.0
    while i < len(merged_list) and merged_list[i][0] < t:
        a, b = merged_list[i][0], merged_list[i][1]
        total += max(0.0, min(b, t) - max(a, s))
        i += 1
    return total


def _op_stacks(events, launches):
    """launch -> the names of the cpu_ops open on its thread at its start, outermost first
    (one sweep per thread; equal stacks are shared)."""
    by_tid = {}
    for i, e in enumerate(events):
        if e.cat == "cpu_op":
            by_tid.setdefault(e.tid, []).append((e.ts, 0, -e.dur, i, e))
    for i, e in enumerate(launches):
        by_tid.setdefault(e.tid, []).append((e.ts, 1, 0.0, i, e))
    stacks, shared = {}, {}
    for items in by_tid.values():
        items.sort()  # by start; at one start ops before launches, the longer op first
        open_ops = []
        for ts, is_launch, _, _, e in items:
            while open_ops and open_ops[-1].ts + open_ops[-1].dur < ts:
                open_ops.pop()
            if is_launch:
                names = tuple(op.name for op in open_ops)
                stacks[id(e)] = shared.setdefault(names, names)
            else:
                open_ops.append(e)
    return stacks


class Activity:
    """A GPU activity with what the explanation reads off it."""
    __slots__ = ("e", "launch", "stack", "stream", "kind", "gap", "cause", "prev")

    def __init__(self, e, launch, stack, stream):
        self.e, self.launch, self.stack, self.stream = e, launch, stack, stream
        self.kind, self.gap, self.cause, self.prev = kind_of(e), 0.0, None, None

    @property
    def op(self):
        return self.stack[-1] if self.stack else None

    @property
    def delay(self):
        """From the end of its launch call to its start (None without a launch call)."""
        return None if self.launch is None else self.e.ts - self.launch.end


class Timeline:
    """Every GPU activity of the trace, by start, with its launch call and stream."""

    def __init__(self, events):
        gpu = [e for e in events if e.cat in GPU_CATS]
        launches = [e for e in events if e.cat in LAUNCH_CATS]
        by_corr = {e.corr: e for e in launches if e.corr is not None}
        stacks = _op_stacks(events, launches)
        self.acts = []
        for e in sorted(gpu, key=lambda e: (e.ts, e.end)):
            launch = by_corr.get(e.corr) if e.corr is not None else None
            stream = (e.args.get("device", e.pid), e.args.get("stream", e.tid))
            self.acts.append(Activity(e, launch, stacks.get(id(launch), ()) if launch else (), stream))
        self.syncs = sorted((e for e in launches if e.name in ALL_SYNC_CALLS), key=lambda e: e.end)
        self.sync_ends = [e.end for e in self.syncs]
        self.host_reads = sorted(((e.ts, e.end, HOST_READS[e.name], e.tid) for e in events
                                  if e.cat == "cpu_op" and e.name in HOST_READS), key=lambda x: x[0])
        self.steps = sorted(e.ts for e in events if e.cat == "user_annotation"
                            and e.name.startswith("ProfilerStep#"))
        self.streams = sorted({a.stream for a in self.acts}, key=str)
        self.busy = {s: merged((a.e.ts, a.e.end) for a in self.acts if a.stream == s) for s in self.streams}
        self.union = []  # [start, end, first activity, activity that ends it]: the GPU running anything
        for a in self.acts:
            if self.union and a.e.ts <= self.union[-1][1]:
                if a.e.end > self.union[-1][1]:
                    self.union[-1][1], self.union[-1][3] = a.e.end, a
            else:
                self.union.append([a.e.ts, a.e.end, a, a])
        self.union_starts = [u[0] for u in self.union]
        self._idle_per_stream()

    def _idle_per_stream(self):
        """Each activity's idle gap before it on its stream and the gap's cause."""
        others = {}
        for s in self.streams:
            rest = merged(iv for t in self.streams if t != s for iv in self.busy[t])
            others[s] = (rest, [a for a, _ in rest])
        last = {}
        for a in self.acts:
            prev = last.get(a.stream)
            if prev is not None and a.e.ts > prev.e.end:
                a.gap, a.prev = a.e.ts - prev.e.end, prev
                a.cause = self._cause(a, prev.e.end, others[a.stream])
            if prev is None or a.e.end > prev.e.end:
                last[a.stream] = a

    def _cause(self, a, idle_from, others):
        if a.launch is not None and a.launch.ts > idle_from:
            return "host"
        rest, starts = others
        if rest and covered(rest, idle_from, a.e.ts, starts) >= 0.5 * (a.e.ts - idle_from):
            return "stream"
        return "other"

    def opener(self, idle_from, launch):
        """What made the host issue `launch` only after the GPU ran dry at idle_from: a
        synchronize call or an op that reads a value on the host, or a profiler step."""
        if launch is None:
            return None
        i = bisect.bisect_left(self.sync_ends, idle_from - 1.0)
        while i < len(self.syncs) and self.syncs[i].end <= launch.ts:
            sync = self.syncs[i]
            if sync.tid == launch.tid and sync.ts <= idle_from + 1.0:
                return self._read_around(sync) or sync.name
            i += 1
        j = bisect.bisect_right(self.steps, idle_from)
        if j < len(self.steps) and self.steps[j] <= launch.ts:
            return "a profiler step (prof.step())"
        return None

    def _read_around(self, sync):
        starts = [r[0] for r in self.host_reads]
        i = bisect.bisect_right(starts, sync.ts) - 1
        while i >= 0:
            ts, end, what, tid = self.host_reads[i]
            if tid == sync.tid and end >= sync.end:
                return f"{sync.name} in {what}"
            if sync.ts - ts > 1e7:
                break
            i -= 1
        return None


def idle_causes(timeline):
    """Per stream: activities, busy time, idle time by cause, median launch delay."""
    from .stats import stats

    rows = []
    for s in timeline.streams:
        acts = [a for a in timeline.acts if a.stream == s]
        idle = Counter()
        for a in acts:
            if a.cause:
                idle[a.cause] += a.gap
        delays = [a.delay for a in acts if a.delay is not None]
        kinds = Counter(a.kind for a in acts)
        rows.append({"device": s[0], "stream": s[1], "activities": len(acts),
                     "busy_us": sum(b - a for a, b in timeline.busy[s]),
                     "span_us": acts[-1].e.end - acts[0].e.ts if acts else 0.0,
                     "idle_us": {c: idle.get(c, 0.0) for c in CAUSES},
                     "launch_delay_us": (stats(delays) or {}).get("median"),
                     "kinds": dict(kinds)})
    return rows


def _start(a):
    return a.e.ts


def _stream(a):
    return a.stream


def _kind(a):
    return a.kind


def _one(a):
    return 0


def window(acts, timeline, start, host_end):
    """One range's GPU figures. acts: its activities; start: the range's start on the CPU;
    host_end: where the CPU's own work in it ends (its end less its synchronize time).

    The window runs from the range's start (or its first activity, if earlier) to its last
    activity's end (or host_end, if later). The GPU is idle in it where it runs nothing at
    all (no activity of any range, on any stream); each idle interval is "host" when the
    activity that ends it was launched after the interval began (or none comes: the CPU
    is still working in the range), "other" when it had been launched in time."""
    first = min(a.e.ts for a in acts)
    last = max(a.e.end for a in acts)
    lo, hi = min(start, first), max(last, host_end)
    acts = sorted(acts, key=_start)
    stream_busy = busy_by(acts, _stream)
    own = sum(stream_busy.values()) if len(stream_busy) == 1 else busy_by(acts, _one)[0]
    kinds = busy_by(acts, _kind)
    idle = {c: 0.0 for c in CAUSES}
    gaps, mine = [], {id(a) for a in acts}
    union, starts = timeline.union, timeline.union_starts
    i = max(bisect.bisect_right(starts, lo) - 1, 0)
    cursor, prev = lo, None
    while True:
        nxt = union[i] if i < len(union) and union[i][0] < hi else None
        gap_end = hi if nxt is None else nxt[0]
        if gap_end > cursor:
            opener = nxt[2] if nxt is not None else None
            cause = "host" if opener is None or opener.launch is None or opener.launch.ts > cursor else "other"
            if opener is None and i < len(union) and union[i][2].launch is not None:
                cause = "host" if union[i][2].launch.ts > cursor else "other"
            idle[cause] += gap_end - cursor
            if prev is not None and opener is not None and id(opener) in mine:
                gaps.append((gap_end - cursor, prev, opener, cause, cursor))
        if nxt is None:
            break
        if nxt[1] > cursor:
            cursor, prev = nxt[1], nxt[3]
        i += 1
    delays = [a.delay for a in acts if a.delay is not None]
    busy = hi - lo - sum(idle.values())
    return {"span": last - first, "window": hi - lo, "busy": own, "gpu_busy": busy, "idle": idle,
            "gaps": gaps, "stream_busy": stream_busy, "kinds": kinds, "delays": delays}
