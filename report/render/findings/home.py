"""The short answer Home starts with: one line each for which backend SDPA picks here,
what math costs, when to measure CPU time and when to pin, every figure from this run."""
from __future__ import annotations

from dataclasses import dataclass

from ...variants import FUSED
from ...verdict import differ, median
from .. import extra_tables
from .common import eager_over_kernel
from .naive_math import cause_diffs
from .recommendations import AutoPick, auto_against_pinned, host_leader, share_rounds
from .registry import finding
from .scaling import SmallPinning, small_shape_pinning


@finding("findings-home")
def home_auto(results, ref) -> AutoPick | None:
    """Which backend SDPA runs when nothing is pinned, against the fastest pinned one."""
    return auto_against_pinned(results)


@dataclass(frozen=True)
class Against:
    """Math's kernel time against another's (`us`): `ratio` of the medians, and whether the
    two differ beyond noise (report/verdict: differ)."""
    us: float
    ratio: float
    differs: bool


def _against(k, other) -> Against:
    return Against(us=median(other), ratio=k["median"] / other["median"], differs=differ(k, other))


@dataclass(frozen=True)
class MathCost:
    """SDPA pinned to math, in kernel time per forward pass, against the fused backend(s)
    with the least kernel time (`fused`: the fastest, then those within noise of it) and
    the hand-written in-place version; `cause`: the cause with the largest extra cost
    against the in-place version (`cause_extra_us`), None where none costs more or the run
    lacks the attribution."""
    math_us: float
    fused: tuple[str, ...]
    vs_fused: Against
    vs_naive: Against
    cause: str | None
    cause_extra_us: float | None


def _kernel_times(results, names):
    v = results["variants"]
    return {n: v[n]["kernel_sum_us"] for n in names
            if v.get(n, {}).get("status") == "ok" and (v[n].get("kernel_sum_us") or {}).get("min") is not None}


@finding("findings-home")
def home_math(results, ref) -> MathCost | None:
    ks = _kernel_times(results, ("math", "naive_inplace", *FUSED))
    fused = sorted((n for n in FUSED if n in ks), key=lambda n: ks[n]["median"])
    if not ("math" in ks and "naive_inplace" in ks and fused):
        return None
    tied = [n for n in fused[1:] if not differ(ks[fused[0]], ks[n])]
    v = results["variants"]
    cause = extra = None
    if "attribution" in v["math"] and "attribution" in v["naive_inplace"]:
        cause, extra = max(cause_diffs(results), key=lambda cd: cd[1])
        if extra <= 0:
            cause = extra = None
    return MathCost(math_us=ks["math"]["median"], fused=(fused[0], *tied), vs_fused=_against(ks["math"], ks[fused[0]]),
                    vs_naive=_against(ks["math"], ks["naive_inplace"]), cause=cause, cause_extra_us=extra)


@dataclass(frozen=True)
class CpuShare:
    """The fused backend whose host overhead is largest next to its kernel time
    (recommendations.host_leader): both medians, the share in % (`pct`), and the share in
    each round (`rounds`, µs over µs; None where the run has no rounds with it); `small`:
    the largest eager wall time per call over kernel time at the small shape, None without it."""
    variant: str
    host_us: float
    kernel_us: float
    pct: float
    rounds: tuple[float | None, ...] | None
    small: float | None


@finding("findings-home")
def home_cpu(results, ref) -> CpuShare | None:
    leader = host_leader(results)
    if leader is None:
        return None
    name = leader[0]
    v = results["variants"][name]
    host, kernel = median(v["host_time_us"]), median(v["kernel_sum_us"])
    shares = share_rounds(v, part=None)
    small = [r for r in (results.get("overhead") or {}).get("rows", {}).get("small", {}).values()
             if r.get("status") == "ok" and median(r.get("kernel_sum_us"))]
    return CpuShare(variant=name, host_us=host, kernel_us=kernel, pct=100 * host / kernel,
                    rounds=tuple(shares) if shares and any(s is not None for s in shares) else None,
                    small=max(eager_over_kernel(r) for r in small) if small else None)


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
