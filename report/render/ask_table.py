"""The conditions of "When SDPA refuses a backend", one closed block each (not a table: it
reads on a phone without scrolling sideways, and what is inside costs no layout until it is
opened): for each condition results.json's
"eligibility" holds, what it changes in words a user types (ask_words.py), the backend SDPA
ran, its kernel time against its reference (findings/ask_common.py: by_points; none for a
result the run's check found wrong), the backend SDPA would take on the other GPU
generations (findings/ask_order.py: derived, not measured), PyTorch's own reasons for each
backend it refused (its warnings, word for word, as text), and the fix.

The reasons, backends and times come from the data alone. The fix is advice, not a
measurement: the catalog's `ask_fix.<id>` for the conditions keyed.ASK_FIXES names, else the
condition the data names as its fix.
"""
from __future__ import annotations

from ..text.catalog import t
from ..text.format import fmt_pct, fmt_ratio, fmt_us_sig
from .ask_words import condition_words
from .findings.ask_common import (
    changes,
    conditions,
    cost,
    kernel_time,
    raised,
    refused,
    saw_first_key_only,
    section,
    skipped,
    work_ratio,
)
from .findings.ask_order import derived, shown_generations
from .fix_names import GROUPS as FIX_GROUPS
from .keyed import ASK_FIXES, keyed
from .markdown import code_safe, html_block_safe, markdown_safe
from .prose import backend


def _reasons(c, lang):
    """PyTorch's words for why: each refused backend's reasons, then the call's own warnings
    and its error, every string as plain text (markdown_safe), one line each."""
    said = {}  # the same words from several backends (a 5-D input's) are shown once, after all their names
    for name, reasons in refused(c):
        said.setdefault(" · ".join(markdown_safe(r) for r in reasons) or t("ask.no_reason", lang), []).append(name)
    parts = [f"**{', '.join(backend(n) for n in names)}**: {words}" for words, names in said.items()]
    if c.get("can_use") is None and c.get("can_use_error"):
        parts.append(t("ask.not_asked", lang, why=markdown_safe(c["can_use_error"])))
    parts += [markdown_safe(w) for w in c.get("call_warnings") or ()]
    for key in ("error", "profile_error", "check_error"):  # the call's error; the profile's or check's
        if c.get(key):
            parts.append(f"**{t('ask.error', lang)}**: {markdown_safe(c[key])}")
    return parts  # one line each; none where no backend refused


def _cost(results, c, lang):
    found = cost(results, c)
    if found is None:
        return None
    ref, cmp = found
    against = f"`{code_safe(ref['id'])}`"
    ratio_of_work = work_ratio(results, c, ref)
    if ratio_of_work != 1.0:  # not the same work: said beside the cost, never ranked (issue 52)
        work = (t("ask.work_unknown", lang) if ratio_of_work is None
                else t("ask.work_ratio", lang, work=fmt_ratio(ratio_of_work, lang)))
        key = "ask.cost_other_work_fixed" if c["id"] in FIX_GROUPS else "ask.cost_other_work"
        return t(key, lang, ratio=fmt_ratio(cmp.ratio, lang), against=against, work=work)
    if cmp.even:
        return t("ask.cost_same" if cmp.same else "ask.cost_undecided", lang, spread=fmt_pct(cmp.spread, lang, 0),
                 against=against)
    return t("ask.cost_ratio", lang, ratio=fmt_ratio(cmp.ratio, lang), against=against)


def _fix(c, lang):
    if c["id"] in ASK_FIXES:
        return keyed("ask_fix.", c["id"], lang)
    return f"`{code_safe(c['fix'])}`" if c.get("fix") else None


def _ran(c, lang):
    if c.get("ran") == "other":
        return t("ask.ran_other", lang)
    if c.get("ran"):
        return backend(c["ran"])
    if skipped(c):
        return t("ask.skipped", lang)
    return t("ask.raised", lang) if raised(c) else t("value.none", lang)


def _time(results, c, lang):
    if saw_first_key_only(results, c):
        return t("ask.item_wrong", lang)
    if not kernel_time(c):
        return None
    time, against = fmt_us_sig(kernel_time(c), lang), _cost(results, c, lang)
    return t("ask.item_time", lang, time=time, cost=against) if against else t("ask.item_time_alone", lang, time=time)


def _derived(results, c, lang):
    found = derived(results, c)
    if found is None:
        return None
    return " · ".join(f"{keyed('ask.gen_short.', g, lang)}: **{_pick(found[g], lang)}**"
                      for g in shown_generations(results))


def _pick(name, lang):
    return backend(name) if name else t("value.unknown", lang)


def _item(results, c, lang):
    """One condition as a closed block: on its summary line the id, what it changes, the
    backend it ran and the derived ones; inside, its kernel time, PyTorch's reasons and the
    fix."""
    head = [f"**`{code_safe(c['id'])}`**", condition_words(changes(results, c), lang),
            t("ask.item_ran", lang, ran=f"**{_ran(c, lang)}**") if c.get("ran") else _ran(c, lang)]
    if gens := _derived(results, c, lang):
        head.append(t("ask.item_derived", lang, gens=gens))
    lines = [time] if (time := _time(results, c, lang)) is not None else []
    lines += _reasons(c, lang)
    if (fix := _fix(c, lang)) is not None:
        lines.append(f"{t('col.ask_fix', lang)}: {fix}")
    body = "  \n".join(lines) or t("value.none", lang)
    summary = " · ".join(head)
    return (f'<details class="sdpa-ask" markdown>\n<summary markdown>{html_block_safe(summary)}</summary>\n\n'
            f'{html_block_safe(body)}\n\n</details>')


def ask_table(results, lang):
    """The list, with the versions it was asked on; the "not measured" line without the
    section."""
    found = section(results)
    if found is None:
        return t("finding.missing", lang)
    items = "\n\n".join(_item(results, c, lang) for c in conditions(results))
    return items + "\n\n" + _versions(found.get("versions") or {}, lang)


def _yes_no(value, lang):
    return t("value.unknown", lang) if value is None else t("value.yes" if value else "value.no", lang)


def _versions(v, lang):
    safe = {k: markdown_safe(v[k]) if v.get(k) is not None else t("value.none", lang)
            for k in ("gpu_name", "torch", "cuda", "cudnn", "compute_capability")}
    return t("ask.versions", lang, flash=_yes_no(v.get("flash_built"), lang),
             cudnn_sdpa=_yes_no(v.get("cudnn_sdpa_enabled"), lang), **safe)
