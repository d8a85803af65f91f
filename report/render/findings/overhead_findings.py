"""Findings of the GPU-waits page: eager calls against kernel time, and CUDA graphs."""
from ...text.catalog import t
from ...text.format import fmt_pct, fmt_us
from ...trace.stats import median
from ..keyed import keyed
from ..markdown import label
from .common import eager_over_kernel
from .registry import finding


def _best_graph(ok, shape, lang):
    graphs = {n: r for n, r in ok.items() if r.get("graph_wall_us")}
    if not graphs:
        return []
    best_n = min(ok, key=lambda n: median(ok[n]["kernel_sum_us"]))
    best = median(ok[best_n]["kernel_sum_us"])
    g = min(graphs, key=lambda n: graphs[n]["graph_wall_us"]["median"])
    graph = graphs[g]["graph_wall_us"]["median"]
    return [t("finding.best_graph", lang, shape=shape, variant=label(g, lang), graph=fmt_us(graph, lang),
              pct=fmt_pct(100 * graph / best, lang, 0), best_variant=label(best_n, lang),
              best=fmt_us(best, lang))]


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
        lines.append(t("finding.eager_vs_kernels", lang, shape=shape,
                       lo=fmt_pct(100 * min(ratios), lang, 0), hi=fmt_pct(100 * max(ratios), lang, 0)))
        lines += _best_graph(ok, shape, lang)
    return lines
