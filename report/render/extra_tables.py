"""The --all tables: sweeps, launch overhead, backward."""
from __future__ import annotations

from ..text.catalog import t
from ..text.format import fmt_mib, fmt_num, fmt_pct, fmt_tflops, fmt_us
from ..trace.stats import median
from .markdown import label, md_table, status_text


def point_time(p):
    """A sweep point's time: the sum of its kernel times (the CPU range without a GPU)."""
    return median(p.get("kernel_sum_us")) or median(p["cpu_time_us"])


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
    return md_table([t("col.variant", lang)] + [fmt_num(s, lang, 0) for s in seqs], rows)


def overhead_table(overhead, lang, shape_name):
    none = t("value.none", lang)
    rows_in = overhead["rows"][shape_name]
    best = min((median(r["kernel_sum_us"]) for r in rows_in.values() if r["status"] == "ok"),
               default=None)
    rows = []
    for name, r in rows_in.items():
        if r["status"] != "ok":
            rows.append([label(name, lang), status_text(r, lang)] + [none] * 4)
            continue
        graph = r.get("graph_wall_us")
        rows.append([label(name, lang), fmt_us(median(r["kernel_sum_us"]), lang),
                     fmt_us(median(r["cpu_time_us"]), lang), fmt_us(r["eager_wall_us"]["median"], lang),
                     fmt_us(graph["median"], lang) if graph else t("value.graph_failed", lang),
                     fmt_pct(100 * graph["median"] / best, lang, 0) if graph and best else none])
    cols = ("variant", "kernel_sum", "cpu_time", "eager", "graph", "vs_best")
    return md_table([t(f"col.{c}", lang) for c in cols], rows)


def backward_table(backward, lang):
    none = t("value.none", lang)
    rows = []
    for name, r in backward["rows"].items():
        if r["status"] != "ok":
            rows.append([label(name, lang), status_text(r, lang)] + [none] * 4)
            continue
        acts = r.get("gpu_activities_per_forward")
        rows.append([label(name, lang), fmt_us(median(r["cuda_time_us"]), lang),
                     fmt_us(r["wall_time_us"]["median"], lang),
                     fmt_num(median(acts), lang, 0) if acts else none,
                     fmt_mib(r.get("peak_extra_mib"), lang, 0),
                     fmt_us(r["first_call_ms"] * 1000, lang)])
    cols = ("variant", "train_time", "wall", "train_kernels", "peak_mem", "first_call")
    return md_table([t(f"col.{c}", lang) for c in cols], rows)

