"""Time intervals [start, end), every sweep over them the trace doctor makes, written once.

    merge(spans)           sorted, disjoint [start, end] lists: overlapping and touching spans joined
    merge_ordered(spans)   the same for spans already sorted by start (one pass, no sort)
    length(merged)         the time merged spans cover
    holes(spans, longer)   the stretches no span covers, between the first start and the last end,
                           longer than `longer`
    covered_by(rows)       {key: time its spans cover} from (key, start, end) rows sorted by start
    Cover(merged)          time of [s, t] that merged spans cover, in O(log n) per question
    Spans(spans)           whether any span, overlapping or not, holds a point, in O(log n)

A span of no length covers no time; touching spans ([1, 2] and [2, 3]) make one, with no hole.
"""
from __future__ import annotations

import bisect


def merge_ordered(spans):
    out = []
    for s, t in spans:
        if out and s <= out[-1][1]:
            if t > out[-1][1]:
                out[-1][1] = t
        else:
            out.append([s, t])
    return out


def merge(spans):
    return merge_ordered(sorted(spans))


def length(merged):
    return sum(t - s for s, t in merged)


def holes(spans, longer=0.0):
    """[(start, end)] of each stretch between spans that none covers, longer than `longer`."""
    out, reach = [], None
    for s, t in sorted(spans):
        if reach is not None and s - reach > longer:
            out.append((reach, s))
        reach = t if reach is None else max(reach, t)
    return out


def covered_by(rows):
    """{key: time covered by its spans}, rows (key, start, end) sorted by start (one pass)."""
    open_, total = {}, {}
    for k, s, t in rows:
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


class Cover:
    """Sorted, disjoint [start, end, ...] intervals with the time they cover up to each."""

    def __init__(self, intervals):
        self.starts = [iv[0] for iv in intervals]
        self.ends = [iv[1] for iv in intervals]
        total, before = 0.0, []
        for s, t in zip(self.starts, self.ends, strict=True):
            before.append(total)
            total += t - s
        self.before = before

    def upto(self, t):
        """Time covered before t."""
        i = bisect.bisect_right(self.starts, t) - 1
        if i < 0:
            return 0.0
        return self.before[i] + min(t, self.ends[i]) - self.starts[i]

    def covered(self, s, t):
        """Time of [s, t] covered (s <= t)."""
        return self.upto(t) - self.upto(s)


class Spans:
    """(start, end) pairs, overlapping or not, sorted by start with the latest end so far."""

    def __init__(self, spans):
        spans = sorted(spans)
        self.starts, self.reach, far = [s for s, _ in spans], [], float("-inf")
        for _, t in spans:
            far = t if t > far else far
            self.reach.append(far)

    def holds(self, x):
        i = bisect.bisect_right(self.starts, x) - 1
        return i >= 0 and self.reach[i] >= x
