"""Searches the trace reader makes many times over one sorted list, each in O(log n), so that
no step costs the product of two of a trace's dimensions (issue 27).

    FirstAtMost(values).first(i, x)   the first index >= i whose value is <= x, or -1
    LastAtLeast(values).last(i, x)    the last index <= i whose value is >= x, or -1
    Cover(intervals)                  time of [s, t] that sorted, disjoint intervals cover
    Spans(spans).holds(x)             whether any (s, t) of spans, in any order, has s <= x <= t
    LaunchOf(launches).get(corr, ts)  the launch call of a GPU activity (its correlation id, its start)

A scan from i that stops at the first match gives the same index: these only skip, in
O(log n), the values that do not match.
"""
from __future__ import annotations

import bisect

_INF = float("inf")


class FirstAtMost:
    """A segment tree of minima over values."""

    def __init__(self, values):
        n = 1
        while n < len(values):
            n *= 2
        tree = [_INF] * (2 * n)
        tree[n:n + len(values)] = values
        for k in range(n - 1, 0, -1):
            a, b = tree[2 * k], tree[2 * k + 1]
            tree[k] = a if a <= b else b
        self.n, self.size, self.tree = n, len(values), tree

    def first(self, i, x):
        if i < 0:
            i = 0
        if i >= self.size:
            return -1
        tree, n, k = self.tree, self.n, i + self.n
        while not tree[k] <= x:  # on to the next subtree to the right
            while k & 1:
                k >>= 1
            if k == 0:
                return -1
            k += 1
        while k < n:
            k = 2 * k if tree[2 * k] <= x else 2 * k + 1
        return k - n


class LastAtLeast:
    """FirstAtMost over the values negated, in reverse."""

    def __init__(self, values):
        self.size, self._tree = len(values), FirstAtMost([-v for v in reversed(values)])

    def last(self, i, x):
        if i >= self.size:
            i = self.size - 1
        if i < 0:
            return -1
        j = self._tree.first(self.size - 1 - i, -x)
        return -1 if j < 0 else self.size - 1 - j


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


class LaunchOf:
    """The launch call of a GPU activity, by its correlation id. Kineto gives each launch call
    an id of its own; where a trace repeats one (ids merged from two traces, or made up), the
    activity belongs to the last call of that id that began by its own start (the first call,
    where none did), found by bisection: never to a call that began after it ran, which gave
    the delay of 2,000 launches on one id as -199,900 µs."""

    def __init__(self, launches):
        self.one, repeated = {}, {}
        for e in launches:
            if e.corr is None:
                continue
            if e.corr in self.one:
                repeated.setdefault(e.corr, [self.one[e.corr]]).append(e)
            else:
                self.one[e.corr] = e
        self.repeated = {}
        for corr, calls in repeated.items():
            calls.sort(key=lambda e: e.ts)
            self.repeated[corr] = ([e.ts for e in calls], calls)

    def get(self, corr, ts):
        found = self.repeated.get(corr)
        if found is None:
            return self.one.get(corr)
        starts, calls = found
        return calls[max(bisect.bisect_right(starts, ts) - 1, 0)]
