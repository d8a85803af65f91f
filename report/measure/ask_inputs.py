"""The tensors and the call of one eligibility condition (ask_conditions.py): inputs in the
condition's dtype, layout and mask, the SDPA call (or nn.MultiheadAttention's, or a
compiled function's) and the SDPAParams arguments torch.backends.cuda.can_use_* take."""
from __future__ import annotations

import contextlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

SEED = 37  # the inputs' random generator: the same tensors in every run


@dataclass
class Prepared:
    call: Callable[[], Any]  # one forward pass
    params: tuple | None  # (q, k, v, mask, dropout, is_causal, enable_gqa) for SDPAParams
    params_error: str | None  # why there are none (nn.MultiheadAttention builds its own q, k, v)
    grad: bool  # run with autograd on (a bias that requires grad)
    pin: Callable[[], Any]  # a context manager factory around each call
    qkv: tuple | None  # the condition's q, k, v (for the decode checks)


def backend_enum(torch, name):
    from torch.nn.attention import SDPBackend

    return {"flash": SDPBackend.FLASH_ATTENTION, "efficient": SDPBackend.EFFICIENT_ATTENTION,
            "cudnn": SDPBackend.CUDNN_ATTENTION, "math": SDPBackend.MATH}[name]


def _pin(torch, name):
    if name is None:
        return contextlib.nullcontext
    from torch.nn.attention import sdpa_kernel

    return lambda: sdpa_kernel(backend_enum(torch, name))


def _randn(torch, shape, dtype, device, gen):
    return torch.randn(shape, generator=gen, dtype=torch.float32, device="cpu").to(device, dtype)


def _lengths(batch, seq):
    """Key lengths per sequence of the padding conditions: from half the sequence up to
    all of it, evenly."""
    if batch == 1:
        return [seq]
    return [max(1, seq // 2 + (seq - seq // 2) * i // (batch - 1)) for i in range(batch)]


def _mask(torch, cond, b, h, sq, sk, dtype, device, gen):
    if cond.mask == "causal_materialised":
        return torch.ones(sq, sk, dtype=torch.bool, device=device).tril()
    if cond.mask == "bool_padding":
        lengths = torch.tensor(_lengths(b, sk), device=device)
        return (torch.arange(sk, device=device)[None, :] < lengths[:, None]).view(b, 1, 1, sk)
    if cond.mask in ("float_additive", "float_bias_grad"):
        bias = _randn(torch, (1, h, sq, sk), dtype, device, gen) * 0.1
        return bias.requires_grad_(cond.mask == "float_bias_grad")
    if cond.mask == "causal_lower_right":
        from torch.nn.attention.bias import causal_lower_right

        return causal_lower_right(sq, sk)
    return None


def _layout(torch, x, layout):
    if layout == "transposed_bshd":  # made as [B, S, H, D], handed over as its transpose
        return x.transpose(1, 2).contiguous().transpose(1, 2)
    if layout == "last_dim_strided":
        return x.transpose(-1, -2).contiguous().transpose(-1, -2)
    if layout == "5d":
        b, h, s, d = x.shape
        if h % 2:
            raise ValueError(f"5-D inputs split the heads in two: {h} heads is odd")
        return x.reshape(b, 2, h // 2, s, d)
    return x


def _nested(torch, b, h, s, d, dtype, device, gen):
    """q, k, v as nested jagged tensors [B, H, j, D] of _lengths(b, s) tokens each."""
    def one():
        parts = [_randn(torch, (n, h, d), dtype, device, gen) for n in _lengths(b, s)]
        return torch.nested.nested_tensor(parts, layout=torch.jagged, device=device,
                                          dtype=dtype).transpose(1, 2)
    return one(), one(), one()


def _mha(torch, cond, shape, dtype, device, gen):
    e = shape["heads"] * shape["head_dim"]
    torch.manual_seed(SEED)
    mha = torch.nn.MultiheadAttention(e, shape["heads"], batch_first=True, device=device,
                                      dtype=dtype).eval()
    x = _randn(torch, (shape["batch"], shape["seq_q"], e), dtype, device, gen)
    need = cond.api == "mha_need_weights"
    return Prepared(call=lambda: mha(x, x, x, need_weights=need)[0], params=None,
                    params_error="nn.MultiheadAttention makes q, k, v inside the module",
                    grad=False, pin=contextlib.nullcontext, qkv=None)


def _compiled(torch, cond, q, k, v):
    import torch.nn.functional as F

    if cond.api == "compiled_pinned":
        from torch.nn.attention import sdpa_kernel

        backend = backend_enum(torch, cond.pinned)

        def attend(q, k, v):
            with sdpa_kernel(backend):
                return F.scaled_dot_product_attention(q, k, v)
    else:
        def attend(q, k, v):
            return F.scaled_dot_product_attention(q, k, v)
    fn = torch.compile(attend)
    return lambda: fn(q, k, v)


def prepare(torch, cond, shape, run_dtype, device):
    """The condition's call and SDPAParams arguments at `shape` (ask_conditions.shapes)."""
    import torch.nn.functional as F

    gen = torch.Generator().manual_seed(SEED)
    dtype = getattr(torch, cond.dtype or run_dtype)
    if cond.api.startswith("mha_"):
        return _mha(torch, cond, shape, dtype, device, gen)
    b, h, sq, sk = shape["batch"], shape["heads"], shape["seq_q"], shape["seq_k"]
    d, kvh = cond.head_dim or shape["head_dim"], cond.kv_heads or shape["heads"]
    if cond.layout == "nested_jagged":
        q, k, v = _nested(torch, b, h, sk, d, dtype, device, gen)
    else:
        q = _layout(torch, _randn(torch, (b, h, sq, d), dtype, device, gen), cond.layout)
        k, v = (_layout(torch, _randn(torch, (b, kvh, sk, d), dtype, device, gen), cond.layout)
                for _ in range(2))
    mask = _mask(torch, cond, b, h, sq, sk, dtype, device, gen)
    if cond.api.startswith("compiled"):
        call = _compiled(torch, cond, q, k, v)
        pin = contextlib.nullcontext
    else:
        kwargs = {"attn_mask": mask, "dropout_p": cond.dropout, "is_causal": cond.is_causal}
        if cond.enable_gqa:
            kwargs["enable_gqa"] = True
        call = lambda: F.scaled_dot_product_attention(q, k, v, **kwargs)  # noqa: E731
        pin = _pin(torch, cond.pinned)
    # a lower-right CausalBias asks can_use_* itself, with no mask (torch/nn/attention/bias.py:
    # CausalBias._dispatch builds SDPAParams(query, key, value, None, dropout_p, is_causal,
    # enable_gqa)): the answers are to that question
    asked = None if cond.mask == "causal_lower_right" else mask
    return Prepared(call=call, params=(q, k, v, asked, cond.dropout, cond.is_causal, cond.enable_gqa),
                    params_error=None, grad=cond.mask == "float_bias_grad", pin=pin, qkv=(q, k, v))
