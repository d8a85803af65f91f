"""Attention in a trace: which SDPA backend each scaled_dot_product_attention call ran, its
share of GPU time, hand-written attention (matmul, softmax, matmul), and backward passes
matched to their forward.

    attention(timeline, events, activity_us, platform)   the summary as a dict (shares of
                                               activity_us, the GPU activities' time added up)

A GPU activity belongs to an attention call through the ATen ops open around its launch
call (its op stack). The backend is read off the ops first (the SDPA dispatcher calls one
op per backend) and off the kernel names where ops are missing (compiled code, Flex).
"""
from __future__ import annotations

import bisect
from collections import Counter

from ...trace.names import backend_of_kernels
from ..model.intervals import Spans
from ..model.platform_words import WORDS
from ..model.sdpa_inputs import sdpa_inputs
from . import asked_table
from .call_why import bias_grad_of, why_group
from .mha import native_need_weights, need_weights_chains

SDPA = "aten::scaled_dot_product_attention"
# the op each backend's forward and backward runs, as the dispatcher names them
FORWARD_OPS = {"aten::_scaled_dot_product_flash_attention": "flash",
               "aten::_scaled_dot_product_flash_attention_for_cpu": "flash",
               "aten::_flash_attention_forward": "flash",
               "aten::_scaled_dot_product_efficient_attention": "efficient",
               "aten::_efficient_attention_forward": "efficient",
               "aten::_scaled_dot_product_cudnn_attention": "cudnn",
               "aten::_cudnn_attention_forward": "cudnn",
               "aten::_scaled_dot_product_attention_math": "math",
               "aten::_scaled_dot_product_fused_attention_overrideable": "overrideable"}
BACKWARD_OPS = {"aten::_scaled_dot_product_flash_attention_backward": "flash",
                "aten::_flash_attention_backward": "flash",
                "aten::_scaled_dot_product_efficient_attention_backward": "efficient",
                "aten::_efficient_attention_backward": "efficient",
                "aten::_scaled_dot_product_cudnn_attention_backward": "cudnn",
                "aten::_cudnn_attention_backward": "cudnn"}
MATMULS = {"aten::matmul", "aten::bmm", "aten::baddbmm", "aten::einsum"}
SOFTMAXES = {"aten::softmax", "aten::_softmax", "aten::_safe_softmax"}
MASK_COPIES = {"aten::masked_fill"}  # masked_fill_ works in place; masked_fill copies the scores
# why SDPA falls back to math, where the trace records no inputs to say which (output/words_*.py's
# math_reason.KEY; the check names the fused backends the platform's build has)
MATH_REASONS = ("float32", "mask_or_head_size", "disabled", "cpu_or_arch")


# what SDPA's own ops before its backend's op do (aten/src/ATen/native/transformers/attention.cpp:
# convert_boolean_attn_mask turns a bool mask into an additive one with where/fill; pad_last_dim
# pads a head dim to a multiple of 8 for flash; the math path repeats K/V for GQA): the first
# op of the stack below SDPA that names one, its cause's key
PREP_CAUSES = (({"aten::constant_pad_nd", "aten::pad"}, "head_dim"),
               ({"aten::where", "aten::logical_not", "aten::masked_fill", "aten::masked_fill_",
                 "aten::full_like", "aten::zeros_like"}, "bool_mask"),
               ({"aten::repeat_interleave", "aten::expand", "aten::index_select"}, "gqa_repeat"),
               ({"aten::contiguous", "aten::clone", "aten::_to_copy", "aten::to"}, "layout_copy"))
PREP_OTHER = "other"  # other work before the backend's op (output/words_*.py: prep.KEY for each)
NESTED_OPS = {"aten::_flash_attention_forward": "flash_nested",
              "aten::_efficient_attention_forward": "efficient_nested"}
INDUCTOR_SDPA = "scaled_dot_product"  # in a Triton kernel's name: Inductor fused ops around an SDPA call


def _prep_cause(stack):
    below = stack[stack.index(SDPA) + 1:]
    for ops, cause in PREP_CAUSES:
        if any(op in ops for op in below):
            return cause
    return PREP_OTHER


def _backend(stack, name):
    """(backend, direction, cause): the backend's op in the stack; where SDPA's op holds the
    kernel outside any backend's op, "preparation" with its cause; None where no attention."""
    sdp = False
    for op in reversed(stack):
        if op in FORWARD_OPS:
            if op in NESTED_OPS and not any("_scaled_dot_product_" in o for o in stack):
                # nested jagged tensors call the kernel's op directly (torch/nested/_internal/sdpa.py)
                return NESTED_OPS[op], "forward", None
            return FORWARD_OPS[op], "forward", None
        if op in BACKWARD_OPS:
            return BACKWARD_OPS[op], "backward", None
        sdp = sdp or op == SDPA
    low = name.lower()
    if "flex_attention" in low:
        return "flex", "backward" if "backward" in low or "bwd" in low else "forward", None
    if low.startswith("triton_") and INDUCTOR_SDPA in low:
        return "inductor_fused", "backward" if "backward" in low else "forward", None
    if sdp:
        return "preparation", "forward", _prep_cause(stack)
    return None, None, None


def call_groups(events, sdpa_calls, cc=None, tables=None, platform="cuda"):
    """SDPA's calls grouped by the backend each ran (its op inside the call) and its recorded
    inputs: [{backend, calls, shapes, parsed (the inputs), why (a CallWhy), reasons, fixes,
    warning_keys, source, asked}] (rules/call_why.py); a call without recorded inputs is grouped with
    shapes False. cc: the trace's compute capability (None where it names none); tables: the
    recorded eligibility tables (asked_table.load())."""
    bias_grad = bias_grad_of(events)
    inner, training = {}, None  # training: SDPA's backward in the trace (q, k, v require grad), else unknown
    for e in events:
        if e.cat == "cpu_op" and e.name in FORWARD_OPS:
            inner.setdefault(e.tid, []).append(e)
        elif e.cat == "cpu_op" and e.name in BACKWARD_OPS:
            training = True
    starts = {}
    for tid, ops in inner.items():
        ops.sort(key=lambda e: e.ts)
        starts[tid] = [o.ts for o in ops]
    groups = {}
    for call in sdpa_calls:  # the first backend op at or after the call's start, by bisection
        ops, ran = inner.get(call.tid, ()), None
        i = bisect.bisect_left(starts[call.tid], call.ts) if ops else 0
        if i < len(ops) and ops[i].ts <= call.end:
            ran = FORWARD_OPS[ops[i].name]
        x = sdpa_inputs(call.args)
        key = (ran, x)
        g = groups.get(key)
        if g is None:
            told = (why_group(x, ran, cc, tables, bias_grad, platform=platform, training=training)
                    if x is not None and ran and not x.malformed else {"why": None})
            g = groups[key] = {"backend": ran, "calls": 0, "shapes": x is not None, "parsed": x, **told}
        g["calls"] += 1
    return sorted(groups.values(), key=lambda g: -g["calls"])


BIAS_BACKWARD = "aten::_scaled_dot_product_efficient_attention_backward"  # its 5th input: attn_bias


def _bias_backward(events):
    """How many efficient-attention backward calls got an attn_bias (recorded inputs): a mask
    or bias in training, whose gradient the efficient kernel computes where asked."""
    found = 0
    for e in events:
        if e.cat == "cpu_op" and e.name == BIAS_BACKWARD and e.args:
            dims = e.args.get("Input Dims")
            if isinstance(dims, list) and len(dims) > 4 and isinstance(dims[4], list) and dims[4]:
                found += 1
    return found


def _calls(op_names, backend, direction):
    """How many calls of the backend's op the trace holds: the dispatcher's op
    (aten::_scaled_dot_product_*) where there is one, since it holds the kernel-level op."""
    table = FORWARD_OPS if direction == "forward" else BACKWARD_OPS
    mine = {n: c for n, c in op_names.items() if table.get(n) == backend}
    outer = [c for n, c in mine.items() if "_scaled_dot_product_" in n]
    return sum(outer) if outer else sum(mine.values())


def _kernel_backend(names):
    """The backend a compiled graph's kernels show (no SDPA op around them)."""
    found = backend_of_kernels(names)
    return None if found == "math" else found


def _chains(events, sdpa_spans):
    """Hand-written attention: matmul, softmax, matmul on one thread, outside SDPA calls.
    Returns [(start, end, tid, masked_fill copy seen, (first matmul's op, last matmul's op))]."""
    by_tid = {}
    for e in events:
        if e.cat == "cpu_op" and (e.name in MATMULS or e.name in SOFTMAXES or e.name in MASK_COPIES):
            by_tid.setdefault(e.tid, []).append(e)
    chains, inside = [], {tid: Spans(spans) for tid, spans in sdpa_spans.items()}
    for tid, ops in by_tid.items():
        ops.sort(key=lambda e: (e.ts, -e.dur))
        top, end = [], float("-inf")  # the outermost of nested ops (matmul holds bmm)
        for e in ops:
            if e.ts >= end:
                top.append(e)
                end = e.end
        for i, e in enumerate(top):
            if e.name not in SOFTMAXES or (tid in inside and inside[tid].holds(e.ts)):
                continue
            before = [o for o in top[max(0, i - 3):i] if o.name in MATMULS]
            after = next((o for o in top[i + 1:i + 3] if o.name in MATMULS), None)
            if before and after is not None:
                masked = any(o.name in MASK_COPIES for o in top[max(0, i - 3):i])
                chains.append((before[-1].ts, after.end, tid, masked, (before[-1].name, after.name)))
    return chains


def attention(timeline, events, activity_us, platform="cuda", devices_cc=None):
    """{"backends": {(backend, direction): {calls, gpu_us, activities}}, "hand_written": ...,
    "math_fallback": bool, ...}; empty lists where the trace has no attention. The check of a
    math fallback names the fused backends the platform's build has (model/platform_words.py)."""
    sdpa_calls = [e for e in events if e.cat == "cpu_op" and e.name == SDPA]
    spans = {}
    for e in sdpa_calls:
        spans.setdefault(e.tid, []).append((e.ts, e.end))
    op_names = Counter(e.name for e in events if e.cat == "cpu_op")
    groups, seen = {}, {}  # seen: (stack, name) -> _backend's answer; op stacks are shared tuples
    for a in timeline.acts:
        key = (id(a.stack), a.e.name)
        found = seen.get(key)
        if found is None:
            found = seen[key] = _backend(a.stack, a.e.name)
        backend, direction, cause = found
        if backend is None:
            continue
        g = groups.setdefault((backend, direction), {"gpu_us": 0.0, "activities": 0, "kernels": Counter(),
                                                     "causes": Counter()})
        g["gpu_us"] += a.e.dur
        g["activities"] += 1
        g["kernels"][a.e.name] += a.e.dur
        if cause:
            g["causes"][cause] += a.e.dur
    # kernels no ATen op launched (compiled code), and a captured graph's, whatever op replays it
    compiled = _kernel_backend([a.e.name for a in timeline.acts if not a.stack or a.graph])
    rows = []
    for (backend, direction), g in sorted(groups.items(), key=lambda kv: -kv[1]["gpu_us"]):
        calls = len(sdpa_calls) if backend == "preparation" else _calls(op_names, backend, direction)
        rows.append({"backend": backend, "direction": direction,
                     "calls": calls or g["activities"], "causes": dict(g["causes"].most_common()),
                     "gpu_us": g["gpu_us"], "activities": g["activities"],
                     "share": g["gpu_us"] / activity_us if activity_us else 0.0,
                     "top_kernel": g["kernels"].most_common(1)[0][0]})
    chains = _chains(events, spans)
    hand = None
    if chains:
        by_tid = {}
        for s, t, tid, *_ in chains:
            by_tid.setdefault(tid, []).append((s, t))
        by_tid = {tid: Spans(spans) for tid, spans in by_tid.items()}
        gpu = sum(a.e.dur for a in timeline.acts if a.launch is not None
                  and a.launch.tid in by_tid and by_tid[a.launch.tid].holds(a.launch.ts))
        hand = {"chains": len(chains), "masked_fill_copies": sum(1 for c in chains if c[3]),
                "gpu_us": gpu, "share": gpu / activity_us if activity_us else 0.0,
                "mha_need_weights": need_weights_chains(events, chains)}
    forward = {r["backend"]: r["calls"] for r in rows if r["direction"] == "forward"}
    backward = {r["backend"]: r["calls"] for r in rows if r["direction"] == "backward"}
    matched = {b: (forward.get(b, 0), n) for b, n in backward.items()}
    return {"sdpa_calls": len(sdpa_calls), "backends": rows, "hand_written": hand,
            "calls": call_groups(events, sdpa_calls, devices_cc, asked_table.load(), platform),
            "bias_backward": _bias_backward(events),
            "mha_native_weights": native_need_weights(events, timeline, activity_us),
            "compiled_backend": compiled if not rows else None,
            "math_fallback": any(r["backend"] == "math" for r in rows),
            "backward_matched": matched,
            "math_reasons": MATH_REASONS, "math_check_backends": WORDS[platform]["backends"]}
