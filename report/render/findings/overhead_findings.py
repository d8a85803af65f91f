"""Findings of the GPU-waits page: eager calls against kernel time, and CUDA graphs."""
import statistics

from ...text.catalog import t
from ...text.format import fmt_pct, fmt_us
from ...verdict import below, floor, median, samples
from ..keyed import keyed
from ..markdown import label
from .common import eager_over_kernel
from .registry import finding

KERNEL_PACED = 1.5  # eager wall over kernel time below this: the kernels set the pace


def _best_graph(ok, shape, lang):
    """The fastest CUDA-graph replay at one shape, named where it is below every other
    replay beyond the run's floor for that figure (report/verdict: below, floor); else said to be
    within noise."""
    # auto runs a pinned backend's kernels: it is no entry of its own, or a rounding would
    # make it the other's winner from one run to the next
    candidates = {n: r for n, r in ok.items() if n != "auto"} or ok
    graphs = {n: r for n, r in candidates.items() if samples(r, "graph_wall_us")}
    if not graphs:
        return []
    best_n = min(candidates, key=lambda n: median(candidates[n]["kernel_sum_us"]))
    best = median(candidates[best_n]["kernel_sum_us"])
    mid = {n: statistics.median(samples(r, "graph_wall_us")) for n, r in graphs.items()}
    g = min(graphs, key=mid.get)
    noise_floor = floor([r for r in ok.values() if samples(r, "graph_wall_us")], "graph_wall_us")
    common = {"shape": shape, "graph": fmt_us(mid[g], lang), "pct": fmt_pct(100 * mid[g] / best, lang, 0),
              "best_variant": label(best_n, lang), "best": fmt_us(best, lang)}
    if all(below(graphs[g], r, "graph_wall_us", noise_floor) for n, r in graphs.items() if n != g):
        return [t("finding.best_graph", lang, variant=label(g, lang), **common)]
    return [t("finding.best_graph_noise", lang, floor=fmt_pct(100 * noise_floor, lang, 0), **common)]


@finding("findings-overhead")
def overhead(results, ref, lang):
    """Per shape: the eager wall time's range against kernel time, then the best graph."""
    lines = []
    for shape_name, rows in (results.get("overhead") or {}).get("rows", {}).items():
        ok = {n: r for n, r in rows.items() if r["status"] == "ok"}
        if not ok:
            continue
        ratios = [eager_over_kernel(r) for r in ok.values()]
        shape = keyed("finding.shape_", shape_name, lang)
        # where the kernels set the pace (the calls take well under 1.5x their kernel time)
        near = t("finding.eager_near_kernel", lang) if min(ratios) < KERNEL_PACED else ""
        lines.append(t("finding.eager_vs_kernels", lang, shape=shape, lo=fmt_pct(100 * min(ratios), lang, 0),
                       hi=fmt_pct(100 * max(ratios), lang, 0), near=near))
        lines += _best_graph(ok, shape, lang)
    return lines
