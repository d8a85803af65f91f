"""Issue 30, item 3: every main page opens with the answer, an `answer` admonition of two
to four sentences ("Svaret" / "The answer"), before any model, table or code."""
import re

import pytest
from pagecode import DOCS, page_html, rel

TITLE = {"nb": "Svaret", "en": "The answer"}
PAGES = sorted(DOCS.glob("*.md"))
SENTENCE_END = re.compile(r"[.!?](?=\s+[A-ZÆØÅ*`\"«(]|\s*$)")


@pytest.mark.parametrize("page", PAGES, ids=rel)
def test_the_page_opens_with_an_answer_of_two_to_four_sentences(page):
    lang = page.name.split(".")[1]
    html = page_html(page)
    after_title = html.split("</h1>", 1)[1].lstrip()
    first = re.match(r'<div class="admonition answer">\s*<p class="admonition-title">(.*?)</p>(.*?)</div>',
                     after_title, flags=re.S)
    assert first, f"{rel(page)} does not open with the answer: {after_title[:80]!r}"
    assert first.group(1) == TITLE[lang]
    body = re.sub(r"<[^>]+>", "", re.sub(r"<!--.*?-->", "", first.group(2), flags=re.S)).strip()
    assert 2 <= len(SENTENCE_END.findall(body)) <= 4, body
