"""nn.MultiheadAttention with need_weights=True in a trace: F.multi_head_attention_forward
(torch/nn/functional.py) then computes attention itself, torch.bmm (or torch.baddbmm with a
mask), softmax, torch.bmm, and projects the output with linear (out_proj), instead of
calling scaled_dot_product_attention as it does with need_weights=False.

    need_weights_chains(events, chains)   how many of attention's hand-written chains
                                          are that path: a bmm chain followed by linear, or one
                                          inside an nn.Module: MultiheadAttention range
                                          (with_modules=True)

    native_need_weights(events, timeline, activity_us)   the fast path's calls
                                          (aten::_native_multi_head_attention: eval, no grad,
                                          self-attention) that ran attention unfused, and
                                          their GPU time: those that computed the weights, and
                                          those that got a mask (nn.TransformerEncoderLayer's
                                          src_key_padding_mask: need_weights is False there)
    finding(f)                            the finding for the weights (a rule of remedies)
    masked_finding(f)                     the finding for the mask (a rule of remedies)

The slow path's module arguments are not in a trace; the ops' order is what it shows. The
fast path records need_weights among its Concrete Inputs (record_shapes=True), which the trace
reader does not keep (trace/reading/events.py keeps SDPA's and the matmuls'); so the ops inside
say it: the fast path calls SDPA only without a mask and without need_weights, with a head dim
that is a multiple of 8 and flash or efficient as SDPA's choice (attention.cpp); a mask shows
as aten::_masked_softmax inside; no fused op and no mask, outside an encoder layer: the
weights.
"""
from __future__ import annotations

import bisect

from ..model.intervals import Spans
from ..model.result_types import Finding
from .facts import FastPathMask, NativeWeights

BMM = {"aten::bmm", "aten::baddbmm"}
# view and copy ops between the second bmm and out_proj (transpose(0, 1).reshape(...))
SHAPE_OPS = {"aten::transpose", "aten::reshape", "aten::view", "aten::_reshape_alias", "aten::contiguous",
             "aten::clone", "aten::copy_", "aten::empty_like", "aten::_unsafe_view", "aten::as_strided",
             "aten::empty", "aten::empty_strided"}
MODULE = "nn.Module: MultiheadAttention"


def need_weights_chains(events, chains):
    """chains: [(start, end, tid, masked, ops)] with ops the chain's (first matmul, last matmul).
    Each chain costs O(log n) (bisection) and the few view ops after it."""
    by_tid, modules, native = {}, [], {}
    for e in events:
        if e.cat == "cpu_op":
            by_tid.setdefault(e.tid, []).append(e)
            if e.name == NATIVE and _need_weights(e, ()):
                native.setdefault(e.tid, []).append((e.ts, e.end))
        elif e.name.startswith(MODULE):
            modules.append((e.ts, e.end))
    for ops in by_tid.values():
        ops.sort(key=lambda e: (e.ts, -e.dur))
    starts = {tid: [e.ts for e in ops] for tid, ops in by_tid.items()}
    modules = Spans(modules) if modules else None
    native = {tid: Spans(spans) for tid, spans in native.items()}
    found = 0
    for start, end, tid, _, names in chains:
        inside = native.get(tid)
        if (modules and modules.holds(start) and modules.holds(end)) or (
                inside and inside.holds(start) and inside.holds(end)):
            found += 1  # inside the module's range, or inside the fast path's op that computed the weights
            continue
        if names[0] not in BMM or names[1] != "aten::bmm":
            continue
        ops = by_tid.get(tid, ())
        k = bisect.bisect_left(starts.get(tid, ()), end)
        while k < len(ops) and ops[k].name in SHAPE_OPS:
            k += 1
        found += k < len(ops) and ops[k].name == "aten::linear"
    return found


NATIVE = "aten::_native_multi_head_attention"  # nn.MultiheadAttention's fast path (eval, no grad, self-attention)
NEED_WEIGHTS = 10  # its need_weights input: (query, key, value, embed_dim, num_head, qkv_weight, qkv_bias,
# proj_weight, proj_bias, mask, need_weights, average_attn_weights, mask_type)
FUSED_INSIDE = ("_scaled_dot_product_", "aten::_flash_attention_forward", "aten::_efficient_attention_forward")


ENCODER_LAYER = "aten::_transformer_encoder_layer_fwd"  # nn.TransformerEncoderLayer's fast path: calls native
# MHA with need_weights=false (transformer.cpp: transformer_encoder_layer_forward)
MASKED_SOFTMAX = "aten::_masked_softmax"  # native MHA's softmax where it got a mask (attention.cpp: masked_softmax)


def _need_weights(e, inner):
    concrete = (e.args or {}).get("Concrete Inputs")
    said = concrete[NEED_WEIGHTS] if isinstance(concrete, list) and len(concrete) > NEED_WEIGHTS else ""
    if said in ("True", "False"):
        return said == "True"
    return not inner  # not recorded: without a fused op inside, it computed the weights itself


def _inside(events, names):
    """{tid: sorted starts} of the cpu ops named in `names`."""
    found = {}
    for e in events:
        if e.cat == "cpu_op" and (e.name in names if isinstance(names, (set, frozenset)) else
                                  any(n in e.name for n in names)):
            found.setdefault(e.tid, []).append(e.ts)
    for starts in found.values():
        starts.sort()
    return found


def _holds(found, e):
    """Whether an op of `found` starts inside e (its thread, its span)."""
    starts = found.get(e.tid, ())
    k = bisect.bisect_left(starts, e.ts)
    return k < len(starts) and starts[k] <= e.end


ATTENTION_OPS = {"aten::bmm", "aten::baddbmm", MASKED_SOFTMAX, "aten::_softmax", "aten::softmax"}  # not the projections


def _gpu_inside(calls, timeline, activity_us, ops=None):
    """The calls' count and the GPU time launched inside them (by an op of `ops` only, where given)."""
    spans = {}
    for e in calls:
        spans.setdefault(e.tid, []).append((e.ts, e.end))
    inside = {tid: Spans(s) for tid, s in spans.items()}
    gpu = sum(a.e.dur for a in timeline.acts if a.launch is not None and a.launch.tid in inside
              and inside[a.launch.tid].holds(a.launch.ts) and (ops is None or any(o in ops for o in a.stack)))
    return {"calls": len(calls), "gpu_us": gpu, "share": gpu / activity_us if activity_us else 0.0}


def native_need_weights(events, timeline, activity_us):
    """The fast path's calls that ran attention unfused (bmm, softmax, bmm instead of SDPA's
    fused kernels, attention.cpp: native_multi_head_attention_cuda) and the GPU time launched
    inside them: {calls, gpu_us, share, masked}, or None without one. Those with
    aten::_masked_softmax inside got a mask, which alone keeps SDPA out (masked: {calls, gpu_us,
    share, encoder_layer}: how many ran inside nn.TransformerEncoderLayer's fast path, which
    passes need_weights=False); the others, outside an encoder layer, computed the weights
    (need_weights=True). A fast-path call in an encoder layer without a mask and without SDPA
    inside (a head dim not a multiple of 8, a backend the fast path does not take) is neither."""
    ops = [e for e in events if e.cat == "cpu_op" and e.name == NATIVE]
    if not ops:
        return None
    fused, masked = _inside(events, FUSED_INSIDE), _inside(events, {MASKED_SOFTMAX})
    layer_spans = {}
    for e in events:
        if e.cat == "cpu_op" and e.name == ENCODER_LAYER:
            layer_spans.setdefault(e.tid, []).append((e.ts, e.end))
    layer_spans = {tid: Spans(s) for tid, s in layer_spans.items()}
    unfused = [e for e in ops if not _holds(fused, e)]
    with_mask = [e for e in unfused if _holds(masked, e)]
    in_layer = [e for e in with_mask if e.tid in layer_spans and layer_spans[e.tid].holds(e.ts)]
    weights = [e for e in ops if e not in with_mask and _need_weights(e, _holds(fused, e))
               and not (e.tid in layer_spans and layer_spans[e.tid].holds(e.ts))]
    if not weights and not with_mask:
        return None
    out = _gpu_inside(weights, timeline, activity_us)
    # the mask's cost: the unfused attention (bmm, softmax, bmm), not the projections around it
    out["masked"] = (_gpu_inside(with_mask, timeline, activity_us, ATTENTION_OPS) | {"encoder_layer": len(in_layer)}
                     if with_mask else None)
    return out


def finding(f):
    """The finding for the fast path's need_weights=True calls (remedies.RULES)."""
    native = f.attention.get("mha_native_weights")
    if not native or not native["calls"] or (f.attention.get("hand_written") or {}).get("mha_need_weights"):
        return None  # its bmm, softmax, bmm were read as a chain: _hand_written's finding names it
    return Finding("mha_need_weights", time_us=native["gpu_us"], share=native["share"],
                   fact=NativeWeights(native["calls"]))


def masked_finding(f):
    """The finding for the fast path's calls that got a mask (remedies.RULES): need_weights is
    not what keeps SDPA out there, the mask is."""
    masked = (f.attention.get("mha_native_weights") or {}).get("masked")
    if not masked:
        return None
    return Finding("fast_path_mask", time_us=masked["gpu_us"], share=masked["share"],
                   fact=FastPathMask(masked["calls"], masked["encoder_layer"]))
