"""MkDocs hook: keep code blocks out of the search index.

mkdocs-static-i18n puts both languages into one search/search_index.json, which every page
loads. Code blocks are the same in nb and en, so each was indexed twice, and they were
about 40 % of the index (60 KB of 154 KB when the guide was first written). Marking them
with Material's `data-search-exclude` leaves them on the page but out of the index; names
in prose, tables and inline code (kernel names such as `flash_fwd`) stay searchable.

After the build, the index of both languages is split into one per language
(search/search_index.json and en/search/search_index.json), and the English pages look
for theirs in en/: a page loads only its own language's index, and a search finds pages
in the reader's language.

Collapsed blocks (`??? note`, `<details>`) are searched like the open text: a reader who
pastes PyTorch's words ("attn_mask", a warning) must find the note that explains them. Only
their tables are left out: every measured point and the profiler's own tables, the same
numbers in both languages, which weighed on every page's load (tests/test_browser.py:
test_heaviest_page) and which the open text sums up. A table outside a collapsed block (the
refusals of "When SDPA refuses a backend", with PyTorch's warnings) stays in.
"""

from __future__ import annotations

import json
import posixpath
import re
from pathlib import Path

from mkdocs.plugins import event_priority

# <div class="language-python highlight"> (pymdownx.highlight),
# <div class="highlight-ipynb hl-python"> and the hidden copy of each cell's source
# <div class="clipboard-copy-txt" ...> (mkdocs-jupyter)
_CODE_BLOCK = re.compile(
    r'(<div class="(?:[^"]*\s)?(?:highlight|highlight-ipynb|clipboard-copy-txt)(?:\s[^"]*)?")(?! data-search-exclude)'
)


# the bounds of collapsed blocks, and the tables inside them
_DETAILS_TAG = re.compile(r"<details\b|</details>")
_TABLE = re.compile(r"<table\b(?![^>]*data-search-exclude)")


def _collapsed(html):
    """(start, end) of each outermost <details> block of the page (nested ones inside it)."""
    spans, depth, start = [], 0, 0
    for m in _DETAILS_TAG.finditer(html):
        if m.group().startswith("</"):
            depth -= 1
            if depth == 0:
                spans.append((start, m.end()))
            depth = max(depth, 0)
        else:
            if depth == 0:
                start = m.start()
            depth += 1
    return spans


def exclude_collapsed_tables(html):
    """The page with every table inside a collapsed block marked data-search-exclude; the
    block's prose, its summary and the rest of the page are left as they are."""
    out, at = [], 0
    for start, end in _collapsed(html):
        out += [html[at:start], _TABLE.sub("<table data-search-exclude", html[start:end])]
        at = end
    return "".join(out) + html[at:]


def on_page_content(html, page, config, files):
    return exclude_collapsed_tables(_CODE_BLOCK.sub(r"\1 data-search-exclude", html))


# --------------------------------------------------------------------------- one index per language

_CONFIG = re.compile(r'(<script id="__config" type="application/json">)(.*?)(</script>)', re.DOTALL)


def split_index(index, languages):
    """{language folder ("" for the default): its own search index}; `languages` is
    [(locale, default)] in build order, index["config"]["lang"] the lunr languages in that
    order. A location "en/occupancy/" belongs to en, as "occupancy/"."""
    others = [locale for locale, default in languages if not default]
    lunr = index["config"].get("lang") or []
    out = {}
    for i, (locale, default) in enumerate(languages):
        prefix = "" if default else f"{locale}/"
        if default:
            docs = [d for d in index["docs"] if not any(d["location"].startswith(f"{o}/") for o in others)]
        else:
            docs = [{**d, "location": d["location"][len(prefix):]} for d in index["docs"]
                    if d["location"].startswith(prefix)]
        config = dict(index["config"])
        if len(lunr) == len(languages):
            config["lang"] = [lunr[i]]
        out[prefix] = {"config": config, "docs": docs}
    return out


def rebase(html, page_dir, folder):
    """The page's Material config with `base` at its language's folder (where that
    language's search index is), instead of the site's root."""
    def repl(m):
        settings = json.loads(m.group(2))
        settings["base"] = posixpath.relpath(folder or ".", page_dir or ".")
        return m.group(1) + json.dumps(settings, ensure_ascii=False) + m.group(3)
    return _CONFIG.sub(repl, html, count=1)


@event_priority(-200)  # after mkdocs-static-i18n (-100) has written the index of all languages
def on_post_build(config):
    """mkdocs-static-i18n writes one search/search_index.json with every language, which
    every page loads (about 300 KB): each language gets its own, in its folder
    (search/ and en/search/), and that language's pages look there. A search finds pages
    in the reader's language, and each page loads about half as much."""
    i18n = config.plugins.get("i18n")
    if i18n is None or i18n.building:  # a language's own build inside i18n's: not final yet
        return
    root = Path(config.site_dir)
    path = root / "search" / "search_index.json"
    if not path.is_file():
        return
    languages = [(lang.locale, lang.default) for lang in i18n.config.languages if lang.build]
    parts = split_index(json.loads(path.read_text(encoding="utf-8")), languages)
    for folder, index in parts.items():
        target = root / folder / "search" / "search_index.json"
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(json.dumps(index, ensure_ascii=False, separators=(",", ":")), encoding="utf-8")
        if not folder:
            continue
        for page in (root / folder).rglob("*.html"):
            rel = page.relative_to(root).parent.as_posix()
            text = page.read_text(encoding="utf-8")
            page.write_text(rebase(text, rel, folder.rstrip("/")), encoding="utf-8")
