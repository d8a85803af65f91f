"""MkDocs hook: keep code blocks out of the search index.

mkdocs-static-i18n puts both languages into one search/search_index.json, which every page
loads. Code blocks are the same in nb and en, so each was indexed twice, and they were
about 40 % of the index (60 KB of 154 KB when the guide was first written). Marking them
with Material's `data-search-exclude` leaves them on the page but out of the index; names
in prose, tables and inline code (kernel names such as `flash_fwd`) stay searchable.
"""

from __future__ import annotations

import re

# <div class="language-python highlight"> (pymdownx.highlight),
# <div class="highlight-ipynb hl-python"> and the hidden copy of each cell's source
# <div class="clipboard-copy-txt" ...> (mkdocs-jupyter)
_CODE_BLOCK = re.compile(
    r'(<div class="(?:[^"]*\s)?(?:highlight|highlight-ipynb|clipboard-copy-txt)(?:\s[^"]*)?")(?! data-search-exclude)'
)


def on_page_content(html, page, config, files):
    return _CODE_BLOCK.sub(r"\1 data-search-exclude", html)
