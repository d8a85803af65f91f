"""Reproduce's table of reruns: every comparison the findings decide by the paired rule
(findings/common.py: Paired) or by shape points' kernel times (shape_common.Compare), in
the committed run and in each rerun committed beside it (data/reruns/<gpu>/<run>/), with
its ratio and its verdict in each: how each compared figure moved, and whether the words
stayed the same. benchmarks/verdicts.py checks every sentence the same way."""
from __future__ import annotations

import dataclasses
import math

from ..text.catalog import t
from ..text.format import fmt_pct, fmt_ratio_sig
from ..verdict import Verdict
from .findings import FINDINGS
from .findings.common import Paired, paired
from .findings.shape_common import Compare
from .markdown import md_table


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
    """word(), and for a paired verdict its interval across the run's processes: the cells of
    a row whose words differ between runs, where the interval shows why."""
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


def contradicting(verdicts) -> bool:
    """True where two runs give verdicts that cannot both hold: opposite orders, or an order
    in one and "the same" in another. Undecided in one run and decided in another is not a
    contradiction: that run's processes could not tell."""
    return len({_key(v) for v in verdicts if v is not None} - {"undecided"}) > 1


def _metric(v, lang) -> str:
    metric = "kernel" if isinstance(v, Compare) else v.metric
    return {"kernel": t("reruns.kernel", lang), "host": t("reruns.host", lang),
            "host_share": t("reruns.host_share", lang)}.get(metric, t("reruns.wall", lang))


def _width(v) -> float:
    return math.log(v.interval[1] / v.interval[0])


def scatter_explains(verdicts) -> bool:
    """True where every run that leaves a paired comparison undecided has a wider interval
    across its processes (in log terms) than every run that decides it: there, the
    undecided runs' processes scattered more."""
    paired_ = [v for v in verdicts if isinstance(v, Paired)]
    undecided = [_width(v) for v in paired_ if v.undecided]
    decided = [_width(v) for v in paired_ if not v.undecided]
    return bool(undecided and decided) and min(undecided) > max(decided)


def by_other_code(results, reruns) -> list[str]:
    """The names of the reruns ([(name, results)]) measured with other measuring code than
    the run's (provenance's code_sha256, the hash of every measuring file): their figures
    may differ for that reason alone, so they are not set beside the run's."""
    code = (results.get("provenance") or {}).get("code_sha256")
    return [name for name, r in reruns if (r.get("provenance") or {}).get("code_sha256") != code]


def reruns_table(results, ref, reruns, lang) -> str:
    """The table, or the line saying that no rerun is committed for this GPU; the reruns of
    other measuring code (by_other_code) are left out, and a line says which."""
    if not reruns:
        return t("reruns.none", lang)
    other = by_other_code(results, reruns)
    left_out = t("reruns.other_code", lang, names=", ".join(other)) if other else ""
    reruns = [(name, r) for name, r in reruns if name not in other]
    if not reruns:
        return left_out
    runs = [(t("reruns.this_run", lang), compared(results, ref))] + [(name, compared(r, ref)) for name, r in reruns]
    rows, same, against, explained = [], 0, 0, True
    for where in runs[0][1]:
        verdicts = [found.get(where) for _, found in runs]
        same += steady(verdicts)
        against += contradicting(verdicts)
        agree = "reruns.yes" if steady(verdicts) else "reruns.no" if contradicting(verdicts) else "reruns.no_undecided"
        cell = word if steady(verdicts) else with_interval
        explained &= steady(verdicts) or contradicting(verdicts) or scatter_explains(verdicts)
        rows.append([f"`{where}` ({_metric(verdicts[0], lang)})"]
                    + [cell(v, lang) if v is not None else t("value.none", lang) for v in verdicts]
                    + [t(agree, lang)])
    headers = [t("reruns.where", lang), *(name for name, _ in runs), t("reruns.steady", lang)]
    return md_table(headers, rows, ["l", *("r" for _ in runs), "l"]) + "\n\n" + \
        t("reruns.note", lang, same=same, n=len(rows), runs=len(runs), contradicting=against) + \
        ("" if same == len(rows) else " " + t("reruns.note_differ", lang)
         + (" " + t("reruns.note_scatter", lang) if explained and not against else "")) + \
        (" " + left_out if left_out else "")
