"""The answer each main page opens with (docs/*.md: `!!! answer`), two to four whole
sentences, every measured figure in them from this run: one file answer-<page> per page.

Each answer is findings registered under its file (registry.finding) that return facts;
the file's template in each language (report/text/templates/answer-<page>.<lang>.md.j2)
writes one sentence a line, and findings.answer_files joins them into the one paragraph the
admonition holds. Orders follow the paired rule (report/verdict/paired.py: kernel time by the
rounds' medians, wall time by the pairs); an answer says nothing the run has no figure for.
"""
from __future__ import annotations

from dataclasses import dataclass
from itertools import pairwise

from ...rows import kernel_time
from ...variants import FUSED
from ...verdict import median
from .. import prose
from ..extra_tables import fresh_rounds, us_range
from ..memory_model import sizes
from ..shape_points import points
from .common import by_rounds, eager_over_kernel, ok
from .naive_math import math_diffs
from .overhead_findings import KERNEL_PACED
from .pairs_findings import per_call
from .registry import finding
from .shape_common import answer, cells_by, decode_key


def _faster(verdict) -> bool:
    """The first of a paired verdict's two is faster (its order is `<`)."""
    return verdict is not None and verdict.order == "<"


def _kernel(results, name):
    row = ok(results, name)
    return kernel_time(row) if (kernel_time(row) or {}).get("median") else None


@dataclass(frozen=True)
class AutoAnswer:
    """SDPA unpinned on `gpu`: the backend it ran and its kernel time; `best`: the fused
    backend with less kernel time beyond noise (its time, the ratio), None where none has."""
    gpu: prose.Data
    backend: str
    us: float
    best: str | None
    best_us: float | None
    ratio: float | None


def _auto(results) -> AutoAnswer | None:
    v = results["variants"]
    ran = (v.get("auto") or {}).get("backend_ran")
    ks = {n: _kernel(results, n) for n in FUSED if _kernel(results, n)}
    if not ok(results, "auto") or ran not in ks:
        return None
    best = min(ks, key=lambda n: ks[n]["median"])
    gpu = prose.Data(results["provenance"]["gpu_name"])
    verdict = None if best == ran else by_rounds(v[best], v[ran])
    if verdict is None or verdict.order != "<":
        return AutoAnswer(gpu, ran, ks[ran]["median"], None, None, None)
    return AutoAnswer(gpu, ran, ks[ran]["median"], best, ks[best]["median"], ks[ran]["median"] / ks[best]["median"])


@dataclass(frozen=True)
class MathAnswer:
    """Math against the hand-written in-place version in kernel time, and the two causes
    with the largest extra cost (cause, µs), the matmuls net of those they replace."""
    ratio: float
    math_us: float
    naive_us: float
    causes: tuple[tuple[str, float], ...]


def _math(results) -> MathAnswer | None:
    v = results["variants"]
    m, n = _kernel(results, "math"), _kernel(results, "naive_inplace")
    if not (m and n and "attribution" in v["math"] and "attribution" in v["naive_inplace"]):
        return None
    return MathAnswer(m["median"] / n["median"], m["median"], n["median"], tuple(math_diffs(results)[:2]))


@dataclass(frozen=True)
class Pace:
    """The largest eager wall time per call over kernel time at the small shape."""
    hi: float


@finding("answer-home")
def answer_home_auto(results, ref) -> AutoAnswer | None:
    return _auto(results)


@finding("answer-home")
def answer_home_math(results, ref) -> MathAnswer | None:
    return _math(results)


@finding("answer-home")
def answer_home_cpu(results, ref) -> Pace | None:
    small = [r for r in (results.get("overhead") or {}).get("rows", {}).get("small", {}).values()
             if r.get("status") == "ok" and median(kernel_time(r))]
    return Pace(max(map(eager_over_kernel, small))) if small else None


@dataclass(frozen=True)
class MaskBuild:
    """Math's building of the causal mask per forward pass, and its share of math's kernel time."""
    us: float
    pct: float


@finding("answer-naive-vs-math")
def answer_naive_math(results, ref) -> MathAnswer | None:
    return _math(results)


@finding("answer-naive-vs-math")
def answer_naive_mask(results, ref) -> MaskBuild | None:
    if not _math(results) or "mask_construction" not in dict(math_diffs(results)):
        return None
    attribution = results["variants"]["math"]["attribution"]
    build = attribution["mask_construction"]["us_per_forward"]
    return MaskBuild(build, 100 * build / sum(e["us_per_forward"] for e in attribution.values()))


@finding("answer-naive-vs-math")
def answer_naive_copy(results, ref) -> float | None:
    """The out-of-place hand-written version's Memcpy DtoD per forward pass, µs, or None."""
    if not _math(results):
        return None
    copies = [k for k in (ok(results, "naive") or {}).get("kernels", []) if k["kind"] == "memcpy"]
    return sum(k["avg_us"] * k["per_forward"] for k in copies) if copies else None


@dataclass(frozen=True)
class Ranked:
    """A backend in an order by kernel time; `less`: it has more than the one before it
    by the paired rule over the rounds (common.by_rounds), so the order reads `<`, else `≈`."""
    name: str
    us: float
    less: bool


@dataclass(frozen=True)
class FusedAnswer:
    """The fused backends on `gpu` by kernel time; the backend SDPA ran unpinned (None
    without it); cuDNN's first call with a new shape over fresh processes (low, high) µs."""
    gpu: prose.Data
    ranking: tuple[Ranked, ...]
    auto: str | None
    new_shape: tuple[float, float] | None


def _new_shape(results):
    """cuDNN's first call with a new shape, over its fresh processes: (low, high), or None."""
    r = ((results.get("first_calls") or {}).get("rows") or {}).get("cudnn")
    rounds = fresh_rounds(r) if r else []
    return us_range(rounds, "first_new_shape_ms") if rounds else None


@finding("answer-fused-backends")
def answer_fused(results, ref) -> FusedAnswer | None:
    v = results["variants"]
    ours = sorted((n for n in FUSED if _kernel(results, n)), key=lambda n: median(kernel_time(v[n])))
    if not ours:
        return None
    ranking = [Ranked(ours[0], median(kernel_time(v[ours[0]])), False)]
    ranking += [Ranked(b, median(kernel_time(v[b])), _faster(by_rounds(v[a], v[b])))
                for a, b in pairwise(ours)]
    ran = (v.get("auto") or {}).get("backend_ran")
    return FusedAnswer(prose.Data(results["provenance"]["gpu_name"]), tuple(ranking),
                       ran if ok(results, "auto") and ran else None, _new_shape(results))


@dataclass(frozen=True)
class Reached:
    """A fused backend's TFLOP/s over its kernel time, and that as % of the matmul roof."""
    name: str
    tflops: float
    pct: float


@dataclass(frozen=True)
class OccupancyAnswer:
    """Flash's kernel: Kineto's occupancy and ours by hand; `zero`: how many fused kernels
    the calculator gives 0 % although they run; the matmul roof and what each fused backend
    reached against it (empty without the roof)."""
    kernel: prose.Data
    ours: float
    kineto: float
    zero: int
    roof: float | None
    reached: tuple[Reached, ...]


@finding("answer-occupancy")
def answer_occupancy(results, ref) -> OccupancyAnswer | None:
    row = ok(results, "flash")
    k = next((k for k in (row or {}).get("kernels", []) if k["kind"] == "kernel"), None)
    if k is None or k.get("our_optin_pct") is None or k.get("kineto_occupancy_pct") is None:
        return None
    zero = {z["short_name"] for n in FUSED if ok(results, n) for z in results["variants"][n]["kernels"]
            if z["kind"] == "kernel" and z.get("kineto_occupancy_pct") == 0 and z.get("our_optin_pct")}
    roof = (results.get("roof") or {}).get("tflops")
    flops = sizes(results["config"])["flops_causal"]  # per kernel time, not the profiled GPU span
    reached = tuple(Reached(n, x, 100 * x / roof) for n in FUSED if _kernel(results, n) and roof
                    for x in [flops / _kernel(results, n)["median"] / 1e6])
    return OccupancyAnswer(prose.Data(k["short_name"]), k["our_optin_pct"], k["kineto_occupancy_pct"], len(zero),
                           roof, reached)


@dataclass(frozen=True)
class GraphReplay:
    """At the small shape, the pinned backend whose CUDA-graph replay is fastest: its
    median eager and graph wall time per call."""
    variant: str
    eager_us: float
    graph_us: float


def _small_graph(results) -> GraphReplay | None:
    """The fastest replay at the small shape, from the paired timings (the figures
    Recommendations' table shows: pairs_findings.rec_graph); None in a run without them."""
    group = ((results.get("pairs") or {}).get("groups") or {}).get("small")
    if not group:
        return None
    timed = {n: (per_call(group, n), per_call(group, f"{n}_graph")) for n in FUSED}
    timed = {n: eg for n, eg in timed.items() if eg[0] and eg[1]}
    if not timed:
        return None
    g = min(timed, key=lambda n: timed[n][1])
    return GraphReplay(g, *timed[g])


@dataclass(frozen=True)
class ByHand:
    """The backend SDPA picked against the hand-written in-place version, in kernel time."""
    backend: str
    fused_us: float
    naive_us: float


@finding("answer-recommendations")
def answer_rec_auto(results, ref) -> AutoAnswer | None:
    return _auto(results)


@finding("answer-recommendations")
def answer_rec_warm(results, ref) -> tuple[float, float] | None:
    """cuDNN's first call with a new shape over fresh processes: (low, high) µs."""
    return _new_shape(results)


@finding("answer-recommendations")
def answer_rec_graph(results, ref) -> GraphReplay | None:
    return _small_graph(results)


@finding("answer-recommendations")
def answer_rec_by_hand(results, ref) -> ByHand | None:
    ran = (results["variants"].get("auto") or {}).get("backend_ran")
    if ran in FUSED and _kernel(results, ran) and _kernel(results, "naive_inplace"):
        return ByHand(ran, _kernel(results, ran)["median"], _kernel(results, "naive_inplace")["median"])
    return None


@dataclass(frozen=True)
class ScalingAnswer:
    """The fused backends that ran at every length (up to `longest`), and the first length
    at which math ran out of memory (None where it never did)."""
    fits: tuple[str, ...]
    longest: int
    oom_at: int | None


@finding("answer-scaling")
def answer_scaling(results, ref) -> ScalingAnswer | None:
    sweep = results.get("sweep")
    if not sweep:
        return None
    pts = [p for p in sweep["points"] if p["head_dim"] == sweep["head_dims"][0]]
    ooms = sorted(p["seq_len"] for p in pts if p["variant"] == "math" and p["status"] == "oom")
    fits = tuple(n for n in FUSED if all(p["status"] == "ok" for p in pts if p["variant"] == n)
                 and any(p["variant"] == n for p in pts))
    if not (fits or ooms):
        return None
    return ScalingAnswer(fits, max(sweep["seq_lens"]), ooms[0] if ooms else None)


@dataclass(frozen=True)
class Waits:
    """At a shape (seed, small): an eager call's wall time over kernel time, the range over
    the backends, and whether the CPU sets the pace (the least above KERNEL_PACED)."""
    shape: str
    lo: float
    hi: float
    cpu: bool


@finding("answer-gpu-waits")
def answer_waits(results, ref) -> tuple[Waits, ...] | None:
    rows = (results.get("overhead") or {}).get("rows", {})
    out = []
    for shape in ("seed", "small"):
        ratios = [eager_over_kernel(r) for r in rows.get(shape, {}).values()
                  if r.get("status") == "ok" and median(kernel_time(r))]
        if ratios:
            out.append(Waits(shape, min(ratios), max(ratios), min(ratios) >= KERNEL_PACED))
    return tuple(out) or None


@finding("answer-gpu-waits")
def answer_waits_graph(results, ref) -> GraphReplay | None:
    return _small_graph(results)


@dataclass(frozen=True)
class TrainingAnswer:
    """A training step over the forward pass in kernel time on the fused backends (lo, hi);
    math's extra memory over the least fused backend's (`memory_ratio`, None without it),
    each in bytes (`math_bytes`, `least_bytes`); the part of math's that is known from the
    shape (`weights_bytes`): the weight matrix after the softmax, which math keeps in FP32
    for the backward pass, batch × heads × L × S × 4 bytes."""
    lo: float
    hi: float
    memory_ratio: float | None
    least: str | None
    math_bytes: float | None = None
    least_bytes: float | None = None
    weights_bytes: int | None = None


@finding("answer-training")
def answer_training(results, ref) -> TrainingAnswer | None:
    backward = {n: r for n, r in ((results.get("backward") or {}).get("rows") or {}).items() if r["status"] == "ok"}
    fused = [n for n in FUSED if n in backward and _kernel(results, n) and median(kernel_time(backward[n]))]
    if not fused:
        return None
    ratios = [median(kernel_time(backward[n])) / median(kernel_time(results["variants"][n])) for n in fused]
    mem = {n: r["peak_extra_mib"] for n, r in backward.items() if r.get("peak_extra_mib") is not None}
    if "math" not in mem or not any(mem.get(n) for n in fused):  # a fused backend of no extra memory: no ratio
        return TrainingAnswer(min(ratios), max(ratios), None, None)
    least = min((n for n in fused if mem.get(n)), key=mem.get)
    c = results["config"]
    weights = c["batch"] * c["heads"] * c["seq_len"] * c["seq_len"] * 4  # FP32: math upcasts bf16 and fp16
    return TrainingAnswer(min(ratios), max(ratios), mem["math"] / mem[least], least,
                          mem["math"] * 2**20, mem[least] * 2**20, weights)


@dataclass(frozen=True)
class ShapesAnswer:
    """For a family (decode, prefill): the points where unpinned SDPA was as fast as the
    fastest pinned backend within noise (`good`) of `n`."""
    family: str
    good: int
    n: int


@finding("answer-shapes")
def answer_shapes(results, ref) -> tuple[ShapesAnswer, ...] | None:
    out = []
    for family, key in (("decode", decode_key), ("prefill", lambda p: p["q_len"])):
        found = answer(cells_by(points(results, family), key), family)
        if found is not None:
            out.append(ShapesAnswer(family, found.good, found.n))
    return tuple(out) or None

