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

from collections import Counter

from .explain_index import Spans
from .explain_words import WORDS
from .names import backend_of_kernels

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
MATH_REASONS = ("inputs in float32 (the fused kernels want float16 or bfloat16)",
                "an explicit attn_mask the fused backend does not take, or a head size it does not support",
                "the fused backends disabled (torch.backends.cuda.enable_flash_sdp(False), sdpa_kernel)",
                "a CPU tensor or a GPU the fused kernels were not built for")
MATH_CHECK = ("run the call under `with torch.nn.attention.sdpa_kernel(SDPBackend.FLASH_ATTENTION):` "
              "(or {backends}): it raises if the backend cannot run, and the warnings it prints say why")


def _backend(stack, name):
    for op in reversed(stack):
        if op in FORWARD_OPS:
            return FORWARD_OPS[op], "forward"
        if op in BACKWARD_OPS:
            return BACKWARD_OPS[op], "backward"
    low = name.lower()
    if "flex_attention" in low:
        return "flex", "backward" if "backward" in low or "bwd" in low else "forward"
    if SDPA in stack:
        return "math", "forward"
    return None, None


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
    Returns [(start, end, tid, masked_fill copy seen)]."""
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
                chains.append((before[-1].ts, after.end, tid, masked))
    return chains


def attention(timeline, events, activity_us, platform="cuda"):
    """{"backends": {(backend, direction): {calls, gpu_us, activities}}, "hand_written": ...,
    "math_fallback": bool, ...}; empty lists where the trace has no attention. The check of a
    math fallback names the fused backends the platform's build has (explain_words.py)."""
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
        backend, direction = found
        if backend is None:
            continue
        g = groups.setdefault((backend, direction), {"gpu_us": 0.0, "activities": 0, "kernels": Counter()})
        g["gpu_us"] += a.e.dur
        g["activities"] += 1
        g["kernels"][a.e.name] += a.e.dur
    compiled = _kernel_backend([a.e.name for a in timeline.acts if not a.stack])
    rows = []
    for (backend, direction), g in sorted(groups.items(), key=lambda kv: -kv[1]["gpu_us"]):
        rows.append({"backend": backend, "direction": direction,
                     "calls": _calls(op_names, backend, direction) or g["activities"],
                     "gpu_us": g["gpu_us"], "activities": g["activities"],
                     "share": g["gpu_us"] / activity_us if activity_us else 0.0,
                     "top_kernel": g["kernels"].most_common(1)[0][0]})
    chains = _chains(events, spans)
    hand = None
    if chains:
        by_tid = {}
        for s, t, tid, _ in chains:
            by_tid.setdefault(tid, []).append((s, t))
        by_tid = {tid: Spans(spans) for tid, spans in by_tid.items()}
        gpu = sum(a.e.dur for a in timeline.acts if a.launch is not None
                  and a.launch.tid in by_tid and by_tid[a.launch.tid].holds(a.launch.ts))
        hand = {"chains": len(chains), "masked_fill_copies": sum(1 for c in chains if c[3]),
                "gpu_us": gpu, "share": gpu / activity_us if activity_us else 0.0}
    forward = {r["backend"]: r["calls"] for r in rows if r["direction"] == "forward"}
    backward = {r["backend"]: r["calls"] for r in rows if r["direction"] == "backward"}
    matched = {b: (forward.get(b, 0), n) for b, n in backward.items()}
    return {"sdpa_calls": len(sdpa_calls), "backends": rows, "hand_written": hand,
            "compiled_backend": compiled if not rows else None,
            "math_fallback": any(r["backend"] == "math" for r in rows),
            "backward_matched": matched,
            "math_reasons": MATH_REASONS, "math_check": MATH_CHECK.format(backends=WORDS[platform]["backends"])}
