"""The short answer Home starts with: one line each for which backend SDPA picks here,
what math costs, when to measure CPU time and when to pin, every figure from this run."""
from __future__ import annotations

from dataclasses import dataclass

from ...rows import KERNEL_TIME, kernel_time
from ...variants import FUSED
from ...verdict import median
from .. import extra_tables
from .common import Paired, by_rounds, eager_over_kernel
from .naive_math import math_diffs
from .recommendations import AutoPick, auto_against_pinned, host_leader, share_rounds
from .registry import finding
from .scaling import SmallPinning, small_shape_pinning


@finding("findings-home")
def home_auto(results, ref) -> AutoPick | None:
    """Which backend SDPA runs when nothing is pinned, against the fastest pinned one."""
    return auto_against_pinned(results)


@dataclass(frozen=True)
class Against:
    """Math's kernel time against another's (`us`, the other's median): `verdict`, math (a)
    against the other (b) by the paired rule on the rounds' medians (findings/common.py:
    by_rounds; ">" where the other is faster, `ratio` math's over the other's)."""
    us: float
    verdict: Paired


def _against(rows, other) -> Against | None:
    verdict = by_rounds(rows["math"], rows[other])
    return Against(us=median(kernel_time(rows[other])), verdict=verdict) if verdict else None


@dataclass(frozen=True)
class MathCost:
    """SDPA pinned to math, in kernel time per forward pass, against the fused backend(s)
    with the least kernel time (`fused`: the lowest median, then those the paired rule on
    the rounds' medians finds the same as it; `within`: the widest ±% among them) and
    the hand-written in-place version; `cause`: the cause with the largest extra cost
    against the in-place version (`cause_extra_us`; "matmul": math's FP32 matmuls net of the
    input-dtype matmuls they replace, naive_math.math_diffs), None where none costs more or the run
    lacks the attribution."""
    math_us: float
    fused: tuple[str, ...]
    within: float
    vs_fused: Against
    vs_naive: Against
    cause: str | None
    cause_extra_us: float | None


def _kernel_rows(results, names):
    v = results["variants"]
    return {n: v[n] for n in names if v.get(n, {}).get("status") == "ok" and median(kernel_time(v[n]))}


@finding("findings-home")
def home_math(results, ref) -> MathCost | None:
    """None where the run lacks math, the in-place version or a fused backend, or their
    rounds (kernel time is compared by the rounds' medians alone)."""
    rows = _kernel_rows(results, ("math", "naive_inplace", *FUSED))
    fused = sorted((n for n in FUSED if n in rows), key=lambda n: median(kernel_time(rows[n])))
    if not ("math" in rows and "naive_inplace" in rows and fused):
        return None
    vs_fused, vs_naive = _against(rows, fused[0]), _against(rows, "naive_inplace")
    if vs_fused is None or vs_naive is None:
        return None
    ties = [(n, p) for n in fused[1:] if (p := by_rounds(rows[fused[0]], rows[n])) is not None and p.order is None]
    v = results["variants"]
    cause = extra = None
    if "attribution" in v["math"] and "attribution" in v["naive_inplace"]:
        cause, extra = math_diffs(results)[0]  # the FP32 matmuls net of those they replace
        if extra <= 0:
            cause = extra = None
    return MathCost(math_us=median(kernel_time(rows["math"])), fused=(fused[0], *(n for n, _ in ties)),
                    within=max((p.within for _, p in ties), default=0.0), vs_fused=vs_fused, vs_naive=vs_naive,
                    cause=cause, cause_extra_us=extra)


@dataclass(frozen=True)
class CpuShare:
    """The fused backend whose host overhead is largest next to its kernel time
    (recommendations.host_leader): both medians, the share in % (`pct`), and the share in
    each round (`rounds`, µs over µs; None where the run has no rounds with it), with the
    lowest and highest of the rounds' host overheads and kernel times (`round_host`,
    `round_kernel`, µs; None without rounds); `small`: the largest eager wall time per call
    over kernel time at the small shape, None without it."""
    variant: str
    host_us: float
    kernel_us: float
    pct: float
    rounds: tuple[float | None, ...] | None
    small: float | None
    round_host: tuple[float, float] | None = None
    round_kernel: tuple[float, float] | None = None


def _round_range(row, key):
    """The lowest and highest of a row's rounds' medians of `key` (None where no round has it)."""
    values = [m for r in row.get("rounds") or () if (m := median((r or {}).get(key)))]
    return (min(values), max(values)) if values else None


@finding("findings-home")
def home_cpu(results, ref) -> CpuShare | None:
    leader = host_leader(results)
    if leader is None:
        return None
    name = leader[0]
    v = results["variants"][name]
    host, kernel = median(v["host_time_us"]), median(kernel_time(v))
    shares = share_rounds(v, part=None)
    small = [r for r in (results.get("overhead") or {}).get("rows", {}).get("small", {}).values()
             if r.get("status") == "ok" and median(kernel_time(r))]
    rounds = tuple(shares) if shares and any(s is not None for s in shares) else None
    return CpuShare(variant=name, host_us=host, kernel_us=kernel, pct=100 * host / kernel, rounds=rounds,
                    small=max(eager_over_kernel(r) for r in small) if small else None,
                    round_host=_round_range(v, "host_time_us") if rounds else None,
                    round_kernel=_round_range(v, KERNEL_TIME) if rounds else None)


@dataclass(frozen=True)
class PinAdvice:
    """When to pin: the points of the sequence sweep where auto lost beyond noise
    (`sweep_lost` of `sweep_points`; None without a sweep that says which backend ran) and
    the small shape, where the CPU sets the pace (None without it)."""
    sweep_lost: int | None
    sweep_points: int | None
    small: SmallPinning | None


@finding("findings-home")
def home_pin(results, ref) -> PinAdvice | None:
    sweep = results.get("sweep")
    lost = points = None
    if sweep and any(p.get("backend_ran") for p in sweep["points"]):
        rows = [slower for d in sweep["head_dims"] for _, _, _, slower in extra_tables.auto_vs_best(sweep, d)]
        if rows:
            lost, points = sum(rows), len(rows)
    small = small_shape_pinning(results)
    if points is None and small is None:
        return None
    return PinAdvice(sweep_lost=lost, sweep_points=points, small=small)
