"""Where the kernel time of one forward pass goes, per cause (report/trace/causes.py)."""
from __future__ import annotations

from ..text.catalog import t
from ..text.format import fmt_num, fmt_us
from ..trace.causes import CAUSES
from ..variants import MATH_SWITCHES
from .keyed import keyed
from .markdown import label, md_table

NAMES = ("naive", "naive_inplace", "math", *MATH_SWITCHES)


def _cell(entry, lang):
    if not entry:
        return t("value.none", lang)
    return f"{fmt_us(entry['us_per_forward'], lang)} ({fmt_num(entry['activities_per_forward'], lang, 0)})"


def measured(results):
    """The variants of NAMES that ran and carry an attribution, in NAMES order."""
    v = results["variants"]
    return [n for n in NAMES if v.get(n, {}).get("status") == "ok" and v[n].get("attribution")]


def attribution_table(results, lang):
    names = measured(results)
    if not names:
        return t("finding.missing", lang)
    v = results["variants"]
    causes = [c for c in CAUSES if any(c in v[n]["attribution"] for n in names)]
    rows = [[keyed("cause.", c, lang)] + [_cell(v[n]["attribution"].get(c), lang) for n in names] for c in causes]
    totals = [sum(e["us_per_forward"] for e in v[n]["attribution"].values()) for n in names]
    rows.append([t("col.total_kernel_time", lang)] + [f"**{fmt_us(x, lang)}**" for x in totals])
    steps = v[names[0]].get("steps")
    note = t("page.attribution_note", lang, steps=steps)
    return md_table([t("col.cause", lang)] + [label(n, lang) for n in names], rows) + "\n\n" + note
