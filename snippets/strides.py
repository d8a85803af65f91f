"""A dimension of size 1 is contiguous whatever its stride, so .contiguous() keeps it.

Run on its own: ``python snippets/strides.py`` (CPU is enough).
"""

# --8<-- [start:size_one]
import torch

key_bias = torch.zeros(2, 1, 1, 8)  # a float mask [B, 1, 1, S]
mask = key_bias.transpose(-1, -2)  # [B, 1, S, 1]: stride 8 in its last dimension
print(mask.stride(-1), mask.is_contiguous(), mask.contiguous() is mask)
fresh = mask.clone(memory_format=torch.contiguous_format)
print(fresh.stride(-1), torch.equal(fresh, mask))
# --8<-- [end:size_one]
