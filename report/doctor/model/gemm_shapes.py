"""The shapes a GEMM kernel's op recorded (record_shapes=True): the innermost matmul op
(aten::mm, addmm, bmm, baddbmm, matmul, linear) open on the launch call's thread when the
kernel was launched, and its Input Dims (events.INPUT_OPS keeps them).

    gemm_inputs(timeline, events, names)   {kernel name: (op name, (dims, ...))} for the
                                           kernels named, from the first launch of each
                                           whose op recorded its inputs
"""
from __future__ import annotations

import bisect

from ...trace.reading.events import GEMM_OPS


def gemm_inputs(timeline, events, names):
    wanted = set(names)
    if not wanted:
        return {}
    ops = {}
    for e in events:
        if e.cat == "cpu_op" and e.name in GEMM_OPS and e.args and e.args.get("Input Dims"):
            ops.setdefault(e.tid, []).append(e)
    for mine in ops.values():
        mine.sort(key=lambda e: e.ts)
    starts = {tid: [e.ts for e in mine] for tid, mine in ops.items()}
    out = {}
    for a in timeline.acts:
        if a.e.name not in wanted or a.e.name in out or a.launch is None or a.launch.tid not in ops:
            continue
        mine, ts = ops[a.launch.tid], starts[a.launch.tid]
        i = bisect.bisect_right(ts, a.launch.ts) - 1
        # the innermost open op: the latest to start before the launch that still holds it
        while i >= 0 and mine[i].end < a.launch.ts and a.launch.ts - mine[i].ts < 1e6:
            i -= 1
        if i >= 0 and mine[i].end >= a.launch.ts:
            dims = tuple(tuple(d) for d in mine[i].args["Input Dims"] if isinstance(d, list) and len(d) >= 2
                         and all(isinstance(n, int) for n in d))
            if dims:
                out[a.e.name] = (mine[i].name, dims)
    return out
