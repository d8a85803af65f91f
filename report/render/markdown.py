"""Markdown tables and the cell texts every table shares."""
from __future__ import annotations

import html
import math
import re

from ..rows import gpu_span, kernel_time
from ..schema import HostStats, Results, VariantRow
from ..text.catalog import t
from ..text.format import fmt_num, fmt_pct, fmt_us
from ..verdict import median
from .keyed import keyed

# Every string of a results.json is data, never markup: it may come from a stranger's GPU
# folder. Within a line, text is escaped (markdown_safe) or shown as code (code_safe); no
# string may start a line (one_line), where Markdown's block syntax and pymdownx.snippets'
# include lines live; a multi-line one is a fenced block it cannot close (fenced).
MARKDOWN_ACTIVE = str.maketrans({c: "\\" + c for c in "\\`*_[]#{}"})
LINE_BREAKS = re.compile(r"[\x00-\x1f\x7f\x85\u2028\u2029]")
SNIPPET_MARKER = re.compile(r"(?<![;-])(-+8<-+)")  # pymdownx.snippets' marker; a `;` before it escapes it
MULTI_LINE = ("profiler_table",)  # the one field of results.json shown as lines, in a fence


def one_line(text):
    """The text with every line break and control character as a space."""
    return LINE_BREAKS.sub(" ", str(text))


def markdown_safe(text):
    """Text from results.json as plain text on a page: no HTML, no Markdown markup, no
    attribute list, one line."""
    return html.escape(one_line(text), quote=False).translate(MARKDOWN_ACTIVE)


def code_safe(text):
    """Text shown inside a `code span`: one line, no backtick that could end it early, and
    snippets' marker escaped (pymdownx.snippets drops the `;` again)."""
    return SNIPPET_MARKER.sub(r";\1", one_line(text).replace("`", "'"))


def html_block_safe(text):
    """Markdown that goes inside an HTML block (<details markdown>): the HTML parser reads it
    before Markdown does, so a `<` in a code span (a string from a results file: "<!--",
    "<script>") would open a comment or an element there and swallow the rest of the page;
    in code spans it is written as an entity (shown as such: no real name or setting has one)."""
    return re.sub(r"`[^`\n]*`", lambda m: m.group(0).replace("<", "&lt;"), text)


def fenced(text, info="text"):
    """A fenced block of `text` that no line of it can close: the fence is longer than any
    run of backticks inside, and snippets' markers are escaped."""
    body = SNIPPET_MARKER.sub(r";\1", str(text).replace("\r", ""))
    longest = max((len(run) for run in re.findall(r"`+", body)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}{info}\n{body.rstrip()}\n{fence}"


def strings_safe(value, key=None):
    """results.json with every string, keys too, at any depth, fit for a code span
    (code_safe: one line, no backtick, no snippets marker); MULTI_LINE ones are left for
    fenced. The same strings for every real run: they hold none of those."""
    if isinstance(value, dict):
        return {code_safe(k) if isinstance(k, str) else k: strings_safe(v, k) for k, v in value.items()}
    if isinstance(value, list):
        return [strings_safe(v, key) for v in value]
    if isinstance(value, str) and key not in MULTI_LINE:
        return code_safe(value)
    return value


def safe_provenance(results):
    """results with every string fit for a code span (strings_safe) and its provenance's
    strings made safe for Markdown text (code for the command)."""
    results = strings_safe(results)
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
    span, ksum = median(gpu_span(row)), median(kernel_time(row))
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
