"""Findings from Nsight Compute's counters (results.json "ncu", one profiled call per
variant): how busy the fused kernels keep the tensor pipe, beside their occupancy and the
share of the matmul roof their kernel time reaches (the Occupancy page)."""
from __future__ import annotations

from dataclasses import dataclass

from ...variants import FUSED
from ...verdict import median
from ..memory_model import sizes
from .common import ok
from .registry import finding


@dataclass(frozen=True)
class TensorPipe:
    """A fused backend's busiest kernel in ncu (by tensor pipe): achieved occupancy and
    tensor pipe busy (% of the active cycles' sustained peak, the busier of HMMA and
    GMMA), and the share of the matmul roof (%) its kernel time reaches (None without the roof)."""
    name: str
    achieved: float
    tensor: float
    roof_share: float | None


@finding("findings-tensor-pipe")
def occ_tensor(results, ref) -> tuple[TensorPipe, ...] | None:
    rows = ((results.get("ncu") or {}).get("rows") or {})
    roof = (results.get("roof") or {}).get("tflops")
    flops = sizes(results["config"])["flops_causal"]
    out = []
    for n in FUSED:
        kernels = [k for k in ((rows.get(n) or {}).get("kernels") or {}).values()
                   if k.get("tensor_hmma_pct") is not None and k.get("achieved_pct") is not None]
        if not kernels:
            continue
        k = max(kernels, key=lambda k: k["tensor_hmma_pct"])
        kernel_us = median((ok(results, n) or {}).get("kernel_sum_us"))
        share = 100 * flops / kernel_us / 1e6 / roof if roof and kernel_us else None
        out.append(TensorPipe(n, k["achieved_pct"], k["tensor_hmma_pct"], share))
    return tuple(out) or None


@dataclass(frozen=True)
class MathMatmuls:
    """Math's matmul kernels in ncu (`gemm` in the name): the busiest one's tensor pipe (%);
    the rate math's FP32 matmuls reached (TFLOP/s: the square arithmetic over their kernel
    time per forward pass) and the tensor-core roof of the same run (None without it);
    `fp32_cores`: the tensor pipe below IDLE_PIPE, so the matmuls ran on the FP32 cores."""
    tensor: float
    kernels: int
    tflops: float
    roof: float | None
    fp32_cores: bool


IDLE_PIPE = 1.0  # % busy: below this a kernel's tensor pipe counts as unused


@finding("findings-math-pipe")
def math_pipe(results, ref) -> MathMatmuls | None:
    kernels = [k for name, k in ((((results.get("ncu") or {}).get("rows") or {}).get("math") or {}).get("kernels")
                                 or {}).items() if "gemm" in name and k.get("tensor_hmma_pct") is not None]
    spent = (((ok(results, "math") or {}).get("attribution") or {}).get("matmul_fp32") or {}).get("us_per_forward")
    if not kernels or not spent:
        return None
    busiest = max(k["tensor_hmma_pct"] for k in kernels)
    return MathMatmuls(busiest, len(kernels), sizes(results["config"])["flops_square"] / spent / 1e6,
                       (results.get("roof") or {}).get("tflops"), busiest < IDLE_PIPE)
