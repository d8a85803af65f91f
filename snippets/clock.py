"""Timing a GPU call from Python: wait for the GPU before you read the clock.

Run on its own: ``python snippets/clock.py`` (CPU is enough; on a CUDA GPU it times the GPU).
"""

# --8<-- [start:synchronized]
import time

import torch
import torch.nn.functional as F

device = "cuda" if torch.cuda.is_available() else "cpu"
q = k = v = torch.randn(2, 8, 256, 64, device=device)


def wait_for_gpu():
    """Block until the GPU has finished all work queued so far (the CPU has nothing queued)."""
    if device == "cuda":
        torch.cuda.synchronize()


F.scaled_dot_product_attention(q, k, v)  # the first call pays for setup: leave it out
wait_for_gpu()
start = time.perf_counter()
for _ in range(10):
    F.scaled_dot_product_attention(q, k, v)
wait_for_gpu()  # without it the clock stops when the last launch returns, not when the kernel ends
print(f"{(time.perf_counter() - start) / 10 * 1e6:.0f} µs wall time per call on {device}")
# --8<-- [end:synchronized]
