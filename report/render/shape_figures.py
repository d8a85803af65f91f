"""The --shapes figures: decode, prefill, grouped-query attention, sliding window (the
tables: shape_tables.py).

Every figure is drawn whether or not the run measured the shapes, so that the page always
builds: without them each says "not measured on this GPU".
"""
from __future__ import annotations

import textwrap

from ..text.catalog import t
from ..text.format import fmt_num
from . import figures
from .extra_tables import point_time
from .keyed import keyed
from .shape_points import point_ok, points

FIGURES = ("decode", "prefill", "gqa", "sliding")


def _log_x(ax, xs, lang):
    """A log axis with a tick at each length measured, written as the page writes numbers."""
    if xs:
        ax.set_xscale("log", base=2)
        # every other tick labelled where they would crowd a phone-wide figure
        crowd = len(xs) > 4
        ax.set_xticks(xs, [fmt_num(x, lang, 0) if not crowd or i % 2 == 0 else "" for i, x in enumerate(xs)])


def _finish(ax, results, lang, title_key, xlabel_key=None, log=True, columns=2):
    figures.title(ax, t(title_key, lang), results["provenance"]["gpu_name"])
    if xlabel_key:
        ax.set_xlabel(t(xlabel_key, lang))
    steps = ((results.get("shapes") or {}).get("config") or {}).get("steps")
    stat = ", " + t("stat.median_steps", lang, steps=fmt_num(steps, lang, 0)) if steps else ""
    # the statistic, as every figure of times says
    ax.set_ylabel(textwrap.fill(t("figure.shapes_time_axis", lang) + stat, 40))
    if not ax.has_data():
        ax.text(0.5, 0.5, t("finding.missing", lang), ha="center", va="center", transform=ax.transAxes)
        ax.set_xticks([])
        ax.set_yticks([])
        return
    if log:
        ax.set_yscale("log")
        figures.plain_log_ticks(ax.yaxis, lang)
        ax.minorticks_off()
    ax.grid(True, which="major", alpha=0.3)
    figures.legend_below(ax.figure, ax, columns)


def decode_figure(plt, results, lang):
    """Kernel time against KV length for one query token, per backend: the smallest batch
    solid, the largest dashed; the wall time of unpinned SDPA at the smallest batch dotted.
    The legend is split: one entry per backend (colour and marker), then one per line style,
    not one per line (a backend × batch legend grew to eleven entries)."""
    fig, ax = figures.figure(plt, 6.4)
    pts = [p for p in points(results, "decode") if p["q_len"] == 1]
    names = list(dict.fromkeys(p["variant"] for p in pts))
    batches = sorted({p["batch"] for p in pts})
    shown = batches[:1] + batches[-1:] if len(batches) > 1 else batches
    for style, batch in zip(("-", "--"), shown, strict=False):
        for name in names:
            good = [p for p in pts if p["batch"] == batch and p["variant"] == name and point_ok(p)]
            if good:
                ax.plot([p["kv_len"] for p in good], [point_time(p) for p in good], style,
                        marker=figures.marker(names.index(name)), color=f"C{names.index(name)}")
    walls = [p for p in pts if batches and p["batch"] == batches[0] and p["variant"] == "auto" and point_ok(p)]
    if walls:
        ax.plot([p["kv_len"] for p in walls], [p["wall_time_us"]["median"] for p in walls], ":", marker="s",
                color="black")
    _log_x(ax, sorted({p["kv_len"] for p in pts if point_ok(p)}), lang)
    # the legend's entries: the backends drawn, then the line styles
    drawn = {n for n in names if any(p["variant"] == n and point_ok(p) for p in pts)}
    for name in names:
        if name in drawn:
            ax.plot([], [], "-", marker=figures.marker(names.index(name)), color=f"C{names.index(name)}",
                    label=figures.display_name(name, lang))
    for style, batch in zip(("-", "--"), shown, strict=False):
        if drawn:
            ax.plot([], [], style, color="0.35", label=t("figure.shapes_batch_style", lang, batch=batch))
    if walls:
        ax.plot([], [], ":", marker="s", color="black", label=t("figure.shapes_wall_line", lang, batch=batches[0]))
    _finish(ax, results, lang, "figure.shapes_decode_title", "figure.shapes_kv_axis", columns=1)
    return fig


def prefill_figure(plt, results, lang):
    fig, ax = figures.figure(plt, 5.0)
    pts = points(results, "prefill")
    for i, name in enumerate(dict.fromkeys(p["variant"] for p in pts)):
        good = [p for p in pts if p["variant"] == name and point_ok(p)]
        if good:
            ax.plot([p["q_len"] for p in good], [point_time(p) for p in good], marker=figures.marker(i),
                    color=f"C{i}",
                    label=figures.display_name(name, lang))
    _log_x(ax, sorted({p["q_len"] for p in pts if point_ok(p)}), lang)
    _finish(ax, results, lang, "figure.shapes_prefill_title", "figure.shapes_prompt_axis")
    return fig


def _bars(ax, groups, names, lang):
    """Grouped bars: groups is [(label, {variant: point})]."""
    width = 0.8 / max(1, len(names))
    for i, name in enumerate(names):
        xs, ys = [], []
        for g, (_, by_name) in enumerate(groups):
            p = by_name.get(name)
            if point_ok(p):
                xs.append(g - 0.4 + width * (i + 0.5))
                ys.append(point_time(p))
        if xs:
            ax.bar(xs, ys, width, color=f"C{i}")
            figures.bar_markers(ax, xs, ys, i, figures.display_name(name, lang))
    if ax.has_data():
        ax.set_xticks(range(len(groups)), [textwrap.fill(g, 12) for g, _ in groups])


def gqa_figure(plt, results, lang):
    fig, ax = figures.figure(plt, 5.6)
    pts = points(results, "gqa_decode") + points(results, "gqa_prefill")
    groups = {}
    for p in pts:
        key = t("figure.shapes_gqa_group", lang, phase=keyed("word.shapes_", p["family"], lang),
                q_heads=p["q_heads"], kv_heads=p["kv_heads"])
        groups.setdefault(key, {})[p["variant"]] = p
    _bars(ax, list(groups.items()), list(dict.fromkeys(p["variant"] for p in pts)), lang)
    _finish(ax, results, lang, "figure.shapes_gqa_title", columns=1)
    return fig


def sliding_figure(plt, results, lang):
    fig, ax = figures.figure(plt, 4.6)
    pts = points(results, "sliding")
    if pts:
        p0 = pts[0]
        group = t("figure.shapes_sliding_group", lang, seq=fmt_num(p0["q_len"], lang, 0),
                  window=fmt_num(p0["window"], lang, 0))
        _bars(ax, [(group, {p["variant"]: p for p in pts})], [p["variant"] for p in pts], lang)
    _finish(ax, results, lang, "figure.shapes_sliding_title", log=False, columns=1)
    return fig


def render_figures(results, lang, folder):
    """Write figures/shapes-<family>.<lang>.svg, measured or not; returns the paths."""
    plt = figures.pyplot()
    folder.mkdir(parents=True, exist_ok=True)
    makers = {"decode": decode_figure, "prefill": prefill_figure, "gqa": gqa_figure,
              "sliding": sliding_figure}
    return [figures.save(plt, makers[name](plt, results, lang), folder / f"shapes-{name}.{lang}.svg", lang,
                         makers[name])
            for name in FIGURES]

