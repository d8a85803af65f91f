"""Reproduce's tables of reruns: every comparison the findings decide, over the committed
run and the reruns committed beside it (data/reruns/<gpu>/<run>/) by the same measuring
code. A comparison by the paired rule (findings/common.py: Paired) is decided across the
runs, the run as the unit (report/verdict: pooled, by_runs), as the pages state it: the
table gives each run's ratio and whether the words hold with any one run left out. A
comparison of two shape points' kernel times (shape_common.Compare) is decided within a
run: the table gives each run's own words. benchmarks/verdicts.py checks every sentence
of the pages the same way."""
from __future__ import annotations

import dataclasses

from ..text.catalog import t
from ..text.format import fmt_num, fmt_pct, fmt_ratio_sig, fmt_us_sig
from ..verdict import PACE_FACTOR, Verdict, decided, pooled, pooling, process_paces, without_each_run
from .findings import FINDINGS
from .findings.common import Paired, paired
from .findings.shape_common import Compare
from .markdown import code_safe, md_table


def _walk(value, path):
    """(path, Paired or Compare) for every such verdict inside a finding's fact; a paired
    Verdict a finding keeps as it is (by_group: the small shape's, decode's and training's
    pairs, all in wall time per call) as its Paired."""
    if isinstance(value, (Paired, Compare)):
        yield path, value
    elif isinstance(value, Verdict):
        if value.rule == "pairs" and (p := paired(value, "wall")) is not None:
            yield path, p
    elif dataclasses.is_dataclass(value) and not isinstance(value, type):
        for f in dataclasses.fields(value):
            yield from _walk(getattr(value, f.name), f"{path}.{f.name}")
    elif isinstance(value, tuple):
        for i, item in enumerate(value):
            yield from _walk(item, f"{path}[{i}]")


def compared(results, ref) -> dict[str, Paired | Compare]:
    """{where: verdict} of every comparison the findings state for one run."""
    out = {}
    for name, fn in FINDINGS.items():
        out.update(_walk(fn(results, ref), name))
    return out


def word(v, lang) -> str:
    """The verdict as a table cell: the ratio, and "faster", "the same within ±y" or "undecided"."""
    if isinstance(v, Compare):
        if not v.even:
            return t("reruns.apart", lang, ratio=fmt_ratio_sig(v.ratio, lang))
        return (t("reruns.same", lang, ratio=fmt_ratio_sig(v.ratio, lang), pct=fmt_pct(v.spread, lang, 0)) if v.same
                else t("reruns.undecided", lang, ratio=fmt_ratio_sig(v.ratio, lang)))
    if v.order is None:
        return (t("reruns.same", lang, ratio=fmt_ratio_sig(v.ratio, lang), pct=fmt_pct(v.within, lang, 0)) if v.same
                else t("reruns.undecided", lang, ratio=fmt_ratio_sig(v.ratio, lang)))
    if v.metric == "host_share":  # a share is larger or smaller, not faster: ">" where the first's is larger
        return t("reruns.first_larger" if v.order == ">" else "reruns.second_larger", lang,
                 ratio=fmt_ratio_sig(v.ratio, lang))
    return t("reruns.first" if v.order == "<" else "reruns.second", lang, ratio=fmt_ratio_sig(v.ratio, lang))


def with_interval(v, lang) -> str:
    """word(), and for a paired verdict its interval (across the runs where they are pooled,
    else across the run's processes), oriented as its ratio."""
    if isinstance(v, Compare):
        return word(v, lang)
    return t("reruns.with_interval", lang, verdict=word(v, lang), lo=fmt_ratio_sig(v.interval[0], lang),
             hi=fmt_ratio_sig(v.interval[1], lang))


def _key(v) -> str | None:
    """What the words say, numbers aside."""
    if isinstance(v, Compare):
        return ("same" if v.same else "undecided") if v.even else "apart"
    return v.order or ("same" if v.same else "undecided")


def steady(verdicts) -> bool:
    """True when every run has the comparison and its words (numbers aside) are the same."""
    return all(v is not None for v in verdicts) and len({_key(v) for v in verdicts}) == 1


def _metric(v, lang) -> str:
    metric = "kernel" if isinstance(v, Compare) else v.metric
    return {"kernel": t("reruns.kernel", lang), "host": t("reruns.host", lang),
            "host_share": t("reruns.host_share", lang)}.get(metric, t("reruns.wall", lang))


def pace_table(runs, lang) -> str:
    """Under the tables: each run's host pace in each of its processes (process_paces), a
    row per run by name; "" where no run has it."""
    rows = [[name, " · ".join(fmt_us_sig(p, lang) for p in paces)] for name, r in runs if (paces := process_paces(r))]
    return t("reruns.pace", lang) + "\n\n" + md_table([t("reruns.run", lang), t("reruns.pace_col", lang)], rows,
                                                         ["l", "r"]) if rows else ""


def holds_without_each_run(v) -> bool | None:
    """For a paired verdict across runs (its run_ratios): True where, with any one run left
    out, the other runs' ratios come to the same words as all of them (verdict:
    without_each_run); None for fewer than 3 runs."""
    ratios = tuple(r for r in v.run_ratios if r is not None)
    if len(ratios) < 3:
        return None
    minimum, confidence = v.within / 100, v.confidence / 100
    return len(set(without_each_run(ratios, minimum, confidence) + [decided(ratios, minimum, confidence)])) == 1


def _factor(lang) -> str:
    return fmt_num(PACE_FACTOR, lang, 0 if PACE_FACTOR == int(PACE_FACTOR) else 1)


def left_out_line(left, lang) -> str:
    """Why one rerun is not pooled (verdict.LeftOut), as a sentence of Reproduce."""
    name = code_safe(left.name)
    if left.reason == "versions":
        versions = ", ".join(t("reruns.version_pair", lang, field=field, theirs=code_safe(str(theirs)),
                               ours=code_safe(str(ours))) for field, ours, theirs in left.versions)
        return t("reruns.left_versions", lang, name=name, versions=versions)
    if left.reason == "pace":
        return t("reruns.left_pace", lang, name=name, pace=fmt_us_sig(left.pace, lang),
                 others=fmt_us_sig(left.others, lang), factor=_factor(lang))
    return t("reruns.left_code", lang, name=name)


def rule_lines(chosen, lang) -> str:
    """The rule that chose the reruns pooled, the units, and each rerun left out and why."""
    if chosen.hosts_recorded == 0:
        hosts = t("reruns.hosts_none", lang)
    else:
        hosts = t("reruns.hosts_some", lang, recorded=chosen.hosts_recorded, runs=chosen.runs,
                  units=len(chosen.units))
    return " ".join([t("reruns.rule", lang, factor=_factor(lang)), hosts,
                     *(left_out_line(left, lang) for left in chosen.left_out)])


def reruns_table(results, ref, reruns, lang) -> str:
    """The tables, or the line saying that no rerun is committed for this GPU; the rule that
    pools the reruns (verdict.pooling), and each rerun it left out with the reason.

    The first table: each comparison the findings decide by the paired rule, decided across
    the runs (the run as the unit, runs of one host as one: pooled, by_runs), each unit's
    ratio beside it, and whether it keeps its words with any one unit left out. The second:
    the comparisons of two shape points' kernel times (one process a point, decided within
    each run by by_points), with whether every run says the same words on its own."""
    if not reruns:
        return t("reruns.none", lang)
    chosen = pooling(results, reruns)
    rule = rule_lines(chosen, lang)
    kept = {k.name for k in chosen.kept}
    reruns = [(name, r) for name, r in reruns if name in kept]
    if not reruns:
        return rule
    names = [t("reruns.this_run", lang)] + [name for name, _ in reruns]
    units = chosen.unit_names(names[0])
    across = compared(pooled(results, reruns), ref)
    each = [compared(results, ref)] + [compared(r, ref) for _, r in reruns]
    rows, points, held, steady_points = [], [], 0, 0
    for where, v in across.items():
        label = f"`{where}` ({_metric(v, lang)})"
        if isinstance(v, Compare):
            verdicts = [found.get(where) for found in each]
            steady_points += steady(verdicts)
            points.append([label, word(v, lang), " · ".join(fmt_ratio_sig(u.ratio, lang) if u is not None
                                                           else t("value.none", lang) for u in verdicts),
                           t("reruns.yes" if steady(verdicts) else "reruns.no", lang)])
            continue
        holds = holds_without_each_run(v)
        held += bool(holds)
        rows.append([label, with_interval(v, lang), " · ".join(t("value.none", lang) if r is None
                                                               else fmt_ratio_sig(r, lang) for r in v.run_ratios),
                     t("value.none", lang) if holds is None else t("reruns.yes" if holds else "reruns.no", lang)])
    out = [md_table([t("reruns.where", lang), t("reruns.across", lang, n=len(units)),
                     t("reruns.each", lang, runs=", ".join(units)), t("reruns.held", lang)], rows,
                    ["l", "r", "r", "l"]),
           t("reruns.note", lang, held=held, n=len(rows), runs=len(units))]
    if points:
        out += [md_table([t("reruns.where", lang), t("reruns.this_run_words", lang),
                          t("reruns.each", lang, runs=", ".join(names)), t("reruns.steady", lang)], points,
                         ["l", "r", "r", "l"]),
                t("reruns.note_points", lang, same=steady_points, n=len(points), runs=len(names))]
    pace = pace_table([(names[0], results), *reruns], lang)
    return "\n\n".join(out + ([pace] if pace else []) + [rule])
