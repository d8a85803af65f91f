"""Why one SDPA call ran the backend it ran, as typed reasons read off its recorded inputs
(sdpa_inputs.Inputs) and the backend op the trace shows.

    order(cc, table_order=None)      the backends in select_sdp_backend's order on a GPU of
                                     compute capability cc (PyTorch 2.11), or the recorded table's
    reasons(x, ran, cc, order)       [Reason]: each check the inputs fail for a backend before the
                                     one that ran, the pin the trace implies, and warnings
    FIXES                            a fix key -> what to change (one line each)

A Reason is a fact: its key (what the trace shows), the backends it stops, PyTorch's check
function that stops them (aten/src/ATen/native/transformers/cuda/sdp_utils.cpp), the evidence
(numbers from the trace) and a fix key. Sentences are composed only where the reasons are
printed (explain_why_text.py).

The order: sdp_utils.cpp's priority_order returns at::Context's sdp_priority_order, by
default flash, efficient, math, cudnn; from 2.10 on, check_prefer_cudnn_attention puts cudnn
first on compute capability 9.x and 10.x where the runtime's cuDNN is newer than 9.15.0 (the
H200's run of 2.11.0 ran cuDNN unpinned). The trace names neither the cuDNN version nor a pin
(sdpa_kernel, enable_*_sdp(False)); where the recorded table (rules/asked_table.py) holds the
order it measured, that order is used.
"""
from __future__ import annotations

from dataclasses import dataclass

DEFAULT_ORDER = ("flash", "efficient", "math", "cudnn")  # at::Context's sdp_priority_order
CUDNN_FIRST = ("cudnn", "flash", "efficient", "math")  # check_prefer_cudnn_attention
FUSED = ("cudnn", "flash", "efficient")
FLASH_MAX_HEAD_DIM = 256  # check_head_dim_size_flash: "less than or equal to 256"
LOW_PRECISION = ("float16", "bfloat16")

# what to change, by fix key (the lines the output prints; the keys are what tests assert)
FIXES = {
    "reshape_4d": "give q, k, v as 4-D [batch, heads, seq, head_dim] tensors (fold extra dims into batch)",
    "contiguous": "call .contiguous() on q, k, v (their last dimension must have stride 1; padding does not help)",
    "head_dim_multiple_of_8": "a head dim that is a multiple of 8",
    "head_dim_at_most_256": "a head dim of at most 256 (split the heads)",
    "low_precision": "run attention in bfloat16 or float16 (torch.autocast(\"cuda\", dtype=torch.bfloat16), "
                     "or cast q, k, v)",
    "enable_gqa": "pass enable_gqa=True (K/V keep their own heads)",
    "bool_mask": "if the mask is the causal triangle, drop it and pass is_causal=True; a padding mask: "
                 "nested jagged tensors (torch.nested, layout=torch.jagged) run flash without one",
    "float_mask": "flash takes no mask: is_causal=True where the mask is causal, FlexAttention for a score bias",
    "learned_bias": "a learned bias as FlexAttention's score_mod (torch.nn.attention.flex_attention)",
    "need_weights_false": "pass need_weights=False to nn.MultiheadAttention (it then calls SDPA; "
                          "need_weights=True computes the weights with bmm and softmax)",
    "unpin": "leave the choice to SDPA: remove the sdpa_kernel(...) pin or enable_*_sdp(False) around the call",
    "causal_lower_right": "for one query pass is_causal=False (it may see every key); for several new queries "
                          "use torch.nn.attention.bias.causal_lower_right(L, S) as attn_mask",
}


@dataclass(frozen=True)
class Reason:
    key: str  # what the trace shows: not_4d, last_dim_stride, head_dim_alignment, ...
    backends: tuple  # the backends it stops ("" for a warning)
    check: str  # PyTorch's check function, or "" where none
    evidence: str  # numbers from the trace
    fix: str | None  # a key of FIXES
    warning: bool = False  # a correctness warning, not a speed reason


def order(cc, table_order=None):
    """The backends in select_sdp_backend's order: the recorded table's where it has one, else
    PyTorch 2.11's on compute capability cc (cudnn first on 9.x and 10.x)."""
    if table_order:
        return tuple(table_order)
    return CUDNN_FIRST if cc and cc[0] in (9, 10) else DEFAULT_ORDER


def _dims(x):
    q = x.query
    return len(q), (q[-1] if q else None)


def _checks(x, cc):
    """[(key, backends it stops, check, evidence, fix)] for every check the inputs fail."""
    out = []
    ndim, hd = _dims(x)
    if ndim != 4 or len(x.key) != 4 or len(x.value) != 4:
        out.append(("not_4d", FUSED, "check_tensor_shapes",
                    f"q is {ndim}-D [{', '.join(map(str, x.query))}]: the fused kernels take 4-D q, k, v",
                    "reshape_4d"))
        return out  # the other checks read 4-D shapes
    if x.last_stride_one is False:
        out.append(("last_dim_stride", FUSED, "check_last_dim_stride_equals_1_dense",
                    f"strides {_strides(x)}: the last dimension is not contiguous", "contiguous"))
    low_types = LOW_PRECISION if cc >= (8, 0) else ("float16",)
    if x.dtype not in low_types:
        out.append(("dtype", ("cudnn", "flash"), "check_dtypes_flash_attention, check_dtypes_low_precision",
                    f"{x.dtype} inputs: flash and cuDNN run {' and '.join(low_types)}", "low_precision"))
        if x.dtype not in low_types + ("float32",):
            out.append(("dtype", ("efficient",), "can_use_mem_efficient_attention (check_tensor_dtype)",
                        f"{x.dtype} inputs", "low_precision"))
    same = x.query[-1] == x.key[-1] == x.value[-1]
    if not same or hd > FLASH_MAX_HEAD_DIM:
        out.append(("head_dim_too_large", ("flash", "cudnn"), "check_head_dim_size_flash, check_cudnn_tensor_shapes",
                    f"head dim {hd}: flash takes q, k, v of one head dim up to {FLASH_MAX_HEAD_DIM}",
                    "head_dim_at_most_256"))
    align = 8 if x.dtype in LOW_PRECISION else 4  # minimum_gemm_alignment with tensor cores
    if hd % align:
        out.append(("head_dim_alignment", ("efficient", "cudnn"), "check_head_dim_size_mem_efficient",
                    f"head dim {hd} is not a multiple of {align} (flash pads it: pad_last_dim)",
                    "head_dim_multiple_of_8"))
    if x.mask is not None:
        kind = "bool" if x.mask_dtype == "bool" else "float"
        out.append(("mask", ("flash",), "check_for_attn_mask",
                    f"a {x.mask_dtype} attn_mask [{', '.join(map(str, x.mask))}]: flash takes none",
                    f"{kind}_mask"))
    heads = x.heads
    if heads and heads[0] != heads[1] and not x.enable_gqa:
        out.append(("gqa_heads", FUSED, "check_batch_size_and_num_heads_dense",
                    f"{heads[0]} query heads and {heads[1]} key/value heads without enable_gqa=True", "enable_gqa"))
    lengths = x.lengths
    if lengths and x.is_causal and lengths[0] != lengths[1]:
        out.append(("causal_non_square", ("flash",), "check_flash_causal_non_square_seqlens",
                    f"is_causal with {lengths[0]} queries and {lengths[1]} keys", "causal_lower_right"))
    return out


def _strides(x):
    return f"of q {list(x.strides[0])}" if x.strides else "(not recorded)"


def reasons(x, ran, cc=(9, 0), backend_order=None, bias_grad=None):
    """[Reason] for one group of calls: each check the inputs fail for a backend before `ran`
    in the order, where none fails the pin the trace implies, and the top-left causal warning.
    bias_grad: True where the trace shows a float mask's gradient computed, "unknown" where a
    bias is in the backward but the trace does not say whether it requires grad."""
    seq = order(cc, backend_order)
    before = seq[:seq.index(ran)] if ran in seq else ()
    found = []
    for key, stops, check, evidence, fix in _checks(x, cc):
        hit = tuple(b for b in before if b in stops)
        if hit:
            found.append(Reason(key, hit, check, evidence, fix))
    if x.mask is not None and x.mask_dtype != "bool" and bias_grad == "unknown":
        found = [Reason(r.key, r.backends, r.check, r.evidence + "; the backward takes it as attn_bias, but the "
                        "trace does not record whether it requires grad (a learned bias)", r.fix)
                 if r.key == "mask" else r for r in found]
    if x.mask is not None and x.mask_dtype != "bool" and bias_grad is True:
        found.append(Reason("bias_grad", ("flash", "cudnn"), "check_for_attn_mask",
                            "the backward computes the float mask's gradient: a learned bias", "learned_bias"))
    fused_before = [b for b in before if b != "math"]
    stopped = {b for r in found for b in r.backends}
    free = [b for b in fused_before if b not in stopped]
    if ran in seq and free:
        assumed = "" if backend_order else (
            ", PyTorch 2.11's on compute capability 9.x and 10.x with a cuDNN newer than 9.15.0: the trace "
            "names no cuDNN version" if seq == CUDNN_FIRST else ", PyTorch 2.11's default")
        found.append(Reason("not_first", tuple(free), "select_sdp_backend",
                            f"the trace shows {ran} ran where {', '.join(free)} "
                            f"{'comes' if len(free) == 1 else 'come'} first in the order ({', '.join(seq)}{assumed}) "
                            f"and {'passes' if len(free) == 1 else 'pass'} every check the inputs show: a pin "
                            "(sdpa_kernel, enable_*_sdp(False)), or a check the trace cannot show", "unpin"))
    lengths = x.lengths
    if x.is_causal and lengths and lengths[0] < lengths[1]:
        found.append(Reason("causal_top_left", (), "", f"is_causal=True with {lengths[0]} "
                            f"{'query' if lengths[0] == 1 else 'queries'} and {lengths[1]} keys: the mask is "
                            "aligned top-left, so the first query sees only the first key",
                            "causal_lower_right", warning=True))
    return found
