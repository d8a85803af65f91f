"""Idle time by cause, as the timeline (timeline.py) gives it: per stream and per range.

    idle_causes(timeline)   per stream (HTA's idle-time breakdown): host / stream / other
    window(...)             one range: span, busy (union over streams), idle split by cause
    busy_by(acts, key)      {key: the time its activities cover}

The causes (host, stream, other) are timeline.py's.
"""
from __future__ import annotations

import bisect
import operator
from collections import Counter

from .intervals import covered_by
from .timeline import CAUSES, gap_cause


def busy_by(acts, key):
    """{key(a): time covered by its activities}, acts sorted by start (one pass)."""
    return covered_by((key(a), a.e.ts, a.e.end) for a in acts)


def idle_causes(timeline):
    """Per stream: activities, busy time, idle time by cause, median launch delay."""
    from ...stats import stats

    rows, by_stream = [], {s: [] for s in timeline.streams}
    for a in timeline.acts:
        by_stream[a.stream].append(a)
    for s in timeline.streams:
        acts = by_stream[s]
        idle = Counter()
        for a in acts:
            if a.cause:
                idle[a.cause] += a.gap
        delays = [a.delay for a in acts if a.delay is not None]
        kinds = Counter(a.kind for a in acts)
        rows.append({"device": s[0], "stream": s[1], "activities": len(acts),
                     "busy_us": timeline.busy_us.get(s, 0),
                     "span_us": acts[-1].e.end - acts[0].e.ts if acts else 0.0,
                     "idle_us": {c: idle.get(c, 0.0) for c in CAUSES},
                     "launch_delay_us": (stats(delays) or {}).get("median"),
                     "kinds": dict(kinds)})
    return rows


_START = operator.attrgetter("e.ts")


def _one(a):
    return 0


def _stream(a):
    return a.stream


def _kind(a):
    return a.kind


def window(acts, timeline, start, host_end):
    """One range's GPU figures. acts: its activities; start: the range's start on the CPU;
    host_end: where the CPU's own work in it ends (its end less its synchronize time).

    The window runs from the range's start (or its first activity, if earlier; or, where
    the GPU ran nothing before, the trace's first activity) to its last activity's end (or
    host_end, if later). The GPU is idle in it where it runs nothing at
    all (no activity of any range, on any stream); each idle interval is "host" when the
    activity that ends it was launched after the interval began (or none comes: the CPU
    is still working in the range), "other" when it had been launched in time."""
    acts = sorted(acts, key=_START)
    first = acts[0].e.ts
    last = max(a.e.end for a in acts)
    lo, hi = min(start, first), max(last, host_end)
    stream_busy, kinds = busy_by(acts, _stream), busy_by(acts, _kind)
    own = sum(stream_busy.values()) if len(stream_busy) == 1 else busy_by(acts, _one)[0]
    idle = {c: 0.0 for c in CAUSES}
    union, starts = timeline.union, timeline.union_starts
    first_in = max(bisect.bisect_right(starts, lo) - 1, 0)  # the busy stretches in the window:
    if union[first_in][1] <= lo:                          # first_in to last_in
        first_in += 1
    last_in = bisect.bisect_left(starts, hi) - 1
    cursor, gaps = lo, []
    if first_in <= last_in:
        head = union[first_in]
        if head[0] > cursor:
            # the window opens idle: the host wait there is the wait the stream line counts,
            # the GPU idle since its earlier work ran out and the next launch issued after that
            # (timeline.gap_causes); before the trace's first activity the GPU waits for nothing
            if first_in == 0:
                lo = cursor = head[0]
            else:
                idle[timeline.gap_causes[first_in]] += head[0] - cursor
        # the idle time between the stretches, by cause, from the timeline's running sums;
        # the range's own gaps: those its activities end
        for c, before in timeline.idle_before.items():
            idle[c] += before[last_in] - before[first_in]
        opens = timeline.opens
        for a in acts:
            k = opens.get(id(a))
            if k is not None and first_in < k <= last_in:
                gone = union[k - 1][1]
                gaps.append((union[k][0] - gone, union[k - 1][3], a, timeline.gap_causes[k], gone))
        cursor = union[last_in][1]
    if hi > cursor:  # it closes idle: to its end, "host" unless the next stretch was launched
        nxt = union[last_in + 1][2] if last_in + 1 < len(union) else None
        idle["host" if nxt is None or nxt.launch is None else gap_cause(nxt, cursor)] += hi - cursor
    delays = [d for d in (a.delay for a in acts) if d is not None]
    busy = hi - lo - sum(idle.values())
    return {"span": last - first, "window": hi - lo, "busy": own, "gpu_busy": busy, "idle": idle,
            "gaps": gaps, "stream_busy": stream_busy, "kinds": kinds, "delays": delays}
