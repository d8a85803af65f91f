"""What the shapes page's findings share: where a point is, how two points' times
compare, the points gathered by cell, and the answer for a family (unpinned SDPA, or the
backend to pin) with how many points each backend accepted.

A comparison of two times states an order only when the difference is larger than the
spread of the profiled steps (the larger of the two); otherwise it says "within noise".
"""
from ...text.catalog import t
from ...text.format import (
    fmt_num,
    fmt_pct,
    fmt_ratio,
)
from ...variants import SHAPE_BACKENDS
from ...verdict import noise, point_figure, within_noise
from ..extra_tables import point_time
from ..keyed import keyed
from ..markdown import label
from ..shape_points import (
    backend_name,
    fastest,
    point_ok,
)

PINNED = tuple(n for n in SHAPE_BACKENDS if n != "auto")


def place_of(p, lang):
    """Where a point is: "query length 1, batch 32, KV 8 192" and the like."""
    if p["family"] == "decode":
        return t("finding.shapes_at_decode", lang, q_len=p["q_len"], batch=p["batch"],
                 kv=fmt_num(p["kv_len"], lang, 0))
    if p["family"] == "prefill":
        return t("finding.shapes_at_prefill", lang, seq=fmt_num(p["q_len"], lang, 0))
    key = "finding.shapes_at_gqa_one" if p["kv_heads"] == 1 else "finding.shapes_at_gqa"
    return t(key, lang, phase=keyed("word.shapes_", p["family"], lang), q_heads=p["q_heads"],
             kv_heads=p["kv_heads"])


def compare_times(a, b, lang):
    """"1,8× as long" / "within noise (spread 3 %)": a against b."""
    if within_noise(a, b):
        spread = noise(point_figure(a), point_figure(b))
        return t("finding.shapes_within_noise", lang, spread=fmt_pct(100 * spread, lang, 0))
    return t("finding.shapes_times", lang, ratio=fmt_ratio(point_time(a) / point_time(b), lang))


def cells_by(pts, key):
    """{key(p): {variant: point}}: the points gathered by cell (a shape measured)."""
    out = {}
    for p in pts:
        out.setdefault(key(p), {})[p["variant"]] = p
    return out


def decode_key(p):
    """A decode point's cell: query length, batch, KV length."""
    return p["q_len"], p["batch"], p["kv_len"]


def _ran(by_variant, lang):
    """"SDPA flash ×10, SDPA cuDNN ×4": what unpinned SDPA ran, from the kernel names."""
    counts = {}
    for cell in by_variant:
        auto = cell.get("auto")
        if point_ok(auto) and auto.get("backend_ran"):
            counts[auto["backend_ran"]] = counts.get(auto["backend_ran"], 0) + 1
    if not counts:
        return t("finding.shapes_ran_unknown", lang)
    return ", ".join(f"{backend_name(n)} ×{fmt_num(c, lang, 0)}" for n, c in counts.items())


def same_kernels(auto, pinned):
    """True where unpinned SDPA ran the pinned backend's own kernels at this point: then
    they are one entry, and a gap between them is two measurements of the same kernel."""
    return auto.get("backend_ran") is not None and auto.get("backend_ran") == pinned.get("variant")


def answer(cells, family, lang):
    """Unpinned if it was as fast as the fastest backend everywhere, else the backend to pin."""
    scored = []
    for cell in cells.values():
        best = fastest(cell.get(n) for n in PINNED)
        if best is not None:
            near = [n for n in PINNED if point_ok(cell.get(n)) and within_noise(cell[n], best)]
            auto = cell.get("auto")
            auto_good = point_ok(auto) and (same_kernels(auto, best) or within_noise(auto, best)
                                            or point_time(auto) <= point_time(best))
            scored.append((cell, best, near, auto_good))
    if not scored:
        return []
    n = len(scored)
    counts = {b: sum(b in near for _, _, near, _ in scored) for b in PINNED}
    top = max(PINNED, key=lambda b: counts[b])
    good = sum(g for *_, g in scored)
    ran = _ran([cell for cell, *_ in scored], lang)
    what = keyed("word.shapes_", family, lang)
    if good == n:
        return [t("finding.shapes_answer_auto", lang, family=what, n=n, ran=ran)]
    worst = max((s for s in scored if point_ok(s[0].get("auto"))),
                key=lambda s: point_time(s[0]["auto"]) / point_time(s[1]), default=None)
    tail = ""
    if worst:
        cell, best = worst[0], worst[1]
        tail = t("finding.shapes_answer_worst", lang, at=place_of(best, lang), best=label(best["variant"], lang),
                 ratio=fmt_ratio(point_time(cell["auto"]) / point_time(best), lang))
    return [t("finding.shapes_answer_pin", lang, family=what, best=label(top, lang), count=counts[top], n=n,
              good=good, ran=ran, worst=tail)]


def accepted(pts, lang):
    """Per backend: at how many points it ran, of those measured (skipped points left out)."""
    parts = []
    for name in PINNED:
        mine = [p for p in pts if p["variant"] == name and p["status"] != "skipped"]
        if mine:
            parts.append(f"{label(name, lang)} {sum(point_ok(p) for p in mine)}/{len(mine)}")
    return [t("finding.shapes_accepted", lang, list=", ".join(parts))] if parts else []
