"""Grouped-query attention written out: K and V repeated to the query's head count by hand
before scaled_dot_product_attention (transformers' repeat_kv: expand then reshape, which
copies; or torch.repeat_interleave), where SDPA takes the fewer K/V heads itself with
enable_gqa=True (torch.nn.functional.scaled_dot_product_attention, torch 2.5 and later).

    repeated_kv(events, timeline, activity_us)   {calls, repeats, gpu_us, share, q_heads, op},
                                                  or None where no call has one

A repeat is an aten::repeat_interleave, or an aten::expand whose next op copies
(aten::reshape, aten::clone, aten::contiguous), among the last LOOK_BACK top-level ops on
the thread before an SDPA call, after the one before it; a call counts with two or more
(K and V), where its recorded inputs (if recorded) have as many K/V heads as query heads and
enable_gqa off. The trace reader keeps no inputs of the repeat itself (trace/reading/events.py
keeps SDPA's and the matmuls'), so the K/V heads before it are not known. Its GPU time: the
activities launched inside the repeats and copies. O(n log n) in the trace's ops.
"""
from __future__ import annotations

import bisect

from ..model.intervals import Spans
from ..model.sdpa_inputs import sdpa_inputs

SDPA = "aten::scaled_dot_product_attention"
REPEAT = "aten::repeat_interleave"
EXPAND = "aten::expand"
COPIES = {"aten::reshape", "aten::clone", "aten::contiguous"}  # an expanded tensor made whole: a copy
LOOK_BACK = 12  # top-level ops before the call searched: the K/V repeat sits right before it


def _top(ops):
    """The outermost of nested ops (by start, the longest first)."""
    ops.sort(key=lambda e: (e.ts, -e.dur))
    top, end = [], float("-inf")
    for e in ops:
        if e.ts >= end:
            top.append(e)
            end = e.end
    return top


def _repeats(window):
    """[(op, the ops that copy)] of K/V repeats among the ops before one call."""
    found = []
    for i, e in enumerate(window):
        if e.name == REPEAT:
            found.append((e, [e]))
        elif e.name == EXPAND and i + 1 < len(window) and window[i + 1].name in COPIES:
            found.append((e, [e, window[i + 1]]))
    return found


def repeated_kv(events, timeline, activity_us):
    by_tid = {}
    for e in events:
        if e.cat == "cpu_op":
            by_tid.setdefault(e.tid, []).append(e)
    calls, repeats, spans, heads, op = 0, 0, {}, None, None
    for tid, ops in by_tid.items():
        top = _top(ops)
        starts = [e.ts for e in top]
        previous_end = float("-inf")
        for k, call in enumerate(top):
            if call.name != SDPA:
                continue
            x = sdpa_inputs(call.args)
            lo = max(bisect.bisect_left(starts, previous_end), k - LOOK_BACK)
            previous_end = call.end
            if x is not None and (x.enable_gqa or not x.heads or x.heads[0] != x.heads[1]):
                continue  # SDPA repeats K/V itself (enable_gqa), or the heads differ: no repeat by hand
            found = _repeats(top[lo:k])
            if len(found) < 2:
                continue  # K and V both: one repeat alone may be a mask's
            calls += 1
            repeats += len(found)
            for r, copy in found:
                spans.setdefault(tid, []).extend((c.ts, c.end) for c in copy)
                op = op or r.name
            if heads is None and x is not None:
                heads = x.heads[0]
    if not calls:
        return None
    inside = {tid: Spans(s) for tid, s in spans.items()}
    gpu = sum(a.e.dur for a in timeline.acts if a.launch is not None and a.launch.tid in inside
              and inside[a.launch.tid].holds(a.launch.ts))
    return {"calls": calls, "repeats": repeats, "gpu_us": gpu, "share": gpu / activity_us if activity_us else 0.0,
            "q_heads": heads, "op": op}
