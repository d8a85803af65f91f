"""masked_fill_ under autograd: when it is harmless and when backward refuses.

Run on its own: ``python snippets/inplace_autograd.py`` (CPU is enough).
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

# --8<-- [start:same-gradients]
import torch
from naive_attention import NaiveCausalAttention


def gradients(inplace, q, k, v):
    for t in (q, k, v):
        t.grad = None
    NaiveCausalAttention(seq_len=q.size(-2), inplace=inplace)(q, k, v).sum().backward()
    return [t.grad.clone() for t in (q, k, v)]


torch.manual_seed(0)
q, k, v = (torch.randn(1, 2, 16, 8, dtype=torch.float64, requires_grad=True)
           for _ in range(3))
out_of_place, in_place = gradients(False, q, k, v), gradients(True, q, k, v)
print("same gradients:", all(torch.equal(a, b) for a, b in zip(out_of_place, in_place)))
# --8<-- [end:same-gradients]


# --8<-- [start:refused]
import torch

torch.manual_seed(0)
scores = torch.randn(4, 4, requires_grad=True) * 1.0
weights = torch.softmax(scores, dim=-1)  # softmax keeps its output for backward
drop = torch.rand(4, 4) < 0.25
weights.masked_fill_(drop, 0.0)  # ...and this overwrites that saved output
try:
    weights.sum().backward()
    print("backward ran")
except RuntimeError as err:
    print("backward refused:", str(err).split(":")[0])
# --8<-- [end:refused]
