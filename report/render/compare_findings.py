"""The findings of "Every GPU side by side" as facts (no words): which GPU is faster in
kernel time, per shape; each GPU run's fastest fused backend; what Hugging Face's A100
shows; Kineto's occupancy. The sentences are report/text/templates/compare-findings.<lang>.md.j2.

Every order here is report/verdict's rule. Between GPUs, kernel time unpaired, the run as
the unit (by_unpaired_runs: each run's rounds give it one value; GPUs are never timed
together, so no round of one is paired with a round of the other); among one run's fused
backends, kernel time by the rounds' medians (by_rounds) and wall time per call from the
seed shape's pairs (by_group). Hugging Face's A100 gives only its profiler's
CUDA time: shown, named as the profiler's, ranking nothing (no GPU, no backend).
"""
from __future__ import annotations

import statistics
from dataclasses import dataclass

from ..rows import KERNEL_TIME, kernel_time
from ..variants import FUSED
from ..verdict import MIN_EFFECT, by_unpaired_runs, median, runs_of
from .compare_columns import cuda_figure, row_of, variant_names
from .findings.common import Paired, by_pair_group, by_rounds, compute_kernel, ok, pair_group, paired
from .prose import Data


@dataclass(frozen=True)
class Gpu:
    """A column, as the sentences name it: the GPU's name (None: Hugging Face's A100) and,
    where two runs of one GPU are compared, the folder that tells them apart."""
    name: Data | None
    folder: Data | None


def gpu_of(col) -> Gpu:
    if col.folder is None:
        return Gpu(None, None)
    return Gpu(Data(col.gpu), Data(col.folder) if col.twin else None)


@dataclass(frozen=True)
class Shape:
    batch: int
    heads: int
    seq_len: int
    head_dim: int
    dtype: Data


@dataclass(frozen=True)
class Factor:
    """How many times as long a slower GPU took (`ratio`, the paired rule's median ratio),
    and the variants it took that for."""
    ratio: float
    variants: tuple[str, ...]


@dataclass(frozen=True)
class SlowerGpu:
    """A GPU slower than the fastest in kernel time for a verdict's variants: the lowest and
    the highest factor over them (the same Factor where they print alike)."""
    gpu: Gpu
    low: Factor
    high: Factor


@dataclass(frozen=True)
class SpeedVerdict:
    """One verdict in kernel time that `variants` share: the GPUs fastest for them (the
    lowest, then those the paired rule finds the same as it, within ±`within` % at most)
    and the slower ones, each with the range of its factors."""
    variants: tuple[str, ...]
    fastest: tuple[Gpu, ...]
    slower: tuple[SlowerGpu, ...]
    within: float


@dataclass(frozen=True)
class ShapeGroup:
    """The columns that measured one shape. `timed`: those with kernel time in rounds (our
    runs; the A100 has none); `total`: the variants compared (kernel time in rounds on two
    GPUs or more); `shared`: the verdict most of them share (None where no two share one);
    `others`: the other verdicts (every verdict where none is shared)."""
    shape: Shape
    gpus: tuple[Gpu, ...]
    timed: tuple[Gpu, ...]
    total: int
    shared: SpeedVerdict | None
    others: tuple[SpeedVerdict, ...]


@dataclass(frozen=True)
class Leaders:
    """The fused backends no other beats in one metric: `names`, fastest first (the lowest,
    then those the paired rule cannot tell from it), `within`: the widest "the same within
    ±y %" among them (0 for one)."""
    names: tuple[str, ...]
    within: float


@dataclass(frozen=True)
class FusedOurs:
    """A GPU run's fastest fused backend in kernel time (None: no rounds) and in wall time
    per call (None: not timed in pairs), and the backend SDPA ran unpinned (None: not known)."""
    gpu: Gpu
    kernel: Leaders | None
    wall: Leaders | None
    auto: Data | None


@dataclass(frozen=True)
class FusedCited:
    """Hugging Face's A100: the fused backend with the lowest CUDA time under the profiler,
    as Hugging Face reports it (the profiler's figure: named, ranking nothing)."""
    gpu: Gpu
    lowest: str


@dataclass(frozen=True)
class Occupancy:
    """Kineto's estimated occupancy (%) of each fused backend's kernel on one GPU."""
    gpu: Gpu
    backends: tuple[tuple[str, float], ...]


@dataclass(frozen=True)
class CompareFindings:
    """Everything the findings file states; `minimum`: the paired rule's smallest gap called, %."""
    minimum: float
    groups: tuple[ShapeGroup, ...]
    fused: tuple[FusedOurs, ...]
    cited: FusedCited | None
    occupancy: tuple[Occupancy, ...]


# --- between GPUs: kernel time, unpaired, the run as the unit -------------------------------

def _kernel_row(col, name):
    """A GPU run's row of a variant with kernel time in rounds, or None (the A100: none)."""
    row = row_of(col, name) if col.folder else None
    if not row or row.get("status") != "ok" or not median(kernel_time(row)) or not row.get("rounds"):
        return None
    return row


def variant_verdict(cols, name):
    """(the columns fastest for variant `name` in kernel time, fastest first; [(column,
    Paired)] of the slower ones; the widest ±% among the fastest), or None where fewer than
    two columns have its kernel time in rounds."""
    rows = {i: r for i, c in enumerate(cols) if (r := _kernel_row(c, name))}
    if len(rows) < 2:
        return None
    ranked = sorted(rows, key=lambda i: median(kernel_time(rows[i])))
    best = ranked[0]
    ahead, behind, within = [best], [], 0.0
    for i in ranked[1:]:
        v: Paired | None = paired(by_unpaired_runs(runs_of(rows[best], KERNEL_TIME),
                                                   runs_of(rows[i], KERNEL_TIME)), "kernel")
        if v is None:
            continue
        if v.order == "<":
            behind.append((i, v))
        else:
            ahead.append(i)
            within = max(within, v.within)
    return ahead, behind, within


def _verdict(cols, members) -> SpeedVerdict:
    """One SpeedVerdict over members [(variant, ahead, behind, within)] sharing ahead and
    the slower columns."""
    _, ahead, behind, _ = members[0]
    slower = []
    for i, _ in behind:
        factors = [(dict(b)[i].ratio, name) for name, _, b, _ in members]
        low, high = min(r for r, _ in factors), max(r for r, _ in factors)
        slower.append(SlowerGpu(gpu_of(cols[i]), Factor(low, tuple(n for r, n in factors if r == low)),
                                Factor(high, tuple(n for r, n in factors if r == high))))
    return SpeedVerdict(tuple(name for name, *_ in members), tuple(gpu_of(cols[i]) for i in ahead), tuple(slower),
                        max(w for *_, w in members))


def shape_group(cols) -> ShapeGroup:
    """The verdicts of the columns of one shape: the one most variants share said once,
    the others (the exceptions) under it."""
    verdicts = []
    for name in variant_names(cols):
        found = variant_verdict(cols, name)
        if found:
            verdicts.append((name, *found))
    groups = {}  # (ahead, slower columns) -> its variants' verdicts, in variant order
    for v in verdicts:
        groups.setdefault((tuple(v[1]), tuple(sorted(i for i, _ in v[2]))), []).append(v)
    ranked = sorted(groups.values(), key=lambda members: -len(members))  # stable: the first of the most
    shared = None
    if ranked and len(ranked[0]) >= 2:
        shared, ranked = _verdict(cols, ranked[0]), ranked[1:]
        others = tuple(_verdict(cols, members) for members in ranked)
    else:
        others = tuple(_verdict(cols, [v]) for v in verdicts)
    c = cols[0]
    shape = Shape(*c.shape[:4], Data(str(c.shape[4])))
    return ShapeGroup(shape, tuple(gpu_of(c) for c in cols),
                      tuple(gpu_of(c) for c in cols if c.folder and any(_kernel_row(c, n) for n in variant_names([c]))),
                      len(verdicts), shared, others)


# --- among one run's fused backends ----------------------------------------------------------

def paired_leaders(medians, verdict) -> Leaders | None:
    """From {backend: its median} and verdict(a, b) (a Paired, "<" where a is faster):
    the lowest and every backend not slower than it by the rule."""
    if not medians:
        return None
    best = min(medians, key=medians.get)
    ties = [(n, v) for n in sorted(medians, key=medians.get) if n != best
            and (v := verdict(best, n)) is not None and v.order is None]
    return Leaders((best, *(n for n, _ in ties)), max((v.within for _, v in ties), default=0.0))


def kernel_leaders(results) -> Leaders | None:
    """The fused backends fastest in kernel time (by_rounds: the rounds' medians), or None
    where a backend that ran lacks rounds (files written before them)."""
    rows = {n: r for n in FUSED if (r := ok(results, n)) and kernel_time(r)}
    if not rows or any(not r.get("rounds") for r in rows.values()):
        return None
    return paired_leaders({n: median(kernel_time(r)) for n, r in rows.items()},
                          lambda a, b: by_rounds(rows[a], rows[b]))


def wall_leaders(results) -> Leaders | None:
    """The fused backends fastest in wall time per call, timed in pairs at the seed shape
    (group "seed_wall"), or None where the run has no pairs."""
    group = pair_group(results, "seed_wall")
    if group is None:
        return None
    blocks = {n: [x for rnd in group["rounds"] if "error" not in rnd for x in (rnd.get("blocks_us") or {}).get(n) or []]
              for n in FUSED}
    medians = {n: statistics.median(b) for n, b in blocks.items() if b}
    return paired_leaders(medians, lambda a, b: by_pair_group(results, "seed_wall", a, b))


def fused_ours(col) -> FusedOurs | None:
    kernel, wall = kernel_leaders(col.results), wall_leaders(col.results)
    if kernel is None and wall is None:
        return None
    ran = (row_of(col, "auto") or {}).get("backend_ran")
    return FusedOurs(gpu_of(col), kernel, wall, Data(ran) if ran else None)


def fused_cited(col) -> FusedCited | None:
    values = {n: v["median"] for n in FUSED if (v := cuda_figure(col, n)) is not None}
    return FusedCited(gpu_of(col), min(values, key=values.get)) if values else None


def occupancy(col) -> Occupancy | None:
    """Kineto's estimate for the fused kernels of a column (computed, not measured)."""
    occ = []
    for n in FUSED:
        row = row_of(col, n) or {}
        if col.folder is None:
            pct = row.get("est_occupancy_pct")
        else:
            k = compute_kernel(row) if row.get("status") == "ok" else None
            pct = k.get("kineto_occupancy_pct") if k else None
        if pct is not None:
            occ.append((n, float(pct)))
    return Occupancy(gpu_of(col), tuple(occ)) if occ else None


def compare_findings(cols) -> CompareFindings:
    """Every finding of the comparison, over the columns (compare_columns.columns)."""
    by_shape = {}
    for c in cols:
        by_shape.setdefault(c.shape, []).append(c)
    cited = next((c for c in cols if c.folder is None), None)
    return CompareFindings(
        minimum=100 * MIN_EFFECT,
        groups=tuple(shape_group(group) for group in by_shape.values()),
        fused=tuple(f for c in cols if c.folder and (f := fused_ours(c))),
        cited=fused_cited(cited) if cited else None,
        occupancy=tuple(o for c in cols if (o := occupancy(c))))
