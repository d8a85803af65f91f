"""Findings of the fused-backends page: ranking, auto's choice, profiled CPU time against
GPU span, idle time inside the span, first call, how busy the GPU is."""
from __future__ import annotations

from dataclasses import dataclass
from itertools import pairwise

from ...variants import FUSED
from ...verdict import median, rows_differ
from ..markdown import GAP_SHOWN, host_figures, idle_gap
from ..prose import Data
from .common import cuda, ok, ran_fused
from .registry import finding


@dataclass(frozen=True)
class Ranked:
    """A backend in a ranking: its figure, and whether it is within noise of the one before
    (`even`; False for the first)."""
    backend: str
    us: float
    even: bool


def _ranking(results, names, key) -> tuple[Ranked, ...]:
    """The backends by the figure `key`, fastest first: one is put before the next only where
    the order holds in every round beyond the spread between rounds (report/verdict:
    rows_differ; for a file without rounds, beyond the spread of its steps or timer runs)."""
    v = results["variants"]
    ours = sorted(names, key=lambda n: v[n][key]["median"])
    return (Ranked(ours[0], v[ours[0]][key]["median"], False),
            *(Ranked(b, v[b][key]["median"], not rows_differ(v[a], v[b], key)) for a, b in pairwise(ours)))


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
    """The fused backends by kernel time and by wall time per call, never by GPU span (its
    idle time is the profiler's view, shown apart); Hugging Face's order is on the
    comparison page."""
    v = results["variants"]
    ours = [n for n in ran_fused(results) if v[n].get("kernel_sum_us")]
    if not ours:
        return None
    by_kernel = _ranking(results, ours, "kernel_sum_us")
    walled = [n for n in ours if (v[n].get("wall_time_us") or {}).get("median")]
    by_wall = _ranking(results, walled, "wall_time_us") if walled else None
    return FusedRank(gpu=Data(results["provenance"]["gpu_name"]), kernel=by_kernel, wall=by_wall,
                     tied=any(r.even for r in (*by_kernel, *(by_wall or ()))))


@dataclass(frozen=True)
class AutoChoice:
    """The backend SDPA ran unpinned, and its GPU span."""
    ran: str
    gpu: Data
    span_us: float


@finding("findings-fused")
def auto(results, ref) -> AutoChoice | None:
    """None also where the run does not say which backend auto ran."""
    if not ok(results, "auto") or not results["variants"]["auto"].get("backend_ran"):
        return None
    return AutoChoice(ran=results["variants"]["auto"]["backend_ran"], gpu=Data(results["provenance"]["gpu_name"]),
                      span_us=cuda(results, "auto"))


@dataclass(frozen=True)
class CpuAgainstSpan:
    """Per fused backend: profiled CPU time and GPU span per forward, and the host overhead
    per call measured without the profiler."""
    backend: str
    cpu_us: float
    span_us: float
    host_us: float | None


@finding("findings-fused")
def cpu_cuda(results, ref) -> tuple[CpuAgainstSpan, ...] | None:
    v = results["variants"]
    names = ran_fused(results)
    if not names:
        return None
    return tuple(CpuAgainstSpan(n, median(v[n]["cpu_time_us"]), cuda(results, n), median(v[n]["host_time_us"]))
                 for n in names)


def _gap_in_every_round(row):
    """True where each round's short profile also has an idle gap of at least GAP_SHOWN
    (a gap on the threshold in one profile only is not named: a rerun would drop it)."""
    return all((g := idle_gap(r)) and g[1] >= GAP_SHOWN for r in row.get("rounds") or [] if "error" not in r)


@dataclass(frozen=True)
class Gap:
    """A variant's idle time inside its GPU span: µs, the span, its share in %."""
    variant: str
    gap_us: float
    span_us: float
    share: float


@dataclass(frozen=True)
class IdleGaps:
    """The variants whose idle gap is at least `threshold` % of the span in the full profile
    and in every round (none: no variant idles that much)."""
    threshold: float
    gaps: tuple[Gap, ...]


@finding("findings-fused")
def idle_gap_finding(results, ref) -> IdleGaps | None:
    """Every variant whose GPU span holds idle time that is not negligible, in the full
    profile and in every round (cuDNN's gap between its Memset and its kernel is the case
    in point)."""
    v = results["variants"]
    gaps = {n: g for n in v if ok(results, n) and (g := idle_gap(v[n])) and v[n].get("kernel_sum_us")}
    if not gaps:
        return None
    return IdleGaps(threshold=GAP_SHOWN, gaps=tuple(Gap(n, g, cuda(results, n), share) for n, (g, share) in gaps.items()
                                                    if share >= GAP_SHOWN and _gap_in_every_round(v[n])))


@dataclass(frozen=True)
class FirstCall:
    """Each fused backend's first call, and cuDNN's GPU span once warm."""
    cudnn_first_us: float
    cudnn_us: float
    flash_first_us: float
    efficient_first_us: float


@finding("findings-fused")
def first_call(results, ref) -> FirstCall | None:
    if not all(ok(results, n) for n in FUSED):
        return None
    first = lambda n: results["variants"][n]["first_call_ms"] * 1000  # noqa: E731
    return FirstCall(cudnn_first_us=first("cudnn"), cudnn_us=cuda(results, "cudnn"), flash_first_us=first("flash"),
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
    n = min(names, key=lambda n: median(v[n]["kernel_sum_us"]))
    wall, ksum = v[n]["wall_time_us"]["median"], median(v[n]["kernel_sum_us"])
    return GpuBusy(variant=n, wall_us=wall, kernel_us=ksum, pct=100 * wall / ksum, busy=wall <= 1.1 * ksum)


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
