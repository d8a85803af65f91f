"""Findings of torch.compile of the naive module and of FlexAttention."""
from __future__ import annotations

import statistics
from dataclasses import dataclass

from ...trace.names import backend_of_kernels
from ...verdict import (
    below,
    compare_rounds,
    differ,
    host_floor,
    median,
    noise,
    order_holds,
    round_median,
    round_range,
    rounds_of,
    samples,
)
from ..kernel_names import in_name_order
from ..prose import Data
from .common import ok
from .registry import finding

Range = tuple[float, float]


@dataclass(frozen=True)
class Compiled:
    """torch.compile of the hand-written module against it eager: GPU activities per forward,
    the compiled kernels, `fused` where a fused attention kernel replaced the pattern, and
    both GPU spans."""
    n: float
    eager_n: float
    kernels: tuple[Data, ...]
    fused: bool
    span_us: float
    eager_us: float


@finding("findings-compiled")
def compiled(results, ref) -> Compiled | None:
    v = results["variants"]
    if not (ok(results, "compiled_naive") and ok(results, "naive_inplace")):
        return None
    c, e = v["compiled_naive"], v["naive_inplace"]
    return Compiled(n=median(c["gpu_activities_per_forward"]), eager_n=median(e["gpu_activities_per_forward"]),
                    kernels=tuple(Data(k["short_name"]) for k in in_name_order(c["kernels"])),
                    fused=backend_of_kernels([k["name"] for k in c["kernels"]]) != "math",
                    span_us=median(c["cuda_time_us"]), eager_us=median(e["cuda_time_us"]))


@dataclass(frozen=True)
class FlexVersus:
    """FlexAttention (a) against flash (b) in one figure: `order` "<" (flex faster), ">"
    (slower) or None (within noise), `ratio` the larger median over the smaller. `by`
    says from what: "rounds" (each one's range over `rounds` rounds, compare_rounds),
    "figures" (the rows' own medians a_us, b_us and their `spread`, %, for files without
    rounds), "floor" (each one's range over every measurement, against the run's floor for
    host-paced figures, %)."""
    order: str | None
    ratio: float
    by: str
    a_range: Range | None = None
    b_range: Range | None = None
    rounds: int | None = None
    a_us: float | None = None
    b_us: float | None = None
    spread: float | None = None
    floor: float | None = None


def flex_versus(a_row, b_row, key) -> FlexVersus:
    """Across the rounds both rows have (compare_rounds: an order only where it holds in
    every round beyond the spread between rounds), else by `differ` on the rows' own figures."""
    a_rounds, b_rounds = rounds_of(a_row, key), rounds_of(b_row, key)
    if a_rounds is not None and b_rounds is not None:
        c = compare_rounds(a_rounds, b_rounds)
        if c.a_range and c.b_range:
            return FlexVersus(c.order, max(c.a, c.b) / min(c.a, c.b), "rounds", a_range=c.a_range, b_range=c.b_range,
                              rounds=len([r for r in a_rounds if r is not None]))
    a, b = a_row[key], b_row[key]
    order = ("<" if a["median"] < b["median"] else ">") if differ(a, b) else None
    return FlexVersus(order, max(a["median"], b["median"]) / min(a["median"], b["median"]), "figures",
                      a_us=a["median"], b_us=b["median"], spread=100 * noise(a, b))


def _wall_versus(results, fx, fl) -> FlexVersus:
    """FlexAttention against flash in wall time per call. Where the run has a floor for
    host-paced figures (report/verdict: host_floor) and rounds, an order only where every
    measurement of one is below every measurement of the other beyond that floor (flex's
    host overhead is on a par with its kernel time, so its calls are paced by the CPU);
    else flex_versus()."""
    noise_floor = host_floor(results)
    a, b = samples(fx, "wall_time_us"), samples(fl, "wall_time_us")
    if noise_floor <= 0 or len(a) < 2 or len(b) < 2:
        return flex_versus(fx, fl, "wall_time_us")
    order = ("<" if below(fx, fl, "wall_time_us", noise_floor)
             else ">" if below(fl, fx, "wall_time_us", noise_floor) else None)
    ma, mb = statistics.median(a), statistics.median(b)
    return FlexVersus(order, max(ma, mb) / min(ma, mb), "floor", a_range=(min(a), max(a)), b_range=(min(b), max(b)),
                      floor=100 * noise_floor)


@dataclass(frozen=True)
class Figure:
    """A row's figure as the rounds give it (their `range`), else its own `median`."""
    range: Range | None
    median: float | None


def _figure(row, key) -> Figure:
    rounds = rounds_of(row, key)
    found = round_range(rounds) if rounds is not None else None
    return Figure(found or None, median(row[key]))


@dataclass(frozen=True)
class HostAbove:
    """FlexAttention's host overhead above its own kernel time beyond noise, in every round
    (`rounds`) or, without rounds, by more than the spread; flash's host overhead beside it."""
    rounds: bool
    host: Figure
    flash: Figure
    kernel: Figure


@dataclass(frozen=True)
class Flex:
    """FlexAttention: its kernels, the first call (compiling included), and against flash in
    kernel time and in wall time per call (None where a row lacks the figure); `host`:
    where its host overhead is above its kernel time (None where it is not, or unmeasured)."""
    kernels: tuple[Data, ...]
    first_us: float
    kernel: FlexVersus | None
    wall: FlexVersus | None
    host: HostAbove | None


@finding("findings-compiled")
def flex(results, ref) -> Flex | None:
    """FlexAttention against flash in kernel time and in wall time per call, each by the
    noise rule (never by GPU span); where flex's host overhead is above its own kernel time
    in every round, that is why its calls back to back are paced by the CPU."""
    v = results["variants"]
    if not (ok(results, "flex") and ok(results, "flash")):
        return None
    fx, fl = v["flex"], v["flash"]
    above = None
    host, kernel = fx.get("host_time_us"), fx.get("kernel_sum_us")
    if host and kernel and fl.get("host_time_us"):
        h_rounds, k_rounds = rounds_of(fx, "host_time_us"), rounds_of(fx, "kernel_sum_us")
        by_rounds = h_rounds is not None and k_rounds is not None
        if by_rounds:  # the direction from the rounds too
            is_above = order_holds(h_rounds, k_rounds) and round_median(h_rounds) > round_median(k_rounds)
        else:
            is_above = differ(host, kernel) and median(host) > median(kernel)
        if is_above:
            above = HostAbove(by_rounds, _figure(fx, "host_time_us"), _figure(fl, "host_time_us"),
                              _figure(fx, "kernel_sum_us"))
    return Flex(kernels=tuple(Data(k["short_name"]) for k in in_name_order(fx["kernels"]) if k["kind"] == "kernel"),
                first_us=fx["first_call_ms"] * 1000,
                kernel=flex_versus(fx, fl, "kernel_sum_us") if fx.get("kernel_sum_us") and fl.get("kernel_sum_us")
                else None,
                wall=_wall_versus(results, fx, fl) if fx.get("wall_time_us") and fl.get("wall_time_us") else None,
                host=above)
