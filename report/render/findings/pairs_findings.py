"""Findings from the paired timings (results.json "pairs", measure/pair_groups.py) at the
small shape: what a CUDA-graph replay saves where the host overhead nears the kernel time
(Recommendations), what entering `sdpa_kernel` around every call costs (Recommendations),
and issuing one call taken apart (When the GPU waits). Every order is report/verdict/paired.py's
by_group; the figures are medians of the pairs' blocks, µs per call."""
from __future__ import annotations

import statistics
from dataclasses import dataclass

from ...rows import kernel_time
from ...variants import FUSED
from ...verdict import median
from ...verdict.outcome import Verdict
from ...verdict.paired import by_group
from ..keyed import ISSUE_PARTS
from .common import ok
from .registry import finding


def _group(results, name):
    return ((results.get("pairs") or {}).get("groups") or {}).get(name)


def per_call(group, entry):
    """The median over every pair of the group's rounds of an entry's block, µs per call;
    None where no round has it."""
    blocks = [x for rnd in (group or {}).get("rounds") or [] if isinstance(rnd, dict)
              for x in (rnd.get("blocks_us") or {}).get(entry) or [] if isinstance(x, (int, float)) and x > 0]
    return statistics.median(blocks) if blocks else None


@dataclass(frozen=True)
class HostShare:
    """A fused backend at the seed's shape: its host overhead and kernel time (medians, µs)
    and the one as % of the other."""
    name: str
    host_us: float
    kernel_us: float
    pct: float


@dataclass(frozen=True)
class Replay:
    """A variant at the small shape, eager and replayed from a CUDA graph (µs per call, the
    committed run's medians), the paired verdict of the replay against the eager call in
    that run alone (`run_a`: its processes), and across every run pooled into it
    (`verdict`; a: the replay; ratio: eager over replay)."""
    name: str
    eager_us: float
    graph_us: float
    verdict: Verdict
    run_a: Verdict


@dataclass(frozen=True)
class GraphAdvice:
    """Recommendation: host overhead against kernel time per fused backend, shortest kernel
    first (`shares`, empty without them); `largest`: the backend whose share is largest, and
    whether its kernel is the shortest (`shortest`); `replays`: the fused backends and
    unpinned SDPA eager and from a graph at the small shape (empty without the pairs)."""
    shares: tuple[HostShare, ...]
    largest: str | None
    shortest: bool
    replays: tuple[Replay, ...]


@finding("finding-rec-graph")
def rec_graph(results, ref) -> GraphAdvice | None:
    v = results["variants"]
    shares = sorted((HostShare(n, median(v[n]["host_time_us"]), median(kernel_time(v[n])),
                               100 * median(v[n]["host_time_us"]) / median(kernel_time(v[n])))
                     for n in FUSED if ok(results, n) and median(v[n].get("host_time_us"))
                     and median(kernel_time(v[n]))), key=lambda s: s.kernel_us)
    group = _group(results, "small")
    replays = []
    for n in (*FUSED, "auto"):
        eager, graph = per_call(group, n), per_call(group, f"{n}_graph")
        if eager and graph:
            replays.append(Replay(n, eager, graph, by_group(group, f"{n}_graph", n),
                                  by_group({"rounds": group.get("rounds")}, f"{n}_graph", n)))
    if not shares and not replays:
        return None
    largest = max(shares, key=lambda s: s.pct).name if shares else None
    return GraphAdvice(tuple(shares), largest, bool(shares) and largest == shares[0].name, tuple(replays))


@dataclass(frozen=True)
class Pinning:
    """A pinned backend at the small shape: µs per call with `sdpa_kernel` entered once
    around the block (`once_us`) and around every call (`each_us`); the paired verdicts of
    unpinned SDPA (a) against each (ratio: pinned over unpinned)."""
    name: str
    once_us: float
    each_us: float
    once: Verdict
    each: Verdict


@dataclass(frozen=True)
class PinningCost:
    """What pinning costs at the small shape: unpinned SDPA's µs per call, each pinned
    fused backend both ways; `each_slower`, `once_slower`: the backends that, wrapped on
    every call or entered once, were slower than unpinned SDPA by the paired rule."""
    auto_us: float
    rows: tuple[Pinning, ...]
    each_slower: tuple[str, ...]
    once_slower: tuple[str, ...]


@finding("finding-rec-pinning")
def rec_pinning(results, ref) -> PinningCost | None:
    group = _group(results, "small")
    auto = per_call(group, "auto")
    rows = tuple(Pinning(n, per_call(group, n), per_call(group, f"{n}_each_call"), by_group(group, "auto", n),
                         by_group(group, "auto", f"{n}_each_call"))
                 for n in FUSED if per_call(group, n) and per_call(group, f"{n}_each_call"))
    if not auto or not rows:
        return None
    return PinningCost(auto, rows, tuple(r.name for r in rows if r.each.order == "<"),
                       tuple(r.name for r in rows if r.once.order == "<"))


@dataclass(frozen=True)
class IssueCost:
    """Issuing one call at the small shape, part by part: (part, µs of CPU time per call)
    in ISSUE_PARTS' order, those the run has; `ran`: the backend unpinned SDPA ran (None
    where the run lacks it), whose ATen op alone is `aten_<ran>`."""
    parts: tuple[tuple[str, float], ...]
    ran: str | None


@finding("findings-issue-cost")
def waits_issue(results, ref) -> IssueCost | None:
    group = _group(results, "issue")
    parts = tuple((p, us) for p in ISSUE_PARTS if (us := per_call(group, p)))
    if not any(p == "auto" for p, _ in parts):
        return None
    ran = (results["variants"].get("auto") or {}).get("backend_ran")
    return IssueCost(parts, ran if ran in FUSED else None)
