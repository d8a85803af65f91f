"""Issue 30, item 6: every committed figure reads on a phone. Shrunk to the narrowest
column of a 390 px screen (PHONE_COLUMN_PX, inside an opened collapsed block), its smallest
text is at least MIN_TEXT_PX, the body's small print."""
import re

import pytest
from pagecode import GENERATED

from report.render.figures import MIN_TEXT_PX, PHONE_COLUMN_PX

# the timelines (report/render/timelines.py) are inline SVGs 680 units wide that scroll
# sideways on a phone: their legibility there is the timeline helper's to settle (issue 30)
SVGS = sorted(p for p in GENERATED.glob("*/figures/*.svg") if not p.name.startswith("timeline-"))


def smallest_text_on_a_phone(svg: str) -> float:
    """The smallest font size of the SVG, in px, once its width is the phone's column."""
    width = float(re.search(r'viewBox="[\d.]+ [\d.]+ ([\d.]+) [\d.]+"', svg).group(1))
    sizes = [float(s) for s in re.findall(r"font-size: ?([\d.]+)px", svg)]
    return min(sizes) * min(1.0, PHONE_COLUMN_PX / width)


@pytest.mark.parametrize("path", SVGS, ids=lambda p: f"{p.parent.parent.name}/{p.name}")
def test_every_figure_s_text_reads_on_a_phone(path):
    assert smallest_text_on_a_phone(path.read_text(encoding="utf-8")) >= MIN_TEXT_PX


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
