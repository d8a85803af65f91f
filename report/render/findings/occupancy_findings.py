"""Findings of the occupancy page: flash's arithmetic, and every 0 % Kineto shows."""
from __future__ import annotations

import math
from dataclasses import dataclass

from ...trace.kernel_occupancy import registers_per_block
from ...variants import FUSED
from ..prose import Data
from .common import compute_kernel, ok
from .registry import finding

DEFAULT_SMEM_PER_BLOCK = 49152  # CUDA's default limit without opt-in, if provenance lacks it


@dataclass(frozen=True)
class FlashOccupancy:
    """Flash's occupancy worked out: threads × registers (`product`), registers per warp and
    block as handed out, the SM's registers, the blocks and warps that fit (of
    `max_warps`), our figure (`pct`) and Kineto's."""
    kernel: Data
    threads: int
    regs: int
    product: int
    per_warp: int
    per_block: int
    regs_sm: int
    blocks: int
    warps: int
    max_warps: int
    pct: float
    kineto: float


@finding("findings-occupancy")
def occ_flash(results, ref) -> FlashOccupancy | None:
    v, prov = results["variants"], results["provenance"]
    measured = any(k.get("our_optin_pct") is not None for n in FUSED if ok(results, n)
                   for k in v[n]["kernels"])
    if not (ok(results, "flash") and measured):
        return None
    k = compute_kernel(v["flash"])
    threads = math.prod(k["block"])
    per_warp, per_block = registers_per_block(k["registers_per_thread"], threads)
    return FlashOccupancy(kernel=Data(k["short_name"]), threads=threads, regs=k["registers_per_thread"],
                          product=threads * k["registers_per_thread"], per_warp=per_warp, per_block=per_block,
                          regs_sm=prov.get("regs_per_sm", 65536), blocks=k["our_optin_blocks"],
                          warps=threads // 32 * k["our_optin_blocks"], max_warps=prov.get("max_warps_per_sm", 64),
                          pct=k["our_optin_pct"], kineto=k["kineto_occupancy_pct"])


@dataclass(frozen=True)
class ZeroByDefault:
    """A fused kernel Kineto gives 0 %: the shared memory it asks per block against the
    default limit and the opt-in limit, and the blocks per SM it really gets, our figure
    and what limits it."""
    kernel: Data
    smem: int
    default: int
    optin: int | None
    blocks: int
    pct: float
    limited_by: tuple[str, ...]


@finding("findings-occupancy")
def occ_zero(results, ref) -> ZeroByDefault | None:
    v, prov = results["variants"], results["provenance"]
    zero = [k for n in FUSED if ok(results, n) for k in v[n]["kernels"]
            if k["kind"] == "kernel" and k.get("kineto_occupancy_pct") == 0 and k.get("our_optin_pct")]
    if not zero:
        return None
    k = zero[0]
    return ZeroByDefault(kernel=Data(k["short_name"]), smem=k["shared_memory"],
                         default=prov.get("smem_per_block", DEFAULT_SMEM_PER_BLOCK),
                         optin=prov.get("smem_per_block_optin"), blocks=k["our_optin_blocks"], pct=k["our_optin_pct"],
                         limited_by=tuple(k["our_optin_limited_by"]))


@dataclass(frozen=True)
class Zero:
    """Why Kineto gives a kernel 0 %: its shared memory is over the default limit
    (`over_smem`, with `smem`), else its grid has fewer blocks than the GPU has SMs (`grid`
    blocks for `sms` SMs: `pct` before rounding)."""
    kernel: Data
    over_smem: bool
    smem: int | None
    grid: int
    sms: int | None
    pct: float | None


@finding("findings-occupancy")
def occ_zero_all(results, ref) -> tuple[Zero, ...] | None:
    v, prov = results["variants"], results["provenance"]
    zero = {k["short_name"]: k for n in v if ok(results, n) for k in v[n]["kernels"]
            if k["kind"] == "kernel" and k.get("kineto_occupancy_pct") == 0}
    if not zero:
        return None
    default = prov.get("smem_per_block", DEFAULT_SMEM_PER_BLOCK)
    return tuple(Zero(kernel=Data(name), over_smem=(k["shared_memory"] or 0) > default, smem=k["shared_memory"],
                      grid=math.prod(k["grid"]), sms=prov.get("sm_count"), pct=k.get("our_kineto_rule_pct"))
                 for name, k in sorted(zero.items()))


EX_LAUNCHES = ("cudaLaunchKernelExC", "cuLaunchKernelEx")
PLAIN_LAUNCHES = ("cudaLaunchKernel", "cuLaunchKernel")


@dataclass(frozen=True)
class LaunchApi:
    """Two kernels of the run: one launched with an Ex call that Kineto gives more than 0 %
    (`ex_pct`), one launched plainly that it gives 0 % for its shared memory (`smem`)."""
    ex_kernel: Data
    ex_api: Data
    ex_pct: float
    plain_kernel: Data
    plain_api: Data
    smem: int


@finding("findings-occupancy-launch")
def occ_launch_api(results, ref) -> LaunchApi | None:
    """Two kernels of the run that rule out the launch API as the cause of a 0 %."""
    default = results["provenance"].get("smem_per_block", DEFAULT_SMEM_PER_BLOCK)
    kernels = [k for n in results["variants"] if ok(results, n) for k in results["variants"][n]["kernels"]
               if k["kind"] == "kernel" and k.get("kineto_occupancy_pct") is not None]
    ex = next((k for k in kernels if k["launched_by"] in EX_LAUNCHES and k["kineto_occupancy_pct"] > 0), None)
    plain = next((k for k in kernels if k["launched_by"] in PLAIN_LAUNCHES and k["kineto_occupancy_pct"] == 0
                  and (k.get("shared_memory") or 0) > default), None)
    if not (ex and plain):
        return None
    return LaunchApi(ex_kernel=Data(ex["short_name"]), ex_api=Data(ex["launched_by"]),
                     ex_pct=ex["kineto_occupancy_pct"],
                     plain_kernel=Data(plain["short_name"]), plain_api=Data(plain["launched_by"]),
                     smem=plain["shared_memory"])
