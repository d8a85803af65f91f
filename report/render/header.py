"""The first line of every generated file: made by build_tables.py, from results.json, by
which functions (so that a reader goes from a sentence to its code in one step)."""
from __future__ import annotations

from ..text.catalog import t


def written_by(fns):
    """"report/render/findings/home.py: home_auto, home_math; report/text/templates/findings-home.en.md.j2":
    the functions, by module, in the order given, and a template (a path) where one wrote the prose."""
    by_module = {}
    for fn in fns:
        if isinstance(fn, str):
            by_module[fn] = None
        else:
            by_module.setdefault(f"{fn.__module__.replace('.', '/')}.py", {})[fn.__name__] = None
    return "; ".join(f"{where}: {', '.join(names)}" if names is not None else where
                     for where, names in by_module.items())


def header(lang, fns):
    """The header comment of a generated file written by the functions fns."""
    return t("page.header", lang, writer=written_by(fns))


def call_writers(calls):
    """{name: (body, (fn,))} from {name: (fn, *args)}: each file's body, and the function
    that wrote it for its header."""
    return {name: (fn(*args), (fn,)) for name, (fn, *args) in calls.items()}
