"""nn.MultiheadAttention with need_weights=True in a trace: F.multi_head_attention_forward
(torch/nn/functional.py) then computes attention itself, torch.bmm (or torch.baddbmm with a
mask), softmax, torch.bmm, and projects the output with linear (out_proj), instead of
calling scaled_dot_product_attention as it does with need_weights=False.

    need_weights_chains(events, chains)   how many of explain_attention's hand-written chains
                                          are that path: a bmm chain followed by linear, or one
                                          inside an nn.Module: MultiheadAttention range
                                          (with_modules=True)

A trace names no argument of the module; the ops' order is what it shows.
"""
from __future__ import annotations

import bisect

BMM = {"aten::bmm", "aten::baddbmm"}
# view and copy ops between the second bmm and out_proj (transpose(0, 1).reshape(...))
SHAPE_OPS = {"aten::transpose", "aten::reshape", "aten::view", "aten::_reshape_alias", "aten::contiguous",
             "aten::clone", "aten::copy_", "aten::empty_like", "aten::_unsafe_view", "aten::as_strided",
             "aten::empty", "aten::empty_strided"}
MODULE = "nn.Module: MultiheadAttention"


def need_weights_chains(events, chains):
    """chains: [(start, end, tid, masked, ops)] with ops the chain's (first matmul, last matmul)."""
    by_tid, modules = {}, []
    for e in events:
        if e.cat == "cpu_op":
            by_tid.setdefault(e.tid, []).append(e)
        elif e.name.startswith(MODULE):
            modules.append(e)
    for ops in by_tid.values():
        ops.sort(key=lambda e: (e.ts, -e.dur))
    starts = {tid: [e.ts for e in ops] for tid, ops in by_tid.items()}
    found = 0
    for start, end, tid, _, names in chains:
        if any(m.ts <= start and end <= m.end for m in modules):
            found += 1
            continue
        if names[0] not in BMM or names[1] != "aten::bmm":
            continue
        ops = by_tid.get(tid, ())
        i = bisect.bisect_left(starts.get(tid, ()), end)
        nxt = next((e for e in ops[i:] if e.name not in SHAPE_OPS), None)
        found += nxt is not None and nxt.name == "aten::linear"
    return found
