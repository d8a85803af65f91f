"""Markdown tables and the cell texts every table shares."""
from __future__ import annotations

import html
import math

from ..schema import HostStats, Results, VariantRow
from ..text.catalog import t
from ..text.format import fmt_num, fmt_pct, fmt_us
from ..trace.stats import median
from .keyed import keyed

MARKDOWN_ACTIVE = str.maketrans({c: "\\" + c for c in "\\`*_[]#"})


def markdown_safe(text):
    """Text from results.json as plain text on a page: no HTML, no Markdown markup."""
    return html.escape(str(text), quote=False).translate(MARKDOWN_ACTIVE)


def code_safe(text):
    """Text shown inside a `code span`: only a backtick could end it early."""
    return str(text).replace("`", "'")


def safe_provenance(results):
    """results with its provenance's strings made safe for Markdown (code for the command)."""
    prov = {k: (code_safe(v) if k == "command" else markdown_safe(v)) if isinstance(v, str) else v
            for k, v in results["provenance"].items()}
    return {**results, "provenance": prov}


def md_table(headers, rows, align=None):
    align = align or ["l"] + ["r"] * (len(headers) - 1)
    sep = ["---:" if a == "r" else ":---" for a in align]
    lines = ["| " + " | ".join(headers) + " |", "| " + " | ".join(sep) + " |"]
    lines += ["| " + " | ".join(str(c).replace("|", "\\|") for c in r) + " |" for r in rows]
    return "\n".join(lines)


def caption(results, lang):
    """Which GPU, software and command produced the table."""
    p = results["provenance"]
    key = "page.caption" if "cuda" in p else "page.caption_cpu"
    return t(key, lang).format(gpu=p["gpu_name"], driver=p.get("driver") or "?",
                               cuda=p.get("cuda"), cudnn=p.get("cudnn"), torch=p["torch"],
                               date=p["date"], command=p["command"])


def measured_on(results, lang):
    """The block a page ends with: the GPU, software and command of the run every table and
    figure on it comes from, and the seed's shape for those that name no shape of their own."""
    shape = t("page.shape", lang).format(**results["config"])
    return t("page.measured_on", lang, caption=caption(results, lang), shape=shape)


def label(name, lang):
    """A variant's display name."""
    return keyed("variant.", name, lang)


def host_figures(results: Results) -> dict[str, HostStats]:
    """{variant: its host overhead figure} for every variant that ran and has one, in the
    results' order."""
    return {n: r["host_time_us"] for n, r in results["variants"].items()
            if r["status"] == "ok" and r.get("host_time_us")}


def status_text(row, lang):
    return t({"unsupported": "value.not_supported", "oom": "value.oom",
              "skipped": "value.shapes_skipped"}.get(row["status"], "value.error"), lang)


def not_run_row(name, row, lang, empty_cells, fill=None):
    """A table row for a variant that did not run: its name, its status, then empty cells
    ("–" unless fill says otherwise)."""
    return [label(name, lang), status_text(row, lang)] + [t("value.none", lang) if fill is None else fill] * empty_cells


def limits_text(limited_by, lang):
    """What limits a kernel's occupancy, in words of the language."""
    return ", ".join(keyed("limit.", w.replace(" ", "_"), lang) for w in limited_by)


def kernel_count(row: VariantRow, lang: str) -> str:
    """'7 (1 Memcpy, 1 Memset)': every GPU activity of one forward pass, copies named."""
    total = median(row.get("gpu_activities_per_forward"))
    if total is None:
        return t("value.none", lang)
    extra = {}
    for k in row["kernels"]:
        if k["kind"] != "kernel":
            kind = k["kind"].capitalize()
            extra[kind] = extra.get(kind, 0) + k["per_forward"]
    text = fmt_num(total, lang, 0)
    if extra:
        text += " (" + ", ".join(f"{fmt_num(n, lang, 0)} {kind}" for kind, n in extra.items()) + ")"
    return text


GAP_SHOWN = 5.0  # % of the GPU span: an idle gap this large or larger is not negligible


def idle_gap(row: VariantRow) -> tuple[float, float] | None:
    """(GPU span minus kernel time in µs, its share of the span in %), from the two medians
    of a variant's profiled steps; None where either is missing or not a number."""
    span, ksum = median(row.get("cuda_time_us")), median(row.get("kernel_sum_us"))
    if not all(isinstance(x, (int, float)) and math.isfinite(x) for x in (span, ksum)) or span <= 0:
        return None
    gap = max(span - ksum, 0.0)
    return gap, 100 * gap / span


def has_idle_gap(rows):
    """True when some variant's idle gap is not negligible: the table gets the column."""
    return any((g := idle_gap(r)) and g[1] >= GAP_SHOWN for r in rows if r.get("status") == "ok")


def idle_gap_cell(row, lang):
    """"15.2 µs (21%)", or "under 5%" where the gap is negligible."""
    g = idle_gap(row)
    if g is None:
        return t("value.none", lang)
    if g[1] < GAP_SHOWN:
        return t("value.gap_negligible", lang, pct=fmt_pct(GAP_SHOWN, lang, 0))
    return f"{fmt_us(g[0], lang)} ({fmt_pct(g[1], lang, 0)})"
