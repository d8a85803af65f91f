"""Home gives the answer first: the answer (answer-home), then the short findings, each line backed by a
generated figure from the current GPU; then the words for time; then a headline table
with fewer columns, whose full version lives on the page that explains it."""

from __future__ import annotations

import re

import pytest
from factory import SITE_RUN, refused, site_run
from pagecode import DOCS, LANGS, table_header

from report.render import tables

NUMBER = re.compile(r"\d")


def includes(text):
    return re.findall(r'--8<-- "generated/GPU/tables/([\w-]+)\.(?:nb|en)\.md"', text)


def sections(text):
    return re.findall(r"^## .*\{ #([\w-]+) \}", text, flags=re.M)


@pytest.mark.parametrize("lang", LANGS)
def test_home_starts_with_the_answer_then_the_words_then_the_table(lang):
    text = (DOCS / f"index.{lang}.md").read_text(encoding="utf-8")
    assert sections(text)[:3] == ["answer", "vocabulary", "headline"]
    assert includes(text) == ["answer-home", "findings-home", "timeline-home", "vocabulary", "headline-home",
                              "measured-on"]


@pytest.mark.parametrize("lang", LANGS)
def test_the_short_answer_has_four_lines_each_with_a_figure(lang):
    text = (SITE_RUN / "tables" / f"findings-home.{lang}.md").read_text(encoding="utf-8")
    lines = [line for line in text.splitlines() if line.startswith("- ")]
    leads = [line.split("**")[1] for line in lines]
    assert leads == {"nb": ["Backend.", "Math.", "CPU-tid.", "Låsing."],
                     "en": ["Backend.", "Math.", "CPU time.", "Pinning."]}[lang]
    assert all(NUMBER.search(line) for line in lines)
    assert site_run()["provenance"]["gpu_name"] in lines[0]


@pytest.mark.parametrize("lang", LANGS)
def test_home_table_has_fewer_columns_and_the_full_one_has_a_page(lang):
    home, full = (table_header(SITE_RUN / "tables" / f"{name}.{lang}.md") for name in ("headline-home", "headline"))
    assert len(home) < len(full) and set(home) <= set(full)
    shown_on = [p.name for p in DOCS.glob(f"*.{lang}.md") if "headline" in includes(p.read_text("utf-8"))]
    assert shown_on == [f"gpu-waits.{lang}.md"]


def test_home_table_rows_of_a_variant_that_did_not_run():
    results = site_run()
    results["variants"]["efficient"] = refused(reason="no")
    body = tables.headline_home(results, "nb")
    row = next(line for line in body.splitlines() if "efficient" in line)
    header = body.splitlines()[0]
    assert "ikke støttet" in row and row.count("|") == header.count("|")


PAGE_LINK = re.compile(r"^\d+\.\s+\[([^\]]+)\]\(([\w-]+\.(?:md|ipynb))\)", re.M)


@pytest.mark.parametrize("lang", LANGS)
def test_home_lists_every_page_of_the_nav_in_its_order(lang):
    """The list under "The pages" links every page of mkdocs.yml's nav but Home, in the
    nav's order, each under the title the nav gives it in that language."""
    from pagecode import nav_pages, nav_title

    text = (DOCS / f"index.{lang}.md").read_text(encoding="utf-8")
    listed = PAGE_LINK.findall(text.split("{ #pages }", 1)[1].split("\n---\n", 1)[0])
    expected = [(nav_title(p["title"], lang), p["stem"] + p["ext"]) for p in nav_pages() if p["slug"]]
    assert listed == expected
