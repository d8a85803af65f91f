"""Findings of a fused backend's first call, taken apart (report/measure/first_calls.py)."""
from ...text.catalog import t
from ...text.format import fmt_num, fmt_us
from ..markdown import label
from .registry import finding

PAYS_AGAIN = 10  # a new shape's first call this many times its second: it built something


@finding("findings-first-calls")
def first_calls(results, ref, lang):
    section = results.get("first_calls")
    lines = []
    for name, r in (section or {}).get("rows", {}).items():
        if r.get("status") != "ok" or r.get("first_in_process_ms") is None:
            continue
        pays = r["first_new_shape_ms"] > PAYS_AGAIN * r["new_shape_again_ms"]
        ms = lambda key, r=r: fmt_us(r[key] * 1000, lang)  # noqa: E731
        lines.append(t("finding.first_calls", lang, variant=label(name, lang), first=ms("first_in_process_ms"),
                       again=ms("same_shape_again_ms"), seq=fmt_num(section["new_shape"]["seq_len"], lang, 0),
                       new_first=ms("first_new_shape_ms"), new_again=ms("new_shape_again_ms"),
                       verdict=t("finding.new_shape_pays" if pays else "finding.new_shape_cheap", lang)))
    return lines
