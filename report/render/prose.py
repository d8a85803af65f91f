"""Whole sentences over facts: a findings file's prose is one Jinja2 template per language,
report/text/templates/<file>.<lang>.md.j2, rendered over the facts its findings return.

A finding returns a small typed fact (numbers, verdicts, which case holds), never text; the
template holds the sentences, with {% if %} over the facts and filters that write a number
in the language's format (report/text/format.py): us, us_sig, us_range, pct, pct_range,
ratio, ratio_sig, num, error, bytes, blocks, tflops, gbs, unit, bandwidth; and the names:
variant, cause, issue_part, family, limits (the catalog's), backend, backends.

A string from results.json may come from a stranger's GPU folder: a fact carries it as a
Data, and a template prints a Data only through a filter that escapes it for its place
(text: plain Markdown text, code: a code span, codes: a list of them, kernel_cell: a
kernel name in a table cell; report/render/markdown.py).
A label of the catalog (a unit, a value such as "out of memory") is t("group.key"). Printing a Data,
a float or None as it is fails the render (a number is always printed through a format).
"""
from __future__ import annotations

from functools import cache
from pathlib import Path

from jinja2 import Environment, FileSystemLoader, StrictUndefined

from ..text import format as fmt
from ..text.catalog import t
from ..text.display import BACKEND_NAMES
from .ask_words import condition_words
from .datasheets import bandwidth_text, beside_copy, beside_matmul
from .kernel_names import brief_names, kernel_cell
from .keyed import keyed
from .markdown import code_safe, label, limits_text, markdown_safe

TEMPLATES = Path(__file__).resolve().parent.parent / "text" / "templates"


class Data(str):
    """A string from results.json, which a template prints only through text or code."""


def _finalize(value):
    if isinstance(value, Data):
        raise TypeError(f"a string from results.json is printed through | text or | code, not as it is: {value!r}")
    if value is None or isinstance(value, float):
        raise TypeError(f"a number is printed through a filter that formats it, not as it is: {value!r}")
    return value


def template_name(file, lang):
    return f"{file}.{lang}.md.j2"


def template_path(file, lang):
    """The template's path in the repository, for the header of the file it writes."""
    return (TEMPLATES / template_name(file, lang)).relative_to(TEMPLATES.parent.parent.parent).as_posix()


def has_template(file):
    return all((TEMPLATES / template_name(file, lang)).is_file() for lang in ("nb", "en"))


def backend(name):
    """A backend's name ("cuDNN"); another variant's (naive wins at some lengths) as text."""
    return BACKEND_NAMES[name] if name in BACKEND_NAMES else markdown_safe(name)


def filters(lang):
    """The filters a template of `lang` has: numbers in its format, names in its words."""
    return {
        "us": lambda us: fmt.fmt_us(us, lang),
        "us_range": lambda low_high: fmt.fmt_us_range(low_high, lang),
        "us_sig": lambda us: fmt.fmt_us_sig(us, lang),
        "pct": lambda p, decimals=1: fmt.fmt_pct(p, lang, decimals),
        "pct_range": lambda shares: fmt.fmt_pct_range(shares, lang),
        "ratio": lambda r: fmt.fmt_ratio(r, lang),
        "ratio_sig": lambda r: fmt.fmt_ratio_sig(r, lang),
        "num": lambda x, decimals=1: fmt.fmt_num(x, lang, decimals),
        "error": lambda x: fmt.fmt_error(x, lang),
        "bytes": lambda n: fmt.fmt_bytes(n, lang),
        "blocks": lambda n: fmt.blocks_text(n, lang),
        "tflops": lambda x: fmt.fmt_tflops(x, lang),
        "unit": lambda value, name: fmt.unit(value, name, lang),
        "gbs": lambda x: fmt.unit(fmt.fmt_num(x, lang, 0), "GB/s", lang),
        "bandwidth": lambda sheet: bandwidth_text(sheet, lang),
        "variant": lambda name: label(name, lang),
        "cause": lambda name: keyed("cause.", name, lang),
        "issue_part": lambda name: keyed("issue.", name, lang),
        "family": lambda name: keyed("word.shapes_", name, lang),
        "limits": lambda limited_by: limits_text(limited_by, lang),
        "backend": backend,
        # a condition of "When SDPA refuses a backend" in words (render/ask_words.py), and a list of them
        "what": lambda changes: condition_words(changes, lang),
        "whats": lambda many: "; ".join(condition_words(c, lang) for c in many),
        "generation": lambda name: keyed("ask.gen.", name, lang),
        "backends": lambda names: ", ".join(backend(n) for n in names),
        "text": markdown_safe,
        "code": lambda s: f"`{code_safe(s)}`",
        "codes": lambda names: ", ".join(f"`{code_safe(s)}`" for s in names),
        # a kernel name in a table cell, a long generated one shortened (kernel_names.kernel_cell)
        "kernel_cell": lambda name, names: kernel_cell(code_safe(name), lang,
                                                       brief_names([code_safe(n) for n in names])),
        # the datasheet's figure beside a measured matmul roof: report/render/datasheets.py's sentence
        "beside_matmul": lambda roof, gpu: beside_matmul({"roof": roof, "provenance": {"gpu_name": markdown_safe(gpu)}},
                                                         lang),
        "beside_copy": lambda copy, gpu: beside_copy({"shapes": {"copy_roof": copy},
                                                      "provenance": {"gpu_name": markdown_safe(gpu)}}, lang),
        "sig": lambda x, digits=fmt.SIG: fmt.fmt_sig(x, lang, digits),
    }


@cache
def environment(lang):
    env = Environment(loader=FileSystemLoader(TEMPLATES), undefined=StrictUndefined, keep_trailing_newline=True,
                      autoescape=False, trim_blocks=True, lstrip_blocks=True, finalize=_finalize)
    env.filters.update(filters(lang))
    env.globals["t"] = lambda key, **values: t(key, lang, **values)  # a label of the catalog: t("value.oom")
    return env


def render(file, lang, facts):
    """The template of `file` in `lang` over `facts` ({name: its fact, or None}), without
    its last line break."""
    return environment(lang).get_template(template_name(file, lang)).render(**facts).removesuffix("\n")
