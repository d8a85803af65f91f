"""Why each scaled_dot_product_attention call ran the backend it ran, read off its recorded
inputs (torch.profiler's record_shapes=True: "Input Dims", "Input type", "Input Strides",
"Concrete Inputs" of the aten::scaled_dot_product_attention op).

    sdpa_inputs(args)        one call's inputs as an Inputs, or None where the trace has no shapes
    blocked(inputs, cc)      the checks that keep each fused backend from running, by backend:
                             [(check function, what it found)]
    explain_call(inputs, backend, cc)   why this backend ran and what would let a faster one run

The schema is aten::scaled_dot_product_attention(query, key, value, attn_mask=None,
dropout_p=0.0, is_causal=False, *, scale=None, enable_gqa=False): Input Dims holds the shapes
in that order ([] for a scalar or None), Input type the dtypes ("" for None, "Scalar" for a
number), Concrete Inputs the scalars' values as text ("0.", "False").

The checks are PyTorch's, named as its source names them: the backend order and each
backend's gate functions in aten/src/ATen/native/transformers/cuda/sdp_utils.cpp
(select_sdp_backend; can_use_flash_attention, can_use_mem_efficient_attention,
can_use_cudnn_attention and their check_* functions). They are read here from the inputs
alone; the checks the trace cannot show (a backend disabled with sdpa_kernel, the build,
the cuDNN version) are not claimed. Dense CUDA inputs on a GPU of compute capability 8.0
or newer are assumed where the trace does not name the device.
"""
from __future__ import annotations

from dataclasses import dataclass

# Kineto's "Input type" of a tensor (c10's ScalarType names) -> torch's dtype name
DTYPES = {"c10::BFloat16": "bfloat16", "c10::Half": "float16", "float": "float32", "double": "float64",
          "bool": "bool", "c10::Float8_e4m3fn": "float8_e4m3fn"}
LOW_PRECISION = ("float16", "bfloat16")  # check_dtypes_low_precision on sm80 and newer
FLASH_MAX_HEAD_DIM = 256  # check_head_dim_size_flash: "less than or equal to 256"
SOURCE = "aten/src/ATen/native/transformers/cuda/sdp_utils.cpp"


@dataclass(frozen=True)
class Inputs:
    """One SDPA call's recorded inputs. Shapes as recorded; heads and lengths read where the
    query is 4-D ([batch, heads, length, head dim], SDPA's dense layout)."""
    query: tuple
    key: tuple
    value: tuple
    dtype: str  # the query's, as torch names it
    mask: tuple | None  # the attn_mask's shape, None without one
    mask_dtype: str | None
    dropout: float | None
    is_causal: bool | None
    enable_gqa: bool | None
    last_stride_one: bool | None  # the query, key and value's last stride is 1

    @property
    def head_dim(self):
        return self.query[-1] if self.query else None

    @property
    def heads(self):
        return (self.query[-3], self.key[-3]) if len(self.query) == 4 and len(self.key) == 4 else None

    @property
    def lengths(self):
        return (self.query[-2], self.key[-2]) if len(self.query) >= 2 and len(self.key) >= 2 else None

    def describe(self):
        """The inputs in a few words: dtype, shapes, mask, flags."""
        mask = (f"a {self.mask_dtype} mask [{', '.join(map(str, self.mask))}]" if self.mask is not None
                else "no mask")
        flags = [f"is_causal={self.is_causal}"] if self.is_causal is not None else []
        if self.dropout:
            flags.append(f"dropout {self.dropout:g}")
        if self.enable_gqa:
            flags.append("enable_gqa=True")
        return (f"{self.dtype} q [{', '.join(map(str, self.query))}], k [{', '.join(map(str, self.key))}], "
                f"{mask}" + (f", {', '.join(flags)}" if flags else ""))


def _concrete(values, i):
    if isinstance(values, list) and i < len(values) and isinstance(values[i], str) and values[i]:
        return values[i]
    return None


def _shape(value):
    if isinstance(value, list) and all(type(x) is int for x in value):
        return tuple(value)
    return None


def sdpa_inputs(args):
    """An Inputs of the op's kept args (explain_events.inputs), or None without shapes."""
    if not args:
        return None
    dims, types = args.get("Input Dims"), args.get("Input type")
    if not isinstance(dims, list) or not isinstance(types, list) or len(dims) < 3 or len(types) < 3:
        return None
    q, k, v = (_shape(d) for d in dims[:3])
    if not q or not k or v is None or not isinstance(types[0], str):
        return None
    mask = _shape(dims[3]) if len(dims) > 3 else None
    mask_type = types[3] if len(types) > 3 and isinstance(types[3], str) and types[3] else None
    concrete = args.get("Concrete Inputs")
    dropout = _concrete(concrete, 4)
    try:
        dropout = float(dropout) if dropout is not None else None
    except ValueError:
        dropout = None
    causal, gqa = _concrete(concrete, 5), _concrete(concrete, 7)
    strides = args.get("Input Strides")
    last = None
    if isinstance(strides, list) and len(strides) >= 3:
        s = [_shape(x) for x in strides[:3]]
        last = all(x for x in s) and all(x[-1] == 1 for x in s)
    return Inputs(query=q, key=k, value=v, dtype=DTYPES.get(types[0], types[0]),
                  mask=mask if mask_type else None, mask_dtype=DTYPES.get(mask_type, mask_type) if mask_type else None,
                  dropout=dropout, is_causal=None if causal is None else causal == "True",
                  enable_gqa=None if gqa is None else gqa == "True", last_stride_one=last)


def blocked(x, cc=(9, 0)):
    """{backend: [(check, what the inputs show)]}: the gate functions of sdp_utils.cpp that the
    recorded inputs fail on a GPU of compute capability cc, for flash, efficient and cudnn. An
    empty list: none that the inputs can show."""
    hd, heads, lengths = x.head_dim, x.heads, x.lengths
    same_dims = x.query[-1] == x.key[-1] == x.value[-1] if x.value else True
    flash, eff, cudnn = [], [], []
    if x.mask is not None:
        flash.append(("check_for_attn_mask", "an attn_mask is passed: flash takes none"))
    if not same_dims or (hd is not None and hd > FLASH_MAX_HEAD_DIM):
        flash.append(("check_head_dim_size_flash", f"head dim {hd}: flash needs q, k, v of one head dim "
                      f"up to {FLASH_MAX_HEAD_DIM}"))
    # check_dtypes_low_precision: float16 and bfloat16 from sm80 on, float16 alone before;
    # can_use_mem_efficient_attention: float16, float32, and bfloat16 from sm80 on
    low_types = LOW_PRECISION if cc >= (8, 0) else ("float16",)
    eff_types = low_types + ("float32",)
    low = x.dtype in low_types
    if not low:
        flash.append(("check_dtypes_flash_attention", f"{x.dtype} inputs: flash runs {' and '.join(low_types)}"))
        cudnn.append(("check_dtypes_low_precision", f"{x.dtype} inputs: cuDNN runs {' and '.join(low_types)}"))
    if x.dtype not in eff_types:
        eff.append(("can_use_mem_efficient_attention (check_tensor_dtype)",
                    f"{x.dtype} inputs: the efficient kernel runs {', '.join(eff_types)}"))
    # minimum_gemm_alignment: 8 elements for 16-bit inputs with tensor cores, 4 for float32
    align = 8 if x.dtype in LOW_PRECISION else 4
    if hd is not None and hd % align:
        eff.append(("check_head_dim_size_mem_efficient", f"head dim {hd} is not a multiple of {align}"))
    if lengths and x.is_causal and lengths[0] != lengths[1]:
        flash.append(("check_flash_causal_non_square_seqlens",
                      f"is_causal with {lengths[0]} queries and {lengths[1]} keys"))
    if heads and heads[0] != heads[1] and not x.enable_gqa:
        for found in (flash, eff, cudnn):
            found.append(("check_batch_size_and_num_heads_dense",
                          f"{heads[0]} query heads and {heads[1]} key/value heads without enable_gqa=True"))
    if x.last_stride_one is False:
        for found in (flash, eff, cudnn):
            found.append(("check_last_dim_stride_equals_1_dense", "an input whose last dimension is not contiguous"))
    return {"flash": flash, "efficient": eff, "cudnn": cudnn}


FASTER = {"math": ("flash", "cudnn", "efficient"), "efficient": ("flash", "cudnn"), "cudnn": (), "flash": ()}


def explain_call(x, backend, cc=(9, 0)):
    """(why this backend ran, what would let a faster one run or None), from the checks the
    inputs fail. A fused backend that ran needs no reason beyond the order of select_sdp_backend."""
    gates = blocked(x, cc)
    faster = FASTER.get(backend, ())
    stopped = [(b, gates[b]) for b in faster if gates[b]]
    if not stopped:
        if backend == "math":
            return ("the inputs pass every check they can show: the fused backends were disabled "
                    "(sdpa_kernel, enable_*_sdp(False)) or are not built for this GPU", None)
        return (f"select_sdp_backend's order picks {backend} first for these inputs", None)
    why = "; ".join(f"{b}: {check} ({what})" for b, checks in stopped for check, what in checks[:2])
    remedy = _remedy(x, [c for _, checks in stopped for c, _ in checks])
    return why, remedy


def _remedy(x, checks):
    if "check_dtypes_flash_attention" in checks or "check_dtypes_low_precision" in checks:
        return ("run attention in bfloat16 or float16 (torch.autocast(\"cuda\", dtype=torch.bfloat16), "
                "or cast q, k, v)")
    if "check_batch_size_and_num_heads_dense" in checks:
        return "pass enable_gqa=True (K/V keep their own heads)"
    if "check_for_attn_mask" in checks and x.mask_dtype == "bool":
        return ("if the mask is the causal triangle, drop it and pass is_causal=True; a padding mask: "
                "nested jagged tensors (torch.nested, layout=torch.jagged) run flash without one")
    if "check_for_attn_mask" in checks:
        return "flash takes no mask: is_causal=True where the mask is causal, FlexAttention for a score bias"
    if "check_head_dim_size_mem_efficient" in checks or "check_head_dim_size_flash" in checks:
        return "a head dim that is a multiple of 8 and at most 256"
    return None
