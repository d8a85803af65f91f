"""The profiler's steps, and which GPU activities belong to a range: the doctor's one rule,
which explain.py (each range's figures), rules/diagnose.py (the pace's spans), model/timeline.py
(a step's boundary as what opened an idle gap) and output/svg_pieces.py (the steps it draws)
all read.

    STEP_NAME              the name the profiler's steps go by together: ProfilerStep#*
    FIRST_STEP_OUT         with this many steps or more, the figures leave the first out
    is_step(name)          a profiler step's range name: ProfilerStep#<n>, nothing else
    range_name(name)       the name a range is grouped by: every step's is STEP_NAME
    steps(events)          the profiler's step ranges (user_annotation), by start
    first_left_out(n, k)   whether the figures of k ranges named n leave the first out
    Launched(acts)         the activities with a launch call, by the call's start;
                           .within(ranges) those launched in each (start, duration)
    within(acts, starts, ranges)   the same of any items by their launch's start

A GPU activity belongs to a range when the CPU call that launched it starts in the range, both
ends included: one launched where two ranges touch belongs to both. Where ranges of one name
nest, each activity belongs to one of them alone: the innermost (the shortest that holds the
launch, the later of equal ones). An activity
without a launch call belongs to no range. Of three or more profiler steps the figures leave the
first out (it holds the profiler's start: the first launches, Kineto's buffer requests); a
drawing draws every step.

The measuring code keeps a copy of its own: report/trace/analyze.py (step_finder,
activities_per_step: the ranges of one exact name, a launch given to the first range by start
that holds it), which differs from this one where ranges touch or nest, and knows no
ProfilerStep#*. Its bytes are hashed into every committed GPU run (results.code_hashes), so it
stays as it is until the next re-measurement; then this rule moves down into report/trace/
(which the doctor imports and measurement may import; measurement never imports the doctor),
and analyze.py reads it.
"""
from __future__ import annotations

import bisect
import heapq
import re

STEP = re.compile(r"ProfilerStep#\d+")
STEP_NAME = "ProfilerStep#*"
FIRST_STEP_OUT = 3


def is_step(name):
    """Whether a range of this name is one of the profiler's steps (prof.step()'s ProfilerStep#<n>)."""
    return STEP.fullmatch(name) is not None


def range_name(name):
    """The name a range is grouped by: STEP_NAME for every step, else its own."""
    return STEP_NAME if is_step(name) else name


def steps(events):
    """The profiler's step ranges (cat user_annotation), by start."""
    return sorted((e for e in events if e.cat == "user_annotation" and is_step(e.name)), key=lambda e: e.ts)


def first_left_out(name, count):
    """Whether the figures of `count` ranges named `name` leave the first out: the profiler's steps,
    FIRST_STEP_OUT or more of them."""
    return name == STEP_NAME and count >= FIRST_STEP_OUT


class Launched:
    """The activities (model/timeline.py's) with a launch call, by the call's start."""

    def __init__(self, acts):
        self.acts = sorted((a for a in acts if a.launch is not None), key=lambda a: a.launch.ts)
        self.starts = [a.launch.ts for a in self.acts]

    def within(self, ranges):
        """The activities launched in each range ([(start, duration)] by start): within()."""
        return within(self.acts, self.starts, ranges)


def within(acts, starts, ranges):
    """acts (by the start of their launch calls, `starts`) per range ([(start, duration)] by
    start): each range's in one search where no two ranges nest, else in one sweep over ranges
    and launches (of nested ranges the innermost holds the activity)."""
    nested = any(ranges[i][0] < ranges[i - 1][0] + ranges[i - 1][1] for i in range(1, len(ranges)))
    if not nested:
        return [acts[bisect.bisect_left(starts, ts):bisect.bisect_right(starts, ts + dur)] for ts, dur in ranges]
    out, open_, i = [[] for _ in ranges], [], 0
    for j, ts in enumerate(starts):
        while i < len(ranges) and ranges[i][0] <= ts:
            start, dur = ranges[i]
            heapq.heappush(open_, (dur, -i, start + dur))
            i += 1
        while open_ and open_[0][2] < ts:
            heapq.heappop(open_)
        if open_:
            out[-open_[0][1]].append(acts[j])
    return out
