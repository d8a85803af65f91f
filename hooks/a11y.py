"""MkDocs hook: accessibility fixes in the built HTML, and a page that works on a phone.

1. The search dialog (Material's <div class="md-search" role="dialog">) gets an accessible
   name: the search field's own label ("Søk", "Search") in the page's language.

2. Inline code gets a <wbr> after `::`, `_`, `.` and `/` (kernel names such as
   `pytorch_flash::flash_fwd_kernel`, paths), so a narrow table column or a phone breaks it
   between parts of the name instead of inside a word; docs/stylesheets/a11y.css stops
   Material's break-anywhere. A word with a hyphen (`--all`) is kept on one line.
   <wbr> and <span> are not text: copying and the search index are unchanged.

3. A figure (a paragraph that is only a local image) gets width and height, read from the
   SVG or PNG file, so the page does not jump while it loads, and the class `sdpa-figure`,
   with which a11y.css keeps it at its own size on a phone and lets it scroll sideways.
   A local image that cannot be measured fails the build.

4. A table or a code block below the first screen (not among the page's first blocks, nor
   its last) is marked data-cv, for a11y.css to have the browser skip it while it is off
   screen (content-visibility: auto), with its rows (a table gets a <div> of its own for
   it) or its lines (style="--sdpa-lines: 12"), from which a11y.css holds no less room than the block
   takes: content that spilled out of its room would lie, to a checker that asks every
   element for its box (axe-core in Lighthouse), over what follows.

Parts that Material builds in the browser (the tables' scroll boxes, the code blocks'
button bars) are named by docs/javascripts/a11y.js.
"""

from __future__ import annotations

import html
import posixpath
import re
import struct
from html.parser import HTMLParser
from pathlib import Path

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


_HYPHENATED = re.compile(r"(?<!\S)(?=\S{2,40}(?!\S))(\S*-\S*)")


def _keep_hyphens(part: str) -> str:
    """A browser may break after a hyphen: `--all` would end a line with `--`. Words of up
    to 40 characters with a hyphen (command-line options, `compile(mode="reduce-overhead")`
    after the break at its dot) are kept whole: 40 monospace characters fit a phone's column."""
    return _HYPHENATED.sub(r'<span class="sdpa-nowrap">\1</span>', html.escape(part, quote=False))


def break_inline_code(content: str) -> str:
    def add_breaks(m: re.Match) -> str:
        text = html.unescape(m.group(1))
        points = break_points(text)
        if not points and "-" not in text:
            return m.group(0)
        parts = [text[i:j] for i, j in zip([0, *points], [*points, len(text)], strict=True)]
        return "<code>" + "<wbr>".join(_keep_hyphens(p) for p in parts) + "</code>"

    return _INLINE_CODE.sub(add_breaks, content)


# --------------------------------------------------------------------------- figures

_FIGURE = re.compile(r"<p>(<img\b[^>]*>)</p>")
_ATTR = r'(?<![-\w]){}="([^"]*)"'
_SVG_TAG = re.compile(r"<svg\b[^>]*>", re.DOTALL)
_LENGTH = re.compile(r"^\s*([\d.]+)\s*(px|pt|in|cm|mm)?\s*$")
_PX_PER = {None: 1.0, "px": 1.0, "pt": 4 / 3, "in": 96.0, "cm": 96 / 2.54, "mm": 96 / 25.4}


def _attr(tag: str, name: str) -> str | None:
    m = re.search(_ATTR.format(name), tag)
    return m.group(1) if m else None


def image_size(path: Path) -> tuple[int, int]:
    """(width, height) in CSS pixels of an SVG (its width/height, else its viewBox) or PNG."""
    data = path.read_bytes()
    if data[:8] == b"\x89PNG\r\n\x1a\n":
        return struct.unpack(">II", data[16:24])
    tag = _SVG_TAG.search(data[:4000].decode("utf-8", "replace"))
    if tag:
        width, height = _attr(tag.group(0), "width"), _attr(tag.group(0), "height")
        if width and height and _LENGTH.match(width) and _LENGTH.match(height):
            w, h = (_LENGTH.match(v) for v in (width, height))
            return round(float(w.group(1)) * _PX_PER[w.group(2)]), round(float(h.group(1)) * _PX_PER[h.group(2)])
        box = _attr(tag.group(0), "viewBox")
        if box and len(box.replace(",", " ").split()) == 4:
            _, _, w, h = (float(v) for v in box.replace(",", " ").split())
            return round(w), round(h)
    raise ValueError(f"{path}: not a PNG, or an SVG without width/height or viewBox")


def size_figures(content: str, page, files) -> str:
    by_dest = {f.dest_uri: f for f in files}
    page_dir = page.url if page.url.endswith("/") or not page.url else posixpath.dirname(page.url) + "/"

    def figure(m: re.Match) -> str:
        img = m.group(1)
        src = html.unescape(_attr(img, "src") or "")
        if not src or re.match(r"^[a-z][a-z0-9+.-]*:|^//", src, re.IGNORECASE):
            return m.group(0)  # data: URIs and other sites' images are left alone
        if _attr(img, "width") is None or _attr(img, "height") is None:
            target = posixpath.normpath(posixpath.join(page_dir, src.split("#")[0].split("?")[0]))
            file = by_dest.get(target)
            try:
                if file is None:
                    raise ValueError(f"no file is built to {target}")
                width, height = image_size(Path(file.abs_src_path))
            except (OSError, ValueError) as exc:
                raise PluginError(f"{page.file.src_uri}: cannot give {src} a width and height: {exc}") from exc
            img = re.sub(r"^<img\b", f'<img width="{width}" height="{height}"', img)
        return f'<p class="sdpa-figure">{img}</p>'

    return _FIGURE.sub(figure, content)


# --------------------------------------------------------------------------- blocks far down

NEAR, FAR = 7, 12  # top-level blocks before these fill the first screen: on a phone, at 1920 x 1200
LAST = 3  # and the last blocks, above the footer, are always drawn
ROW_EM = 11  # the tallest a table row gets at 360 px (a cell of prose), in the page's em
VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}


class _Blocks(HTMLParser):
    """The top-level elements of a page's content: (tag, class, offset of its start tag),
    and for each the offset of the first <pre> and <table> start tag inside it."""

    def __init__(self, text):
        super().__init__(convert_charrefs=False)
        self.lines = [0]
        # HTMLParser counts lines at "\n" alone; str.splitlines also breaks at \x85, \u2028
        # and others, which a stranger's string in a table can hold, and the offsets would drift
        for line in text.split("\n"):
            self.lines.append(self.lines[-1] + len(line) + 1)
        self.depth, self.blocks = 0, []
        self.feed(text)
        self.close()

    def _at(self):
        line, col = self.getpos()
        return self.lines[line - 1] + col

    def handle_starttag(self, tag, attrs):
        if self.depth == 0:
            self.blocks.append({"tag": tag, "class": dict(attrs).get("class") or "", "at": self._at()})
        elif tag in ("pre", "table") and self.blocks:
            self.blocks[-1].setdefault(tag, self._at())
        if tag == "table" and self.depth == 0:
            self.blocks[-1].setdefault("table", self._at())
        if tag not in VOID:
            self.depth += 1

    def handle_startendtag(self, tag, attrs):
        if self.depth == 0:
            self.blocks.append({"tag": tag, "class": "", "at": self._at()})

    def handle_endtag(self, tag):
        if tag not in VOID:
            self.depth = max(self.depth - 1, 0)


def mark_far_blocks(content: str) -> str:
    """data-cv="near" (a phone skips it while it is off screen) or "far" (every screen
    does), by its place among the page's blocks, on the <pre> of a top-level code block,
    with its lines, and on a <div class="sdpa-block"> around a top-level table, with its
    rows: what a11y.css needs to hold no less room than the block takes. The table gets a
    box of its own because Material wraps it in its scroll box only once the page has
    started, after the first restyles that the skipping is for."""
    blocks = _Blocks(content).blocks
    edits = []  # (offset of a start tag, its new opening "<table ..." or "<pre ...")
    for i, block in enumerate(blocks):
        if i < NEAR or i >= len(blocks) - LAST:
            continue
        zone = "far" if i >= FAR else "near"
        if block["tag"] == "table":
            end = content.index("</table>", block["at"]) + len("</table>")
            rows = content.count("<tr", block["at"], end)
            wrapped = (f'<div class="sdpa-block" data-cv="{zone}" style="--sdpa-rows: {rows}">'
                       + content[block["at"]:end] + "</div>")
            edits.append((block["at"], content[block["at"]:end], wrapped))
        elif block["tag"] == "div" and "highlight" in block["class"].split() and "pre" in block:
            end = content.index("</pre>", block["pre"])
            lines = content.count("\n", block["pre"], end) + 1
            edits.append((block["pre"], "<pre", f'<pre data-cv="{zone}" style="--sdpa-lines: {lines}"'))
    for at, old, new in sorted(edits, reverse=True):
        assert content.startswith(old, at), (old, content[at:at + 20])
        content = content[:at] + new + content[at + len(old):]
    return content


# --------------------------------------------------------------------------- events


def on_page_content(html_content, page, config, files):
    html_content = break_inline_code(html_content)
    return mark_far_blocks(size_figures(html_content, page, files))


def on_post_page(output, page, config):
    return label_search_dialog(output, page.file.src_uri)


def on_post_template(output, template_name, config):
    return label_search_dialog(output, template_name)
