"""Roofs the measured times are compared with: a large matmul in the run's dtype (TFLOP/s),
the same in FP32 without TF32 (the ceiling of SDPA math's upcast matmuls), a large device-to-device copy (GB/s) and a chain of exps (exps per second, the
special-function rate that softmax's exp needs)."""
from __future__ import annotations

import statistics
import time
from functools import partial

from .guard import first_line, free

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


def measure_fp32_roof(torch, device):
    """measure_roof in float32 with TF32 off (PyTorch's default for matmuls): what plain
    FP32 matmuls reach, the ceiling of SDPA math's matmuls once it has upcast bf16 to FP32."""
    old = torch.backends.cuda.matmul.allow_tf32
    torch.backends.cuda.matmul.allow_tf32 = False
    try:
        return measure_roof(torch, device, torch.float32)
    finally:
        torch.backends.cuda.matmul.allow_tf32 = old
        free(torch, device)


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


EXP_CHAIN = 64  # exps per element: enough that the special-function unit, not memory, sets the pace


def exp_chain(torch, x):
    """x -> exp(-x), EXP_CHAIN times: values stay in (0, 1], never overflow or reach 0."""
    for _ in range(EXP_CHAIN):
        x = torch.exp(-x)
    return x


def measure_exp_roof(torch, device, compile_fn=None):
    """Exps per second of this device: EXP_CHAIN exps of each element of a large FP32
    tensor, fused into one kernel by torch.compile (on a GPU, Triton's exp: the
    special-function unit's ex2 after one multiply), so each element is read and written
    once and the exps set the time; a copy of the same tensor (copy_ms) shows how little
    of that time moving the bytes takes. Checked against the same chain run eagerly."""
    elements = 2**26 if device == "cuda" else 2**20
    compile_fn = compile_fn or torch.compile
    try:
        x = torch.rand(elements, device=device, dtype=torch.float32)
        fused = compile_fn(lambda t: exp_chain(torch, t))
        got, want = fused(x)[:4096], exp_chain(torch, x[:4096])  # compiled for the timed size
        error = float((got - want).abs().max())
        if not error < 1e-3:
            raise RuntimeError(f"the compiled chain differs from the eager one by {error:g}")
        times = _runs(torch, device, lambda: fused(x))
        out = torch.empty_like(x)
        copy = statistics.median(_runs(torch, device, partial(out.copy_, x)))
    except Exception as err:  # noqa: BLE001 - no compiler, no Triton: the run goes on without it
        return {"status": "error", "reason": f"{type(err).__name__}: {first_line(err)[:300]}"}
    finally:
        x = out = None
        free(torch, device)
    med = statistics.median(times)
    return {"status": "ok", "reason": None, "how": "torch.compile of exp(-x) chained per element",
            "dtype": "float32", "elements": elements, "exps_per_element": EXP_CHAIN,
            "median_ms": med * 1e3, "min_ms": min(times) * 1e3, "max_ms": max(times) * 1e3,
            "copy_ms": copy * 1e3, "exps_per_s": elements * EXP_CHAIN / med}
