"""Findings of the shapes page for decode (one to a few query tokens against a KV cache):
what to use, the wall time at the smallest batch, what unpinned SDPA ran, the cost of a
launch, the bandwidth, a few query tokens against one, the longest kernel's grid.

Points' kernel times are compared by shape_common.py's rule (by_points); wall time per call
by the pairs timed together (by_group).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

from ...rows import kernel_time
from ...verdict import median
from ...verdict.leader import leader
from ...verdict.paired import by_group
from ..datasheets import Datasheet, memory_share
from ..extra_tables import point_time
from ..prose import Data
from ..shape_points import gb_per_s, grouped, point_ok, points
from .common import Paired, by_pair_group, pair_group
from .registry import finding
from .shape_common import (
    PINNED,
    Answer,
    Compare,
    Place,
    accepted,
    answer,
    cells_by,
    compare_times,
    decode_key,
    place_of,
)


@finding("shapes-findings-decode")
def shapes_decode_answer(results, ref) -> Answer | None:
    return answer(cells_by(points(results, "decode"), decode_key), "decode")


@dataclass(frozen=True)
class DecodeCall:
    """One way of calling at one decode point, timed in pairs: the pinned backend with the
    lowest median wall time per call there (`best`) against unpinned SDPA, by the paired rule
    (`verdict`: "<" where the pinned backend is faster, auto lost). `contenders`: best and the
    pinned backends the rule does not order after it (verdict/leader.py); where there are
    several, no pinned backend is called the fastest."""
    best: str
    verdict: Paired
    contenders: tuple[str, ...] = ()


@dataclass(frozen=True)
class DecodePoint:
    """A decode point at batch 1 timed in pairs: eager calls, and replays of a CUDA graph."""
    q_len: int
    kv_len: int
    eager: DecodeCall | None
    graph: DecodeCall | None


def _call(results, name, group, suffix) -> DecodeCall | None:
    """The pinned backends ranked by their paired ratio to unpinned SDPA (the geometric mean
    of the processes' ratios, not medians of blocks pooled across processes), the first
    against auto, and the ones the rule does not order after it."""
    to_auto = {}
    for n in PINNED:
        v = by_group(group, "auto" + suffix, n + suffix)  # ratios n / auto: lower is faster
        if v.median_ratio is not None:
            to_auto[n] = v.median_ratio
    if not to_auto:
        return None
    ranked = sorted(to_auto, key=to_auto.get)
    top = leader(ranked, lambda a, b: by_pair_group(results, name, a + suffix, b + suffix))
    verdict = by_pair_group(results, name, ranked[0] + suffix, "auto" + suffix)
    return DecodeCall(ranked[0], verdict, top.contenders) if verdict is not None else None


def decode_pairs(results) -> tuple[DecodePoint, ...]:
    """Every decode group of results.json's pairs (measure/pair_groups.py: decode_q<q>_kv<kv>,
    batch 1), by query length and KV length."""
    found = []
    if not results.get("shapes"):  # the decode pairs are timed with --shapes; without it, no page of them
        return ()
    for name, group in ((results.get("pairs") or {}).get("groups") or {}).items():
        shape = group.get("shape") or {}
        if not name.startswith("decode_") or "q_len" not in shape:
            continue
        found.append(DecodePoint(shape["q_len"], shape["kv_len"], _call(results, name, group, ""),
                                 _call(results, name, group, "_graph")))
    return tuple(sorted(found, key=lambda p: (p.q_len, p.kv_len)))


@dataclass(frozen=True)
class DecodeWall:
    """The answer above is in kernel time; in wall time per call at batch 1, where the CPU
    can set the pace, timed in pairs: at how many of `n` points unpinned SDPA lost to the
    fastest pinned backend (the paired rule), called eagerly (`eager_lost` of `eager_n`) and
    replayed from a CUDA graph (`graph_lost` of `graph_n`)."""
    batch: int
    eager_n: int
    eager_lost: int
    graph_n: int
    graph_lost: int


@finding("shapes-findings-decode")
def shapes_decode_wall(results, ref) -> DecodeWall | None:
    """Unpinned SDPA against the fastest pinned backend in wall time per call at batch 1,
    eager and inside a CUDA graph (decode_pairs); None where the run has no decode pairs.
    Which points it lost at is the table shapes-decode-pairs (a point near the line can
    read differently from one run to the next; the count and the answer do not)."""
    pts = decode_pairs(results)
    eager = [p.eager for p in pts if p.eager]
    graph = [p.graph for p in pts if p.graph]
    if not eager and not graph:
        return None
    return DecodeWall(1, len(eager), sum(c.verdict.order == "<" for c in eager), len(graph),
                      sum(c.verdict.order == "<" for c in graph))


@dataclass(frozen=True)
class DecodeAuto:
    """What unpinned SDPA ran, read off the kernel names: (backend, ((query length, batches),
    ...)) for the runs where it ran one backend at every KV length; (query length, batch,
    ((KV length, backend), ...)) for each run where the backend changed with the KV length;
    then who accepted decode."""
    steady: tuple[tuple[str, tuple[tuple[int, tuple[int, ...]], ...]], ...]
    mixed: tuple[tuple[int, int, tuple[tuple[int, str], ...]], ...]
    accepted: tuple[tuple[str, int, int], ...] | None


@finding("shapes-findings-decode")
def shapes_decode_auto(results, ref) -> DecodeAuto | None:
    pts = points(results, "decode")
    steady, mixed = {}, []
    for (q_len, batch), by_variant in grouped(pts).items():
        ran = {kv: p["backend_ran"] for kv, p in by_variant.get("auto", {}).items()
               if point_ok(p) and p.get("backend_ran")}
        if not ran:
            continue
        if len(set(ran.values())) == 1:
            steady.setdefault(next(iter(ran.values())), {}).setdefault(q_len, []).append(batch)
        else:
            mixed.append((q_len, batch, tuple(ran.items())))
    found = DecodeAuto(tuple((b, tuple((q, tuple(batches)) for q, batches in runs.items()))
                             for b, runs in steady.items()), tuple(mixed), accepted(pts))
    return found if found.steady or found.mixed or found.accepted else None


def _ends(sorted_points):
    """The first and the last point (one, if there is only one)."""
    return sorted_points[:1] + sorted_points[1:][-1:]


@dataclass(frozen=True)
class Launch:
    """One call at one point: its kernels' time, the CPU time to issue it, its wall time
    (figures only: host overhead and kernel time are two metrics, not compared), and who
    sets the pace, from the wall time per call of the same call replayed from a CUDA graph
    (which issues it without the CPU's per-call work) against called eagerly, timed in pairs
    (`verdict`, by_group: "<" where the replay is faster): "cpu" where the replay is faster,
    "gpu" where it is not; None (and no verdict) where the run did not time this point in pairs."""
    place: Place
    variant: str
    kernel_us: float
    host_us: float
    wall_us: float
    pace: str | None
    verdict: Paired | None


def _decode_group(results, p):
    """The name of the pair group timed at point p's shape (batch 1), or None."""
    name = f"decode_q{p['q_len']}_kv{p['kv_len']}"
    shape = (pair_group(results, name) or {}).get("shape") or {}
    return name if shape.get("batch") == p["batch"] else None


def _launch(results, p) -> Launch:
    name = _decode_group(results, p)
    v = name and by_pair_group(results, name, p["variant"] + "_graph", p["variant"])
    pace = None if not v else "cpu" if v.order == "<" else "gpu"
    return Launch(place_of(p), p["variant"], point_time(p), median(p["host_time_us"]), p["wall_time_us"]["median"],
                  pace, v or None)


@finding("shapes-findings-decode")
def shapes_decode_launch(results, ref) -> tuple[Launch, ...] | None:
    """Batch 1, one query token: CPU time to issue a call against the kernels' time, at the
    shortest and the longest KV cache (GPU runs only: without a GPU there are no kernels)."""
    pts = [p for p in points(results, "decode") if p["variant"] == "auto" and p["q_len"] == 1 and point_ok(p)
           and p.get("host_time_us") and kernel_time(p)]
    if not pts:
        return None
    batch = min(p["batch"] for p in pts)
    mine = sorted((p for p in pts if p["batch"] == batch), key=lambda p: p["kv_len"])
    return tuple(_launch(results, p) for p in _ends(mine))


@dataclass(frozen=True)
class Bandwidth:
    """Decode's highest bandwidth (GB/s, % of the copy roof); where pinned backends beat the
    copy (`above` of `total` points), the datasheet's memory bandwidth beside it (`sheet`,
    `share` %; None: the GPU is not in the table, `gpu` for that sentence); unpinned SDPA
    at the longest cache of the smallest batch, one query token."""
    variant: str
    gbs: float
    pct: float
    roof: float
    above: int
    total: int
    sheet: Datasheet | None
    share: float | None
    gpu: Data
    auto: tuple[Place, float, float] | None


@finding("shapes-findings-decode")
def shapes_decode_bandwidth(results, ref) -> Bandwidth | None:
    pts = [p for p in points(results, "decode") if point_ok(p)]
    if not pts:
        return None
    roof = results["shapes"]["copy_roof"]["gb_per_s"]
    # auto is no entry of its own (it runs a pinned backend's kernels), and the point is
    # not named: several points lie within noise of the top one
    best = max((p for p in pts if p["variant"] != "auto"), key=gb_per_s, default=None) or max(pts, key=gb_per_s)
    pinned = [p for p in pts if p["variant"] != "auto"]
    found = memory_share(results, gb_per_s(best))
    autos = [p for p in pts if p["variant"] == "auto" and p["q_len"] == 1]
    auto = None
    if autos:
        batch = min(p["batch"] for p in autos)
        p = max((p for p in autos if p["batch"] == batch), key=lambda p: p["kv_len"])
        auto = (place_of(p), gb_per_s(p), 100 * gb_per_s(p) / roof)
    return Bandwidth(best["variant"], gb_per_s(best), 100 * gb_per_s(best) / roof, roof,
                     sum(gb_per_s(p) > roof for p in pinned), len(pinned), found[0] if found else None,
                     found[1] if found else None, Data(results["provenance"].get("gpu_name") or "?"), auto)


@dataclass(frozen=True)
class SameBackend:
    """One backend pinned for both query lengths: its two times."""
    variant: str
    few_us: float
    one_us: float
    compare: Compare


@dataclass(frozen=True)
class CudnnMask:
    """Pinned cuDNN with a few query tokens against one: GPU activities per call, the mask
    kernel it launched for the few, both kernel times."""
    n_few: float
    n_one: float
    kernel: Data
    few_us: float
    one_us: float


@dataclass(frozen=True)
class Speculative:
    """`few` query tokens against `one`, unpinned, at the longest KV cache both have (batch,
    kv): both times; where unpinned SDPA changed backend (`ran_one`, `ran_few`), the same
    backend pinned at both (None: not measured); what pinned cuDNN launched for the few."""
    few: int
    one: int
    batch: int
    kv_len: int
    few_us: float
    one_us: float
    compare: Compare
    ran_one: str | None
    ran_few: str | None
    same: SameBackend | None
    cudnn: CudnnMask | None


@finding("shapes-findings-decode")
def shapes_decode_speculative(results, ref) -> tuple[Speculative, ...] | None:
    """A few query tokens against one, unpinned, at the longest cache both have."""
    cells = cells_by(points(results, "decode"), decode_key)
    q_lens = sorted({k[0] for k in cells})
    if len(q_lens) < 2:
        return None
    one, few = q_lens[0], q_lens[-1]
    found = []
    for batch in sorted({k[1] for k in cells}):
        both = [kv for (q, b, kv) in cells if q == one and b == batch and point_ok(cells[(one, b, kv)].get("auto"))
                and point_ok(cells.get((few, b, kv), {}).get("auto"))]
        if both:
            kv = max(both)
            a, b = cells[(few, batch, kv)]["auto"], cells[(one, batch, kv)]["auto"]
            found.append(_speculative(cells, a, b, few, one, batch, kv))
    return tuple(found) or None


def _speculative(cells, a, b, few, one, batch, kv) -> Speculative:
    """Where unpinned SDPA ran another backend for the few tokens (a) than for one (b): that
    backend pinned at both; then what pinned cuDNN launched for the few tokens against one
    (the mask built as a tensor shows as `triu_tril_kernel`)."""
    ran_few, ran_one = a.get("backend_ran"), b.get("backend_ran")
    changed = bool(ran_few and ran_one and ran_few != ran_one)
    same = None
    if changed:
        pa, pb = cells[decode_key(a)].get(ran_few), cells[decode_key(b)].get(ran_few)
        if point_ok(pa) and point_ok(pb):
            same = SameBackend(ran_few, point_time(pa), point_time(pb), compare_times(pa, pb))
    ca, cb = cells[decode_key(a)].get("cudnn"), cells[decode_key(b)].get("cudnn")
    mask = [k for k in (ca or {}).get("kernels") or [] if "triu_tril" in k["short_name"]]
    cudnn = (CudnnMask(median(ca["gpu_activities_per_forward"]), median(cb["gpu_activities_per_forward"]),
                       Data(mask[0]["short_name"]), point_time(ca), point_time(cb))
             if point_ok(ca) and point_ok(cb) and mask else None)
    return Speculative(few, one, batch, kv, point_time(a), point_time(b), compare_times(a, b),
                       ran_one if changed else None, ran_few if changed else None, same, cudnn)


def _main_kernel(p):
    kernels = [k for k in p.get("kernels") or [] if k["kind"] == "kernel" and k.get("grid")]
    return max(kernels, key=lambda k: k["avg_us"] * k["per_forward"], default=None)


@dataclass(frozen=True)
class Grid:
    """The longest kernel's grid against the GPU's SMs, unpinned, one query token, at the
    smallest batch: the KV lengths that ran it (`every`: all of them, when one kernel and
    grid served every length), the kernel, its grid and blocks."""
    batch: int
    kv_lens: tuple[int, ...]
    every: bool
    kernel: Data
    grid: tuple[int, ...]
    blocks: int
    sms: int


@finding("shapes-findings-decode")
def shapes_decode_grid(results, ref) -> tuple[Grid, ...] | None:
    """One sentence for the KV lengths that share a kernel and grid, one more for each
    kernel or grid that differs (GPU runs only)."""
    sms = results["provenance"].get("sm_count")
    pts = [p for p in points(results, "decode") if p["variant"] == "auto" and p["q_len"] == 1 and point_ok(p)
           and _main_kernel(p)]
    if not (sms and pts):
        return None
    batch = min(p["batch"] for p in pts)
    same = {}  # (kernel, grid) -> the points that ran it, in KV order
    for p in sorted((p for p in pts if p["batch"] == batch), key=lambda p: p["kv_len"]):
        k = _main_kernel(p)
        same.setdefault((k["short_name"], tuple(k["grid"])), []).append(p)
    return tuple(Grid(batch, tuple(p["kv_len"] for p in group), len(same) == 1 and len(group) > 1, Data(kernel), grid,
                      math.prod(grid), sms) for (kernel, grid), group in same.items())
