"""Findings of the shapes page for decode (one to a few query tokens against a KV cache):
what to use, the wall time at the smallest batch, what unpinned SDPA ran, the cost of a
launch, the bandwidth, a few query tokens against one, the longest kernel's grid.

Comparisons follow the noise rule of shape_common.py.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

from ...verdict import differ, host_floor, median, noise, wall_figure, walls_differ
from ..datasheets import Datasheet, memory_share
from ..extra_tables import point_time
from ..prose import Data
from ..shape_points import gb_per_s, grouped, point_ok, points
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


def _wall(p):
    return p["wall_time_us"]["median"]


@dataclass(frozen=True)
class WallLost:
    """A point where unpinned SDPA was slower in wall time than the pinned backend fastest
    there (`variant`), beyond noise (`spread`, %); both host overheads where measured."""
    q_len: int
    kv_len: int
    auto_us: float
    variant: str
    best_us: float
    ratio: float
    spread: float
    hosts: tuple[float, float] | None


@dataclass(frozen=True)
class DecodeWall:
    """Unpinned SDPA against the pinned backend fastest in wall time per call, at the
    smallest batch (`batch`), at `n` points. With the run's floor for host-paced figures
    (`floor`, %): at `good` points within it or faster. Without (None): the points where it
    lost beyond noise; `one_run`: some wall time is one timer run."""
    batch: int
    n: int
    floor: float | None
    good: int
    lost: tuple[WallLost, ...]
    one_run: bool


@finding("shapes-findings-decode")
def shapes_decode_wall(results, ref) -> DecodeWall | None:
    """The answer above is in kernel time; at the smallest batch, where the CPU can set the
    pace, unpinned SDPA against the pinned backend fastest in wall time per call: each
    point is one measurement of a host-paced figure, so a gap counts only beyond the run's
    floor for such figures (report/verdict: host_floor); files without it by the noise rule
    (report/verdict: walls_differ), naming the points and both host overheads."""
    cells = cells_by(points(results, "decode"), decode_key)
    batch = min((k[1] for k in cells), default=None)
    scored = []
    for (_, b, _), cell in sorted(cells.items()):
        auto = cell.get("auto")
        pinned = [cell[n] for n in PINNED if point_ok(cell.get(n)) and cell[n].get("wall_time_us")]
        if b != batch or not (point_ok(auto) and auto.get("wall_time_us") and pinned):
            continue
        best = min(pinned, key=_wall)
        scored.append((auto, best, walls_differ(auto, best) and _wall(auto) > _wall(best)))
    if not scored:
        return None
    noise_floor = host_floor(results)
    if noise_floor > 0:  # single measurements of a host-paced figure: judged against the run's floor
        good = sum(not (walls_differ(a, b) and _wall(a) / _wall(b) - 1 > noise_floor) for a, b, _ in scored)
        return DecodeWall(batch, len(scored), 100 * noise_floor, good, (), False)
    lost = tuple(WallLost(a["q_len"], a["kv_len"], _wall(a), b["variant"], _wall(b), _wall(a) / _wall(b),
                          wall_noise(a, b), (median(a["host_time_us"]), median(b["host_time_us"]))
                          if a.get("host_time_us") and b.get("host_time_us") else None)
                 for a, b, slower in scored if slower)
    one_run = any((p["wall_time_us"].get("runs") or 0) < 2 for a, b, _ in scored for p in (a, b))
    return DecodeWall(batch, len(scored), None, len(scored) - len(lost), lost, one_run)


def wall_noise(a, b):
    """The noise two points' wall times are compared within, in percent."""
    return 100 * noise(wall_figure(a), wall_figure(b))


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
    """One call at one point: its kernels' time, the CPU time to issue it, its wall time, and
    who sets the pace: "even" (CPU and kernel time within noise, `spread` %), "cpu" or "gpu"."""
    place: Place
    variant: str
    kernel_us: float
    host_us: float
    wall_us: float
    pace: str
    spread: float


def _launch(p) -> Launch:
    kernel, host = point_time(p), median(p["host_time_us"])
    pace = "even" if not differ(p["host_time_us"], p["kernel_sum_us"]) else "cpu" if host > kernel else "gpu"
    return Launch(place_of(p), p["variant"], kernel, host, p["wall_time_us"]["median"], pace,
                  100 * noise(p["host_time_us"], p["kernel_sum_us"]))


@finding("shapes-findings-decode")
def shapes_decode_launch(results, ref) -> tuple[Launch, ...] | None:
    """Batch 1, one query token: CPU time to issue a call against the kernels' time, at the
    shortest and the longest KV cache (GPU runs only: without a GPU there are no kernels)."""
    pts = [p for p in points(results, "decode") if p["variant"] == "auto" and p["q_len"] == 1 and point_ok(p)
           and p.get("host_time_us") and p.get("kernel_sum_us")]
    if not pts:
        return None
    batch = min(p["batch"] for p in pts)
    mine = sorted((p for p in pts if p["batch"] == batch), key=lambda p: p["kv_len"])
    return tuple(_launch(p) for p in _ends(mine))


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
