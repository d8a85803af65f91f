"""One scaled_dot_product_attention call's recorded inputs (torch.profiler's
record_shapes=True: "Input Dims", "Input type", "Input Strides", "Concrete Inputs" of the
aten::scaled_dot_product_attention op).

    sdpa_inputs(args)        one call's inputs as an Inputs, or None where the trace has no shapes;
                             an Inputs whose `malformed` says what, where they cannot be any call's

The schema is aten::scaled_dot_product_attention(query, key, value, attn_mask=None,
dropout_p=0.0, is_causal=False, *, scale=None, enable_gqa=False): Input Dims holds the shapes
in that order ([] for a scalar or None), Input type the dtypes ("" for None, "Scalar" for a
number), Concrete Inputs the scalars' values as text ("0.", "False"). Why a backend ran is
read off an Inputs by rules/why.py (PyTorch's checks) and rules/asked_table.py (PyTorch's
recorded answers).

Malformed (Inputs.malformed, (what, which input); the shapes, strides, mask and dropout then
left out, so that no rule reads them and --ask-torch replays nothing): a dim or stride that is
negative or over 2**63 - 1 ("dims"/"strides": c10 holds both as int64_t, and a tensor's strides
are never negative, aten/src/ATen/native/Resize.h: setStrided, "Negative strides are not
supported"), recorded strides that are not one per dim ("rank"), a dropout that is not a number
from 0 to 1 ("dropout"). Equal malformed calls make one group, whatever the values.
"""
from __future__ import annotations

from dataclasses import dataclass

# Kineto's "Input type" of a tensor (c10's ScalarType names) -> torch's dtype name
DTYPES = {"c10::BFloat16": "bfloat16", "c10::Half": "float16", "float": "float32", "double": "float64",
          "bool": "bool", "c10::Float8_e4m3fn": "float8_e4m3fn"}


MAX_INT64 = 2**63 - 1  # the largest dim or stride c10 can hold (int64_t)
NAMES = ("query", "key", "value", "attn_mask")  # the tensors' argument names, in the schema's order
MALFORMED = ("dims", "strides", "rank", "dropout")  # Inputs.malformed's first item


@dataclass(frozen=True)
class Inputs:
    """One SDPA call's recorded inputs. Shapes as recorded; heads and lengths read where the
    query is 4-D ([batch, heads, length, head dim], SDPA's dense layout)."""
    query: tuple
    key: tuple
    value: tuple
    dtype: str  # the query's, as torch names it ("" where malformed)
    mask: tuple | None  # the attn_mask's shape, None without one
    mask_dtype: str | None
    dropout: float | None
    is_causal: bool | None
    enable_gqa: bool | None
    last_stride_one: bool | None  # the query, key and value's last stride is 1
    strides: tuple | None = None  # the query, key and value's strides, where recorded
    mask_strides: tuple | None = None  # the attn_mask's, where recorded
    malformed: tuple | None = None  # (MALFORMED's key, the input's name: NAMES or "dropout_p"), else None

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


def _concrete(values, i):
    if isinstance(values, list) and i < len(values) and isinstance(values[i], str) and values[i]:
        return values[i]
    return None


def _shape(value):
    """A recorded shape or strides as a tuple of ints (any size; _out_of_range checks them), or None."""
    if isinstance(value, list) and all(type(x) is int for x in value):
        return tuple(value)
    return None


def _out_of_range(values):
    return any(x < 0 or x > MAX_INT64 for x in values)


def _malformed(what, which):
    return Inputs(query=(), key=(), value=(), dtype="", mask=None, mask_dtype=None, dropout=None, is_causal=None,
                  enable_gqa=None, last_stride_one=None, malformed=(what, which))


def _strides(strides, shapes):
    """(q/k/v strides or None, the mask's or None, malformed or None) off Input Strides: a
    tensor's strides ([] where not recorded) are one per dim, each from 0 to 2**63 - 1."""
    recorded = [_shape(x) for x in strides[:len(shapes)]] if isinstance(strides, list) else []
    recorded += [None] * (len(shapes) - len(recorded))
    for name, shape, st in zip(NAMES, shapes, recorded, strict=False):
        if shape is None or not st:
            continue
        if _out_of_range(st):
            return None, None, ("strides", name)
        if len(st) != len(shape):
            return None, None, ("rank", name)
    qkv = recorded[:3]
    kept = tuple(qkv) if all(qkv) else None
    mask = recorded[3] if len(shapes) > 3 and shapes[3] is not None and recorded[3] else None
    return kept, mask, None


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
    dtype = DTYPES.get(types[0], types[0])
    mask_type = types[3] if len(types) > 3 and isinstance(types[3], str) and types[3] else None
    mask = _shape(dims[3]) if len(dims) > 3 and mask_type else None
    shapes = (q, k, v) + ((mask,) if mask is not None else ())
    for name, shape in zip(NAMES, shapes, strict=False):
        if _out_of_range(shape):
            return _malformed("dims", name)
    kept, mask_strides, bad = _strides(args.get("Input Strides"), shapes)
    if bad:
        return _malformed(*bad)
    concrete = args.get("Concrete Inputs")
    dropout = _concrete(concrete, 4)
    try:
        dropout = float(dropout) if dropout is not None else None
    except ValueError:
        dropout = None
    if dropout is not None and not 0.0 <= dropout <= 1.0:  # NaN too: each NaN made a group of its own
        return _malformed("dropout", "dropout_p")
    causal, gqa = _concrete(concrete, 5), _concrete(concrete, 7)
    raw, last = args.get("Input Strides"), None
    if isinstance(raw, list) and len(raw) >= 3:
        st = [_shape(x) for x in raw[:3]]
        last = all(st) and all(x[-1] == 1 for x in st)
    return Inputs(query=q, key=k, value=v, dtype=dtype,
                  mask=mask, mask_dtype=DTYPES.get(mask_type, mask_type) if mask_type else None,
                  dropout=dropout, is_causal=None if causal is None else causal == "True",
                  enable_gqa=None if gqa is None else gqa == "True", last_stride_one=last, strides=kept,
                  mask_strides=mask_strides)
