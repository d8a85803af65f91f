"""The roof attention's TFLOP/s is compared with: a large matmul in the run's dtype."""
from __future__ import annotations

import statistics
import time


def _one_matmul_seconds(torch, device, a, b):
    if device != "cuda":
        t0 = time.perf_counter()
        a @ b
        return time.perf_counter() - t0
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    a @ b
    end.record()
    end.synchronize()
    return start.elapsed_time(end) / 1e3


def measure_roof(torch, device, dtype):
    """Achieved TFLOP/s of a large matmul (median of 10, after 3 warm-up calls)."""
    n = 8192 if device == "cuda" else 512
    a, b = (torch.randn(n, n, device=device, dtype=dtype) for _ in range(2))
    times = [_one_matmul_seconds(torch, device, a, b) for _ in range(13)][3:]
    med = statistics.median(times)
    return {"shape": [n, n, n], "dtype": str(dtype).replace("torch.", ""),
            "tflops": 2 * n**3 / med / 1e12, "median_ms": med * 1e3}
