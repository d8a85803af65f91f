"""Forward and backward: one training step of attention alone.

Run on its own: ``python snippets/training_step.py`` checks the gradients of SDPA against
the hand-written module on a small input (CPU or GPU).
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

# --8<-- [start:step]
import torch


def training_step(fn, q, k, v, grad_out):
    """Forward and backward through fn; q, k and v must have requires_grad=True."""
    for t in (q, k, v):
        t.grad = None
    out = fn(q, k, v)
    out.backward(grad_out)
    return q.grad, k.grad, v.grad
# --8<-- [end:step]


if __name__ == "__main__":
    # --8<-- [start:check]
    import torch
    from naive_attention import NaiveCausalAttention, make_inputs
    from sdpa_backends import causal_sdpa
    from training_step import training_step

    device = "cuda" if torch.cuda.is_available() else "cpu"
    q, k, v = (t.requires_grad_() for t in make_inputs(
        batch=1, heads=2, seq_len=64, head_dim=32, dtype=torch.float64, device=device))
    grad_out = torch.randn_like(q)
    naive = [g.clone() for g in training_step(NaiveCausalAttention(64).to(device), q, k, v, grad_out)]
    sdpa = training_step(causal_sdpa, q, k, v, grad_out)
    worst = max((a - b).abs().max().item() for a, b in zip(naive, sdpa))
    print(f"SDPA vs hand-written gradients on {device}: max |difference| = {worst:.1e}")
    # --8<-- [end:check]
