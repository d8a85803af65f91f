"""The pages' timelines: one profiled step of the committed traces (traces/<variant>.json.gz),
drawn by report/doctor/output/svg.py (the code the in-browser reader draws a reader's trace
with), as figures/<name>.<lang>.svg, and beside each figure its caption and the events it
draws as a table (tables/<name>.<lang>.md), its text alternative.

    FIGURES                     name -> the traces drawn on one time scale, and how many
                                steps in a row each panel draws (from the median one)
    draw(paths, lang, count)    the SVG and its panels, for any trace files (output/svg.py's)
    render_timelines(...)       every figure of FIGURES for one GPU folder
"""
from __future__ import annotations

from pathlib import Path

from ..doctor.explain import TraceError, read_trace
from ..doctor.output.svg import CAUSE_WORD, CHAR, WORDS, draw, escape
from ..doctor.output.svg_pieces import pieces
from ..text.catalog import t
from ..text.format import fmt_sig
from .header import header
from .markdown import code_safe, markdown_safe, md_table

FIGURES = {
    "timeline-home": (("auto",), 1),
    "timeline-naive-math": (("naive", "naive_inplace", "math"), 1),
    "timeline-fused": (("flash", "efficient", "cudnn"), 1),
    # unpinned SDPA at the small shape, eager and replayed from a CUDA graph (an --overhead run on a GPU)
    "timeline-gpu-waits": (("small_auto", "small_auto_graph"), 3),
}


def timeline_figure(paths, lang, count):
    """figures/<name>.<lang>.svg: its first line names this function, the rest is draw()'s SVG."""
    drawn, panels = draw(paths, lang, count)
    return header(lang, (timeline_figure,)) + "\n" + drawn, panels


def _lane(lane, lang):
    if lane[0] == "ops":
        return t("timeline.lane_ops", lang, depth=lane[1])
    if lane[0] == "runtime":
        return t("timeline.lane_runtime", lang)
    return t("timeline.lane_stream", lang, stream=markdown_safe(lane[1][1]))


def timeline_table(panels, lang, count):
    """The caption (which step; each panel's GPU activities, the launch calls that launched
    them (a CUDA graph's replay: one for all of them), its GPU idle time by cause) and,
    collapsed, every event the figure draws: trace, lane, name, start and duration in µs
    from the panel's start."""
    words = WORDS[lang]
    causes = "; ".join(f"{words[w]} ({words[w + '_long']})" for w in CAUSE_WORD.values())
    lines = [t("timeline.caption" if count == 1 else "timeline.caption_steps", lang, count=count, causes=causes)]
    for p in panels:
        idle = {c: sum(g[1] for g in p.gaps if g[2] == c) for c in ("host", "stream", "other", "profiler")}
        step = "–".join(f"`{code_safe(s)}`" for s in p.piece.step.split("–"))  # steps in a row: two code spans
        lines.append(t("timeline.panel", lang, trace=f"`{code_safe(p.label)}`", step=step,
                       kernel=fmt_sig(p.piece.kernel_us, lang), acts=len(p.piece.acts),
                       launches=len({id(a.launch) for a in p.piece.acts if a.launch is not None}),
                       host=fmt_sig(idle["host"], lang), other=fmt_sig(idle["other"] + idle["stream"], lang),
                       profiler=fmt_sig(idle["profiler"], lang)))
    rows = []
    for p in panels:
        for item in sorted(p.items, key=lambda i: (i.lane, i.start)):
            # a GPU activity by the short name it is drawn with (the full one is in the figure's
            # title and the page's kernel tables): a column of full generated names would be most of the page
            rows.append([f"`{code_safe(p.label)}`", _lane(p.lanes[item.lane], lang), f"`{code_safe(item.name)}`",
                         fmt_sig(item.start, lang), fmt_sig(item.dur, lang)])
    table = md_table([t("timeline.col_trace", lang), t("timeline.col_lane", lang), t("timeline.col_name", lang),
                      t("timeline.col_start", lang), t("timeline.col_dur", lang)], rows, ["l", "l", "l", "r", "r"])
    block = "\n".join("    " + line for line in table.split("\n"))
    return "\n\n".join([lines[0], "\n".join(lines[1:]), f'??? note "{t("timeline.events", lang)}"\n\n{block}'])


def missing_figure(lang):
    """figures/<name>.<lang>.svg of traces the run did not keep: the "not measured" line where
    the drawing would be, as wide as its text (no sideways scrolling on a phone), in the
    page's text colour."""
    said = t("finding.missing", lang)
    width = round(len(said) * CHAR + 8)
    return (header(lang, (missing_figure,)) + "\n"
            f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="24" viewBox="0 0 {width} 24" '
            f'role="img" aria-label="{escape(said)}"><text x="4" y="16" style="font:11px system-ui,sans-serif;'
            f'fill:currentColor">{escape(said)}</text></svg>\n')


def render_timelines(traces_dir, figures_dir, lang):
    """({name: (Markdown body, writers)} for tables/, the paths written): figures/<name>.<lang>.svg
    for each of FIGURES. A figure whose traces are all missing or hold no GPU activity (a
    CPU run's, a run without --overhead for the small shape's) says "not measured" where it
    would be drawn (missing_figure), and so does its caption."""
    out, written = {}, []
    for name, (variants, count) in FIGURES.items():
        paths = [Path(traces_dir) / f"{v}.json.gz" for v in variants] if traces_dir is not None else []
        usable = []
        for path in paths:
            try:
                if path.is_file():
                    pieces(read_trace(path))
                    usable.append(path)
            except (TraceError, ValueError):
                continue
        target = Path(figures_dir) / f"{name}.{lang}.svg"
        if usable:
            text, panels = timeline_figure(usable, lang, count)
            body = timeline_table(panels, lang, count)
        else:
            text, body = missing_figure(lang), t("finding.missing", lang)
        target.write_text(text, encoding="utf-8")
        written.append(target)
        out[name] = (body, (timeline_table,))
    return out, written
