"""The --shapes tables: decode, prefill, grouped-query attention, sliding window, the
refusals and the method (the figures: shape_figures.py).

Every file is written whether or not the run measured the shapes, so that the page always
builds: without them each says "not measured on this GPU".
"""
from __future__ import annotations

import re

from ..rows import CPU_TIME, GPU_SPAN, KERNEL_TIME
from ..text.catalog import t
from ..text.format import (
    fmt_bytes,
    fmt_error,
    fmt_mib,
    fmt_num,
    fmt_pct,
    fmt_ratio_sig,
    fmt_sig,
    fmt_tflops,
    fmt_us,
    fmt_us_column,
    unit,
)
from ..verdict import median
from .datasheets import beside_copy, beside_matmul
from .extra_tables import point_time
from .findings.decode_findings import decode_pairs
from .header import call_writers
from .keyed import keyed
from .markdown import label, md_table, status_text
from .shape_points import backend_name, fmt_gbs, gb_per_s, grouped, point_ok, points, ran_suffix, refusal_line, tflops

TABLE_FILES = ("shapes-decode-time", "shapes-decode-bandwidth", "shapes-decode-details", "shapes-decode-pairs",
               "shapes-prefill", "shapes-gqa", "shapes-sliding", "shapes-refusals", "shapes-method")


def _decode_cell(p, what, lang, roof):
    if p is None:
        return t("value.none", lang)
    if not point_ok(p):
        return status_text(p, lang)
    if what == "time":
        return fmt_us(point_time(p), lang) + (ran_suffix(p) if p["variant"] == "auto" else "")
    share = f" ({fmt_pct(100 * gb_per_s(p) / roof, lang, 0)})" if roof else ""
    return fmt_gbs(gb_per_s(p), lang) + share


def decode_pivots(results, lang, what):
    """Per (query length, batch): backends as rows, KV lengths as columns."""
    pts = points(results, "decode")
    if not pts:
        return t("finding.missing", lang)
    roof = results["shapes"]["copy_roof"]["gb_per_s"]
    parts = []
    for (q_len, batch), by_variant in grouped(pts).items():
        kvs = sorted({kv for cells in by_variant.values() for kv in cells})
        rows = [[label(n, lang)] + [_decode_cell(cells.get(kv), what, lang, roof) for kv in kvs]
                for n, cells in by_variant.items()]
        if what == "time":  # one unit per column: the KV length's times side by side
            for j, kv in enumerate(kvs, start=1):
                cells = [by_variant[n].get(kv) for n in by_variant]
                column = fmt_us_column([point_time(c) if point_ok(c) else None for c in cells], lang)
                for row, c, text in zip(rows, cells, column, strict=True):
                    if text is not None:
                        row[j] = text + (ran_suffix(c) if c["variant"] == "auto" else "")
        head = t({"time": "page.shapes_decode_time", "bandwidth": "page.shapes_decode_bandwidth"}[what], lang,
                 q_len=q_len, batch=batch)
        parts.append(f"**{head}**\n\n" + md_table(
            [t("col.variant", lang)] + [fmt_num(kv, lang, 0) for kv in kvs], rows))
    return "\n\n".join(parts)


def _rate(p, lang, roofs):
    if p["family"] in ("decode", "gqa_decode"):
        return fmt_gbs(gb_per_s(p), lang)
    return fmt_tflops(tflops(p), lang) + (f" ({fmt_pct(100 * tflops(p) / roofs['tflops'], lang, 0)})"
                                          if roofs.get("tflops") else "")


SHAPE_COLUMNS = {
    "decode": ("q_len", "batch", "kv_len"),
    "prefill": ("q_len",),
    "gqa": ("phase", "kv_heads"),
    "sliding": ("window",),
}
SHAPE_HEADERS = {"q_len": "col.shapes_q_len", "batch": "col.shapes_batch", "kv_len": "col.shapes_kv_len",
                 "phase": "col.shapes_phase", "kv_heads": "col.shapes_kv_heads", "window": "col.shapes_window"}


def _shape_cells(p, cols, lang):
    cells = []
    for c in cols:
        if c == "phase":
            cells.append(keyed("word.shapes_", p["family"], lang))
        elif c == "window":
            cells.append(fmt_num(p["window"], lang, 0) if p["variant"] == "flex_sliding"
                         else t("value.none", lang))
        else:
            cells.append(fmt_num(p[c], lang, 0))
    return cells


def _variant_cell(p, lang):
    """The variant, and the backend it ran where that is not in its name (unpinned SDPA)."""
    name = label(p["variant"], lang)
    ran = backend_name(p["backend_ran"]) if p.get("backend_ran") else None
    return f"{name} → {ran}" if ran and p["variant"] == "auto" else name


TIME_FIELDS = (KERNEL_TIME, GPU_SPAN, "wall_time_us", CPU_TIME, "host_time_us")
TIME_HEADERS = ("col.kernel_sum", "col.cuda_time", "col.wall", "col.cpu_time", "col.host_time")


def _time_of(p, field):
    value = p.get(field)
    return None if not value or not point_ok(p) else value["median"] if field == "wall_time_us" else median(value)


def host_above_wall(p):
    """True where a point's host overhead came out above its wall time per call: two
    timers under different conditions (report/measure/host.py), flagged in the table."""
    host, wall = _time_of(p, "host_time_us"), _time_of(p, "wall_time_us")
    return host is not None and wall is not None and host > wall


def host_note(pts, lang):
    """Why a host overhead can exceed the wall time, for the rows flagged with †: the two
    timers, and how much the first call after the small op cost (host.py: after_switch)."""
    flagged = [p for p in pts if host_above_wall(p)]
    if not flagged:
        return ""
    switch = [p["host_time_us"]["first_calls"]["after_switch"]["median"] for p in flagged
              if (p["host_time_us"].get("first_calls") or {}).get("after_switch")]
    extra = (" " + t("page.shapes_host_switch", lang, ratio=fmt_ratio_sig(median_of(switch), lang))) if switch else ""
    return t("page.shapes_host_above_wall", lang, n=len(flagged)) + extra


def median_of(values):
    values = sorted(values)
    mid = len(values) // 2
    return values[mid] if len(values) % 2 else (values[mid - 1] + values[mid]) / 2


def details(pts, lang, shape_cols, roofs, rate_col):
    """Every figure the section measured, one row per point and variant, in two tables
    that fit the page's column: the times (one unit per column; a host overhead above the
    wall time flagged †, with the note that says why it can be), then memory, rate,
    accuracy and GPU activities."""
    none = t("value.none", lang)
    heads = [_shape_cells(p, shape_cols, lang) + [_variant_cell(p, lang)] for p in pts]
    columns = [fmt_us_column([_time_of(p, f) for p in pts], lang) for f in TIME_FIELDS]
    host = TIME_FIELDS.index("host_time_us")
    columns[host] = [f"{c} †" if c is not None and host_above_wall(p) else c for c, p in zip(columns[host], pts,
                                                                                          strict=True)]
    times, others = [], []
    for i, p in enumerate(pts):
        if not point_ok(p):
            times.append(heads[i] + [status_text(p, lang)] + [none] * (len(TIME_FIELDS) - 1))
            others.append(heads[i] + [status_text(p, lang)] + [none] * 3)
            continue
        times.append(heads[i] + [col[i] or none for col in columns])
        acts = p.get("gpu_activities_per_forward")
        others.append(heads[i] + [fmt_mib(p.get("peak_extra_mib"), lang, 0), _rate(p, lang, roofs),
                                  fmt_error(p["rel_error"], lang), fmt_num(median(acts), lang, 0) if acts else none])
    shape_heads = [t(SHAPE_HEADERS[c], lang) for c in shape_cols] + [t("col.variant", lang)]
    align = ["r"] * len(shape_cols) + ["l"]
    first = md_table(shape_heads + [t(c, lang) for c in TIME_HEADERS], times, align + ["r"] * len(TIME_FIELDS))
    second = md_table(shape_heads + [t("col.peak_mem", lang), t(rate_col, lang), t("col.rel_err", lang),
                                     t("col.shapes_kernels", lang)], others, align + ["r"] * 4)
    note = host_note(pts, lang)
    return first + ("\n\n" + note if note else "") + "\n\n" + second


def family_table(results, lang, families, shape_cols, rate_col, note=None):
    pts = [p for f in families for p in points(results, f)]
    if not pts:
        return t("finding.missing", lang)
    body = details(pts, lang, shape_cols, {"tflops": results["roof"]["tflops"]}, rate_col)
    return body + (f"\n\n{note}" if note else "")


def sliding_table(results, lang):
    pts = points(results, "sliding")
    if not pts:
        return t("finding.missing", lang)
    none = t("value.none", lang)
    rows = []
    for p in pts:
        sparsity = p.get("block_sparsity_pct")
        rows.append([label(p["variant"], lang),
                     fmt_pct(sparsity, lang, 1) if sparsity is not None else none,
                     fmt_us(p["first_call_ms"] * 1000, lang) if point_ok(p) else status_text(p, lang)])
    extra = md_table([t("col.variant", lang), t("col.shapes_sparsity", lang), t("col.first_call", lang)],
                     rows)
    return family_table(results, lang, ("sliding",), SHAPE_COLUMNS["sliding"], "col.shapes_tflops") + "\n\n" + extra


def _where(pts, lang):
    counts = {}
    for p in pts:
        counts[p["family"]] = counts.get(p["family"], 0) + 1
    return "; ".join(f"{keyed('word.shapes_family_', f, lang)} ×{fmt_num(n, lang, 0)}" for f, n in counts.items())


def skip_text(p, config, lang):
    memory = config.get("device_memory_bytes")
    need = p["kv_bytes"] * (1 + p["q_heads"] // p["kv_heads"] if p["variant"] == "repeat_kv" else 1)
    return t("page.shapes_skip_reason", lang, need=fmt_bytes(need, lang),
             share=fmt_pct(100 * config["memory_share"], lang, 0),
             memory=fmt_bytes(memory, lang) if memory else t("value.none", lang))


# what a refusal says, summarised in the page's language: the first pattern that matches
# SDPA's line (shape_points.refusal_line) names the catalog's sentence; the raw line is
# shown under the table, collapsed
REFUSAL_SUMMARIES = (
    ("oom", re.compile(r"out of memory", re.IGNORECASE)),
    ("same_heads", re.compile(r"same num_heads")),
    ("head_dim", re.compile(r"head_?dim|last dimension", re.IGNORECASE)),
    ("causal", re.compile(r"is_causal|causal", re.IGNORECASE)),
    ("mask", re.compile(r"mask", re.IGNORECASE)),
    ("dtype", re.compile(r"dtype", re.IGNORECASE)),
)
_ALLOCATE = re.compile(r"Tried to allocate (\d+(?:\.\d+)? [KMGT]iB)")


def refusal_summary(line, lang):
    """One line of SDPA's, said in the page's language (the catalog's refusal.<kind>)."""
    kind = next((k for k, pattern in REFUSAL_SUMMARIES if pattern.search(line)), "other")
    size = _ALLOCATE.search(line)
    amount = size and unit(fmt_num(float(size.group(1).split()[0]), lang, 1), size.group(1).split()[1], lang)
    return keyed("refusal.", kind, lang, size=amount or "?")


def refusals(results, lang):
    """Each distinct reason a variant did not run, summarised in the page's language, with
    where it happened; SDPA's own lines (English, as PyTorch wrote them) in a collapsed block."""
    shapes = results.get("shapes")
    if not shapes:
        return t("finding.missing", lang)
    seen, raw = {}, {}
    for p in shapes["points"]:
        if p["status"] == "ok":
            continue
        if p["status"] == "skipped":
            why = skip_text(p, shapes["config"], lang)
        else:
            line = refusal_line(p.get("reason"))
            why = refusal_summary(line, lang)
            raw.setdefault(line, []).append(p)
        variant = None if p["status"] == "skipped" else p["variant"]  # a skip is the same for all
        seen.setdefault((variant, p["status"], why), []).append(p)
    if not seen:
        return t("page.shapes_no_refusals", lang)
    rows = [[", ".join(label(n, lang) for n in dict.fromkeys(p["variant"] for p in pts)),
             status_text(pts[0], lang), why, _where([p for p in pts if p["variant"] == pts[0]["variant"]], lang)]
            for (_, _, why), pts in seen.items()]
    table = md_table([t("col.variant", lang), t("col.shapes_status", lang), t("col.shapes_reason", lang),
                      t("col.shapes_where", lang)], rows, ["l", "l", "l", "l"])
    if not raw:
        return table
    lines = []
    for line, pts in raw.items():
        who = ", ".join(label(n, lang).replace("`", "") for n in dict.fromkeys(p["variant"] for p in pts))
        lines += [f"{who} ({_where(pts, lang)}):", line.replace("~", "-"), ""]
    block = "\n".join("    " + x if x else "" for x in ["~~~text", *lines[:-1], "~~~"])
    return table + f'\n\n??? note "{t("page.shapes_raw_refusals", lang)}"\n' + block


def method(results, lang):
    shapes = results.get("shapes")
    if not shapes:
        return t("finding.missing", lang)
    c, roof = shapes["config"], shapes["copy_roof"]
    memory = c.get("device_memory_bytes")
    lines = [t("page.shapes_roof", lang, size=fmt_bytes(roof["bytes"], lang), gbs=fmt_gbs(roof["gb_per_s"], lang),
               lo=fmt_gbs(2 * roof["bytes"] / roof["max_ms"] / 1e6, lang),
               hi=fmt_gbs(2 * roof["bytes"] / roof["min_ms"] / 1e6, lang)),
             t("page.shapes_config", lang, heads=c["heads"], head_dim=c["head_dim"], dtype=c["dtype"],
               steps=c["steps"], timer=unit(fmt_num(c["timer_seconds"], lang, 2), "s", lang),
               host_calls=c["host_calls"],
               rows=c["reference_rows"])]
    lines[0] += " " + beside_copy(results, lang)
    mm = results.get("roof")
    if mm:
        matmul = t("page.shapes_matmul_roof", lang, dtype=mm["dtype"], n=mm["shape"][0],
                   tflops=unit(fmt_sig(mm["tflops"], lang), "TFLOP/s", lang))
        lines.insert(1, " ".join(x for x in (matmul, beside_matmul(results, lang)) if x))
    if memory:
        lines.append(t("page.shapes_cap", lang, share=fmt_pct(100 * c["memory_share"], lang, 0),
                       memory=fmt_bytes(memory, lang), limit=fmt_bytes(c["memory_share"] * memory, lang)))
    return "\n\n".join(lines)


def _pair_cell(call, lang):
    """One way of calling at one point: the fastest pinned backend and the paired verdict."""
    if call is None:
        return t("value.none", lang)
    v = call.verdict
    if v.order == "<":
        verdict = t("value.pair_lost", lang, ratio=fmt_ratio_sig(v.ratio, lang))
    elif v.order == ">":
        verdict = t("value.pair_won", lang, ratio=fmt_ratio_sig(v.ratio, lang))
    elif v.same:
        verdict = t("value.pair_same", lang, pct=fmt_pct(v.within, lang, 0))
    else:
        verdict = t("value.pair_undecided_runs" if v.runs > 1 else "value.pair_undecided", lang)
    if len(call.contenders) > 1:  # the rule does not tell the fastest apart from these
        names = t("value.or", lang).join(label(n, lang) for n in call.contenders)
        return f"{t('value.not_told_apart', lang, names=names)}; {label(call.best, lang)}: {verdict}"
    return f"{label(call.best, lang)}: {verdict}"


def decode_pairs_table(results, lang):
    """Unpinned SDPA against the fastest pinned backend at each decode point of batch 1, in
    wall time per call timed in pairs, eager and replayed from a CUDA graph (the "not
    measured in pairs" line for a run without them)."""
    if not results.get("shapes"):  # a run without --shapes: like every table of the page
        return t("finding.missing", lang)
    pts = decode_pairs(results)
    if not pts:
        return t("page.decode_pairs_missing", lang)
    rows = [[str(p.q_len), fmt_num(p.kv_len, lang, 0), _pair_cell(p.eager, lang), _pair_cell(p.graph, lang)]
            for p in pts]
    headers = [t("col.shapes_q_len", lang), t("col.shapes_kv_len", lang), t("col.pairs_eager", lang),
               t("col.pairs_graph", lang)]
    return md_table(headers, rows, ["r", "r", "l", "l"]) + "\n\n" + t("page.decode_pairs_note", lang)


def render_tables(results, ref, lang):
    """name -> (Markdown body, the function that wrote it) of every --shapes table (the
    "not measured" line where empty)."""
    out = call_writers({
        "shapes-decode-time": (decode_pivots, results, lang, "time"),
        "shapes-decode-bandwidth": (decode_pivots, results, lang, "bandwidth"),
        "shapes-decode-pairs": (decode_pairs_table, results, lang),
        "shapes-decode-details": (family_table, results, lang, ("decode",), SHAPE_COLUMNS["decode"], "col.shapes_gbs"),
        "shapes-prefill": (family_table, results, lang, ("prefill",), SHAPE_COLUMNS["prefill"], "col.shapes_tflops"),
        "shapes-gqa": (family_table, results, lang, ("gqa_decode", "gqa_prefill"), SHAPE_COLUMNS["gqa"],
                       "col.shapes_rate", t("page.shapes_gqa_rate", lang)),
        "shapes-sliding": (sliding_table, results, lang),
        "shapes-refusals": (refusals, results, lang),
        "shapes-method": (method, results, lang),
    })
    assert set(out) == set(TABLE_FILES)
    return out
