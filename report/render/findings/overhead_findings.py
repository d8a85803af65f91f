"""Findings of the GPU-waits page: eager calls against kernel time, and CUDA graphs."""
from __future__ import annotations

import statistics
from dataclasses import dataclass

from ...verdict import below, floor, median, samples
from .common import eager_over_kernel
from .registry import finding

KERNEL_PACED = 1.5  # eager wall over kernel time below this: the kernels set the pace


@dataclass(frozen=True)
class BestGraph:
    """The fastest CUDA-graph replay at one shape (`graph_us`, `pct` of the best kernel time
    in the run, `best_variant`'s `best_us`): `variant` where it is below every other replay
    beyond the run's floor for that figure (`floor`, %), None where that is within noise."""
    variant: str | None
    graph_us: float
    pct: float
    best_variant: str
    best_us: float
    floor: float


def _best_graph(ok) -> BestGraph | None:
    """The fastest CUDA-graph replay at one shape, by report/verdict: below and floor."""
    # auto runs a pinned backend's kernels: it is no entry of its own, or a rounding would
    # make it the other's winner from one run to the next
    candidates = {n: r for n, r in ok.items() if n != "auto"} or ok
    graphs = {n: r for n, r in candidates.items() if samples(r, "graph_wall_us")}
    if not graphs:
        return None
    best_n = min(candidates, key=lambda n: median(candidates[n]["kernel_sum_us"]))
    best = median(candidates[best_n]["kernel_sum_us"])
    mid = {n: statistics.median(samples(r, "graph_wall_us")) for n, r in graphs.items()}
    g = min(graphs, key=mid.get)
    noise_floor = floor([r for r in ok.values() if samples(r, "graph_wall_us")], "graph_wall_us")
    apart = all(below(graphs[g], r, "graph_wall_us", noise_floor) for n, r in graphs.items() if n != g)
    return BestGraph(variant=g if apart else None, graph_us=mid[g], pct=100 * mid[g] / best, best_variant=best_n,
                     best_us=best, floor=100 * noise_floor)


@dataclass(frozen=True)
class ShapeOverhead:
    """One shape of the overhead section ("seed", "small"): the range of the eager wall time
    per call over kernel time (%), `near` where the kernels set the pace (the lowest under
    KERNEL_PACED), and the best graph replay (None without graphs)."""
    shape: str
    lo: float
    hi: float
    near: bool
    graph: BestGraph | None


@finding("findings-overhead")
def overhead(results, ref) -> tuple[ShapeOverhead, ...] | None:
    """Per shape: the eager wall time's range against kernel time, then the best graph."""
    found = []
    for shape_name, rows in (results.get("overhead") or {}).get("rows", {}).items():
        ok = {n: r for n, r in rows.items() if r["status"] == "ok"}
        if ok:
            ratios = [eager_over_kernel(r) for r in ok.values()]
            found.append(ShapeOverhead(shape_name, 100 * min(ratios), 100 * max(ratios), min(ratios) < KERNEL_PACED,
                                       _best_graph(ok)))
    return tuple(found) or None
