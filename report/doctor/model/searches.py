"""Searches the trace reader makes many times over one sorted list, each in O(log n), so that
no step costs the product of two of a trace's dimensions (issue 27).

    FirstAtMost(values).first(i, x)   the first index >= i whose value is <= x, or -1
    LastAtLeast(values).last(i, x)    the last index <= i whose value is >= x, or -1
    LaunchOf(launches).get(corr, ts)  the launch call of a GPU activity (its correlation id, its start)

A scan from i that stops at the first match gives the same index: these only skip, in
O(log n), the values that do not match. The searches over intervals (Cover, Spans) are
model/intervals.py's.
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
