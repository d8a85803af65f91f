"""FlexAttention with a causal block mask, compiled, and torch.compile of the naive module.

Run on its own: ``python snippets/flex_attention.py`` checks both against SDPA on a small
input (CPU or GPU; the first call compiles, which takes a while).
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

# --8<-- [start:flex]
import torch
from torch.nn.attention.flex_attention import create_block_mask, flex_attention


def causal(batch, head, q_idx, kv_idx):
    return q_idx >= kv_idx  # a query sees itself and everything before it


def make_flex_causal(seq_len, device):
    """A compiled FlexAttention call with a causal block mask for this sequence length."""
    block_mask = create_block_mask(causal, B=None, H=None, Q_LEN=seq_len, KV_LEN=seq_len,
                                   device=device)
    compiled = torch.compile(flex_attention)
    return lambda q, k, v: compiled(q, k, v, block_mask=block_mask)
# --8<-- [end:flex]


# --8<-- [start:compiled-naive]
import torch
from naive_attention import NaiveCausalAttention


def make_compiled_naive(seq_len, device):
    """torch.compile of the hand-written module: does the compiler spot attention?"""
    return torch.compile(NaiveCausalAttention(seq_len, inplace=True).to(device))
# --8<-- [end:compiled-naive]


if __name__ == "__main__":
    # --8<-- [start:check]
    import torch
    import torch.nn.functional as F
    from flex_attention import make_compiled_naive, make_flex_causal
    from naive_attention import make_inputs

    device = "cuda" if torch.cuda.is_available() else "cpu"
    dtype = torch.bfloat16 if device == "cuda" else torch.float32
    q, k, v = make_inputs(batch=1, heads=2, seq_len=256, head_dim=64, dtype=dtype, device=device)
    expected = F.scaled_dot_product_attention(q, k, v, is_causal=True)
    with torch.no_grad():
        for name, make in [("flex", make_flex_causal), ("compiled naive", make_compiled_naive)]:
            out = make(256, device)(q, k, v)
            diff = (out.float() - expected.float()).abs().max().item()
            print(f"{name} on {device}: max |difference| to SDPA = {diff:.1e}")
    # --8<-- [end:check]
