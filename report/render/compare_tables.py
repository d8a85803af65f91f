"""The tables of "Every GPU side by side" (compare.py): the runs, one variant per row with
one column per GPU, and the sweep's fastest variant per point."""
from __future__ import annotations

from ..rows import gpu_work
from ..text.catalog import t
from ..text.format import fmt_num, fmt_us
from ..verdict import by_points
from .compare_columns import shape_text, timed, variant_names
from .markdown import code_safe, label, markdown_safe, md_table, status_text


def shape_note(cols, lang):
    """(a first row naming each column's shape, or None; the note under the table)."""
    shapes = {c.shape for c in cols}
    if len(shapes) == 1:
        return None, shape_text(cols[0].shape, lang, "compare.same_shape")
    return ([t("compare.shape_row", lang)] + [shape_text(c.shape, lang) for c in cols],
            t("compare.shapes_differ", lang))


def variant_table(cols, lang, cell):
    first, note = shape_note(cols, lang)
    rows = [first] if first else []
    rows += [[label(n, lang)] + [cell(c, n, lang) for c in cols] for n in variant_names(cols)]
    return md_table([t("col.variant", lang)] + [c.label for c in cols], rows), note


def runs_table(cols, ref, lang):
    none = t("value.none", lang)
    src = ref["source"]
    items = [
        ("compare.row_folder", lambda c: f"`{code_safe(c.folder)}`" if c.folder
         else f"[{src['publisher']}]({src['url']})"),
        ("compare.row_gpu", lambda c: c.results["provenance"]["gpu_name"] if c.folder
         else markdown_safe(src["gpu_name"])),
        ("compare.shape_row", lambda c: shape_text(c.shape, lang)),
        ("compare.row_driver", lambda c: c.results["provenance"].get("driver") if c.folder else None),
        ("compare.row_cuda", lambda c: c.results["provenance"].get("cuda") if c.folder else None),
        ("compare.row_cudnn", lambda c: c.results["provenance"].get("cudnn") if c.folder else None),
        ("compare.row_torch", lambda c: c.results["provenance"].get("torch") if c.folder else None),
        ("compare.row_date", lambda c: c.results["provenance"].get("date") if c.folder
         else markdown_safe(src["published"])),
        ("compare.row_command", lambda c: f"`{c.results['provenance']['command']}`" if c.folder else None),
        ("compare.row_statistic", lambda c: statistic(c, lang)),
    ]
    rows = [[t(key, lang)] + [str(v) if (v := get(c)) is not None else none for c in cols]
            for key, get in items]
    return md_table([t("compare.column", lang)] + [c.label for c in cols], rows, ["l"] * (len(cols) + 1))


def statistic(col, lang):
    """Which figure of the steps a column shows: our median, or Hugging Face's mean."""
    if col.folder is None:
        return t("stat.mean_active", lang, steps=fmt_num(col.results["config"]["active_steps"], lang, 0))
    steps = col.results["config"].get("steps")
    return t("stat.median_steps", lang, steps=fmt_num(steps, lang, 0)) if steps else None


def _sweep_key(sweep):
    return sweep.get("batch"), sweep.get("heads"), sweep.get("dtype")


def sweep_tables(cols, lang):
    """Per head dimension: the fastest variant at each sequence length, one column per GPU."""
    swept = [c for c in cols if c.folder and c.results.get("sweep")]
    if not swept:
        return t("compare.no_sweep", lang)
    parts = []
    for d in sorted({d for c in swept for d in c.results["sweep"]["head_dims"]}):
        have = [c for c in swept if d in c.results["sweep"]["head_dims"]]
        seqs = sorted({s for c in have for s in c.results["sweep"]["seq_lens"]})
        rows, shapes_differ = [], len({_sweep_key(c.results["sweep"]) for c in have}) > 1
        if shapes_differ:
            rows.append([t("compare.sweep_shape_row", lang)] + [
                t("compare.sweep_shape", lang).format(batch=b, heads=h, dtype=dt)
                for b, h, dt in (_sweep_key(c.results["sweep"]) for c in have)])
        for s in seqs:
            rows.append([fmt_num(s, lang, 0)] + [_fastest_cell(c, d, s, lang) for c in have])
        parts += [t("compare.head_dim", lang).format(head_dim=d), "",
                  md_table([t("figure.seq", lang)] + [c.label for c in have], rows), ""]
        parts += [t("compare.shapes_differ", lang), ""] if shapes_differ else []
    missing = [c.label for c in cols if c.folder and c not in swept]
    if missing:
        parts += [t("compare.sweep_missing", lang).format(gpus=", ".join(missing)), ""]
    return "\n".join(parts + [t("compare.sweep_note", lang)])


def fastest_points(points):
    """The variants of one sweep point (auto left out: it runs one of the others) with the
    least kernel time: the lowest, then those the rule for points (report/verdict:
    by_points) finds the same as it, in order of their times."""
    timed_points = {p["variant"]: p for p in points if p["status"] == "ok" and timed(gpu_work(p))}
    if not timed_points:
        return []
    ranked = sorted(timed_points, key=lambda n: gpu_work(timed_points[n])["median"])
    best = timed_points[ranked[0]]
    return [n for n in ranked if by_points(best, timed_points[n]).order is None]


def _fastest_cell(col, head_dim, seq_len, lang):
    """The fastest time at a point and every variant the same as it in kernel time."""
    points = [p for p in col.results["sweep"]["points"]
              if p["head_dim"] == head_dim and p["seq_len"] == seq_len and p["variant"] != "auto"]
    ahead = fastest_points(points)
    if not ahead:
        if not points:
            return t("value.none", lang)
        return status_text(next((p for p in points if p["status"] == "oom"), points[0]), lang)
    best = next(p for p in points if p["variant"] == ahead[0])
    return f"{fmt_us(gpu_work(best)['median'], lang)} · {', '.join(label(n, lang) for n in ahead)}"
