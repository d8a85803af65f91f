"""MkDocs hook: keep code blocks out of the search index.

mkdocs-static-i18n puts both languages into one search/search_index.json, which every page
loads. Code blocks are the same in nb and en, so each was indexed twice, and they were
about 40 % of the index (60 KB of 154 KB when the guide was first written). Marking them
with Material's `data-search-exclude` leaves them on the page but out of the index; names
in prose, tables and inline code (kernel names such as `flash_fwd`) stay searchable.

Collapsed blocks (`??? note`, `<details>`) are left out the same way: they hold what a
reader opens for detail (every measured point, the profiler's own tables, PyTorch's raw
messages), the same numbers in both languages, which weighed on every page's load
(tests/test_browser.py: test_heaviest_page); what they show is summed up in the open text.
"""

from __future__ import annotations

import re

# <div class="language-python highlight"> (pymdownx.highlight),
# <div class="highlight-ipynb hl-python"> and the hidden copy of each cell's source
# <div class="clipboard-copy-txt" ...> (mkdocs-jupyter)
_CODE_BLOCK = re.compile(
    r'(<div class="(?:[^"]*\s)?(?:highlight|highlight-ipynb|clipboard-copy-txt)(?:\s[^"]*)?")(?! data-search-exclude)'
)


_DETAILS = re.compile(r"<details\b(?![^>]*data-search-exclude)")


def on_page_content(html, page, config, files):
    html = _CODE_BLOCK.sub(r"\1 data-search-exclude", html)
    return _DETAILS.sub("<details data-search-exclude", html)
