"""A timeline of one profiled step of a trace, drawn as SVG: standard library only, so the
page's in-browser reader draws the reader's trace with this code too (Pyodide). What it
draws (pieces, Panels: lanes, events, gaps) is output/svg_pieces.py's; this module lays it
out and writes it.

    svg(panels, lang, ident)   the SVG of one or more panels on one time scale
    draw(paths, lang, count)   (the SVG, its panels) of the median step of trace files: the
                               pages' figures (report/render/timelines.py)
    draw_read(read, lang)      the same of files already read: `--svg`, from the reading it
                               explained
    reader_pieces, reader_view the page's reader: a trace file's pieces, kept, and one drawn

The lanes, top to bottom: the CPU ops and record_function ranges of the launching thread,
nested by depth; the launch calls and other runtime calls (those that launched nothing
drawn apart); one lane per GPU stream, with each activity's launch joined to it by a line
(the trace's correlation id). A launch call that put several activities on the GPU (a CUDA
graph's cudaGraphLaunch: Kineto gives each activity it replays the launch's correlation id)
is joined to the first, and a bracket over the stream spans all of them. Each idle
gap before an activity on its stream hatched and named by its cause, as model/timeline.py
tells it (host, stream, other; "profiler" where the host was in the profiler's own step
boundary, Timeline.opener). Kernel names are short (namer: the tables' short names), the full name
in each activity's <title>, which a pointer or the keyboard (each activity is a tab stop) shows.
"""
from __future__ import annotations

import html
import math
import re

from ...locale_numbers import number
from . import words_en, words_nb
from .svg_pieces import namer, panel, pieces

BREAK_PX = 30  # px: a stretch of nothing drawn (svg_pieces: HOLE_SHARE, HOLE_US) is cut to this
WIDTH, LEFT, RIGHT = 680, 112, 16  # px: the figure, the lane names' column, the right margin
LANE, PAD, HEAD, AXIS = 16, 3, 22, 44  # px: a lane, the space between lanes, a panel's heading, the axis
TICK_PX = 64  # px: the least space between two ticks
CHAR = 6.1  # px: the width of a character of 11 px text, for what fits in a box

# the drawing's words: the catalogs' svg.* sentences (output/words_*.py), by their short key
WORDS = {lang: {k.removeprefix("svg."): v for k, v in words.SENTENCES.items() if k.startswith("svg.")}
         for lang, words in (("nb", words_nb), ("en", words_en))}
CAUSE_WORD = {"host": "host", "stream": "stream_gap", "other": "other", "profiler": "profiler"}
# light and dark: fill, stroke, text; a pattern besides colour (memcpy stripes, memset dots,
# idle gaps hatched). The site's stylesheet sets the same variables for its own dark scheme.
LIGHT = ("--bg:#fff;--fg:#1a1a1a;--mute:#4a4a4a;--grid:#d0d0d0;--op:#dde3ea;--ops:#4f5d6b;--ln:#f7c98f;"
         "--lns:#8a4b00;--sy:#f2a7a2;--sys:#9b1c14;--k:#a9cbef;--ks:#1f4e79;--mc:#b3e0ba;--mcs:#1d6b2a;"
         "--ms:#dcc4ee;--mss:#5b2a86;--gap:#b3261e;--link:#6b6b6b")
DARK = ("--bg:#1e2129;--fg:#ececec;--mute:#c4c4c4;--grid:#454a57;--op:#3a4350;--ops:#a9b7c6;--ln:#6e4512;"
        "--lns:#f2b36b;--sy:#6e1f1a;--sys:#f49b94;--k:#1f4672;--ks:#8fc1f2;--mc:#1f5a2a;--mcs:#8bd699;"
        "--ms:#4b2c68;--mss:#cfa8ee;--gap:#ff8a80;--link:#a0a0a0")
# the system's scheme where the SVG stands alone; on the site, the scheme the reader picked
# (Material's data-md-color-scheme), which outranks the system's
STYLE = (
    ".{i},[data-md-color-scheme=default] .{i}{{" + LIGHT + "}}"
    "@media (prefers-color-scheme:dark){{.{i}{{" + DARK + "}}}}"
    "[data-md-color-scheme=slate] .{i}{{" + DARK + "}}"
    ".{i} text{{font:11px system-ui,-apple-system,'Segoe UI',Roboto,sans-serif;fill:var(--fg)}}"
    ".{i} .m{{fill:var(--mute)}}.{i} .h{{font-weight:600}}.{i} .bg{{fill:var(--bg)}}"
    ".{i} .g{{stroke:var(--grid);stroke-width:1;fill:none}}.{i} .o{{fill:var(--op);stroke:var(--ops);stroke-width:.5}}"
    ".{i} .l{{fill:var(--ln);stroke:var(--lns);stroke-width:.5}}"
    ".{i} .r{{fill:var(--bg);stroke:var(--lns);stroke-width:.8}}"
    ".{i} .s{{fill:var(--sy);stroke:var(--sys);stroke-width:.5}}"
    ".{i} .f{{stroke:var(--lns);stroke-width:1.5;fill:none}}"
    ".{i} .kernel{{fill:var(--k);stroke:var(--ks);stroke-width:1}}"
    ".{i} .memcpy{{fill:url(#{i}-mc);stroke:var(--mcs);stroke-width:1}}"
    ".{i} .memset{{fill:url(#{i}-ms);stroke:var(--mss);stroke-width:1}}"
    ".{i} .gap{{fill:url(#{i}-gap);stroke:var(--gap);stroke-width:.5}}.{i} .gt{{fill:var(--gap)}}"
    ".{i} .j{{stroke:var(--link);stroke-width:.6;opacity:.7}}"
    ".{i} g[tabindex]:focus>rect{{stroke-width:2.5;stroke:var(--fg)}}.{i} g[tabindex]:focus{{outline:none}}"
)
DEFS = ('<defs><pattern id="{i}-mc" width="6" height="6" patternUnits="userSpaceOnUse" '
        'patternTransform="rotate(45)"><rect width="6" height="6" style="fill:var(--mc)"/>'
        '<rect width="2" height="6" style="fill:var(--mcs)"/></pattern>'
        '<pattern id="{i}-ms" width="5" height="5" patternUnits="userSpaceOnUse">'
        '<rect width="5" height="5" style="fill:var(--ms)"/><circle cx="2.5" cy="2.5" r="1.2" style="fill:var(--mss)"/>'
        '</pattern><pattern id="{i}-gap" width="5" height="5" patternUnits="userSpaceOnUse" '
        'patternTransform="rotate(-45)"><rect width="5" height="5" style="fill:var(--bg)"/>'
        '<rect width="1.2" height="5" style="fill:var(--gap)"/></pattern></defs>')


_CONTROL = re.compile(r"[\x00-\x1f\x7f\x85\u2028\u2029]")  # as spaces: the SVG stays one element a line


def escape(text):
    """Text of the trace (any string) as SVG text or an attribute's value."""
    return html.escape(_CONTROL.sub(" ", str(text)))


def num(value, lang, decimals=1):
    """A number as the page writes it: 1,234.5 (en), 1 234,5 (nb)."""
    return number(0.0 if abs(value) < 0.5 * 10 ** -decimals else value, lang, decimals, minus="-")


def _x(p, t, scale):
    """px from the plot's left edge of t µs from panel p's start: a break's stretch of
    nothing drawn takes BREAK_PX, whatever its length."""
    px = t * scale
    for a, b in p.breaks:
        if t >= b:
            px += BREAK_PX - (b - a) * scale
        elif t > a:
            px += (BREAK_PX * (t - a) / (b - a)) - (t - a) * scale
    return LEFT + px


def _tick_step(scale):
    """The smallest round step (1, 2 or 5 times a power of ten µs) at least TICK_PX apart."""
    step = 10.0 ** math.floor(math.log10(TICK_PX / scale))
    for m in (1, 2, 5, 10):
        if step * m * scale >= TICK_PX:
            return step * m
    return step * 10


def _ticks(p, scale):
    """Tick values of each stretch the panel shows (between its breaks), in µs; a tick
    closer than TICK_PX to the one before is left out (at a break)."""
    step = _tick_step(scale)
    edges = [0.0] + [v for ab in p.breaks for v in ab] + [p.span]
    out, last = [], None
    for lo, hi in zip(edges[::2], edges[1::2], strict=True):
        k = math.ceil(lo / step - 1e-9)
        while k * step <= hi + 1e-9:
            x = _x(p, k * step, scale)
            if last is None or x - last >= TICK_PX:
                out.append(k * step)
                last = x
            k += 1
    return out


def _fit(text, width):
    """text cut to fit width px, with an ellipsis; '' where not even two characters fit."""
    room = int((width - 4) / CHAR)
    if room >= len(text):
        return text
    return text[:room - 1] + "…" if room >= 3 else ""


def _f(x):
    return f"{x:.1f}".rstrip("0").rstrip(".")


def svg(panels, lang="en", ident="tl"):
    """The SVG of the panels, one under the other on one time scale (the longest panel fills
    the width); ident prefixes its ids and classes, unique on a page."""
    w = WORDS[lang]
    plot = WIDTH - LEFT - RIGHT
    scale = min((plot - BREAK_PX * len(p.breaks)) / max(p.shown, 1e-3) for p in panels)
    out, y = [], 0.0
    for p in panels:
        y = _panel(out, p, y, scale, w, lang, ident)
    y = _legend(out, y, w, any(p.fans for p in panels))
    labels = ", ".join(p.label for p in panels)
    stepwise = all(p.piece.step for p in panels)
    title = w["title" if stepwise else "title_window"].format(labels=labels)
    head = (f'<svg xmlns="http://www.w3.org/2000/svg" class="{ident}" width="{WIDTH}" height="{_f(y)}" '
            f'viewBox="0 0 {WIDTH} {_f(y)}" role="group" aria-labelledby="{ident}-t {ident}-d">'
            f'<title id="{ident}-t">{escape(title)}</title><desc id="{ident}-d">{escape(w["desc"])}</desc>'
            f"<style>{STYLE.format(i=ident)}</style>{DEFS.format(i=ident)}"
            f'<rect class="bg bgf" width="{WIDTH}" height="{_f(y)}"/>')
    return head + "\n" + "\n".join(out) + "\n</svg>\n"


def _lane_name(lane, w):
    if lane[0] == "ops":
        return w["ops"] if lane[1] == 0 else ""
    if lane[0] == "runtime":
        return w["runtime"]
    return w["stream"].format(stream=lane[1][1])


def _panel(out, p, y, scale, w, lang, ident):
    kind, values = p.heading
    text = w[kind].format(label=p.label, kernel=num(p.piece.kernel_us, lang), **values)
    lines = [text] if len(text) * CHAR * 1.1 <= WIDTH - 8 else text.split(": ", 1)
    lines[:-1] = [line + ":" for line in lines[:-1]]
    for line in lines:  # a long heading in two lines: what is drawn, then its figures
        out.append(f'<text class="h" x="4" y="{_f(y + 15)}">{escape(line)}</text>')
        y += HEAD - 6
    y += 6
    top = {n: y + n * (LANE + PAD) for n in range(len(p.lanes))}
    bottom = y + len(p.lanes) * (LANE + PAD)
    for n, lane in enumerate(p.lanes):
        name = _lane_name(lane, w)
        if name:
            out.append(f'<text class="m" x="4" y="{_f(top[n] + 12)}">{escape(name)}</text>')
    ticks = _ticks(p, scale)
    for v in ticks:
        x = _x(p, v, scale)
        out.append(f'<line class="g" x1="{_f(x)}" y1="{_f(y - 2)}" x2="{_f(x)}" y2="{_f(bottom + 2)}"/>')
    for a, b in p.breaks:  # a cut in the time axis: two slanted lines across every lane
        x = _x(p, a, scale)
        elided = escape(w["cut"].format(us=num(b - a, lang, 0)))
        out.append(f'<g><title>{elided}</title><rect class="bg" x="{_f(x + 2)}" y="{_f(y - 2)}" '
                   f'width="{BREAK_PX - 4}" height="{_f(bottom - y + 16)}"/>'
                   f'<path class="g" d="M{_f(x + 8)} {_f(bottom + 14)}L{_f(x + 14)} {_f(y - 2)}'
                   f'M{_f(x + 16)} {_f(bottom + 14)}L{_f(x + 22)} {_f(y - 2)}"/></g>')

    def box(item):
        x = _x(p, item.start, scale)
        return x, max(_x(p, item.start + item.dur, scale) - x, 0.6 if item.act is None else 2.0), top[item.lane]

    for start, length, cause, after in p.gaps:
        x = _x(p, start, scale)
        gw = _x(p, start + length, scale) - x
        yy = top[after.lane]
        why = w[CAUSE_WORD[cause] + "_long"]
        title = escape(w["idle"].format(us=num(length, lang), why=why))
        label = _fit(w[CAUSE_WORD[cause]], gw)
        out.append(f'<g><title>{title}</title><rect class="gap" x="{_f(x)}" y="{_f(yy)}" '
                   f'width="{_f(gw)}" height="{LANE}"/></g>')
        if label:
            out.append(f'<text class="gt" x="{_f(x + gw / 2)}" y="{_f(yy + LANE + PAD + 9)}" '
                       f'text-anchor="middle">{escape(label)}</text>')
    fanned = {id(a) for _, acts in p.fans for a in acts[1:]}  # joined through their bracket
    for launch, act in p.links:
        if id(act) not in fanned:
            x1, _, y1 = box(launch)
            x2, _, y2 = box(act)
            out.append(f'<line class="j" x1="{_f(x1)}" y1="{_f(y1 + LANE)}" x2="{_f(x2)}" y2="{_f(y2)}"/>')
    for launch, acts in p.fans:  # one call, several activities: a bracket over them
        x1, _, yy = box(acts[0])
        end = max(a.start + a.dur for a in acts)
        x2 = max(_x(p, end, scale), x1 + 2.0)
        title = escape(w["fan_title"].format(name=launch.full, n=len(acts), span=num(end - acts[0].start, lang)))
        out.append(f'<g><title>{title}</title><path class="f" d="M{_f(x1)} {_f(yy + 4)}V{_f(yy - 1)}'
                   f'H{_f(x2)}V{_f(yy + 4)}"/></g>')
    for item in p.items:
        x, bw, yy = box(item)
        label = _fit(item.name, bw)
        text = f'<text x="{_f(x + 2)}" y="{_f(yy + 12)}">{escape(label)}</text>' if label else ""
        if item.act is not None:
            title = escape(w["at"].format(name=item.full, start=num(item.start, lang), dur=num(item.dur, lang)))
            out.append(f'<g tabindex="0"><title>{title}</title><rect class="{item.cls}" x="{_f(x)}" '
                       f'y="{_f(yy)}" width="{_f(bw)}" height="{LANE}"/>{text}</g>')
        else:  # a CPU event: its name on hover
            out.append(f'<rect class="{item.cls}" x="{_f(x)}" y="{_f(yy)}" width="{_f(bw)}" height="{LANE}">'
                       f'<title>{escape(item.full)}</title></rect>{text}')
    y = bottom + 12  # under the gap labels' line
    out.append(f'<line class="g" x1="{LEFT}" y1="{_f(y)}" x2="{_f(_x(p, p.span, scale))}" y2="{_f(y)}"/>')
    for v in ticks:
        out.append(f'<text class="m" x="{_f(_x(p, v, scale))}" y="{_f(y + 13)}" '
                   f'text-anchor="middle">{num(v, lang, 0)}</text>')
    axis = w["axis" if p.piece.step else "axis_window"]
    out.append(f'<text class="m" x="{LEFT}" y="{_f(y + 28)}">{escape(axis)}</text>')
    return y + AXIS


def _legend(out, y, w, fans=False):
    """The legend's keys (the bracket's only where a panel draws one), in lines that fit WIDTH."""
    keys = (("o", "op"), ("l", "launch"), ("r", "runtime_other"), ("s", "sync"), ("kernel", "kernel"),
            ("memcpy", "memcpy"), ("memset", "memset")) + ((("f", "fan"),) if fans else ()) + (("gap", "gap"),)
    x = 4.0
    for cls, word in keys:
        label = w[word]
        width = 14 + 4 + len(label) * CHAR + 12
        if x + width > WIDTH:
            x, y = 4.0, y + 20
        key = (f'<path class="f" d="M{_f(x)} {_f(y + 12)}V{_f(y + 4)}H{_f(x + 14)}V{_f(y + 12)}"/>' if cls == "f"
               else f'<rect class="{cls}" x="{_f(x)}" y="{_f(y + 2)}" width="14" height="12"/>')
        out.append(key + f'<text x="{_f(x + 18)}" y="{_f(y + 12)}">{escape(label)}</text>')
        x += width
    return y + 20


def draw(paths, lang, count=1):
    """(the SVG, its panels) of the median step of each trace file (count
    steps in a row from it), labelled with the file's name, on one time scale; TraceError
    where a file is no trace with GPU activity."""
    from ..reading.trace_file import read_trace

    return draw_read(((path, read_trace(path), None) for path in paths), lang, count)


def draw_read(read, lang, count=1):
    """draw() of files already read: (path, its Trace, the Timeline of its events or None), so
    that trace-doctor --svg draws from the reading it explained (one read and parse of the file)."""
    from pathlib import Path

    from ..reading.trace_file import TraceError
    from ..shown.safe import error_line

    found = []
    for path, trace, timeline in read:
        try:
            found.append((Path(path).name, pieces(trace, timeline)))
        except ValueError:
            raise TraceError(error_line(path, "no GPU activity (kernels, memcpy, memset) to draw")) from None
    short = namer(f for _, f in found)
    panels = []
    for name, f in found:
        first = max(0, min(f.default - (count - 1) // 2, len(f.items) - count)) if f.steps else f.default
        panels.append(panel(f, first, name, count, short))
    return svg(panels, lang, ident_of(*(n for n, _ in found))), panels


def reader_pieces(path):
    """The page's reader: the Pieces of the trace file at path, kept while the reader moves
    between them; None where it holds no GPU activity (TraceError where it is no trace)."""
    from ..reading.trace_file import read_trace

    try:
        return pieces(read_trace(path))
    except ValueError:
        return None


def reader_view(found, i, lang, name):
    """The page's reader: [the SVG of piece i (None: the one drawn first), its index, how many
    there are, whether they are steps]."""
    i = found.default if i is None else max(0, min(int(i), len(found.items) - 1))
    return [svg([panel(found, i, name, short=namer([found]))], lang, "tl-reader"), i, len(found.items), found.steps]


def ident_of(*names):
    """The SVG's id prefix from the trace files' names: tl-naive-math for naive.json.gz, math.json.gz."""
    stems = [re.sub(r"[^a-z0-9]+", "-", n.lower().split(".")[0]).strip("-") for n in names]
    return "tl-" + "-".join(s for s in stems if s)


__all__ = ["WORDS", "draw", "draw_read", "ident_of", "namer", "panel", "pieces", "reader_pieces", "reader_view", "svg"]
