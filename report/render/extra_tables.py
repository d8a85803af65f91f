"""The --all tables: sweeps, launch overhead, backward."""
from __future__ import annotations

from ..rows import cpu_time, gpu_span, gpu_work, kernel_time
from ..schema import ShapePoint, Sweep, SweepPoint
from ..text.catalog import t
from ..text.display import BACKEND_NAMES
from ..text.format import (
    fmt_mib,
    fmt_num,
    fmt_pct,
    fmt_ratio,
    fmt_tflops,
    fmt_us,
    fmt_us_column,
    fmt_us_range,
    fmt_us_sig,
)
from ..variants import FUSED
from ..verdict import by_points, median, round_range
from .markdown import label, md_table, not_run_row, status_text


def point_time(p: SweepPoint | ShapePoint) -> float | None:
    """A point's time: the sum of its kernel times (the CPU range without a GPU)."""
    return median(gpu_work(p))


def _sweep_cell(p, what, lang):
    if p["status"] != "ok":
        return status_text(p, lang)
    if what == "time":
        return fmt_us(point_time(p), lang)
    if what == "memory":
        return fmt_mib(p.get("peak_extra_mib"), lang, 0)
    return fmt_tflops(p["tflops"], lang)


def sweep_table(sweep, lang, head_dim, what):
    seqs = sweep["seq_lens"]
    cell = {(p["variant"], p["seq_len"]): _sweep_cell(p, what, lang)
            for p in sweep["points"] if p["head_dim"] == head_dim}
    names = list(dict.fromkeys(p["variant"] for p in sweep["points"]))
    none = t("value.none", lang)
    rows = [[label(n, lang)] + [cell.get((n, s), none) for s in seqs] for n in names]
    if what == "time":  # one unit per column (sequence length)
        by = {(p["variant"], p["seq_len"]): p for p in sweep["points"] if p["head_dim"] == head_dim}
        for j, s in enumerate(seqs, start=1):
            pts = [by.get((n, s)) for n in names]
            column = fmt_us_column([point_time(p) if p and p["status"] == "ok" else None for p in pts], lang)
            for row, text in zip(rows, column, strict=True):
                if text is not None:
                    row[j] = text
    return md_table([t("col.variant", lang)] + [fmt_num(s, lang, 0) for s in seqs], rows)


def overhead_table(overhead, lang, shape_name):
    none = t("value.none", lang)
    rows_in = overhead["rows"][shape_name]
    best = min((median(kernel_time(r)) for r in rows_in.values() if r["status"] == "ok"),
               default=None)
    rows = []
    for name, r in rows_in.items():
        if r["status"] != "ok":
            rows.append(not_run_row(name, r, lang, 4))
            continue
        graph = r.get("graph_wall_us")
        rows.append([label(name, lang), fmt_us(median(kernel_time(r)), lang),
                     fmt_us(median(cpu_time(r)), lang), fmt_us(r["eager_wall_us"]["median"], lang),
                     fmt_us(graph["median"], lang) if graph else t("value.graph_failed", lang),
                     fmt_pct(100 * graph["median"] / best, lang, 0) if graph and best else none])
    cols = ("col.variant", "col.kernel_sum", "col.cpu_time", "col.eager", "col.graph", "col.vs_best")
    return md_table([t(c, lang) for c in cols], rows)


def backward_table(backward, lang):
    none = t("value.none", lang)
    rows = []
    ran = [r for r in backward["rows"].values() if r["status"] == "ok"]
    # one unit per column
    span, wall, first = (iter(fmt_us_column(values, lang)) for values in (
        [median(gpu_span(r)) for r in ran], [r["wall_time_us"]["median"] for r in ran],
        [r["first_call_ms"] * 1000 for r in ran]))
    for name, r in backward["rows"].items():
        if r["status"] != "ok":
            rows.append(not_run_row(name, r, lang, 4))
            continue
        acts = r.get("gpu_activities_per_forward")
        rows.append([label(name, lang), next(span), next(wall),
                     fmt_num(median(acts), lang, 0) if acts else none,
                     fmt_mib(r.get("peak_extra_mib"), lang, 0), next(first)])
    cols = ("col.variant", "col.train_time", "col.wall", "col.train_kernels", "col.peak_mem", "col.first_call")
    return md_table([t(c, lang) for c in cols], rows)


def fresh_rounds(row):
    """The rounds of a first-calls row that ran (each one a fresh process), or []."""
    return [r for r in row.get("rounds") or [] if isinstance(r, dict) and r.get("status") == "ok"]


def us_range(rounds, key):
    """The range over the rounds of a figure stored in ms, in µs for fmt_us_range; None
    where no round has it."""
    return round_range([r[key] * 1000 if isinstance(r.get(key), (int, float)) else None for r in rounds])


def fresh_first_calls_table(first_calls, lang):
    """Where the first calls were measured in fresh processes, one per round: each figure
    as its range over the processes, the first process apart from the later ones."""
    rows = []
    for name, r in first_calls["rows"].items():
        rounds = fresh_rounds(r)
        if not rounds:
            rows.append(not_run_row(name, r, lang, len(FRESH_COLUMNS) - 1))
            continue
        later = rounds[1:]
        cells = [fmt_us_sig(rounds[0]["first_call_ms"] * 1000, lang),
                 fmt_us_range(us_range(later, "first_call_ms"), lang) if later else t("value.none", lang)]
        cells += [fmt_us_range(us_range(rounds, key), lang) for key in FRESH_COLUMNS[2:]]
        rows.append([label(name, lang), *cells])
    headers = [t("col.variant", lang), t("col.first_process", lang), t("col.later_processes", lang),
               t("col.same_shape_again", lang), t("col.first_new_shape", lang), t("col.new_shape_again", lang),
               t("col.new_thread_first", lang)]
    seq = fmt_num(first_calls["new_shape"]["seq_len"], lang, 0)
    return md_table(headers, rows) + "\n\n" + t("page.fresh_first_calls_note", lang, seq_len=seq)


# the figures of a fresh process, in the order of fresh_first_calls_table's columns after the variant
FRESH_COLUMNS = ("first_call_ms", "first_call_ms", "same_shape_again_ms", "first_new_shape_ms",
                 "new_shape_again_ms", "new_thread_first_ms")


def first_calls_table(first_calls, lang):
    if any(r.get("rounds") for r in first_calls["rows"].values()):
        return fresh_first_calls_table(first_calls, lang)
    none = t("value.none", lang)
    rows = []
    for name, r in first_calls["rows"].items():
        if r["status"] != "ok":
            rows.append(not_run_row(name, r, lang, 3))
            continue
        rows.append([label(name, lang)] + [fmt_us(r[k] * 1000, lang) if r.get(k) is not None else none
                                           for k in FIRST_CALL_COLUMNS])
    table = md_table([t("col.variant", lang)] + [t(key, lang) for key in FIRST_CALL_COLUMNS.values()], rows)
    seq = fmt_num(first_calls["new_shape"]["seq_len"], lang, 0)
    return table + "\n\n" + t("page.first_calls_note", lang, seq_len=seq)


# a first-calls row's figures and their columns' headers
FIRST_CALL_COLUMNS = {"first_in_process_ms": "col.first_in_process", "same_shape_again_ms": "col.same_shape_again",
                      "first_new_shape_ms": "col.first_new_shape", "new_shape_again_ms": "col.new_shape_again"}


def auto_vs_best(sweep: Sweep, d: int) -> list[tuple[int, SweepPoint, SweepPoint, bool]]:
    """Per sequence length: (seq, auto point, fastest pinned fused point, auto slower).

    Auto counts as slower only when it ran another backend than the fastest pinned one and
    the rule for points finds the pinned one faster in kernel time (report/verdict: by_points)."""
    out = []
    for s in sweep["seq_lens"]:
        pts = {p["variant"]: p for p in sweep["points"] if p["head_dim"] == d and p["seq_len"] == s
               and p["status"] == "ok" and kernel_time(p)}
        auto = pts.get("auto")
        pinned = [p for n, p in pts.items() if n in FUSED]
        if not (auto and pinned):
            continue
        best = min(pinned, key=point_time)
        # the same backend pinned and unpinned runs the same kernels: any gap is noise
        slower = auto.get("backend_ran") != best["variant"] and by_points(best, auto).order == "<"
        out.append((s, auto, best, slower))
    return out


def auto_vs_best_table(sweep, lang, d):
    none = t("value.none", lang)
    rows = []
    for s, auto, best, _slower in auto_vs_best(sweep, d):
        ratio = fmt_ratio(point_time(auto) / point_time(best), lang)
        if auto.get("backend_ran") == best["variant"]:
            ratio = f"{ratio}, {t('value.same_backend', lang)}"
        elif (v := by_points(best, auto)).order is None:
            key = "value.same_within" if v.same else "value.undecided_within"
            ratio = f"{ratio}, {t(key, lang, pct=fmt_pct(100 * v.noise, lang, 0))}"
        rows.append([fmt_num(s, lang, 0), BACKEND_NAMES.get(auto.get("backend_ran"), none),
                     fmt_us(point_time(auto), lang),
                     f"{BACKEND_NAMES[best['variant']]} ({fmt_us(point_time(best), lang)})", ratio])
    cols = ("col.auto_ran", "col.auto_time", "col.best_pinned", "col.auto_vs_best")
    return md_table([t("figure.seq", lang)] + [t(c, lang) for c in cols], rows)
