"""MkDocs hook: accessibility fixes in the built HTML, and a page that works on a phone.

1. The search dialog (Material's <div class="md-search" role="dialog">) gets an accessible
   name: the search field's own label ("Søk", "Search") in the page's language.

2. Inline code gets a <wbr> after `::`, `_`, `.` and `/` (kernel names such as
   `pytorch_flash::flash_fwd_kernel`, paths), so a narrow table column or a phone breaks it
   between parts of the name instead of inside a word; docs/stylesheets/a11y.css stops
   Material's break-anywhere. <wbr> is not text: copying and the search index are unchanged.

Parts that Material builds in the browser (the tables' scroll boxes, the code blocks'
button bars) are named by docs/javascripts/a11y.js.
"""

from __future__ import annotations

import html
import re

from mkdocs.exceptions import PluginError

# --------------------------------------------------------------------------- search dialog

_SEARCH_DIALOG = re.compile(r'<div class="md-search" data-md-component="search" role="dialog"(?![^>]*aria-label)')
_SEARCH_INPUT_LABEL = re.compile(r'<input\b[^>]*class="md-search__input"[^>]*\baria-label="([^"]+)"')


def label_search_dialog(output: str, where: str) -> str:
    if 'data-md-component="search"' not in output:
        return output
    label = _SEARCH_INPUT_LABEL.search(output)
    if not label:
        raise PluginError(f"{where}: the search field has no aria-label to name the search dialog with")
    output, count = _SEARCH_DIALOG.subn(lambda m: f'{m.group(0)} aria-label="{label.group(1)}"', output)
    if count != 1:
        raise PluginError(f"{where}: Material's search dialog markup changed; hooks/a11y.py did not name it")
    return output


# --------------------------------------------------------------------------- inline code

# <code> with plain text only: not a code block (<pre><span></span><code>), not highlighted
_INLINE_CODE = re.compile(r"(?<!<pre>)(?<!</span>)<code>([^<]+)</code>")
_PART_END = re.compile(r"::|_+|\.|/")
_MIN_PART = 4  # no break that leaves fewer characters than this on either side


def break_points(text: str) -> list[int]:
    """Offsets in `text` where a line may break: after `::`, a run of `_`, a `.` between
    a letter or digit and a letter, or a `/`."""
    points = []
    last = 0
    for m in _PART_END.finditer(text):
        end = m.end()
        if end >= len(text) or end - last < _MIN_PART or len(text) - end < _MIN_PART:
            continue
        token, before, after = m.group(), text[m.start() - 1] if m.start() else "", text[end]
        if token == "." and not (before.isalnum() and re.match(r"[A-Za-z]{3}", text[end:])):
            continue  # 2.11.0, tables.py, .json
        if token.startswith("_") and not (before.isalnum() and after.isalnum()):
            continue  # _flash, __init__
        if token == "::" and not (after.isalnum() or after == "_"):
            continue
        points.append(end)
        last = end
    return points


def break_inline_code(content: str) -> str:
    def add_breaks(m: re.Match) -> str:
        text = html.unescape(m.group(1))
        points = break_points(text)
        if not points:
            return m.group(0)
        parts = [text[i:j] for i, j in zip([0, *points], [*points, len(text)])]
        return "<code>" + "<wbr>".join(html.escape(p, quote=False) for p in parts) + "</code>"

    return _INLINE_CODE.sub(add_breaks, content)


# --------------------------------------------------------------------------- events


def on_page_content(html_content, page, config, files):
    return break_inline_code(html_content)


def on_post_page(output, page, config):
    return label_search_dialog(output, page.file.src_uri)


def on_post_template(output, template_name, config):
    return label_search_dialog(output, template_name)
