"""The sentences the pages' prose cites, generated so that no number is typed by hand.

Each finding is one small function decorated with @finding("<file>") (registry.py): it is
registered under its own name, goes into tables/<file>.<lang>.md, and returns its fact for
this run (a small typed object: numbers, verdicts, which case holds), or None when the run
lacks what it needs. The file's template in each language
(report/text/templates/<file>.<lang>.md.j2, rendered by report/render/prose.py) holds the
sentences, in the order of the findings. FILES and EXTRA_FILES are read off the registry:
the findings of the seed's shape (their files carry the shape note) and those of --all and
--shapes.
"""
from ...text.catalog import t
from .. import prose
from . import (
    answers,
    ask_findings,
    compiled,
    decode_findings,
    first_call_findings,
    fused,
    home,
    naive_math,
    ncu_findings,
    occupancy_findings,
    overhead_findings,
    pairs_findings,
    recommendations,
    scaling,
    shape_findings,
    training,
)
from .registry import FINDINGS, files_of

FILES = files_of(naive_math, fused, occupancy_findings, recommendations, home)
_ASK = files_of(ask_findings)  # "When SDPA refuses a backend": its answer, its findings, a recommendation
EXTRA_FILES = {**files_of(scaling, first_call_findings, overhead_findings, training, compiled,
                          decode_findings, shape_findings, pairs_findings, ncu_findings),
               **{f: n for f, n in _ASK.items() if not f.startswith("answer-")}}
# answer-<page>: the answer each main page opens with, one paragraph
ANSWER_FILES = {**files_of(answers), **{f: n for f, n in _ASK.items() if f.startswith("answer-")}}


def writers(file, names, lang):
    """The functions of the findings `names` and the template of `file` in `lang`, for the
    header of the file."""
    return (*(FINDINGS[name] for name in names), prose.template_path(file, lang))


def facts(names, results, ref):
    """{finding: its fact, or None where the run lacks what it needs}."""
    return {name: FINDINGS[name](results, ref) for name in names}


def render_findings(file, names, results, ref, lang):
    """The file's template in `lang` over its findings' facts, or the "not measured" line
    where none has one. `results` as loaded: the template's filters escape each string of
    it that a sentence prints (report/render/prose.py)."""
    return prose.render(file, lang, facts(names, results, ref)) or t("finding.missing", lang)


def answer_files(results, ref, lang):
    """{file: (one paragraph of its answer's sentences, or the line that the run lacks them,
    the functions and template that wrote it)}: the template writes a sentence a line."""
    out = {}
    for file, names in ANSWER_FILES.items():
        text = prose.render(file, lang, facts(names, results, ref)).strip()
        out[file] = (" ".join(text.split("\n")) if text else t("finding.answer_missing", lang),
                     writers(file, names, lang))
    return out
