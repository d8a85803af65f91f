"""Findings of the shapes page for prefill, grouped-query attention and the sliding window:
what to use, and why (decode: decode_findings.py; what they share: shape_common.py).

Comparisons follow the noise rule of shape_common.py.
"""
from ...text.catalog import t
from ...text.format import (
    fmt_bytes,
    fmt_num,
    fmt_pct,
    fmt_tflops,
    fmt_us,
    unit,
)
from ...verdict import within_noise
from ..extra_tables import point_time
from ..markdown import label
from ..shape_points import (
    backend_name,
    fastest,
    point_ok,
    points,
    ran_suffix,
    tflops,
)
from .registry import finding
from .shape_common import PINNED, accepted, answer, cells_by, compare_times, decode_key, place_of

# --------------------------------------------------------------------------- prefill


@finding("shapes-findings-prefill")
def shapes_prefill(results, ref, lang):
    pts = points(results, "prefill")
    cells = cells_by(pts, lambda p: p["q_len"])
    lines = answer(cells, "prefill", lang)
    roof = results["roof"]["tflops"]
    for cell in cells.values():
        best = fastest(cell.get(n) for n in PINNED)
        auto = cell.get("auto")
        if best is None:
            continue
        ran = (t("finding.shapes_prefill_auto", lang, backend=backend_name(auto["backend_ran"]),
                 time=fmt_us(point_time(auto), lang))
               if point_ok(auto) and auto.get("backend_ran") else "")
        lines.append(t("finding.shapes_prefill_len", lang, at=place_of(best, lang), best=label(best["variant"], lang),
                       time=fmt_us(point_time(best), lang),
                       tflops=unit(fmt_tflops(tflops(best), lang), "TFLOP/s", lang),
                       share=fmt_pct(100 * tflops(best) / roof, lang, 0), auto=ran))
    failed = [f"{label(p['variant'], lang)} ({place_of(p, lang)}: {t('value.oom', lang)})"
              for p in pts if p["status"] == "oom"]
    if failed:
        lines.append(t("finding.shapes_oom", lang, list=", ".join(failed)))
    return lines


# --------------------------------------------------------------------------- GQA


def _gqa_cells(results):
    pts = points(results, "gqa_decode") + points(results, "gqa_prefill")
    return pts, cells_by(pts, lambda p: (p["family"], p["kv_heads"]))


@finding("shapes-findings-gqa")
def shapes_gqa_answer(results, ref, lang):
    """enable_gqa against repeating K/V by hand, both unpinned."""
    _, cells = _gqa_cells(results)
    pairs = [(c["auto"], c["repeat_kv"]) for c in cells.values()
             if point_ok(c.get("auto")) and point_ok(c.get("repeat_kv"))]
    if not pairs:
        return []
    good = sum(within_noise(a, r) or point_time(a) <= point_time(r) for a, r in pairs)
    key = "finding.shapes_gqa_answer_native" if good == len(pairs) else "finding.shapes_gqa_answer_mixed"
    return [t(key, lang, good=good, n=len(pairs))]


@finding("shapes-findings-gqa")
def shapes_gqa(results, ref, lang):
    pts, cells = _gqa_cells(results)
    lines = []
    mha = cells_by(points(results, "decode"), decode_key)
    for cell in cells.values():
        a, r = cell.get("auto"), cell.get("repeat_kv")
        if not (point_ok(a) and point_ok(r)):
            continue
        ran = ran_suffix(a)
        mem = ""
        if a.get("peak_extra_mib") is not None and r.get("peak_extra_mib") is not None:
            mem = t("finding.shapes_gqa_memory", lang, native=fmt_bytes(a["peak_extra_mib"] * 2**20, lang),
                    repeat=fmt_bytes(r["peak_extra_mib"] * 2**20, lang))
        lines.append(t("finding.shapes_gqa_pair", lang, at=place_of(a, lang), native=fmt_us(point_time(a), lang),
                       ran=ran, repeat=fmt_us(point_time(r), lang), compare=compare_times(r, a, lang), memory=mem))
        full = mha.get((a["q_len"], a["batch"], a["kv_len"]), {}).get("auto") if a["family"] == "gqa_decode" else None
        if point_ok(full):
            lines.append(t("finding.shapes_gqa_vs_mha", lang, kv_heads=a["kv_heads"], q_heads=a["q_heads"],
                           batch=a["batch"], kv=fmt_num(a["kv_len"], lang, 0), gqa=fmt_us(point_time(a), lang),
                           mha=fmt_us(point_time(full), lang), compare=compare_times(full, a, lang)))
    return lines + accepted(pts, lang)


@finding("shapes-findings-gqa")
def shapes_gqa_backends(results, ref, lang):
    """How each pinned backend took the shared K/V heads, per GQA shape: the extra memory of
    those that ran, against what math's copy of K and V to every query head takes by the
    sizes (FP32, after its upcast: 2·B·H_q·S·D·4 bytes); those that refused."""
    _, cells = _gqa_cells(results)
    lines = []
    for cell in cells.values():
        ran = [n for n in PINNED if point_ok(cell.get(n)) and cell[n].get("peak_extra_mib") is not None]
        refused = [n for n in PINNED if cell.get(n) and cell[n]["status"] not in ("ok", "skipped")]
        if "math" not in ran or len(ran) < 2:
            continue
        p = cell["math"]
        copy = 2 * p["batch"] * p["q_heads"] * p["kv_len"] * p["head_dim"] * 4
        mem = ", ".join(f"{label(n, lang)} {fmt_bytes(cell[n]['peak_extra_mib'] * 2**20, lang)}" for n in ran)
        key = ("finding.shapes_gqa_math_copy" if p["peak_extra_mib"] * 2**20 >= copy
               else "finding.shapes_gqa_math_less")
        tail = (" " + t("finding.shapes_gqa_refused", lang, list=", ".join(label(n, lang) for n in refused))
                if refused else "")
        lines.append(t("finding.shapes_gqa_backends", lang, at=place_of(p, lang), list=mem,
                       math=t(key, lang, copy=fmt_bytes(copy, lang))) + tail)
    return lines


# --------------------------------------------------------------------------- sliding window


@finding("shapes-findings-sliding")
def shapes_sliding(results, ref, lang):
    cell = {p["variant"]: p for p in points(results, "sliding")}
    s, c, a = cell.get("flex_sliding"), cell.get("flex_causal"), cell.get("auto")
    if not (point_ok(s) and point_ok(c)):
        return []
    lines = [t("finding.shapes_sliding", lang, window=fmt_num(s["window"], lang, 0), seq=fmt_num(s["q_len"], lang, 0),
               sp_sliding=fmt_pct(s["block_sparsity_pct"], lang, 0),
               sp_causal=fmt_pct(c["block_sparsity_pct"], lang, 0),
               t_sliding=fmt_us(point_time(s), lang), t_causal=fmt_us(point_time(c), lang),
               compare=compare_times(s, c, lang),
               first=fmt_us(s["first_call_ms"] * 1000, lang))]
    if point_ok(a):
        ran = ran_suffix(a)
        lines.append(t("finding.shapes_sliding_sdpa", lang, ran=ran, t_sdpa=fmt_us(point_time(a), lang),
                       compare=compare_times(c, a, lang)))
    return lines
