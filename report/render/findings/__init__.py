"""The sentences the pages' prose cites, generated so that no number is typed by hand.

Each finding is one small function decorated with @finding("<file>") (registry.py): it is
registered under its own name, goes into tables/<file>.<lang>.md, and returns its lines for
this run, or [] when the run lacks what it needs. A file's findings appear in the order its
module defines them. FILES and EXTRA_FILES are read off the registry: the findings of the
seed's shape (their files carry the shape note) and those of --all and --shapes.
"""
from ...text.catalog import t
from . import (
    answers,
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
ANSWER_FILES = files_of(answers)  # answer-<page>: the paragraph each main page opens with


def writers(names):
    """The functions of the findings `names`, for the header of the file they go into."""
    return tuple(FINDINGS[name] for name in names)


def render_findings(results, ref, lang, names):
    """A Markdown list of the findings' lines, or the "not measured" line."""
    lines = [line for name in names for line in FINDINGS[name](results, ref, lang)]
    return "\n".join(f"- {line}" for line in lines) if lines else t("finding.missing", lang)


def render_answer(results, ref, lang, names):
    """One paragraph of the answers' sentences, or the line that the run lacks them."""
    lines = [line for name in names for line in FINDINGS[name](results, ref, lang)]
    return " ".join(lines) if lines else t("finding.answer_missing", lang)
