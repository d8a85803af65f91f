"""Roofs the measured times are compared with: a large matmul in the run's dtype (TFLOP/s)
and a large device-to-device copy (GB/s)."""
from __future__ import annotations

import statistics
import time
from functools import partial

from .guard import free

WARMUP, RUNS = 3, 10


def _seconds(torch, device, op):
    """One run of op: CUDA events on a GPU, the host clock on the CPU."""
    if device != "cuda":
        t0 = time.perf_counter()
        op()
        return time.perf_counter() - t0
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    op()
    end.record()
    end.synchronize()
    return start.elapsed_time(end) / 1e3


def _runs(torch, device, op):
    """Seconds of RUNS runs of op, after WARMUP runs that are not kept."""
    return [_seconds(torch, device, op) for _ in range(WARMUP + RUNS)][WARMUP:]


def measure_roof(torch, device, dtype):
    """Achieved TFLOP/s of a large matmul (median of RUNS, after WARMUP runs)."""
    n = 8192 if device == "cuda" else 512
    a, b = (torch.randn(n, n, device=device, dtype=dtype) for _ in range(2))
    med = statistics.median(_runs(torch, device, lambda: a @ b))
    return {"shape": [n, n, n], "dtype": str(dtype).replace("torch.", ""),
            "tflops": 2 * n**3 / med / 1e12, "median_ms": med * 1e3}


def measure_copy_roof(torch, device, mib):
    """Bytes read + written per second by a large device-to-device copy (median of RUNS)."""
    nbytes = mib * 2**20
    src = torch.ones(nbytes, dtype=torch.uint8, device=device)
    dst = torch.empty_like(src)
    times = _runs(torch, device, partial(dst.copy_, src))
    del src, dst
    free(torch, device)
    med = statistics.median(times)
    return {"bytes": nbytes, "median_ms": med * 1e3, "gb_per_s": 2 * nbytes / med / 1e9,
            "min_ms": min(times) * 1e3, "max_ms": max(times) * 1e3}
