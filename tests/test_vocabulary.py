"""One vocabulary of time, used everywhere.

Home defines the words once, in a generated table (tables.vocabulary): kernel time, GPU
span, idle gap, wall time per call, latency of one call, host overhead, profiled CPU time,
and Hugging Face's "CUDA time" for the A100. Checked here, in both languages:

- "CUDA time" / "CUDA-tid" appears only where it is labelled as Hugging Face's (the same
  table cell, paragraph or catalog string names Hugging Face): our own GPU-side range is
  the GPU span;
- nothing calls a time "GPU work" / "GPU-arbeid" (a span holds idle time);
- the table headers are the vocabulary's terms, and Home shows the vocabulary before the
  headline table;
- every figure of times says which statistic it shows.

Where: the catalog's strings, the prose of every page (code blocks, inline code and include
lines are not prose), every generated table and figure, and the notebook's markdown and
the strings its code shows.
"""

from __future__ import annotations

import json
import re

import pytest
from pagecode import DOCS, GENERATED, HUGGING_FACE, LANGS, committed_result_dirs, markdown_places, table_header

from report.text.catalog import catalog, t

CUDA_TIME = re.compile(r"\bCUDA[ -]tid\w*|\bCUDA times?\b", re.IGNORECASE)
GPU_WORK = re.compile(r"\bGPU[ -]work\b|\bGPU-arbeid\w*", re.IGNORECASE)
# the columns whose header is a word for time: each is a term of the vocabulary
TIME_COLUMNS = ("kernel_sum", "cuda_time", "idle_gap", "wall", "host_time", "cpu_time")


def problems_in(pieces, where):
    """Each piece is one place (a table cell, a paragraph, a catalog string)."""
    found = []
    for piece in pieces:
        for m in CUDA_TIME.finditer(piece):
            if not HUGGING_FACE.search(piece):
                found.append(f"{where}: «{m.group(0)}» not labelled as Hugging Face's: "
                             f"our GPU-side range is the GPU span ({piece.strip()[:100]})")
        for m in GPU_WORK.finditer(piece):
            found.append(f"{where}: «{m.group(0)}»: say kernel time (activity) or GPU span (with its idle gap)")
    return found


def svg_text(path):
    return " ".join(re.findall(r"<text\b[^>]*>([^<]*)</text>", path.read_text(encoding="utf-8")))


def notebook_places(path):
    nb = json.loads(path.read_text(encoding="utf-8"))
    places = []
    for cell in nb["cells"]:
        source = "".join(cell["source"])
        if cell["cell_type"] == "markdown":
            places += markdown_places(source)
        else:
            places += re.findall(r'"([^"\n]*)"', source)  # what the code prints and draws
    return places


def test_catalog_strings():
    problems = [p for key, texts in catalog().items() for lang in LANGS
                for p in problems_in([texts[lang]], f"catalog.toml [{key}] {lang}")]
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("page", sorted(DOCS.glob("*.md")), ids=lambda p: p.name)
def test_pages(page):
    problems = problems_in(markdown_places(page.read_text(encoding="utf-8")), page.name)
    assert not problems, "\n".join(problems)


def generated_files():
    return sorted(p for p in GENERATED.glob("*/tables/*.md")) + sorted(GENERATED.glob("*/figures/*.svg"))


@pytest.mark.parametrize("path", generated_files(), ids=lambda p: p.relative_to(GENERATED).as_posix())
def test_generated_tables_and_figures(path):
    places = [svg_text(path)] if path.suffix == ".svg" else markdown_places(path.read_text(encoding="utf-8"))
    problems = problems_in(places, path.relative_to(DOCS).as_posix())
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("lang", LANGS)
def test_notebook(lang):
    path = DOCS / f"explore.{lang}.ipynb"
    problems = problems_in(notebook_places(path), path.name)
    assert not problems, "\n".join(problems)


def vocabulary_terms(folder, lang):
    text = (folder / "tables" / f"vocabulary.{lang}.md").read_text(encoding="utf-8")
    return re.findall(r"^\| \*\*(.+?)\*\* \|", text, flags=re.M)


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("folder", committed_result_dirs(), ids=lambda p: p.name)
def test_every_time_header_is_a_term_of_the_vocabulary(folder, lang):
    terms = vocabulary_terms(folder, lang)
    assert [t(f"col.{c}", lang) for c in TIME_COLUMNS] == [x for x in terms if x in
                                                            {t(f"col.{c}", lang) for c in TIME_COLUMNS}]
    time_words = {t(f"col.{c}", lang) for c in TIME_COLUMNS}
    for name in ("headline-home", "headline", "details", "overhead-seed"):
        path = folder / "tables" / f"{name}.{lang}.md"
        if not path.is_file():
            continue
        header = table_header(path)
        assert set(header) & time_words, (path.name, header)
        assert all(h in terms for h in header if h in time_words), (path.name, header)


@pytest.mark.parametrize("lang", LANGS)
def test_home_defines_the_words_before_the_headline_table(lang):
    text = (DOCS / f"index.{lang}.md").read_text(encoding="utf-8")
    vocabulary = text.index(f"generated/GPU/tables/vocabulary.{lang}.md")
    first_table = min(text.index(f"generated/GPU/tables/{name}.{lang}.md")
                      for name in ("headline", "headline-home") if f"tables/{name}.{lang}.md" in text)
    assert vocabulary < first_table


@pytest.mark.parametrize("lang", LANGS)
def test_figures_of_times_say_their_statistic(lang):
    word = {"nb": "median av", "en": "median of"}[lang]
    figures = [p for p in GENERATED.glob(f"*/figures/*.{lang}.svg") if "memory" not in p.name]
    assert figures
    for path in figures:
        text = svg_text(path)
        if t("finding.missing", lang) in text:  # a figure of a section the run did not measure
            continue
        if "<svg" not in path.read_text(encoding="utf-8"):  # a timeline of traces the run did not keep:
            continue  # its first line alone, its caption the "not measured" line (test_timeline_svg.py)
        assert word in text, path.name


@pytest.mark.parametrize("lang", LANGS)
def test_the_comparison_names_both_statistics(lang):
    runs = (GENERATED / "compare" / "tables" / f"runs.{lang}.md").read_text(encoding="utf-8")
    assert t("compare.row_statistic", lang) in runs
    assert {"nb": "median av", "en": "median of"}[lang] in runs
    assert {"nb": "snitt av", "en": "mean of"}[lang] in runs


def test_meta_the_check_finds_what_it_should():
    assert problems_in(["GPU span 73.5 µs"], "x") == []
    assert problems_in(["A100 “CUDA time” (Hugging Face)"], "x") == []
    assert problems_in(["I «CUDA-tiden» til Hugging Face på A100"], "x") == []
    assert len(problems_in(["The CUDA time drops from 1 ms"], "x")) == 1
    assert len(problems_in(["CUDA-tiden faller"], "x")) == 1
    assert len(problems_in(["the GPU work per call"], "x")) == 1
    assert len(problems_in(["GPU-arbeidet per kall"], "x")) == 1
    assert problems_in(["CUDA graphs and CUDA 13.0"], "x") == []
    # a table row is checked cell by cell: Hugging Face in another cell does not label it
    assert markdown_places("| CUDA time | A100 (Hugging Face) |") == [" CUDA time ", " A100 (Hugging Face) "]
