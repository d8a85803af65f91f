"""Findings of the shapes page for prefill, grouped-query attention and the sliding window:
what to use, and why (decode: decode_findings.py; what they share: shape_common.py).

Comparisons follow the noise rule of shape_common.py.
"""
from __future__ import annotations

from dataclasses import dataclass

from ...verdict import by_points
from ..extra_tables import point_time
from ..shape_points import fastest, point_ok, points, tflops
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

# --------------------------------------------------------------------------- prefill


@dataclass(frozen=True)
class PrefillLength:
    """One prompt length: the fastest pinned backend, its kernel time, TFLOP/s and share (%)
    of the matmul roof; what unpinned SDPA ran there and its time (None: not known)."""
    place: Place
    best: str
    time_us: float
    tflops: float
    share: float
    auto_ran: str | None
    auto_us: float | None


@dataclass(frozen=True)
class Prefill:
    answer: Answer | None
    lengths: tuple[PrefillLength, ...]
    oom: tuple[tuple[str, Place], ...]


@finding("shapes-findings-prefill")
def shapes_prefill(results, ref) -> Prefill | None:
    pts = points(results, "prefill")
    cells = cells_by(pts, lambda p: p["q_len"])
    roof = results["roof"]["tflops"]
    lengths = []
    for cell in cells.values():
        best = fastest(cell.get(n) for n in PINNED)
        auto = cell.get("auto")
        if best is None:
            continue
        known = point_ok(auto) and auto.get("backend_ran")
        lengths.append(PrefillLength(place_of(best), best["variant"], point_time(best), tflops(best),
                                     100 * tflops(best) / roof, auto["backend_ran"] if known else None,
                                     point_time(auto) if known else None))
    found = Prefill(answer(cells, "prefill"), tuple(lengths),
                    tuple((p["variant"], place_of(p)) for p in pts if p["status"] == "oom"))
    return found if found.answer or found.lengths or found.oom else None


# --------------------------------------------------------------------------- GQA


def _gqa_cells(results):
    pts = points(results, "gqa_decode") + points(results, "gqa_prefill")
    return pts, cells_by(pts, lambda p: (p["family"], p["kv_heads"]))


@dataclass(frozen=True)
class GqaAnswer:
    """At how many of the `n` GQA shapes enable_gqa was as fast as repeating K/V by hand, or
    faster, in kernel time (by_points: the same within ±y %, or faster)."""
    good: int
    n: int


@finding("shapes-findings-gqa")
def shapes_gqa_answer(results, ref) -> GqaAnswer | None:
    """enable_gqa against repeating K/V by hand, both unpinned."""
    _, cells = _gqa_cells(results)
    pairs = [(c["auto"], c["repeat_kv"]) for c in cells.values()
             if point_ok(c.get("auto")) and point_ok(c.get("repeat_kv"))]
    if not pairs:
        return None
    return GqaAnswer(sum(by_points(r, a).order != "<" for a, r in pairs), len(pairs))


@dataclass(frozen=True)
class AgainstMha:
    """A GQA decode point against the same decode with every query head its own K/V head."""
    kv_heads: int
    q_heads: int
    batch: int
    kv_len: int
    gqa_us: float
    mha_us: float
    compare: Compare


@dataclass(frozen=True)
class GqaPair:
    """One GQA shape: enable_gqa (what it ran) against K/V repeated by hand (`compare`: by hand
    against enable_gqa), the extra memory of each (None: not measured), and against MHA."""
    place: Place
    native_us: float
    ran: str | None
    repeat_us: float
    compare: Compare
    memory: tuple[float, float] | None
    mha: AgainstMha | None


@dataclass(frozen=True)
class GqaPairs:
    pairs: tuple[GqaPair, ...]
    accepted: tuple[tuple[str, int, int], ...] | None


@finding("shapes-findings-gqa")
def shapes_gqa(results, ref) -> GqaPairs | None:
    pts, cells = _gqa_cells(results)
    pairs = []
    mha = cells_by(points(results, "decode"), decode_key)
    for cell in cells.values():
        a, r = cell.get("auto"), cell.get("repeat_kv")
        if not (point_ok(a) and point_ok(r)):
            continue
        memory = ((a["peak_extra_mib"], r["peak_extra_mib"])
                  if a.get("peak_extra_mib") is not None and r.get("peak_extra_mib") is not None else None)
        full = mha.get((a["q_len"], a["batch"], a["kv_len"]), {}).get("auto") if a["family"] == "gqa_decode" else None
        against = (AgainstMha(a["kv_heads"], a["q_heads"], a["batch"], a["kv_len"], point_time(a), point_time(full),
                              compare_times(full, a)) if point_ok(full) else None)
        pairs.append(GqaPair(place_of(a), point_time(a), a.get("backend_ran"), point_time(r), compare_times(r, a),
                             memory, against))
    found = GqaPairs(tuple(pairs), accepted(pts))
    return found if found.pairs or found.accepted else None


@dataclass(frozen=True)
class GqaBackends:
    """How each pinned backend took the shared K/V heads at one GQA shape: the extra memory
    (MiB) of those that ran; `copies`: math's is at least `copy` bytes, what copying K and V
    to every query head takes in FP32; those that refused."""
    place: Place
    memory: tuple[tuple[str, float], ...]
    copies: bool
    copy: int
    refused: tuple[str, ...]


@finding("shapes-findings-gqa")
def shapes_gqa_backends(results, ref) -> tuple[GqaBackends, ...] | None:
    """How each pinned backend took the shared K/V heads, per GQA shape: the extra memory of
    those that ran, against what math's copy of K and V to every query head takes by the
    sizes (FP32, after its upcast: 2·B·H_q·S·D·4 bytes); those that refused."""
    _, cells = _gqa_cells(results)
    found = []
    for cell in cells.values():
        ran = [n for n in PINNED if point_ok(cell.get(n)) and cell[n].get("peak_extra_mib") is not None]
        refused = [n for n in PINNED if cell.get(n) and cell[n]["status"] not in ("ok", "skipped")]
        if "math" not in ran or len(ran) < 2:
            continue
        p = cell["math"]
        copy = 2 * p["batch"] * p["q_heads"] * p["kv_len"] * p["head_dim"] * 4
        found.append(GqaBackends(place_of(p), tuple((n, cell[n]["peak_extra_mib"]) for n in ran),
                                 p["peak_extra_mib"] * 2**20 >= copy, copy, tuple(refused)))
    return tuple(found) or None


# --------------------------------------------------------------------------- sliding window


@dataclass(frozen=True)
class SlidingSdpa:
    """SDPA with is_causal, unpinned (what it ran), against FlexAttention's causal mask."""
    ran: str | None
    sdpa_us: float
    compare: Compare


@dataclass(frozen=True)
class Sliding:
    """FlexAttention's sliding window against its causal mask: the window, the sequence, the
    blocks each skips (%), both kernel times (`compare`: sliding against causal), the first
    call; SDPA beside it (None where it did not run)."""
    window: int
    seq: int
    sp_sliding: float
    sp_causal: float
    sliding_us: float
    causal_us: float
    compare: Compare
    first_us: float
    sdpa: SlidingSdpa | None


@finding("shapes-findings-sliding")
def shapes_sliding(results, ref) -> Sliding | None:
    cell = {p["variant"]: p for p in points(results, "sliding")}
    s, c, a = cell.get("flex_sliding"), cell.get("flex_causal"), cell.get("auto")
    if not (point_ok(s) and point_ok(c)):
        return None
    return Sliding(s["window"], s["q_len"], s["block_sparsity_pct"], c["block_sparsity_pct"], point_time(s),
                   point_time(c), compare_times(s, c), s["first_call_ms"] * 1000,
                   SlidingSdpa(a.get("backend_ran"), point_time(a), compare_times(c, a)) if point_ok(a) else None)
