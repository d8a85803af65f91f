"""The first line of every generated file: made by build_tables.py, from results.json, by
which functions (so that a reader goes from a sentence to its code in one step)."""
from __future__ import annotations

from ..text.catalog import t


def written_by(fns):
    """"report/render/findings/home.py: home_auto, home_math": the functions, by module, in
    the order given."""
    by_module = {}
    for fn in fns:
        by_module.setdefault(fn.__module__, {})[fn.__name__] = None
    return "; ".join(f"{module.replace('.', '/')}.py: {', '.join(names)}" for module, names in by_module.items())


def header(lang, fns):
    """The header comment of a generated file written by the functions fns."""
    return t("page.header", lang, writer=written_by(fns))


def call_writers(calls):
    """{name: (body, (fn,))} from {name: (fn, *args)}: each file's body, and the function
    that wrote it for its header."""
    return {name: (fn(*args), (fn,)) for name, (fn, *args) in calls.items()}
