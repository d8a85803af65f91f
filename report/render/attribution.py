"""Where the kernel time of one forward pass goes, per cause (report/trace/causes.py)."""
from __future__ import annotations

from ..rows import with_kernel_time
from ..text.catalog import t
from ..text.format import fmt_num, fmt_pct, fmt_ratio_sig, fmt_us, fmt_us_sig
from ..trace.causes import CAUSES
from ..variants import MATH_SWITCHES
from ..verdict import MIN_EFFECT, by_points
from .conversions import PARTS, conversion_split
from .keyed import keyed
from .markdown import label, md_table

NAMES = ("naive", "naive_inplace", "math", *MATH_SWITCHES)
SHORT_DTYPES = {"bfloat16": "bf16", "float16": "fp16"}


def _cell(entry, lang):
    if not entry:
        return t("value.none", lang)
    return f"{fmt_us(entry['us_per_forward'], lang)} ({fmt_num(entry['activities_per_forward'], lang, 0)})"


def measured(results):
    """The variants of NAMES that ran and carry an attribution, in NAMES order."""
    v = results["variants"]
    return [n for n in NAMES if v.get(n, {}).get("status") == "ok" and v[n].get("attribution")]


def splits(results, traces_dir):
    """{variant: its dtype conversions split by what they convert (conversions.py)} for the
    variants of NAMES whose committed trace tells them apart; {} without traces."""
    v = results["variants"]
    found = {n: conversion_split(n, v[n], traces_dir, results["config"]) for n in measured(results)}
    return {n: s for n, s in found.items() if s}


def _shown_split(results, names, split):
    """The parts the conversion row is split into: only where every variant with
    conversions has the same parts in its split, else () (the one row stays)."""
    v = results["variants"]
    conv = [n for n in names if "dtype_conversion" in v[n]["attribution"]]
    parts = {tuple(split[n]) if n in split else None for n in conv}
    return next(iter(parts)) if conv and len(parts) == 1 and None not in parts else ()


def _split_note(results, split, lang):
    """How the row was split, and what it shows for math: the weights against the three
    upcasts together in kernel time, by the rule for figures of one run's steps
    (report/verdict: by_points)."""
    s_over_d = fmt_num(results["config"]["seq_len"] / results["config"]["head_dim"], lang, 0)
    lines = [t("page.attribution_split", lang, ratio=s_over_d)]
    m = split.get("math")
    if m and {"weights", "output", "inputs"} <= set(m):
        w, o, i = m["weights"], m["output"], m["inputs"]
        total = sum(p["us_per_forward"] for p in m.values())
        v = by_points(with_kernel_time(i["us"]), with_kernel_time(w["us"]))  # "<": the weights take longer
        key = {"<": "page.attribution_weights_larger", ">": "page.attribution_weights_smaller"}.get(
            v.order, "page.attribution_weights_same" if v.same else "page.attribution_weights_undecided")
        verdict = t(key, lang, ratio=fmt_ratio_sig(v.b / v.a if v.order != ">" else v.a / v.b, lang),
                    pct=fmt_pct(100 * v.noise, lang, 0), minimum=fmt_pct(100 * MIN_EFFECT, lang, 0))
        lines.append(t("page.attribution_weights", lang, weights=fmt_us_sig(w["us_per_forward"], lang),
                       share=fmt_pct(100 * w["us_per_forward"] / total, lang, 0), total=fmt_us_sig(total, lang),
                       output=fmt_us_sig(o["us_per_forward"], lang), inputs=fmt_us_sig(i["us_per_forward"], lang),
                       n=fmt_num(i["activities_per_forward"], lang, 0),
                       time_ratio=fmt_ratio_sig(w["us_per_forward"] / o["us_per_forward"], lang),
                       size_ratio=s_over_d,
                       verdict=verdict))
    return " ".join(lines)


def attribution_table(results, lang, split=None):
    """Kernel time per cause and variant; with split (splits()), the conversion row in
    one row per thing converted."""
    names = measured(results)
    if not names:
        return t("finding.missing", lang)
    v = results["variants"]
    split = split or {}
    parts = _shown_split(results, names, split)
    dtype = SHORT_DTYPES.get(results["config"]["dtype"], results["config"]["dtype"])
    causes = [c for c in CAUSES if any(c in v[n]["attribution"] for n in names)]
    rows = []
    for c in causes:
        if c == "dtype_conversion" and parts:
            rows += [[keyed("conversion.", p, lang, dtype=dtype)]
                     + [_cell((split.get(n) or {}).get(p), lang) for n in names] for p in PARTS if p in parts]
        else:
            rows.append([keyed("cause.", c, lang)] + [_cell(v[n]["attribution"].get(c), lang) for n in names])
    totals = [sum(e["us_per_forward"] for e in v[n]["attribution"].values()) for n in names]
    rows.append([t("col.total_kernel_time", lang)] + [f"**{fmt_us(x, lang)}**" for x in totals])
    steps = v[names[0]].get("steps")
    note = t("page.attribution_note", lang, steps=steps)
    if parts:
        note += "\n\n" + _split_note(results, split, lang)
    return md_table([t("col.cause", lang)] + [label(n, lang) for n in names], rows) + "\n\n" + note
