"""SVG figures (matplotlib), deterministic so that re-rendering gives the same bytes."""
from __future__ import annotations

import io
import re
import textwrap

from ..text.catalog import t
from ..text.format import fmt_num
from ..verdict import median
from .extra_tables import point_time
from .header import header
from .markdown import label


def display_name(name, lang):
    """A variant's display name as figure text (no Markdown backticks)."""
    return label(name, lang).replace("`", "")


# Every figure is drawn for a phone first: 4.8 inches wide (346 pt, the SVG's own unit), it
# shrinks to the narrowest column a figure has on a 390 px screen, 332 px inside an opened
# collapsed block, where 12 pt text still reads at 11 px or more, the body's small print
# (tests/test_figures.py checks every SVG: its smallest text × 332 / its width;
# tests/test_browser.py the figures as drawn at 390 px). The legend
# goes under the plot, so that it never widens the figure; tick labels are plain numbers
# (no 10² exponents in small type); each series differs in colour and marker.
WIDTH_IN = 4.8
FONT_PT = 12
PHONE_COLUMN_PX = 332  # the column inside an opened collapsed block at 390 px (358 outside)
MIN_TEXT_PX = 11
TICK_LABEL_CHARS = 20  # a long variant name on the y axis wraps, so the plot keeps its width
MARKERS = ("o", "s", "^", "D", "v", "P", "X", "*", "h", "<")


def marker(i):
    return MARKERS[i % len(MARKERS)]


def bar_markers(ax, xs, ys, i, label, horizontal=False):
    """A bar series' marker at the end of each bar, in the bar's colour: the legend shows
    colour and marker, so two series differ in both (hatching would weigh 5 times as much)."""
    pts = (ys, xs) if horizontal else (xs, ys)
    ax.plot(*pts, linestyle="none", marker=marker(i), color=f"C{i}", markeredgecolor="black",
            markeredgewidth=0.6, markersize=7, label=label)


def pyplot():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    plt.rcParams.update({"svg.hashsalt": "sdpa-under-the-profiler", "svg.fonttype": "none",
                         "font.size": FONT_PT, "legend.fontsize": FONT_PT, "xtick.labelsize": FONT_PT,
                         "ytick.labelsize": FONT_PT, "axes.titlesize": FONT_PT, "axes.labelsize": FONT_PT})
    return plt


def figure(plt, height_in):
    """A figure of the phone-first width, laid out so that a legend below fits in."""
    return plt.subplots(figsize=(WIDTH_IN, height_in), layout="constrained")


def plain_log_ticks(axis, lang):
    """Tick labels of a log axis as the page writes numbers (1 000, 10 000), not 10³."""
    from matplotlib.ticker import FuncFormatter

    axis.set_major_formatter(FuncFormatter(lambda v, _: fmt_num(v, lang, 0 if v >= 1 else 1)))


TITLE_CHARS = 40  # a line of the title at FONT_PT in WIDTH_IN


def title(ax, text, gpu=None):
    """The title, wrapped to the figure's width; the GPU's name, after " · ", is never
    split over two lines."""
    lines = textwrap.wrap(text, TITLE_CHARS)
    if gpu:
        if len(lines[-1]) + 3 + len(gpu) <= TITLE_CHARS:
            lines[-1] += f" · {gpu}"
        else:
            lines.append(gpu)
    ax.set_title("\n".join(lines))


def legend_below(fig, ax, columns=2):
    """The legend under the plot, in `columns` columns, without a frame."""
    handles, labels = ax.get_legend_handles_labels()
    if handles:
        fig.legend(handles, labels, loc="outside lower center", ncols=columns, frameon=False,
                   handlelength=2.2, columnspacing=1.0)


# matplotlib names a marker, clip path or hatch by a hash of its coordinates ("m", "p", "h"
# and 10 hex digits; svg.hashsalt only salts it), and the last bits of those floats differ
# between CPUs (numpy's SIMD log10 on a log axis): the same picture, other bytes. So every
# id is renamed in document order, `<kind>-<n>`, numbered per kind from 1, and every
# reference to it rewritten; tests/test_figures.py checks every committed figure.
_HASHED = {"m": "marker", "p": "clip", "h": "hatch"}
_ID = re.compile(r'\bid="([^"]*)"')
_HASH_ID = re.compile(r"([a-z])[0-9a-f]{10}")
_COUNTED_ID = re.compile(r"([A-Za-z][\w.]*?)_\d+")
_REF = re.compile(r'(\bid="|url\(#|href="#)([^")]*)')


def id_kind(ident):
    """The kind an id of matplotlib's SVG names: "marker" for a hashed marker, "line2d" for
    line2d_7, "id" for any other."""
    hashed, counted = _HASH_ID.fullmatch(ident), _COUNTED_ID.fullmatch(ident)
    if hashed and hashed.group(1) in _HASHED:
        return _HASHED[hashed.group(1)]
    return counted.group(1) if counted else "id"


def sequential_ids(svg):
    """The SVG with every id renamed `<kind>-<n>` in document order and every reference
    (url(#..), href="#..", xlink:href="#..") to it rewritten: ids that no float decides.
    A reference to an id the document lacks is an error, not a dangling link."""
    names, counts = {}, {}
    for ident in _ID.findall(svg):
        if ident in names:
            raise ValueError(f"the SVG has the id {ident!r} twice")
        kind = id_kind(ident)
        counts[kind] = counts.get(kind, 0) + 1
        names[ident] = f"{kind}-{counts[kind]}"

    def rename(m):
        if m.group(2) not in names:
            raise ValueError(f"the SVG refers to {m.group(2)!r}, an id it does not have")
        return m.group(1) + names[m.group(2)]

    return _REF.sub(rename, svg)


# Coordinates, the same way: matplotlib prints them to 6 decimals, and a value that a log
# axis puts within a unit in the last place of a rounding tie (x.xxxxxx5) prints one way on
# one CPU and the other way on another (numpy's log10 differs in the last bits between its
# AVX-512 and AVX2 code). Every number of the geometry (path data, positions, sizes, the
# view box, translations) is snapped to a grid of 1/64 pt instead, 0.016 pt, far below a
# pixel: the layout's own values (font metrics in 1/64 pt) lie on it, and a value within
# float noise of a tie between its points (an odd multiple of 1/128) is as unlikely as any
# one value is.
GRID = 64
_GEOMETRY = re.compile(r'(\s(?:d|x|y|width|height|viewBox|transform)=")([^"]*)(")')
_NUMBER = re.compile(r"-?\d+(?:\.\d+)?")


def _on_grid(m):
    text = f"{round(float(m.group(0)) * GRID) / GRID:.6f}".rstrip("0").rstrip(".")
    return "0" if text == "-0" else text


def snapped(svg):
    """The SVG with every number of its geometry on the 1/64 pt grid (GRID), printed as
    short as it goes: coordinates that no float's last bits decide."""
    return _GEOMETRY.sub(lambda m: m.group(1) + _NUMBER.sub(_on_grid, m.group(2)) + m.group(3), svg)


def save(plt, fig, path, lang, maker):
    """Write the figure as SVG at path, its header naming the function that drew it; its ids
    numbered in document order (sequential_ids), its coordinates on a grid (snapped)."""
    buf = io.StringIO()
    fig.savefig(buf, format="svg", metadata={"Date": None, "Creator": None}, bbox_inches="tight")
    plt.close(fig)
    head, sep, rest = sequential_ids(snapped(buf.getvalue())).partition("?>\n")
    path.write_text(head + sep + header(lang, (maker,)) + "\n" + rest, encoding="utf-8")
    return path


def cuda_vs_cpu(plt, results, lang, folder):
    ok = [(n, r) for n, r in results["variants"].items() if r["status"] == "ok" and r.get("cuda_time_us")]
    if not ok:
        return []
    fig, ax = figure(plt, 1.9 + 0.58 * len(ok))  # a row holds a name of up to three lines
    ys = range(len(ok))  # one row per variant, its name on the left: no rotated labels
    for i, (offset, key, col) in enumerate(((-0.2, "cuda_time_us", "col.cuda_time"),
                                             (0.2, "cpu_time_us", "col.cpu_time"))):
        at, values = [y + offset for y in ys], [median(r[key]) for _, r in ok]
        ax.barh(at, values, 0.4, color=f"C{i}")
        bar_markers(ax, at, values, i, t(col, lang), horizontal=True)
    ax.set_yticks(list(ys), [textwrap.fill(display_name(n, lang), TICK_LABEL_CHARS) for n, _ in ok])
    ax.invert_yaxis()
    ax.set_xscale("log")
    plain_log_ticks(ax.xaxis, lang)
    ax.set_xlabel(textwrap.fill(t("figure.bars_axis", lang, steps=results["config"]["steps"]), 46))
    title(ax, t("figure.bars_title", lang, gpu="").rstrip(" ,:·"), results["provenance"]["gpu_name"])
    legend_below(fig, ax, columns=1)  # side by side, the Norwegian labels widen the figure
    return [save(plt, fig, folder / f"cuda-vs-cpu.{lang}.svg", lang, cuda_vs_cpu)]


def _sweep_lines(ax, sweep, d, what, lang):
    for i, name in enumerate(dict.fromkeys(p["variant"] for p in sweep["points"])):
        pts = [p for p in sweep["points"] if p["variant"] == name and p["head_dim"] == d
               and p["status"] == "ok"]
        if what == "time":
            ys = [point_time(p) for p in pts]
        else:
            pts = [p for p in pts if p.get("peak_extra_mib") is not None]
            ys = [p["peak_extra_mib"] for p in pts]
        if pts:
            ax.plot([p["seq_len"] for p in pts], ys, marker=marker(i), color=f"C{i}",
                    label=display_name(name, lang))


def sweep_figure(plt, results, lang, folder, d, what):
    axis, heading = {"time": ("figure.time_axis", "figure.time_title"),
                   "memory": ("figure.mem_axis", "figure.mem_title")}[what]
    fig, ax = figure(plt, 5.2)
    _sweep_lines(ax, results["sweep"], d, what, lang)
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    lens = sorted({p["seq_len"] for p in results["sweep"]["points"]})
    ax.set_xticks(lens, [fmt_num(n, lang, 0) if i % 2 == 0 else "" for i, n in enumerate(lens)])
    plain_log_ticks(ax.yaxis, lang)
    ax.set_xlabel(t("figure.seq", lang))
    ax.set_ylabel(textwrap.fill(t(axis, lang, steps=results["sweep"]["steps"]), 40))
    title(ax, t(heading, lang, d=d), results["provenance"]["gpu_name"])
    ax.minorticks_off()  # a log axis draws dozens of minor ticks: weight, no help
    ax.grid(True, which="major", alpha=0.3)
    legend_below(fig, ax, columns=1)  # one column: two would widen the figure past a phone's column
    return save(plt, fig, folder / f"sweep-{what}-d{d}.{lang}.svg", lang, sweep_figure)


def render_figures(results, lang, folder):
    """Write figures/<name>.<lang>.svg; returns the paths written."""
    plt = pyplot()
    folder.mkdir(parents=True, exist_ok=True)
    written = cuda_vs_cpu(plt, results, lang, folder)
    sweep = results.get("sweep")
    for d in sweep["head_dims"] if sweep else ():
        written += [sweep_figure(plt, results, lang, folder, d, what) for what in ("time", "memory")]
    return written
