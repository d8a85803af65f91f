"""Findings from Nsight Compute's counters (results.json "ncu", one profiled call per
variant): how busy the fused kernels keep the tensor pipe, beside their occupancy and the
share of the matmul roof their kernel time reaches (the Occupancy page)."""
from __future__ import annotations

from dataclasses import dataclass

from ...rows import kernel_time
from ...variants import FUSED
from ...verdict import median
from ..memory_model import sizes
from .common import ok
from .registry import finding


def tensor_key(results):
    """The key of the tensor-pipe figure a run has: "tensor_pct" (the tensor pipe's active
    cycles, measure/ncu.py's sm__pipe_tensor_cycles_active) where it read it, else
    "tensor_hmma_pct" (the cycles ncu counts for its HMMA pipe: an earlier H200 run's only
    tensor figure, its ncu having no wgmma cycles counter)."""
    return "tensor_pct" if "tensor_pct" in ((results.get("ncu") or {}).get("metrics") or {}) else "tensor_hmma_pct"


@dataclass(frozen=True)
class TensorPipe:
    """A fused backend's busiest kernel in ncu (by tensor pipe): achieved occupancy and
    tensor pipe busy (% of the active cycles' sustained peak), the share of the matmul
    roof (%) its kernel time reaches (None without the roof); `counter`: which tensor
    figure (tensor_key); `wgmma`: whether the kernel executed wgmma instructions (None
    where the run did not count them); `no_gmma_counter`: the run asked this GPU's ncu
    for wgmma's own pipe cycles and it had no such metric (results.json metrics_missing);
    `xu`: the same kernel's XU pipe, the unit for special functions such as `exp` (measure/
    ncu.py's sm__inst_executed_pipe_xu, % of its sustained peak; None where not read)."""
    name: str
    achieved: float
    tensor: float
    roof_share: float | None
    counter: str
    wgmma: bool | None
    no_gmma_counter: bool
    xu: float | None = None


@finding("findings-tensor-pipe")
def occ_tensor(results, ref) -> tuple[TensorPipe, ...] | None:
    rows = ((results.get("ncu") or {}).get("rows") or {})
    roof = (results.get("roof") or {}).get("tflops")
    flops = sizes(results["config"])["flops_causal"]
    key = tensor_key(results)
    no_gmma = "tensor_gmma_pct" in ((results.get("ncu") or {}).get("metrics_missing") or {})
    out = []
    for n in FUSED:
        kernels = [k for k in ((rows.get(n) or {}).get("kernels") or {}).values()
                   if k.get(key) is not None and k.get("achieved_pct") is not None]
        if not kernels:
            continue
        k = max(kernels, key=lambda k: k[key])
        kernel_us = median(kernel_time(ok(results, n)))
        share = 100 * flops / kernel_us / 1e6 / roof if roof and kernel_us else None
        wgmma = None if k.get("gmma_inst") is None else k["gmma_inst"] > 0
        out.append(TensorPipe(n, k["achieved_pct"], k[key], share, key, wgmma, no_gmma, k.get("xu_pct")))
    return tuple(out) or None


@dataclass(frozen=True)
class PerBusyCycle:
    """Of occ_tensor's kernels with a roof share, those that executed wgmma (`wgmma`) reached
    more of the roof per busy cycle of the tensor pipe (roof share over tensor busy) than
    every one that executed none (`others`): names only, the figures are occ_tensor's."""
    wgmma: tuple[str, ...]
    others: tuple[str, ...]


@finding("findings-tensor-pipe")
def occ_tensor_per_cycle(results, ref) -> PerBusyCycle | None:
    rows = [r for r in occ_tensor(results, ref) or () if r.roof_share and r.tensor and r.wgmma is not None]
    per = {r.name: r.roof_share / r.tensor for r in rows}
    wgmma, others = [r.name for r in rows if r.wgmma], [r.name for r in rows if not r.wgmma]
    if not wgmma or not others or min(per[n] for n in wgmma) <= max(per[n] for n in others):
        return None
    return PerBusyCycle(tuple(wgmma), tuple(others))


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
    key = tensor_key(results)
    kernels = [k for name, k in ((((results.get("ncu") or {}).get("rows") or {}).get("math") or {}).get("kernels")
                                 or {}).items() if "gemm" in name and k.get(key) is not None]
    spent = (((ok(results, "math") or {}).get("attribution") or {}).get("matmul_fp32") or {}).get("us_per_forward")
    if not kernels or not spent:
        return None
    busiest = max(k[key] for k in kernels)
    return MathMatmuls(busiest, len(kernels), sizes(results["config"])["flops_square"] / spent / 1e6,
                       (results.get("roof") or {}).get("tflops"), busiest < IDLE_PIPE)
