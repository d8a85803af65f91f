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


# Issue 50, item 1: a figure's bytes hang on no float's last bits. matplotlib names markers
# and clip paths by a hash of their coordinates, which differ between CPUs; save() renames
# every id `<kind>-<n>` in document order (figures.sequential_ids).
SVG_ID = re.compile(r'\bid="([^"]*)"')
SVG_REF = re.compile(r'(?:url\(#|href="#)([^")]*)')
HEX_RUN = re.compile(r"[0-9a-f]{6,}")  # a hash's digits (matplotlib's are 10), never a count's


def ids_follow_document_order(svg: str) -> list[str]:
    """What is wrong with the SVG's ids: each must be `<kind>-<n>`, n counting 1, 2, 3 per
    kind in the order the ids appear, and every reference must name one of them."""
    wrong, counts = [], {}
    ids = SVG_ID.findall(svg)
    for ident in ids:
        kind, _, n = ident.rpartition("-")
        counts[kind] = counts.get(kind, 0) + 1
        if not kind or n != str(counts[kind]) or HEX_RUN.search(kind):
            wrong.append(f"{ident}: not {kind or '<kind>'}-{counts[kind]}")
    wrong += [f"#{ref}: no such id" for ref in SVG_REF.findall(svg) if ref not in ids]
    return wrong


@pytest.mark.parametrize("path", SVGS, ids=lambda p: f"{p.parent.parent.name}/{p.name}")
def test_every_figure_s_ids_are_numbered_in_document_order(path):
    svg = path.read_text(encoding="utf-8")
    assert SVG_ID.findall(svg) and SVG_REF.findall(svg)  # the check below has ids to check
    assert ids_follow_document_order(svg) == []


@pytest.mark.parametrize("path", TIMELINES, ids=lambda p: f"{p.parent.parent.name}/{p.name}")
def test_every_timeline_s_ids_are_its_traces_names_and_fixed_suffixes(path):
    """The timelines (report/doctor/output/svg.py) name their ids from the trace files'
    names, which are fixed, plus a fixed suffix per part: no coordinate in them."""
    svg = path.read_text(encoding="utf-8")
    root = re.search(r'<svg[^>]* class="([^"]+)"', svg).group(1)
    ids = SVG_ID.findall(svg)
    assert ids and all(ident.startswith(root + "-") for ident in ids)
    assert {ident[len(root) + 1:] for ident in ids} <= {"t", "d", "mc", "ms", "gap"}


def test_the_id_check_fails_on_matplotlib_s_hashed_ids():
    hashed = '<g id="figure_1"><path id="m34202a68c6"/></g><use xlink:href="#m34202a68c6"/>'
    assert len(ids_follow_document_order(hashed)) == 2
    numbered = '<g id="figure-1"><path id="marker-1"/><path id="marker-3"/></g><use href="#marker-2"/>'
    assert ids_follow_document_order(numbered) == ["marker-3: not marker-2", "#marker-2: no such id"]


def _drawn(figures, tmp_path, name, top):
    """A figure whose axes' top edge is `top` (figure fraction), with markers and a clip path,
    as matplotlib writes it (as save() calls it) and as figures.save writes it."""
    import io

    plt = figures.pyplot()
    fig = plt.figure(figsize=(figures.WIDTH_IN, 3))
    ax = fig.add_axes((0.1, 0.1, 0.8, top - 0.1))
    ax.plot([1, 10, 100], [3, 1, 2], marker="o")
    ax.set_xscale("log")
    raw = io.StringIO()
    fig.savefig(raw, format="svg", metadata={"Date": None, "Creator": None}, bbox_inches="tight")
    figures.save(plt, fig, tmp_path / name, "en", _drawn)
    return raw.getvalue(), (tmp_path / name).read_text(encoding="utf-8")


def test_a_coordinate_s_last_bits_change_no_id(tmp_path):
    """The axes' edge moved by one unit in the last place: matplotlib's own clip-path id
    changes (it hashes the float), and so does a coordinate it prints (the figure's height
    sits on a tie of its 6 decimals); the saved figure's bytes do not."""
    import math

    from report.render import figures

    raw_a, saved_a = _drawn(figures, tmp_path, "a.svg", 0.9)
    raw_b, saved_b = _drawn(figures, tmp_path, "b.svg", math.nextafter(0.9, 1.0))
    assert SVG_REF.findall(raw_a) != SVG_REF.findall(raw_b)  # what the renaming is for
    assert GEOMETRY.findall(raw_a) != GEOMETRY.findall(raw_b)  # what the grid is for
    assert saved_a == saved_b
    assert ids_follow_document_order(saved_a) == []


GEOMETRY = re.compile(r'\s(?:d|x|y|width|height|viewBox|transform)="([^"]*)"')


@pytest.mark.parametrize("path", SVGS, ids=lambda p: f"{p.parent.parent.name}/{p.name}")
def test_every_figure_s_coordinates_lie_on_the_grid(path):
    """Every number of a figure's geometry is a multiple of 1/GRID pt (figures.snapped), so a
    coordinate's last bits, which differ between CPUs, decide none of its digits."""
    from report.render.figures import GRID

    numbers = [float(n) for value in GEOMETRY.findall(path.read_text(encoding="utf-8"))
               for n in re.findall(r"-?\d+(?:\.\d+)?", value)]
    assert len(numbers) > 100
    assert [n for n in numbers if n * GRID != round(n * GRID)] == []


def test_a_reference_to_a_missing_id_is_refused():
    from report.render.figures import sequential_ids

    with pytest.raises(ValueError, match="pab12cd34ef"):
        sequential_ids('<svg><g clip-path="url(#pab12cd34ef)"/></svg>')
    assert sequential_ids('<svg><clipPath id="pab12cd34ef"/><g clip-path="url(#pab12cd34ef)"/></svg>') == (
        '<svg><clipPath id="clip-1"/><g clip-path="url(#clip-1)"/></svg>')
