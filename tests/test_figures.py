"""Issue 30, item 6: every committed figure reads on a phone. Shrunk to the narrowest
column of a 390 px screen (PHONE_COLUMN_PX, inside an opened collapsed block), its smallest
text is at least MIN_TEXT_PX, the body's small print. The timelines are not shrunk: they
keep the size they are drawn at and scroll sideways in their box, so on a phone their
text is the size it is drawn at (tests/test_browser.py: test_at_phone_width measures both
on the page)."""
import re

import pytest
from pagecode import DOCS, GENERATED

from report.render.figures import MIN_TEXT_PX, PHONE_COLUMN_PX

SVGS = sorted(p for p in GENERATED.glob("*/figures/*.svg") if not p.name.startswith("timeline-"))
# the timelines of the committed traces (report/render/timelines.py, drawn by
# report/doctor/output/svg.py): inline SVGs in a div.sdpa-timeline that scrolls sideways
TIMELINES = sorted(GENERATED.glob("*/figures/timeline-*.svg"))
TIMELINE_CSS = DOCS / "stylesheets" / "timeline.css"
# a font size in px: font-size: 12px (matplotlib), or the font shorthand's size (font:11px system-ui)
FONT_PX = re.compile(r"font(?:-size)?: ?(?:[^;{}\"]*? )?([\d.]+)px")


def font_sizes(svg: str) -> list[float]:
    return [float(s) for s in FONT_PX.findall(svg)]


def view_width(svg: str) -> float:
    return float(re.search(r'viewBox="[\d.]+ [\d.]+ ([\d.]+) [\d.]+"', svg).group(1))


def smallest_text_on_a_phone(svg: str) -> float:
    """The smallest font size of the SVG, in px, once its width is the phone's column."""
    return min(font_sizes(svg)) * min(1.0, PHONE_COLUMN_PX / view_width(svg))


def smallest_text_scrolled(svg: str) -> float:
    """The smallest font size of a timeline, in px, at the width it is drawn at (its width
    attribute; timeline.css keeps it, and the box scrolls): the phone's scale is 1."""
    drawn = float(re.search(r'<svg[^>]* width="([\d.]+)"', svg).group(1))
    return min(font_sizes(svg)) * drawn / view_width(svg)


@pytest.mark.parametrize("path", SVGS, ids=lambda p: f"{p.parent.parent.name}/{p.name}")
def test_every_figure_s_text_reads_on_a_phone(path):
    assert smallest_text_on_a_phone(path.read_text(encoding="utf-8")) >= MIN_TEXT_PX


@pytest.mark.parametrize("path", TIMELINES, ids=lambda p: f"{p.parent.parent.name}/{p.name}")
def test_every_timeline_s_text_reads_on_a_phone_at_its_drawn_size(path):
    svg = path.read_text(encoding="utf-8")
    assert font_sizes(svg), f"{path.name}: no font size found"
    assert smallest_text_scrolled(svg) >= MIN_TEXT_PX


def test_the_timeline_box_scrolls_and_keeps_the_drawing_s_size():
    """What the timelines' check above rests on: the box scrolls sideways, and the drawing in
    it is not shrunk to the column (no max-width, its own width, so its scale is 1)."""
    css = TIMELINE_CSS.read_text(encoding="utf-8")
    rules = dict(re.findall(r"([^{}]+)\{([^}]*)\}", re.sub(r"/\*.*?\*/", "", css, flags=re.S)))
    rules = {sel.strip(): body for sel, body in rules.items()}
    assert re.search(r"overflow-x: ?auto", rules[".md-typeset .sdpa-timeline"])
    drawing = rules[".md-typeset .sdpa-timeline > svg"]
    assert re.search(r"max-width: ?none", drawing) and not re.search(r"(?<![-\w])width", drawing)
    assert TIMELINES, "no timeline in the committed folders"


def test_the_font_shorthand_counts_and_a_scrolled_drawing_is_not_shrunk():
    shorthand = '<svg width="680" viewBox="0 0 680 250"><style>.a text{font:10px system-ui}</style></svg>'
    assert font_sizes(shorthand) == [10.0] and smallest_text_scrolled(shorthand) < MIN_TEXT_PX
    drawn_small = '<svg width="340" viewBox="0 0 680 250"><style>.a text{font:11px system-ui}</style></svg>'
    assert smallest_text_scrolled(drawn_small) == 5.5  # drawn at half its units: half the size
    assert font_sizes("<style>.h{font-weight:600}</style>") == []


def test_a_wide_figure_with_the_same_type_is_too_small():
    svg = '<svg viewBox="0 0 500 300"><text style="font-size: 12px">x</text></svg>'
    assert smallest_text_on_a_phone(svg) < MIN_TEXT_PX


def test_the_decode_legend_names_each_backend_once_then_each_line_style():
    from factory import shape_results

    from report.render import figures, shape_figures

    plt = figures.pyplot()
    fig = shape_figures.decode_figure(plt, shape_results(), "en")
    labels = [text.get_text() for text in fig.legends[0].get_texts()]
    plt.close(fig)
    styles = [label for label in labels if label.startswith(("kernel time, batch", "SDPA auto, wall time"))]
    backends = labels[:len(labels) - len(styles)]
    assert styles and labels[len(backends):] == styles  # the styles after the backends
    assert len(set(backends)) == len(backends) and not any("batch" in b for b in backends)
