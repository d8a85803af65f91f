"""Findings of torch.compile of the naive module and of FlexAttention."""
from __future__ import annotations

from dataclasses import dataclass

from ...rows import KERNEL_TIME, kernel_time
from ...trace.names import backend_of_kernels
from ...verdict import median, round_range, rounds_of
from ..kernel_names import in_name_order
from ..prose import Data
from .common import Paired, by_pair_group, by_rounds, ok
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
class Figure:
    """A row's figure as the rounds give it (their `range`), else its own `median`."""
    range: Range | None
    median: float | None


def _figure(row, key) -> Figure:
    rounds = rounds_of(row, key)
    found = round_range(rounds) if rounds is not None else None
    return Figure(found or None, median(row[key]))


@dataclass(frozen=True)
class FlexHost:
    """FlexAttention's host overhead and kernel time over the rounds, flash's host overhead
    beside them: figures only. Its host overhead moved from below its kernel time to above
    it between rounds of one H200 run and the two are not timed in pairs, so no verdict on
    which sets the pace is stated."""
    host: Figure
    flash: Figure
    kernel: Figure


@dataclass(frozen=True)
class Flex:
    """FlexAttention: its kernels, the first call (compiling included), and against flash in
    kernel time (the rounds' medians) and in wall time per call (timed in pairs), each by
    the paired rule (findings/common.py: Paired; None where the run did not measure it so);
    `host`: its host overhead and kernel time, figures only (None where unmeasured)."""
    kernels: tuple[Data, ...]
    first_us: float
    kernel: Paired | None
    wall: Paired | None
    host: FlexHost | None


@finding("findings-compiled")
def flex(results, ref) -> Flex | None:
    """FlexAttention against flash in kernel time and in wall time per call, each by the
    paired rule (never by GPU span); its host overhead and kernel time beside them."""
    v = results["variants"]
    if not (ok(results, "flex") and ok(results, "flash")):
        return None
    fx, fl = v["flex"], v["flash"]
    above = None
    if fx.get("host_time_us") and kernel_time(fx) and fl.get("host_time_us"):
        above = FlexHost(_figure(fx, "host_time_us"), _figure(fl, "host_time_us"), _figure(fx, KERNEL_TIME))
    return Flex(kernels=tuple(Data(k["short_name"]) for k in in_name_order(fx["kernels"]) if k["kind"] == "kernel"),
                first_us=fx["first_call_ms"] * 1000,
                kernel=by_rounds(fx, fl),
                wall=by_pair_group(results, "seed_wall", "flex", "flash"),
                host=above)
