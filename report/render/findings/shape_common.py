"""What the shapes page's findings share: where a point is, how two points' times
compare, the points gathered by cell, and the answer for a family (unpinned SDPA, or the
backend to pin) with how many points each backend accepted.

A comparison of two points' kernel times is report/verdict's by_points: an order only
beyond the larger spread of the profiled steps and the 5 % margin; "the same within ±5 %"
only where the gap and the spread lie inside it; otherwise undecided.
The sentences for these facts are macros of report/text/templates/_shapes.<lang>.md.j2.
"""
from __future__ import annotations

from dataclasses import dataclass

from ...variants import SHAPE_BACKENDS
from ...verdict import by_points
from ..extra_tables import point_time
from ..shape_points import fastest, point_ok

PINNED = tuple(n for n in SHAPE_BACKENDS if n != "auto")


@dataclass(frozen=True)
class Place:
    """Where a point is: its family and the sizes that tell it apart."""
    family: str
    q_len: int
    batch: int
    kv_len: int
    q_heads: int | None
    kv_heads: int | None


def place_of(p) -> Place:
    return Place(p["family"], p["q_len"], p["batch"], p["kv_len"], p.get("q_heads"), p.get("kv_heads"))


@dataclass(frozen=True)
class Compare:
    """a's kernel time against b's by report/verdict's by_points: `even` where no order is
    found, `same` where they are the same within ±`spread` % (the 5 % margin), undecided
    (even, not same) where the steps' spread or the gap reaches ±`spread` %, beyond it;
    `ratio`: a over b."""
    even: bool
    ratio: float
    spread: float
    same: bool = False


def compare_times(a, b) -> Compare:
    v = by_points(b, a)
    return Compare(v.order is None, point_time(a) / point_time(b), 100 * v.noise, v.same)


def cells_by(pts, key):
    """{key(p): {variant: point}}: the points gathered by cell (a shape measured)."""
    out = {}
    for p in pts:
        out.setdefault(key(p), {})[p["variant"]] = p
    return out


def decode_key(p):
    """A decode point's cell: query length, batch, KV length."""
    return p["q_len"], p["batch"], p["kv_len"]


def _ran(by_variant):
    """((backend, points), ...): what unpinned SDPA ran, from the kernel names."""
    counts = {}
    for cell in by_variant:
        auto = cell.get("auto")
        if point_ok(auto) and auto.get("backend_ran"):
            counts[auto["backend_ran"]] = counts.get(auto["backend_ran"], 0) + 1
    return tuple(counts.items())


def same_kernels(auto, pinned):
    """True where unpinned SDPA ran the pinned backend's own kernels at this point: then
    they are one entry, and a gap between them is two measurements of the same kernel."""
    return auto.get("backend_ran") is not None and auto.get("backend_ran") == pinned.get("variant")


@dataclass(frozen=True)
class Worst:
    """Where unpinned SDPA fell furthest behind the fastest pinned backend, by `ratio`."""
    place: Place
    best: str
    ratio: float


@dataclass(frozen=True)
class Answer:
    """A family's answer over its `n` cells: unpinned SDPA where it was as fast as the
    fastest pinned backend at all of them (`good` == `n`), else pin `top` (the fastest, or
    within noise of it, at `count`); `ran`: (backend, points) unpinned SDPA ran, () where
    the run does not say; `worst`: where unpinned fell furthest behind."""
    family: str
    n: int
    good: int
    ran: tuple[tuple[str, int], ...]
    top: str
    count: int
    worst: Worst | None


def answer(cells, family) -> Answer | None:
    """Unpinned if it was as fast as the fastest backend everywhere, else the backend to pin."""
    scored = []
    for cell in cells.values():
        best = fastest(cell.get(n) for n in PINNED)
        if best is not None:
            near = [n for n in PINNED if point_ok(cell.get(n)) and by_points(best, cell[n]).order is None]
            auto = cell.get("auto")
            auto_good = point_ok(auto) and (same_kernels(auto, best) or by_points(best, auto).order != "<")
            scored.append((cell, best, near, auto_good))
    if not scored:
        return None
    counts = {b: sum(b in near for _, _, near, _ in scored) for b in PINNED}
    top = max(PINNED, key=lambda b: counts[b])
    worst = max((s for s in scored if point_ok(s[0].get("auto"))),
                key=lambda s: point_time(s[0]["auto"]) / point_time(s[1]), default=None)
    return Answer(family=family, n=len(scored), good=sum(g for *_, g in scored), ran=_ran([c for c, *_ in scored]),
                  top=top, count=counts[top],
                  worst=Worst(place_of(worst[1]), worst[1]["variant"], point_time(worst[0]["auto"]) /
                              point_time(worst[1])) if worst else None)


def accepted(pts) -> tuple[tuple[str, int, int], ...] | None:
    """(backend, points it ran at, points measured) per pinned backend (skipped points left out)."""
    found = []
    for name in PINNED:
        mine = [p for p in pts if p["variant"] == name and p["status"] != "skipped"]
        if mine:
            found.append((name, sum(point_ok(p) for p in mine), len(mine)))
    return tuple(found) or None
