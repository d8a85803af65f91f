"""Why one SDPA call ran the backend it ran, as typed reasons read off its recorded inputs
(sdpa_inputs.Inputs), the GPU generation the trace names and the backend op the trace shows.

    orders(cc, table_order, platform)  the orders select_sdp_backend may follow on a GPU of
                                     compute capability cc (PyTorch 2.11): one, or two where the
                                     trace cannot tell (cuDNN's place on 9.x and 10.x)
    order(cc, table_order=None)      the first of them
    reasons(x, ran, cc, order, ...)  [Reason]: each check the inputs fail for a backend before the
                                     one that ran, a pin where no check explains the backend (beside
                                     what else may), and warnings
    FIXES                            the fix keys (what to change: output/words_*.py's fix.KEY)

A Reason is a fact: its key (what the trace shows), the backends it stops, PyTorch's check
function that stops them (aten/src/ATen/native/transformers/cuda/sdp_utils.cpp and
sdp_utils_cpp.h), which case of evidence holds with its figures from the trace, and a fix key.
Sentences are composed only where the reasons are printed (output/said.py, from
output/words_*.py).

The order (sdp_utils.cpp: select_sdp_backend tries the backends in priority_order's order):
priority_order returns at::Context's sdp_priority_order, by default flash, efficient, math,
cudnn; check_prefer_cudnn_attention puts cudnn first where the runtime's cuDNN is newer than
9.15.0 (versionRuntimeCuDNN() > 91500) on compute capability 9.x and 10.x (builds for CUDA
before 13 only on 9.0, 10.0 and 10.3) and TORCH_CUDNN_SDPA_DEPRIORITIZED is not set. The
trace names neither the cuDNN version nor the environment: on 9.x and 10.x both orders are
possible unless the recorded table of that compute capability (rules/asked_table.py) shows the
one it measured; on 8.x and 12.x the default order holds.

The generation (sdp_utils.cpp): check_flash_attention_hardware_support and
check_cudnn_hardware_support take sm80 to sm121, check_mem_efficient_hardware_support sm50 to
sm121; check_dtypes_low_precision takes float16 and bfloat16 from sm80 on, float16 alone
before; can_use_mem_efficient_attention takes float16, float32 and bfloat16 from sm80 on,
float16 and float32 before; minimum_gemm_alignment (check_head_dim_size_mem_efficient) is 8
elements for 16-bit inputs on tensor cores (sm70 on), 4 for 32-bit from sm80 on, else 1.
"""
from __future__ import annotations

from dataclasses import dataclass

DEFAULT_ORDER = ("flash", "efficient", "math", "cudnn")  # at::Context's sdp_priority_order
CUDNN_FIRST = ("cudnn", "flash", "efficient", "math")  # check_prefer_cudnn_attention
FUSED = ("cudnn", "flash", "efficient")
FLASH_MAX_HEAD_DIM = 256  # check_head_dim_size_flash: "less than or equal to 256"
LOW_PRECISION = ("float16", "bfloat16")
SM80, SM50 = (8, 0), (5, 0)  # the hardware checks' lower bounds (flash and cuDNN; efficient)

# the keys of what to change (output/words_*.py words each as "fix.KEY"; the keys are what tests assert)
FIXES = ("reshape_4d", "contiguous", "singleton_stride", "head_dim_multiple_of_8", "head_dim_at_most_256",
         "low_precision", "enable_gqa", "bool_mask", "float_mask", "learned_bias", "need_weights_false", "check_pin",
         "causal_lower_right", "float16")


@dataclass(frozen=True)
class Reason:
    key: str  # what the trace shows: not_4d, last_dim_stride, head_dim_alignment, ...
    backends: tuple  # the backends it stops ("" for a warning)
    check: str  # PyTorch's check function, or "" where none
    case: str  # which evidence holds (output/words_*.py: "reason.CASE")
    values: dict  # its figures and names from the trace
    fix: str | None  # a key of FIXES
    warning: bool = False  # a correctness warning, not a speed reason


def orders(cc, table_order=None, platform="cuda"):
    """The orders select_sdp_backend may follow: the recorded table's where it measured one on
    this compute capability; else PyTorch 2.11's on cc: the default on 8.x, 12.x and before
    sm80 (there the hardware checks stop flash and cuDNN) and on ROCm (no cuDNN attention),
    cuDNN first or the default on 9.x and 10.x and where the trace names no GPU."""
    if table_order:
        return (tuple(table_order),)
    if platform == "rocm" or (cc is not None and cc[0] not in (9, 10)):
        return (DEFAULT_ORDER,)
    return (CUDNN_FIRST, DEFAULT_ORDER)


def order(cc, table_order=None, platform="cuda"):
    """The first order orders() gives (the one the words name)."""
    return orders(cc, table_order, platform)[0]


def _dims(x):
    q = x.query
    return len(q), (q[-1] if q else None)


def _alignment(dtype, cc):
    """sdp_utils.cpp: minimum_gemm_alignment, in elements: 8 for 16-bit inputs on tensor cores
    (use_tensor_cores: sm70 and on for 16-bit, sm80 and on for every dtype), at least 4 from sm80."""
    half = dtype in LOW_PRECISION
    if cc is None or cc >= SM80:
        return 8 if half else 4
    return 8 if half and cc >= (7, 0) else 1


def mask_broadcasts(x):
    """sdp_utils_cpp.h: check_attn_mask_shape (cuDNN), the shape part: a 2-D mask, or a 4-D one
    of batch 1 or the batch's and heads 1 or the query's, its last two dims each the queries'
    (keys') or 1."""
    m, q, k = x.mask, x.query, x.key
    if m is None or len(q) != 4 or len(m) < 2:
        return True
    if m[-2] not in (q[2], 1) or m[-1] not in (k[2], 1):
        return False
    return len(m) == 2 or (len(m) == 4 and m[0] in (1, q[0]) and m[1] in (1, q[1]))


def _checks(x, cc, bias_grad=None):
    """[(key, backends it stops, check, case, values, fix)] for every check the inputs fail on a
    GPU of compute capability cc (None: not named in the trace)."""
    out = []
    ndim, hd = _dims(x)
    pre80 = cc is not None and cc < SM80
    if pre80:
        stops = ("flash", "cudnn") + (("efficient",) if cc < SM50 else ())
        out.append(("gpu_generation", stops, "check_flash_attention_hardware_support, check_cudnn_hardware_support"
                    + (", check_mem_efficient_hardware_support" if cc < SM50 else ""), "gpu_generation",
                    {"cc": f"{cc[0]}.{cc[1]}"}, None))
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
    low_types = ("float16",) if pre80 else LOW_PRECISION
    low_fix = "float16" if pre80 else "low_precision"
    if x.dtype not in low_types:
        out.append(("dtype", ("cudnn", "flash"), "check_dtypes_flash_attention, check_dtypes_low_precision",
                    "dtype", {"dtype": x.dtype, "low": low_types}, low_fix))
        if x.dtype not in low_types + ("float32",):
            out.append(("dtype", ("efficient",), "can_use_mem_efficient_attention (check_tensor_dtype)",
                        "dtype_efficient", {"dtype": x.dtype}, low_fix))
    same = x.query[-1] == x.key[-1] == x.value[-1]
    if not same or hd > FLASH_MAX_HEAD_DIM:
        out.append(("head_dim_too_large", ("flash", "cudnn"), "check_head_dim_size_flash, check_cudnn_tensor_shapes",
                    "head_dim_too_large", {"head_dim": hd, "most": FLASH_MAX_HEAD_DIM}, "head_dim_at_most_256"))
    align = _alignment(x.dtype, cc)
    if hd % align or hd % 8:  # check_cudnn_tensor_shapes: "head_dim should be a multiple of 8"
        stops = ("efficient", "cudnn") if hd % align else ("cudnn",)
        out.append(("head_dim_alignment", stops, "check_head_dim_size_mem_efficient, check_cudnn_tensor_shapes",
                    "head_dim_alignment", {"head_dim": hd, "align": max(align, 8)}, "head_dim_multiple_of_8"))
    if x.mask is not None:
        kind = "bool" if x.mask_dtype == "bool" else "float"
        out.append(("mask", ("flash",), "check_for_attn_mask", "mask", {"mask_dtype": x.mask_dtype, "mask": x.mask},
                    f"{kind}_mask"))
        if not mask_broadcasts(x):
            out.append(("mask_shape", ("cudnn",), "check_attn_mask_shape", "mask_shape", {"mask": x.mask}, None))
        elif kind == "float" and bias_grad is not True and bias_grad is not False:
            # check_attn_mask_shape returns false for a mask that requires grad; the trace does not record it
            out.append(("mask_grad_unknown", ("cudnn",), "check_attn_mask_shape", "mask_grad_unknown", {}, None))
    heads = x.heads
    if heads and heads[0] != heads[1] and not x.enable_gqa:
        out.append(("gqa_heads", FUSED, "check_batch_size_and_num_heads_dense", "gqa_heads",
                    {"q_heads": heads[0], "kv_heads": heads[1]}, "enable_gqa"))
    lengths = x.lengths
    if lengths and x.is_causal and lengths[0] != lengths[1]:
        out.append(("causal_non_square", ("flash",), "check_flash_causal_non_square_seqlens", "causal_non_square",
                    {"queries": lengths[0], "keys": lengths[1]}, "causal_lower_right"))
    if lengths and lengths[1] == 1:
        out.append(("cudnn_one_key", ("cudnn",), "check_cudnn_tensor_shapes", "cudnn_one_key", {}, None))
    if pre80:  # flash and cuDNN cannot run here whatever the inputs: their other checks are moot
        out = out[:1] + [c[:1] + (tuple(b for b in c[1] if b not in out[0][1]),) + c[2:] for c in out[1:]]
        out = [c for c in out if c[1]]
    return out


def reasons(x, ran, cc=(9, 0), backend_order=None, bias_grad=None, platform="cuda"):
    """[Reason] for one group of calls: each check the inputs fail for a backend before `ran`
    in any order the trace allows; where a fused backend before it in every such order passes
    every check, a pin beside the other possibilities (a build without that backend, a check the
    trace cannot show: the doctor does not read the Python stack that would show an sdpa_kernel
    call); and the top-left causal warning. bias_grad: True where the trace shows a float mask's
    gradient computed, "unknown" where a bias is in the backward but the trace does not say
    whether it requires grad."""
    seqs = orders(cc, backend_order, platform)
    befores = [seq[:seq.index(ran)] if ran in seq else () for seq in seqs]
    before = tuple(dict.fromkeys(b for bs in befores for b in bs))  # before it in some order
    surely = [b for b in befores[0] if all(b in bs for bs in befores[1:])]  # before it in every order
    found = []
    unknown = x.mask is not None and x.mask_dtype != "bool" and bias_grad == "unknown"
    for key, stops, check, case, values, fix in _checks(x, cc, bias_grad):
        hit = tuple(b for b in before if b in stops)
        if hit:  # a float mask whose gradient the trace does not record: said with it
            found.append(Reason(key, hit, check, "mask_unknown_grad" if key == "mask" and unknown else case,
                                values, fix))
    if x.mask is not None and x.mask_dtype != "bool" and bias_grad is True:
        found.append(Reason("bias_grad", ("flash", "cudnn"), "check_for_attn_mask", "bias_grad", {}, "learned_bias"))
    stopped = {b for r in found for b in r.backends}
    free = [b for b in surely if b != "math" and b not in stopped]
    if ran in seqs[0] and free:
        assumed = ("table" if backend_order else "either" if len(seqs) > 1 else
                   "cudnn_first" if seqs[0] == CUDNN_FIRST else "default")
        found.append(Reason("not_first", tuple(free), "select_sdp_backend", "not_first",
                            {"ran": ran, "free": tuple(free), "order": seqs[0], "assumed": assumed}, "check_pin"))
    lengths = x.lengths
    if x.is_causal and lengths and lengths[0] < lengths[1]:
        found.append(Reason("causal_top_left", (), "", "causal_top_left", {"queries": lengths[0], "keys": lengths[1]},
                            "causal_lower_right", warning=True))
    return found
