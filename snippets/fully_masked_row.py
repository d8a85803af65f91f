"""A query row that may attend to nothing: NaN by hand, zeros from SDPA's math backend.

Run on its own: ``python snippets/fully_masked_row.py`` (CPU is enough).
"""

# --8<-- [start:nan]
import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel

torch.manual_seed(0)
q, k, v = (torch.randn(1, 1, 4, 8) for _ in range(3))
allowed = torch.ones(4, 4, dtype=torch.bool).tril()  # True = may attend (causal)
allowed[2] = False  # query 2 may attend to no key at all

# By hand: every score in row 2 is -inf, and softmax of all -inf is 0/0 = NaN.
scores = (q @ k.transpose(-2, -1)) / 8 ** 0.5
by_hand = torch.softmax(scores.masked_fill(~allowed, float("-inf")), dim=-1) @ v

# The math backend uses _safe_softmax, which turns a fully masked row into zeros.
with sdpa_kernel(SDPBackend.MATH):
    math_out = F.scaled_dot_product_attention(q, k, v, attn_mask=allowed)

print("by hand, row 2:     ", by_hand[0, 0, 2, :4])
print("math backend, row 2:", math_out[0, 0, 2, :4])
print("other rows agree:   ", torch.allclose(by_hand[0, 0, [0, 1, 3]],
                                             math_out[0, 0, [0, 1, 3]], atol=1e-6))
# --8<-- [end:nan]
