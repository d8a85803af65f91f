"""Findings of the naive-vs-math page: ratio, the copy, the Memset, matmuls, extra ops."""
from __future__ import annotations

from dataclasses import dataclass

from ...rows import kernel_time
from ...variants import MATH_SWITCHES
from ...verdict import median
from ..kernel_names import in_name_order
from ..prose import Data
from .common import cuda, ok
from .registry import finding

MASK_OPS = ("aten::ones", "aten::tril", "aten::scalar_tensor", "aten::fill_", "aten::where")
SAFE_SOFTMAX_OPS = ("aten::isneginf", "aten::all", "aten::where", "aten::fill_")


@dataclass(frozen=True)
class MathRatio:
    """Math against the hand-written in-place version in kernel time, beside Hugging Face's
    A100 "CUDA time" (the mean of `a100_steps` active steps)."""
    ratio: float
    math_us: float
    inplace_us: float
    a100_ratio: float
    a100_math_us: float
    a100_inplace_us: float
    a100_steps: int


@finding("findings-naive-math")
def math_ratio(results, ref) -> MathRatio | None:
    """Math against the hand-written in-place version in kernel time (the GPU's own work;
    the span adds the idle time the profiler opens), beside Hugging Face's A100 factor."""
    if not (ok(results, "math") and ok(results, "naive_inplace")):
        return None
    v, rv = results["variants"], ref["variants"]
    math, inplace = median(kernel_time(v["math"])), median(kernel_time(v["naive_inplace"]))
    a100_math, a100_inplace = rv["math"]["cuda_time_us"], rv["naive_inplace"]["cuda_time_us"]
    return MathRatio(ratio=math / inplace, math_us=math, inplace_us=inplace, a100_ratio=a100_math / a100_inplace,
                     a100_math_us=a100_math, a100_inplace_us=a100_inplace, a100_steps=ref["config"]["active_steps"])


@dataclass(frozen=True)
class Memcpy:
    """The copy out-of-place masked_fill makes (its kernel's name and time per forward), and
    the GPU span of the out-of-place and in-place versions."""
    name: Data
    memcpy_us: float
    naive_us: float
    inplace_us: float


@finding("findings-naive-math")
def memcpy(results, ref) -> Memcpy | None:
    if not (ok(results, "naive") and ok(results, "naive_inplace")):
        return None
    copies = [k for k in results["variants"]["naive"]["kernels"] if k["kind"] == "memcpy"]
    if not copies:
        return None
    return Memcpy(name=Data(copies[0]["short_name"]), memcpy_us=copies[0]["avg_us"],
                  naive_us=cuda(results, "naive"), inplace_us=cuda(results, "naive_inplace"))


@dataclass(frozen=True)
class Memset:
    """The Memset the matmul library launches (its time, the op it comes from) and the GPU
    activities per forward of both hand-written versions, here and in Hugging Face's count."""
    memset_us: float
    op: Data
    naive_n: float
    inplace_n: float
    a100_naive: int
    a100_inplace: int


@finding("findings-naive-math")
def memset(results, ref) -> Memset | None:
    v, rv = results["variants"], ref["variants"]
    if not (ok(results, "naive") and ok(results, "naive_inplace")):
        return None
    sets = [k for k in v["naive_inplace"]["kernels"] if k["kind"] == "memset"]
    if not sets:
        return None
    return Memset(memset_us=sets[0]["avg_us"], op=Data(sets[0]["aten_op"]),
                  naive_n=median(v["naive"]["gpu_activities_per_forward"]),
                  inplace_n=median(v["naive_inplace"]["gpu_activities_per_forward"]),
                  a100_naive=rv["naive"]["kernels_per_forward"],
                  a100_inplace=rv["naive_inplace"]["kernels_per_forward"])


@dataclass(frozen=True)
class Gemms:
    """The matmul kernels (bmm, mm) of math and of the hand-written in-place version."""
    math: tuple[Data, ...]
    naive: tuple[Data, ...]


@finding("findings-naive-math")
def math_gemms(results, ref) -> Gemms | None:
    if not (ok(results, "math") and ok(results, "naive_inplace")):
        return None

    def gemms(n):
        return tuple(Data(k["short_name"]) for k in in_name_order(results["variants"][n]["kernels"])
                     if k["aten_op"] in ("aten::bmm", "aten::mm") and k["kind"] == "kernel")
    return Gemms(math=gemms("math"), naive=gemms("naive_inplace"))


@dataclass(frozen=True)
class MathOps:
    """Math's GPU activities per forward, the ops that build the mask each time (op, calls
    per forward), and the GPU activities _safe_softmax adds (`n_safe`, from `safe_ops`)."""
    n_kernels: float
    mask: tuple[tuple[str, float], ...]
    n_safe: float
    safe_ops: tuple[Data, ...]


@finding("findings-naive-math")
def math_ops(results, ref) -> MathOps | None:
    if not ok(results, "math"):
        return None
    row = results["variants"]["math"]
    ops = row["cpu_ops_per_forward"]
    if "attribution" in row:  # the kernels launched from inside _safe_softmax, softmax itself aside
        safe = [k for k in row["kernels"] if k.get("cause") == "safe_softmax_extras"]
    else:  # older results: by the innermost op alone (counts the mask's fill_/where in too)
        safe = [k for k in row["kernels"] if k["aten_op"] in SAFE_SOFTMAX_OPS]
    return MathOps(n_kernels=median(row["gpu_activities_per_forward"]),
                   mask=tuple((o, ops[o]) for o in MASK_OPS if ops.get(o)),
                   n_safe=sum(k["per_forward"] for k in safe),
                   safe_ops=tuple(Data(o) for o in sorted({k["aten_op"] for k in safe})))


def cause_diffs(results):
    """(cause, math minus naive in-place, in µs per forward) for every cause, largest first."""
    a = results["variants"]["math"]["attribution"]
    b = results["variants"]["naive_inplace"]["attribution"]
    diffs = [(c, a.get(c, {}).get("us_per_forward", 0.0) - b.get(c, {}).get("us_per_forward", 0.0))
             for c in dict.fromkeys([*a, *b])]
    return sorted(diffs, key=lambda cd: -abs(cd[1]))


# the two causes the attribution splits a matmul into: in FP32 (math) and in the input dtype
MATMULS = ("matmul_fp32", "matmul")


def math_diffs(results):
    """(cause, math minus the hand-written in-place version, µs per forward), largest
    first, with the two matmul causes taken together as "matmul": math's FP32 matmuls
    replace the bf16 ones, so only their difference is an extra cost."""
    diffs = dict(cause_diffs(results))
    matmul = sum(diffs.pop(c, 0.0) for c in MATMULS)
    return sorted([("matmul", matmul), *diffs.items()], key=lambda cd: -cd[1])


@dataclass(frozen=True)
class MathWhy:
    """Math's extra kernel time over the hand-written in-place version, and by cause (cause,
    µs, % of the extra), largest first, each at least 0.5 % of it."""
    extra_us: float
    math_us: float
    inplace_us: float
    causes: tuple[tuple[str, float, float], ...]


@finding("findings-math-why")
def math_why(results, ref) -> MathWhy | None:
    v = results["variants"]
    if not (ok(results, "math") and ok(results, "naive_inplace") and "attribution" in v["math"]
            and "attribution" in v["naive_inplace"]):
        return None
    total = lambda n: sum(e["us_per_forward"] for e in v[n]["attribution"].values())  # noqa: E731
    extra = total("math") - total("naive_inplace")
    if extra <= 0:
        return None
    return MathWhy(extra_us=extra, math_us=total("math"), inplace_us=total("naive_inplace"),
                   causes=tuple((c, d, 100 * d / extra) for c, d in cause_diffs(results) if abs(d) >= 0.005 * extra))


@dataclass(frozen=True)
class Switch:
    """One of math's switches: its kernel time, as % of default math's (never the profiler's
    GPU span), and its relative error."""
    variant: str
    us: float
    pct: float
    error: float


@dataclass(frozen=True)
class MathSwitches:
    math_us: float
    switches: tuple[Switch, ...]


@finding("findings-math-switches")
def math_switches(results, ref) -> MathSwitches | None:
    v = results["variants"]
    names = [n for n in MATH_SWITCHES if ok(results, n)]
    if not (names and ok(results, "math")):
        return None
    kernel = {n: median(kernel_time(v[n])) for n in ("math", *names)}  # None in a run without a GPU
    base = kernel["math"]
    if not base or not all(kernel[n] for n in names):
        return None
    return MathSwitches(math_us=base, switches=tuple(Switch(n, kernel[n], 100 * kernel[n] / base, v[n]["rel_error"])
                                                     for n in names))
