"""The table of "When SDPA refuses a backend": for each condition results.json's
"eligibility" holds, the backend SDPA ran, PyTorch's own reasons for each backend it refused
(its warnings, word for word, as text), what it cost against its reference
(findings/ask_common.py: by_points), and the fix.

The reasons, backends and times come from the data alone. The fix is advice, not a
measurement: the catalog's `ask_fix.<id>` for the conditions keyed.ASK_FIXES names, else the
condition the data names as its fix.
"""
from __future__ import annotations

from ..text.catalog import t
from ..text.format import fmt_pct, fmt_ratio, fmt_us_sig
from .findings.ask_common import conditions, cost, kernel_time, raised, refused, section, skipped
from .keyed import ASK_FIXES, keyed
from .markdown import code_safe, markdown_safe, md_table
from .prose import backend


def _reasons(c, lang):
    """PyTorch's words for why: each refused backend's reasons, then the call's own warnings
    and its error, every string as plain text (markdown_safe), one line each."""
    parts = []
    for name, reasons in refused(c):
        said = " · ".join(markdown_safe(r) for r in reasons) or t("ask.no_reason", lang)
        parts.append(f"**{backend(name)}**: {said}")
    if c.get("can_use") is None and c.get("can_use_error"):
        parts.append(t("ask.not_asked", lang, why=markdown_safe(c["can_use_error"])))
    parts += [markdown_safe(w) for w in c.get("call_warnings") or ()]
    for key in ("error", "profile_error", "check_error"):  # the call's error; the profile's or check's
        if c.get(key):
            parts.append(f"**{t('ask.error', lang)}**: {markdown_safe(c[key])}")
    return "<br>".join(parts) or t("value.none", lang)


def _cost(results, c, lang):
    found = cost(results, c)
    if found is None:
        return t("value.none", lang)
    ref, cmp = found
    against = f"`{code_safe(ref['id'])}`"
    if cmp.even:
        return t("ask.cost_same" if cmp.same else "ask.cost_undecided", lang, spread=fmt_pct(cmp.spread, lang, 0),
                 against=against)
    return t("ask.cost_ratio", lang, ratio=fmt_ratio(cmp.ratio, lang), against=against)


def _fix(c, lang):
    if c["id"] in ASK_FIXES:
        return keyed("ask_fix.", c["id"], lang)
    return f"`{code_safe(c['fix'])}`" if c.get("fix") else t("value.none", lang)


def _ran(c, lang):
    if c.get("ran") == "other":
        return t("ask.ran_other", lang)
    if c.get("ran"):
        return backend(c["ran"])
    if skipped(c):
        return t("ask.skipped", lang)
    return t("ask.raised", lang) if raised(c) else t("value.none", lang)


def ask_table(results, lang):
    """The table, with the versions it was asked on; the "not measured" line without the
    section."""
    found = section(results)
    if found is None:
        return t("finding.missing", lang)
    rows = [[f"`{code_safe(c['id'])}`", _ran(c, lang), _reasons(c, lang),
             fmt_us_sig(kernel_time(c), lang), _cost(results, c, lang), _fix(c, lang)]
            for c in conditions(results)]
    table = md_table([t("col.ask_condition", lang), t("col.ask_ran", lang), t("col.ask_reasons", lang),
                      t("col.kernel_sum", lang), t("col.ask_cost", lang), t("col.ask_fix", lang)],
                     rows, align=["l", "l", "l", "r", "l", "l"])
    return table + "\n\n" + _versions(found.get("versions") or {}, lang)


def _yes_no(value, lang):
    return t("value.unknown", lang) if value is None else t("value.yes" if value else "value.no", lang)


def _versions(v, lang):
    safe = {k: markdown_safe(v[k]) if v.get(k) is not None else t("value.none", lang)
            for k in ("gpu_name", "torch", "cuda", "cudnn", "compute_capability")}
    return t("ask.versions", lang, flash=_yes_no(v.get("flash_built"), lang),
             cudnn_sdpa=_yes_no(v.get("cudnn_sdpa_enabled"), lang), **safe)
