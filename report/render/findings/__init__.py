"""The sentences the pages' prose cites, generated so that no number is typed by hand.

Each finding is one small function decorated with @finding("<file>") (registry.py): it is
registered under its own name, goes into tables/<file>.<lang>.md, and returns its lines for
this run, or [] when the run lacks what it needs. A file's findings appear in the order its
module defines them. FILES and EXTRA_FILES are read off the registry: the findings of the
seed's shape (their files carry the shape note) and those of --all and --shapes.

A file with a template (report/render/prose.py) is written from facts: each of its findings
returns one typed fact, or None, and the template in each language holds the sentences.
"""
from ...text.catalog import t
from .. import prose
from . import (
    compiled,
    decode_findings,
    first_call_findings,
    fused,
    home,
    naive_math,
    occupancy_findings,
    overhead_findings,
    recommendations,
    scaling,
    shape_findings,
    training,
)
from .registry import FINDINGS, files_of

FILES = files_of(naive_math, fused, occupancy_findings, recommendations, home)
EXTRA_FILES = files_of(scaling, first_call_findings, overhead_findings, training, compiled,
                        decode_findings, shape_findings)


def writers(file, names, lang):
    """The functions of the findings `names` and the template of `file` in `lang` where it
    has one, for the header of the file."""
    fns = tuple(FINDINGS[name] for name in names)
    return (*fns, prose.template_path(file, lang)) if prose.has_template(file) else fns


def facts(names, results, ref):
    """{finding: its fact, or None where the run lacks what it needs}."""
    return {name: FINDINGS[name](results, ref) for name in names}


def render_findings(file, names, plain, results, ref, lang):
    """A Markdown list of the findings' lines, or the "not measured" line. A file with a
    template: the template over the facts from the plain results, whose filters escape
    each string from them; the others: lines from results already made safe."""
    if prose.has_template(file):
        return prose.render(file, lang, facts(names, plain, ref)) or t("finding.missing", lang)
    lines = [line for name in names for line in FINDINGS[name](results, ref, lang)]
    return "\n".join(f"- {line}" for line in lines) if lines else t("finding.missing", lang)
