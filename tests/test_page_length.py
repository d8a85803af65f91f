"""Issue 30, item 4: a page a reader finishes. On every page but Reproduce, the prose
visible without opening anything (the page as MkDocs renders it, less code blocks, tables,
figures and collapsed blocks: tests/pagecode.py visible_prose) is at most MAX_WORDS words,
with at most MAX_NUMBERS_PER_100 figures per 100 of them."""
import pytest
from pagecode import DOCS, page_html, prose_counts, rel, visible_prose

MAX_WORDS = 1500
MAX_NUMBERS_PER_100 = 7
EXEMPT = {"reproduce"}  # a reference page: every command and option, read in parts
PAGES = [p for p in sorted(DOCS.glob("*.md")) if p.name.split(".")[0] not in EXEMPT]


@pytest.mark.parametrize("page", PAGES, ids=rel)
def test_visible_prose_stays_short_and_light_on_figures(page):
    words, numbers = prose_counts(visible_prose(page_html(page)))
    assert words <= MAX_WORDS, f"{rel(page)}: {words} words of visible prose"
    assert 100 * numbers <= MAX_NUMBERS_PER_100 * words, f"{rel(page)}: {numbers} figures in {words} words"


def test_what_counts_as_visible_prose():
    html = ("<h2>Title</h2><p>Two words 1\u00a0024 and 2,5 and sm90 in 580.159.04 on 2026-12-01</p>"
            "<pre><code>hidden code 1 2 3</code></pre><table><tr><td>9</td></tr></table>"
            "<details><summary>closed</summary><p>hidden 4 5</p></details>"
            "<details open><summary>open</summary><p>shown 6</p></details>")
    text = visible_prose(html)
    assert "hidden" not in text and "closed" not in text and "shown" in text
    words, numbers = prose_counts(text)
    assert numbers == 3  # 1 024, 2,5, 6: not sm90, not a version, not a date
    assert words == 15  # Title Two words 1 024 and 2,5 and sm90 in 580.159.04 on 2026-12-01, open shown 6
