"""Findings of the GPU-waits page: eager calls against kernel time, and CUDA graphs."""
from __future__ import annotations

import statistics
from dataclasses import dataclass

from ...rows import kernel_time
from ...verdict import leader, median
from .common import Paired, by_pair_group, eager_over_kernel, pair_group
from .registry import finding

KERNEL_PACED = 1.5  # eager wall over kernel time below this: the kernels set the pace


GROUPS = {"seed": "seed_wall", "small": "small"}  # the pair group timed at each shape


@dataclass(frozen=True)
class Path:
    """One way to call a variant: eagerly, or replayed from a CUDA graph."""
    variant: str
    graph: bool


@dataclass(frozen=True)
class BestPath:
    """The fastest way to call attention at one shape in wall time per call, eager calls and
    CUDA-graph replays timed in pairs together (results.json's "pairs"): `best`, the path
    with the lowest median, with that median `us` per call; `decided` where the paired rule
    puts it before every other path (report/verdict: leader), else `near`: the paths it does
    not tell apart from it, `best` among them, in a fixed order (the variants' own, eager
    first), so that the words do not follow the noise. `pct`: `us` over the lowest median
    kernel time in the run (`best_variant`'s `best_us`); `other`: by the paired rule,
    `best` against the same variant called the other way (eager or replayed), None where
    that was not timed or `best` is not decided."""
    best: Path
    us: float
    pct: float
    best_variant: str
    best_us: float
    other: Paired | None
    decided: bool = True
    near: tuple[Path, ...] = ()


def _entry(p: Path) -> str:
    return f"{p.variant}_graph" if p.graph else p.variant


def _best_path(results, shape, ok) -> BestPath | None:
    """The fastest path at one shape by the paired rule, or None where the run did not time
    the shape's paths in pairs."""
    group = pair_group(results, GROUPS.get(shape, ""))
    names = [n for n in ok if n != "auto"] or list(ok)
    kernels = {n: median(kernel_time(ok[n])) for n in names if kernel_time(ok[n])}
    if group is None or not kernels:
        return None
    blocks = {}
    for p in (Path(n, g) for n in names for g in (False, True)):
        found = [x for rnd in group["rounds"] if "error" not in rnd
                 for x in (rnd.get("blocks_us") or {}).get(_entry(p)) or []]
        if found:
            blocks[p] = statistics.median(found)
    if not blocks:
        return None
    paths = leader(sorted(blocks, key=blocks.get),
                   lambda a, b: by_pair_group(results, GROUPS[shape], _entry(a), _entry(b)))
    best = paths.contenders[0]
    other = Path(best.variant, not best.graph)
    best_variant = min(kernels, key=kernels.get)
    near = () if paths.name else tuple(sorted(paths.contenders, key=lambda p: (names.index(p.variant), p.graph)))
    return BestPath(best, blocks[best], 100 * blocks[best] / kernels[best_variant], best_variant, kernels[best_variant],
                    by_pair_group(results, GROUPS[shape], _entry(best), _entry(other))
                    if other in blocks and paths.name else None, paths.name is not None, near)


@dataclass(frozen=True)
class ShapeOverhead:
    """One shape of the overhead section ("seed", "small"): the range of the eager wall time
    per call over kernel time (%), `near` where the kernels set the pace (the lowest under
    KERNEL_PACED), and the fastest path, eager or replayed (None without pairs)."""
    shape: str
    lo: float
    hi: float
    near: bool
    path: BestPath | None


@finding("findings-overhead")
def overhead(results, ref) -> tuple[ShapeOverhead, ...] | None:
    """Per shape: the eager wall time's range against kernel time, then the fastest path."""
    found = []
    for shape_name, rows in (results.get("overhead") or {}).get("rows", {}).items():
        ok = {n: r for n, r in rows.items() if r["status"] == "ok"}
        if ok:
            ratios = [eager_over_kernel(r) for r in ok.values()]
            found.append(ShapeOverhead(shape_name, 100 * min(ratios), 100 * max(ratios), min(ratios) < KERNEL_PACED,
                                       _best_path(results, shape_name, ok)))
    return tuple(found) or None
