"""A condition of "When SDPA refuses a backend" in the words a user types ("float32",
"a 5-D input", "head dim 512"), from what its setting changes (findings/ask_common.py:
changes): the page's list and its answer name conditions so, not by their ids.
"""
from __future__ import annotations

from ..text.catalog import t
from ..text.display import BACKEND_NAMES
from ..text.format import fmt_num
from .keyed import ASK_APIS, ASK_LAYOUTS, ASK_MASKS, keyed
from .markdown import code_safe, markdown_safe


def backend(name):
    return BACKEND_NAMES[name] if name in BACKEND_NAMES else markdown_safe(name)


def _named(prefix, names, value, lang):
    return keyed(prefix, value, lang) if value in names else f"`{code_safe(str(value))}`"


def change_words(change, lang) -> str:
    kind, *values = change
    if kind == "decode":
        return t("ask_what.decode", lang, q=fmt_num(values[0], lang, 0), k=fmt_num(values[1], lang, 0))
    if kind == "dtype":
        return f"`{code_safe(str(values[0]))}`"
    if kind == "head_dim":
        return t("ask_what.head_dim", lang, n=fmt_num(values[0], lang, 0))
    if kind == "gqa":
        return t("ask_what.gqa", lang, kv=fmt_num(values[0] or 0, lang, 0), q=fmt_num(values[1] or 0, lang, 0))
    if kind == "mask":
        return _named("ask_what.mask.", ASK_MASKS, values[0], lang)
    if kind == "causal":
        return "`is_causal=True`"
    if kind == "layout":
        return _named("ask_what.layout.", ASK_LAYOUTS, values[0], lang)
    if kind == "api":
        return _named("ask_what.api.", ASK_APIS, values[0], lang)
    if kind == "pinned":
        return t("ask_what.pinned", lang, backend=backend(values[0]))
    if kind == "dropout":
        return t("ask_what.dropout", lang, p=fmt_num(values[0], lang, 2))
    return t("ask_what.plain", lang)


def condition_words(changes, lang) -> str:
    """The changes of one condition, joined: "float32, grouped K/V heads (4 for 16)"."""
    return ", ".join(change_words(c, lang) for c in changes)
