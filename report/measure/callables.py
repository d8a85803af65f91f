"""The callable for each variant: code from snippets/, the files the pages show."""
from __future__ import annotations

import math
from contextlib import ExitStack, contextmanager, nullcontext

from .. import snippets


@contextmanager
def math_switch(name):
    """The math backend with one of its precision switches on, restored afterwards:
    math_bf16_reduction: torch.backends.cuda.allow_fp16_bf16_reduction_math_sdp(True)
    (no upcast of bf16/fp16 inputs to FP32); math_tf32: FP32 matmuls may use TF32."""
    import torch

    if name == "math_bf16_reduction":
        old = torch.backends.cuda.fp16_bf16_reduction_math_sdp_allowed()
        torch.backends.cuda.allow_fp16_bf16_reduction_math_sdp(True)
        try:
            yield
        finally:
            torch.backends.cuda.allow_fp16_bf16_reduction_math_sdp(old)
    else:
        old = torch.backends.cuda.matmul.allow_tf32
        torch.backends.cuda.matmul.allow_tf32 = True
        try:
            yield
        finally:
            torch.backends.cuda.matmul.allow_tf32 = old


def _math_with_switch(backends, name, sdpa_kernel):
    def context():
        stack = ExitStack()
        stack.enter_context(sdpa_kernel(backends.BACKENDS["math"]))
        stack.enter_context(math_switch(name))
        return stack
    return backends.causal_sdpa, context


def make_variant(name, cfg, device):
    """(callable, factory of its backend context) for a variant."""
    from torch.nn.attention import sdpa_kernel

    backends = snippets.load("sdpa_backends")
    if name in ("math_bf16_reduction", "math_tf32"):
        return _math_with_switch(backends, name, sdpa_kernel)
    if name in ("naive", "naive_inplace"):
        naive = snippets.load("naive_attention")
        module = naive.NaiveCausalAttention(cfg["seq_len"], inplace=name == "naive_inplace")
        return module.to(device), nullcontext
    if name == "auto":
        return backends.causal_sdpa, nullcontext
    if name == "flex":
        return snippets.load("flex_attention").make_flex_causal(cfg["seq_len"], device), nullcontext
    if name == "compiled_naive":
        return snippets.load("flex_attention").make_compiled_naive(cfg["seq_len"], device), nullcontext
    return backends.causal_sdpa, lambda: sdpa_kernel(backends.BACKENDS[name])


def make_inputs(cfg, dtype, device):
    return snippets.load("naive_attention").make_inputs(
        cfg["batch"], cfg["heads"], cfg["seq_len"], cfg["head_dim"], dtype=dtype, device=device)


def reference_output(torch, q, k, v):
    """The float64 result every variant's error is measured against."""
    qd, kd, vd = q.double(), k.double(), v.double()
    s = q.size(-2)
    scores = (qd @ kd.transpose(-2, -1)) / math.sqrt(q.size(-1))
    mask = torch.ones(s, s, dtype=torch.bool, device=q.device).triu(1)
    return torch.softmax(scores.masked_fill(mask, float("-inf")), dim=-1) @ vd
