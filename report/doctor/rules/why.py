"""Why one SDPA call ran the backend it ran, as typed reasons read off its recorded inputs
(sdpa_inputs.Inputs) and the backend op the trace shows.

    order(cc, table_order=None)      the backends in select_sdp_backend's order on a GPU of
                                     compute capability cc (PyTorch 2.11), or the recorded table's
    reasons(x, ran, cc, order)       [Reason]: each check the inputs fail for a backend before the
                                     one that ran, the pin the trace implies, and warnings
    FIXES                            the fix keys (what to change: output/words_*.py's fix.KEY)

A Reason is a fact: its key (what the trace shows), the backends it stops, PyTorch's check
function that stops them (aten/src/ATen/native/transformers/cuda/sdp_utils.cpp), which case
of evidence holds with its figures from the trace, and a fix key. Sentences are composed only
where the reasons are printed (output/said.py, from output/words_*.py).

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

# the keys of what to change (output/words_*.py words each as "fix.KEY"; the keys are what tests assert)
FIXES = ("reshape_4d", "contiguous", "singleton_stride", "head_dim_multiple_of_8", "head_dim_at_most_256",
         "low_precision", "enable_gqa", "bool_mask", "float_mask", "learned_bias", "need_weights_false", "unpin",
         "causal_lower_right")


@dataclass(frozen=True)
class Reason:
    key: str  # what the trace shows: not_4d, last_dim_stride, head_dim_alignment, ...
    backends: tuple  # the backends it stops ("" for a warning)
    check: str  # PyTorch's check function, or "" where none
    case: str  # which evidence holds (output/words_*.py: "reason.CASE")
    values: dict  # its figures and names from the trace
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
    """[(key, backends it stops, check, case, values, fix)] for every check the inputs fail."""
    out = []
    ndim, hd = _dims(x)
    if ndim != 4 or len(x.key) != 4 or len(x.value) != 4:
        out.append(("not_4d", FUSED, "check_tensor_shapes", "not_4d", {"ndim": ndim, "query": x.query}, "reshape_4d"))
        return out  # the other checks read 4-D shapes
    if x.last_stride_one is False:
        # a size-1 last dim: flash's and cuDNN's check ignores its stride (ignore_singleton_dim, sdp_utils.cpp),
        # efficient's does not, and .contiguous() keeps it (such a tensor counts as contiguous already)
        single = hd == 1
        out.append(("last_dim_stride", ("efficient",) if single else FUSED, "check_last_dim_stride_equals_1_dense",
                    "last_dim_stride" if x.strides else "last_dim_stride_unrecorded",
                    {"strides": list(x.strides[0]) if x.strides else None},
                    "singleton_stride" if single else "contiguous"))
    low_types = LOW_PRECISION if cc >= (8, 0) else ("float16",)
    if x.dtype not in low_types:
        out.append(("dtype", ("cudnn", "flash"), "check_dtypes_flash_attention, check_dtypes_low_precision",
                    "dtype", {"dtype": x.dtype, "low": low_types}, "low_precision"))
        if x.dtype not in low_types + ("float32",):
            out.append(("dtype", ("efficient",), "can_use_mem_efficient_attention (check_tensor_dtype)",
                        "dtype_efficient", {"dtype": x.dtype}, "low_precision"))
    same = x.query[-1] == x.key[-1] == x.value[-1]
    if not same or hd > FLASH_MAX_HEAD_DIM:
        out.append(("head_dim_too_large", ("flash", "cudnn"), "check_head_dim_size_flash, check_cudnn_tensor_shapes",
                    "head_dim_too_large", {"head_dim": hd, "most": FLASH_MAX_HEAD_DIM}, "head_dim_at_most_256"))
    align = 8 if x.dtype in LOW_PRECISION else 4  # minimum_gemm_alignment with tensor cores
    if hd % align:
        out.append(("head_dim_alignment", ("efficient", "cudnn"), "check_head_dim_size_mem_efficient",
                    "head_dim_alignment", {"head_dim": hd, "align": align}, "head_dim_multiple_of_8"))
    if x.mask is not None:
        kind = "bool" if x.mask_dtype == "bool" else "float"
        out.append(("mask", ("flash",), "check_for_attn_mask", "mask", {"mask_dtype": x.mask_dtype, "mask": x.mask},
                    f"{kind}_mask"))
    heads = x.heads
    if heads and heads[0] != heads[1] and not x.enable_gqa:
        out.append(("gqa_heads", FUSED, "check_batch_size_and_num_heads_dense", "gqa_heads",
                    {"q_heads": heads[0], "kv_heads": heads[1]}, "enable_gqa"))
    lengths = x.lengths
    if lengths and x.is_causal and lengths[0] != lengths[1]:
        out.append(("causal_non_square", ("flash",), "check_flash_causal_non_square_seqlens", "causal_non_square",
                    {"queries": lengths[0], "keys": lengths[1]}, "causal_lower_right"))
    return out


def reasons(x, ran, cc=(9, 0), backend_order=None, bias_grad=None):
    """[Reason] for one group of calls: each check the inputs fail for a backend before `ran`
    in the order, where none fails the pin the trace implies, and the top-left causal warning.
    bias_grad: True where the trace shows a float mask's gradient computed, "unknown" where a
    bias is in the backward but the trace does not say whether it requires grad."""
    seq = order(cc, backend_order)
    before = seq[:seq.index(ran)] if ran in seq else ()
    found = []
    unknown = x.mask is not None and x.mask_dtype != "bool" and bias_grad == "unknown"
    for key, stops, check, case, values, fix in _checks(x, cc):
        hit = tuple(b for b in before if b in stops)
        if hit:  # a float mask whose gradient the trace does not record: said with it
            found.append(Reason(key, hit, check, "mask_unknown_grad" if key == "mask" and unknown else case,
                                values, fix))
    if x.mask is not None and x.mask_dtype != "bool" and bias_grad is True:
        found.append(Reason("bias_grad", ("flash", "cudnn"), "check_for_attn_mask", "bias_grad", {}, "learned_bias"))
    fused_before = [b for b in before if b != "math"]
    stopped = {b for r in found for b in r.backends}
    free = [b for b in fused_before if b not in stopped]
    if ran in seq and free:
        assumed = "table" if backend_order else "cudnn_first" if seq == CUDNN_FIRST else "default"
        found.append(Reason("not_first", tuple(free), "select_sdp_backend", "not_first",
                            {"ran": ran, "free": tuple(free), "order": seq, "assumed": assumed}, "unpin"))
    lengths = x.lengths
    if x.is_causal and lengths and lengths[0] < lengths[1]:
        found.append(Reason("causal_top_left", (), "", "causal_top_left", {"queries": lengths[0], "keys": lengths[1]},
                            "causal_lower_right", warning=True))
    return found
