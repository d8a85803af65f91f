"""One scaled_dot_product_attention call's recorded inputs (torch.profiler's
record_shapes=True: "Input Dims", "Input type", "Input Strides", "Concrete Inputs" of the
aten::scaled_dot_product_attention op).

    sdpa_inputs(args)        one call's inputs as an Inputs, or None where the trace has no shapes

The schema is aten::scaled_dot_product_attention(query, key, value, attn_mask=None,
dropout_p=0.0, is_causal=False, *, scale=None, enable_gqa=False): Input Dims holds the shapes
in that order ([] for a scalar or None), Input type the dtypes ("" for None, "Scalar" for a
number), Concrete Inputs the scalars' values as text ("0.", "False"). Why a backend ran is
read off an Inputs by rules/why.py (PyTorch's checks) and rules/asked_table.py (PyTorch's
recorded answers).
"""
from __future__ import annotations

from dataclasses import dataclass

# Kineto's "Input type" of a tensor (c10's ScalarType names) -> torch's dtype name
DTYPES = {"c10::BFloat16": "bfloat16", "c10::Half": "float16", "float": "float32", "double": "float64",
          "bool": "bool", "c10::Float8_e4m3fn": "float8_e4m3fn"}


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
    strides: tuple | None = None  # the query, key and value's strides, where recorded

    @property
    def layouts(self):
        """The table's layout names the recorded shapes and strides may be (rules/asked_table.py)."""
        if len(self.query) == 5:
            return ("5d",)
        if self.last_stride_one is False:
            return ("last_dim_strided",)
        if not self.strides or len(self.query) != 4:
            return ("contiguous", "transposed_bshd")
        b, h, s, d = self.query
        st = self.strides[0]
        if st == (h * s * d, s * d, d, 1):
            return ("contiguous",)
        if st == (s * h * d, d, h * d, 1):
            return ("transposed_bshd",)
        return ("transposed_bshd", "contiguous")

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
    """An Inputs of the op's kept args (events.inputs), or None without shapes."""
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
    last, kept = None, None
    if isinstance(strides, list) and len(strides) >= 3:
        s = [_shape(x) for x in strides[:3]]
        last = all(x for x in s) and all(x[-1] == 1 for x in s)
        kept = tuple(s) if all(s) else None
    return Inputs(query=q, key=k, value=v, dtype=DTYPES.get(types[0], types[0]),
                  mask=mask if mask_type else None, mask_dtype=DTYPES.get(mask_type, mask_type) if mask_type else None,
                  dropout=dropout, is_causal=None if causal is None else causal == "True",
                  enable_gqa=None if gqa is None else gqa == "True", last_stride_one=last, strides=kept)
