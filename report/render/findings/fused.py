"""Findings of the fused-backends page: ranking, auto's choice, profiled CPU time against
GPU span, idle time inside the span, first call, how busy the GPU is."""
from __future__ import annotations

import statistics
from dataclasses import dataclass
from itertools import pairwise

from ...rows import kernel_time
from ...variants import FUSED
from ...verdict import median
from ..markdown import host_figures, idle_gap
from ..prose import Data
from .common import by_pair_group, by_rounds, cuda, ok, pair_group, ran_fused
from .registry import finding

BUSY = 1.1  # wall time per call within 10 % of the kernel time: the GPU hardly waits


@dataclass(frozen=True)
class Ranked:
    """A backend in a ranking: its figure, and whether it is within noise of the one before
    (`even`; False for the first)."""
    backend: str
    us: float
    even: bool


def _ranking(figures, verdict) -> tuple[Ranked, ...]:
    """The backends by their figure ({backend: µs}), fastest first: one is put before the
    next only where the paired rule says so (verdict(a, b), a Paired: "<" where a is
    faster); where it does not, or cannot (None), the two are `even`."""
    ours = sorted(figures, key=figures.get)
    return (Ranked(ours[0], figures[ours[0]], False),
            *(Ranked(b, figures[b], (v := verdict(a, b)) is None or v.order is None) for a, b in pairwise(ours)))


@dataclass(frozen=True)
class FusedRank:
    """The fused backends fastest first, by kernel time and by wall time per call (None
    where none has one); `tied`: some pair in either is within noise."""
    gpu: Data
    kernel: tuple[Ranked, ...]
    wall: tuple[Ranked, ...] | None
    tied: bool


@finding("findings-fused")
def fused_rank(results, ref) -> FusedRank | None:
    """The fused backends by kernel time (the rounds' medians) and by wall time per call
    (the seed shape's pairs), each by the paired rule, never by GPU span (its idle time is
    the profiler's view, shown apart); Hugging Face's order is on the comparison page."""
    v = results["variants"]
    ours = [n for n in ran_fused(results) if kernel_time(v[n])]
    if not ours:
        return None
    by_kernel = _ranking({n: median(kernel_time(v[n])) for n in ours}, lambda a, b: by_rounds(v[a], v[b]))
    group = pair_group(results, "seed_wall")
    walls = {n: statistics.median(found) for n in ours
             if (found := [x for rnd in (group or {}).get("rounds") or [] if "error" not in rnd
                           for x in (rnd.get("blocks_us") or {}).get(n) or []])}
    by_wall = _ranking(walls, lambda a, b: by_pair_group(results, "seed_wall", a, b)) if walls else None
    return FusedRank(gpu=Data(results["provenance"]["gpu_name"]), kernel=by_kernel, wall=by_wall,
                     tied=any(r.even for r in (*by_kernel, *(by_wall or ()))))


@dataclass(frozen=True)
class AutoChoice:
    """The backend SDPA ran unpinned, and its kernel time."""
    ran: str
    gpu: Data
    kernel_us: float


@finding("findings-fused")
def auto(results, ref) -> AutoChoice | None:
    """None also where the run does not say which backend auto ran."""
    if not ok(results, "auto") or not results["variants"]["auto"].get("backend_ran"):
        return None
    return AutoChoice(ran=results["variants"]["auto"]["backend_ran"], gpu=Data(results["provenance"]["gpu_name"]),
                      kernel_us=median(kernel_time(results["variants"]["auto"])))


@dataclass(frozen=True)
class CpuAgainstSpan:
    """Per fused backend: what the profiler shows (profiled CPU time and GPU span per
    forward), and without it: host overhead per call and kernel time."""
    backend: str
    cpu_us: float
    span_us: float
    host_us: float | None
    kernel_us: float


@finding("findings-fused")
def cpu_cuda(results, ref) -> tuple[CpuAgainstSpan, ...] | None:
    v = results["variants"]
    names = ran_fused(results)
    if not names:
        return None
    return tuple(CpuAgainstSpan(n, median(v[n]["cpu_time_us"]), cuda(results, n), median(v[n]["host_time_us"]),
                                median(kernel_time(v[n]))) for n in names)


@dataclass(frozen=True)
class Gap:
    """A variant's idle time inside its GPU span under the profiler (µs, the span, its
    share in %), and what explains it: the profiled CPU time per forward against the kernel
    time, and without the profiler the wall time per call; `busy`: that wall time is within
    10 % of the kernel time (the GPU hardly waits without the profiler)."""
    variant: str
    gap_us: float
    span_us: float
    share: float
    cpu_us: float
    kernel_us: float
    wall_us: float | None
    busy: bool


@dataclass(frozen=True)
class IdleGaps:
    """The idle gap of every fused backend and of unpinned SDPA, in FUSED's order: all of
    them, whatever its size, so that a rerun names the same ones (a gap near a threshold
    came and went between H200 runs: it is the profiler's figure, and ranks nothing)."""
    gaps: tuple[Gap, ...]


@finding("findings-fused")
def idle_gap_finding(results, ref) -> IdleGaps | None:
    """The idle time inside each fused backend's GPU span under the profiler, and what
    explains it (cuDNN's gap between its Memset and its kernel is the case in point)."""
    v = results["variants"]
    gaps = {n: g for n in (*FUSED, "auto") if n in v and ok(results, n) and (g := idle_gap(v[n]))
            and kernel_time(v[n])}
    if not gaps:
        return None
    return IdleGaps(gaps=tuple(_gap(v[n], n, g, cuda(results, n), share) for n, (g, share) in gaps.items()))


def _gap(row, name, gap_us, span_us, share) -> Gap:
    kernel = median(kernel_time(row))
    wall = (row.get("wall_time_us") or {}).get("median")
    return Gap(name, gap_us, span_us, share, median(row["cpu_time_us"]), kernel, wall,
               wall is not None and wall <= BUSY * kernel)


@dataclass(frozen=True)
class FirstCall:
    """Each fused backend's first call (synchronised wall time, measured without the
    profiler), and cuDNN's wall time per call once warm."""
    cudnn_first_us: float
    cudnn_us: float
    flash_first_us: float
    efficient_first_us: float


@finding("findings-fused")
def first_call(results, ref) -> FirstCall | None:
    if not all(ok(results, n) for n in FUSED):
        return None
    first = lambda n: results["variants"][n]["first_call_ms"] * 1000  # noqa: E731
    warm = results["variants"]["cudnn"]["wall_time_us"]["median"]
    return FirstCall(cudnn_first_us=first("cudnn"), cudnn_us=warm, flash_first_us=first("flash"),
                     efficient_first_us=first("efficient"))


@dataclass(frozen=True)
class GpuBusy:
    """The fused variant with the shortest kernels: wall time per call without the profiler
    against its kernel time (`pct`), and `busy`: the wall time is within 10 % of it."""
    variant: str
    wall_us: float
    kernel_us: float
    pct: float
    busy: bool


@finding("findings-fused")
def gpu_busy(results, ref) -> GpuBusy | None:
    v = results["variants"]
    names = ran_fused(results)
    if not names:
        return None
    # the fused variant whose kernels are shortest is the one most likely to wait
    n = min(names, key=lambda n: median(kernel_time(v[n])))
    wall, ksum = v[n]["wall_time_us"]["median"], median(kernel_time(v[n]))
    return GpuBusy(variant=n, wall_us=wall, kernel_us=ksum, pct=100 * wall / ksum, busy=wall <= BUSY * ksum)


@dataclass(frozen=True)
class HostDrift:
    """How far the small op's time moved between the quarters of the host-overhead pass
    (lowest, highest), and the largest spread over the variants of the µs figures and of
    those counted in small ops (%)."""
    low_us: float
    high_us: float
    us_spread: float
    ops_spread: float


@finding("findings-host-overhead")
def host_drift(results, ref) -> HostDrift | None:
    """How far the time of the same CPU work moved during the host-overhead pass (the small
    op's quarters), how far the µs figures moved with it, and how far the figures counted in
    small ops did."""
    hs = host_figures(results)
    if not hs:
        return None
    op = [h["small_op_us"] for h in hs.values()]
    # the largest spread over the variants, not which variant it was: that name is the
    # noise's, and a rerun would change it
    quarters = [q for o in op for q in o["quarters"]]
    return HostDrift(low_us=min(quarters), high_us=max(quarters),
                     us_spread=max(h["spread_pct"] for h in hs.values()),
                     ops_spread=max(h["per_small_op"]["spread_pct"] for h in hs.values()))


@dataclass(frozen=True)
class HostFirstCalls:
    """The first call of a timed run against the steady ones (times as many), lowest and
    highest variant: after the wait for the GPU (small op) and after the switch (variant);
    `warm`: the untimed calls every timed run starts after."""
    wait_low: float
    wait_high: float
    switch_low: float
    switch_high: float
    warm: int


@finding("findings-host-overhead")
def host_first_calls(results, ref) -> HostFirstCalls | None:
    """What the first call of a timed run cost against the steady ones, lowest and highest
    variant: after the wait for the GPU (small op) and after the switch (variant)."""
    fs = list(host_figures(results).values())
    if not fs:
        return None
    wait = [h["first_calls"]["after_wait"]["median"] for h in fs]
    switch = [h["first_calls"]["after_switch"]["median"] for h in fs]
    return HostFirstCalls(wait_low=min(wait), wait_high=max(wait), switch_low=min(switch), switch_high=max(switch),
                          warm=fs[0]["warm"])
