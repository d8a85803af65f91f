"""Hand-written causal attention: the five operations, with and without in-place masking.

Run on its own: ``python snippets/naive_attention.py`` compares both variants with
``F.scaled_dot_product_attention`` on a small input (CPU or GPU).
"""

# --8<-- [start:inputs]
import torch


def make_inputs(batch=8, heads=16, seq_len=1024, head_dim=64,
                dtype=torch.bfloat16, device="cuda", seed=0):
    """Random q, k, v of shape (batch, heads, seq_len, head_dim)."""
    gen = torch.Generator(device=device).manual_seed(seed)
    shape = (batch, heads, seq_len, head_dim)
    return tuple(torch.randn(shape, generator=gen, device=device, dtype=dtype)
                 for _ in range(3))
# --8<-- [end:inputs]


# --8<-- [start:naive]
import math

import torch
from torch import nn


class NaiveCausalAttention(nn.Module):
    """matmul -> scale -> mask -> softmax -> matmul, written out by hand."""

    def __init__(self, seq_len, inplace=False):
        super().__init__()
        # Built once: True above the diagonal, where a query must not look ahead.
        mask = torch.ones(seq_len, seq_len, dtype=torch.bool).triu(diagonal=1)
        self.register_buffer("mask", mask, persistent=False)
        self.inplace = inplace

    def forward(self, q, k, v):
        scores = q @ k.transpose(-2, -1)
        scores = scores * (1.0 / math.sqrt(q.size(-1)))
        if self.inplace:
            # Writes into `scores` and saves a copy. Fine with autograd here: nothing saved
            # `scores` for backward (PyTorch raises an error where something did).
            scores.masked_fill_(self.mask, float("-inf"))
        else:
            # Returns a new tensor: PyTorch copies `scores` first (a Memcpy on the GPU).
            scores = scores.masked_fill(self.mask, float("-inf"))
        weights = torch.softmax(scores, dim=-1)
        return weights @ v
# --8<-- [end:naive]


def main():
    import torch.nn.functional as F

    device = "cuda" if torch.cuda.is_available() else "cpu"
    q, k, v = make_inputs(batch=2, heads=4, seq_len=128, head_dim=64,
                          dtype=torch.float32, device=device)
    expected = F.scaled_dot_product_attention(q, k, v, is_causal=True)
    for inplace in (False, True):
        module = NaiveCausalAttention(seq_len=128, inplace=inplace).to(device)
        with torch.no_grad():
            out = module(q, k, v)
        diff = (out - expected).abs().max().item()
        label = "masked_fill_" if inplace else "masked_fill "
        print(f"{label} on {device}: output {tuple(out.shape)}, "
              f"max |difference| to SDPA = {diff:.2e}")


if __name__ == "__main__":
    main()
