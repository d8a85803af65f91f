"""SVG figures (matplotlib), deterministic so that re-rendering gives the same bytes."""
from __future__ import annotations

import io

from ..text.catalog import t
from ..trace.stats import median
from .extra_tables import point_time
from .header import header
from .markdown import label


def display_name(name, lang):
    """A variant's display name as figure text (no Markdown backticks)."""
    return label(name, lang).replace("`", "")


def pyplot():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    plt.rcParams.update({"svg.hashsalt": "sdpa-under-the-profiler", "svg.fonttype": "none",
                         "font.size": 10})
    return plt


def save(plt, fig, path, lang, maker):
    """Write the figure as SVG at path, its header naming the function that drew it."""
    buf = io.StringIO()
    fig.savefig(buf, format="svg", metadata={"Date": None, "Creator": None}, bbox_inches="tight")
    plt.close(fig)
    head, sep, rest = buf.getvalue().partition("?>\n")
    path.write_text(head + sep + header(lang, (maker,)) + "\n" + rest, encoding="utf-8")
    return path


def cuda_vs_cpu(plt, results, lang, folder):
    ok = [(n, r) for n, r in results["variants"].items() if r["status"] == "ok" and r.get("cuda_time_us")]
    if not ok:
        return []
    fig, ax = plt.subplots(figsize=(7, 3.6))
    xs = range(len(ok))
    ax.bar([x - 0.2 for x in xs], [median(r["cuda_time_us"]) for _, r in ok], 0.4,
           label=t("col.cuda_time", lang))
    ax.bar([x + 0.2 for x in xs], [median(r["cpu_time_us"]) for _, r in ok], 0.4,
           label=t("col.cpu_time", lang))
    ax.set_xticks(list(xs), [display_name(n, lang) for n, _ in ok], rotation=25, ha="right")
    ax.set_yscale("log")
    ax.set_ylabel(t("figure.bars_axis", lang, steps=results["config"]["steps"]))
    ax.set_title(t("figure.bars_title", lang, gpu=results["provenance"]["gpu_name"]))
    ax.legend()
    return [save(plt, fig, folder / f"cuda-vs-cpu.{lang}.svg", lang, cuda_vs_cpu)]


def _sweep_lines(ax, sweep, d, what, lang):
    for name in dict.fromkeys(p["variant"] for p in sweep["points"]):
        pts = [p for p in sweep["points"] if p["variant"] == name and p["head_dim"] == d
               and p["status"] == "ok"]
        if what == "time":
            ys = [point_time(p) for p in pts]
        else:
            pts = [p for p in pts if p.get("peak_extra_mib") is not None]
            ys = [p["peak_extra_mib"] for p in pts]
        if pts:
            ax.plot([p["seq_len"] for p in pts], ys, marker="o", label=display_name(name, lang))


def sweep_figure(plt, results, lang, folder, d, what):
    axis, title = {"time": ("figure.time_axis", "figure.time_title"),
                   "memory": ("figure.mem_axis", "figure.mem_title")}[what]
    fig, ax = plt.subplots(figsize=(7, 4))
    _sweep_lines(ax, results["sweep"], d, what, lang)
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel(t("figure.seq", lang))
    ax.set_ylabel(t(axis, lang, steps=results["sweep"]["steps"]))
    ax.set_title(t(title, lang, d=d) + f" · {results['provenance']['gpu_name']}")
    ax.minorticks_off()  # a log axis draws dozens of minor ticks: weight, no help
    ax.grid(True, which="major", alpha=0.3)
    if ax.get_lines():
        ax.legend(fontsize=8)
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
