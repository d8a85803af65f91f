"""Each fact in one place: the fused-backend findings, the A100 comparison and
the GPU-span-vs-CPU chart each live on one page, and the other pages link to them; every
A100 figure, where it appears, is labelled as Hugging Face's."""

from __future__ import annotations

import re

import pytest
from pagecode import DOCS, HUGGING_FACE, LANGS, markdown_places

from report.text.catalog import catalog

ONE_PAGE = {
    "generated/GPU/tables/findings-fused": "fused-backends",
    "generated/GPU/tables/findings-auto-vs-best": "fused-backends",
    "generated/GPU/tables/headline": "gpu-waits",
    "generated/GPU/figures/cuda-vs-cpu": "gpu-waits",
    "generated/compare/tables/cuda-time": "compare-gpus",
    "generated/compare/tables/cpu-time": "compare-gpus",
    "generated/compare/tables/findings": "compare-gpus",
}


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("target", sorted(ONE_PAGE))
def test_shown_on_one_page(target, lang):
    pattern = re.compile(re.escape(target) + rf"\.{lang}\.(?:md|svg)\b")
    pages = sorted(p.name for p in DOCS.glob(f"*.{lang}.md") if pattern.search(p.read_text(encoding="utf-8")))
    assert pages == [f"{ONE_PAGE[target]}.{lang}.md"]


A100_FIGURE = re.compile(r"\bA100\b")
A100_NAME = re.compile(r"\S*A100\S*")  # "A100", "NVIDIA A100-SXM4-80GB": a name, not a figure


def unlabelled_a100(places, where):
    """A place that names the A100 next to a figure must say whose the figure is."""
    return [f"{where}: {p.strip()[:120]}" for p in places
            if A100_FIGURE.search(p) and re.search(r"\d", A100_NAME.sub("", p)) and not HUGGING_FACE.search(p)]


def test_a100_figures_in_the_catalog_are_hugging_faces():
    problems = [f"[{key}] {lang}" for key, texts in catalog().items() for lang in LANGS
                if unlabelled_a100([texts[lang]], key)]
    assert not problems, problems


@pytest.mark.parametrize("page", sorted(DOCS.glob("*.md")), ids=lambda p: p.name)
def test_a100_figures_on_pages_are_hugging_faces(page):
    problems = unlabelled_a100(markdown_places(page.read_text(encoding="utf-8")), page.name)
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("lang", LANGS)
def test_generated_tables_name_hugging_face_beside_the_a100(lang):
    for path in DOCS.glob(f"generated/*/tables/*.{lang}.md"):
        text = path.read_text(encoding="utf-8")
        header = next((line for line in text.splitlines() if line.startswith("| ")), "")
        if A100_FIGURE.search(header):  # a table with an A100 column says whose it is, there
            assert HUGGING_FACE.search(header), path.name
        assert not unlabelled_a100(markdown_places(text), path.name), path.name
