"""Issue 37, "Ask PyTorch why": the conditions of the eligibility grid (measure/ask.py).

Each condition changes one thing from its shape's baseline and names, in `fix`, the
condition that applies its remedy (None where there is none to apply). The values are
what results.json's "eligibility" records as each condition's "setting".
"""
from __future__ import annotations

from dataclasses import dataclass

FUSED_BACKENDS = ("flash", "efficient", "cudnn")
GQA_KV_HEADS = 4  # key/value heads of the grouped-query conditions
DROPOUT = 0.1
# head dims beside the seed's: two powers of two, one over flash's 256, one multiple of 8
# that is not a power of two, one that is not a multiple of 8
HEAD_DIMS = (128, 256, 512, 72, 100)


@dataclass(frozen=True)
class Condition:
    id: str
    shape: str = "seed"  # "seed" or "decode"
    fix: str | None = None
    dtype: str | None = None  # None: the run's --dtype
    head_dim: int | None = None  # None: the shape's
    kv_heads: int | None = None  # None: as many as query heads
    mask: str = "none"  # none, bool_padding, float_additive, causal_materialised, float_bias_grad, causal_lower_right
    is_causal: bool = False
    layout: str = "contiguous"  # contiguous, transposed_bshd, last_dim_strided, 5d, nested_jagged
    dropout: float = 0.0
    enable_gqa: bool = False
    api: str = "sdpa"  # sdpa, mha_need_weights, mha_no_weights, compiled, compiled_pinned
    pinned: str | None = None  # flash, efficient, cudnn, math: sdpa_kernel around (or in) the call
    check: str | None = None  # "causal_alignment": the decode shape's proof of top-left alignment


def _conditions():
    seed = [Condition("baseline")]
    seed += [Condition(f"baseline_pinned_{b}", pinned=b) for b in FUSED_BACKENDS]
    seed += [
        Condition("causal", is_causal=True),
        Condition("causal_mask", fix="causal", mask="causal_materialised"),
        Condition("bool_padding_mask", fix="nested_jagged", mask="bool_padding"),
        Condition("float_additive_mask", mask="float_additive"),
        Condition("float_bias_grad", mask="float_bias_grad"),
        Condition("float32", fix="baseline", dtype="float32"),
        Condition("float32_gqa", fix="gqa", dtype="float32", kv_heads=GQA_KV_HEADS, enable_gqa=True),
        Condition("gqa", kv_heads=GQA_KV_HEADS, enable_gqa=True),
        Condition("float16", dtype="float16"),
    ]
    seed += [Condition(f"head_dim_{d}", head_dim=d) for d in HEAD_DIMS]
    seed += [
        Condition("five_d", fix="baseline", layout="5d"),
        Condition("last_dim_strided", fix="baseline", layout="last_dim_strided"),
        Condition("transposed_bshd", layout="transposed_bshd"),
        Condition("dropout", dropout=DROPOUT),
        Condition("mha_need_weights", fix="mha_no_weights", api="mha_need_weights"),
        Condition("mha_no_weights", api="mha_no_weights"),
        Condition("pinned_flash_float32", fix="baseline_pinned_flash", dtype="float32", pinned="flash"),
        Condition("nested_jagged", layout="nested_jagged"),
    ]
    decode = [
        Condition("decode_baseline", shape="decode"),
        Condition("decode_causal", shape="decode", fix="decode_baseline", is_causal=True,
                  check="causal_alignment"),
        Condition("decode_causal_lower_right", shape="decode", mask="causal_lower_right",
                  check="causal_alignment"),
    ]
    compiled = [  # last: the slowest, and the first a spent time budget leaves out
        Condition("compiled", api="compiled"),
        Condition("compiled_pinned_efficient", api="compiled_pinned", pinned="efficient"),
    ]
    return tuple(seed + decode + compiled)


CONDITIONS = _conditions()
BY_ID = {c.id: c for c in CONDITIONS}


def shapes(args):
    """The two shapes, from the run's arguments: the seed's, and decode (one query against
    the seed's sequence length of keys)."""
    seed = {"batch": args.batch, "heads": args.heads, "seq_q": args.seq_len,
            "seq_k": args.seq_len, "head_dim": args.head_dim}
    return {"seed": seed, "decode": {**seed, "seq_q": 1}}


def setting(cond, shape, run_dtype):
    """The condition's "setting" in results.json."""
    return {"dtype": cond.dtype or run_dtype, "head_dim": cond.head_dim or shape["head_dim"],
            "kv_heads": cond.kv_heads or shape["heads"], "mask": cond.mask,
            "is_causal": cond.is_causal, "layout": cond.layout, "dropout": cond.dropout,
            "enable_gqa": cond.enable_gqa, "api": cond.api, "pinned": cond.pinned}
