"""Findings behind the three recommendations."""
from __future__ import annotations

import statistics
from dataclasses import dataclass

from ...variants import FUSED
from ...verdict import differ, median, noise, order_holds, round_median, spread
from ..markdown import host_figures
from ..prose import Data
from .common import Paired, by_pair_group, cuda, ok, pair_group
from .registry import finding


@dataclass(frozen=True)
class AutoPick:
    """Unpinned SDPA (auto) against the fastest pinned fused backend (not against math), in
    wall time per call at the seed shape, timed in pairs: the backend auto ran, each one's
    median block, and the paired rule's verdict on the best (a) against auto (b) (None
    where auto ran the fastest itself)."""
    gpu: Data
    ran: str
    auto_us: float
    best: str
    best_us: float
    verdict: Paired | None


def _blocks(group, name):
    return [x for rnd in (group or {}).get("rounds") or [] if "error" not in rnd
            for x in (rnd.get("blocks_us") or {}).get(name) or []]


def auto_against_pinned(results) -> AutoPick | None:
    """Auto against the fastest pinned fused backend; None where the run did not time them
    in pairs or does not say which backend auto ran."""
    v, group = results["variants"], pair_group(results, "seed_wall")
    pinned = {n: statistics.median(b) for n in FUSED if ok(results, n) and (b := _blocks(group, n))}
    auto = _blocks(group, "auto")
    if not (ok(results, "auto") and pinned and auto and v["auto"].get("backend_ran")):
        return None
    best = min(pinned, key=pinned.get)
    ran = v["auto"]["backend_ran"]
    verdict = None if ran == best else by_pair_group(results, "seed_wall", best, "auto")
    return AutoPick(gpu=Data(results["provenance"]["gpu_name"]), ran=ran, auto_us=statistics.median(auto),
                    best=best, best_us=pinned[best], verdict=verdict)


@finding("finding-rec-auto")
def rec_auto(results, ref) -> AutoPick | None:
    return auto_against_pinned(results)


def host_share(row):
    """Host overhead against kernel time, as a figure the noise rule can compare: built on
    the cost in small ops (in which what slows the small op and the call alike cancels),
    with the larger of that figure's spread and the kernel time's."""
    per_op, kernel = row["host_time_us"]["per_small_op"], row["kernel_sum_us"]
    return {"median": per_op["median"] / kernel["median"],
            "spread_pct": 100 * max(spread(per_op), spread(kernel))}


def share_rounds(row, part="per_small_op"):
    """Host overhead against kernel time in each round of a row (None for a round without
    both figures; None where the row has no rounds): in small ops by default, the figure
    the ranking compares; part=None gives µs over µs, the figure a page shows."""
    rounds = row.get("rounds")
    if not rounds:
        return None
    out = []
    for r in rounds:
        host, kernel = (r or {}).get("host_time_us") or {}, median((r or {}).get("kernel_sum_us"))
        figure = host.get(part) if part else host
        out.append(figure["median"] / kernel if isinstance(figure, dict) and figure.get("median")
                   and kernel else None)
    return out


def host_ranked(results):
    """The fused backends with a host overhead, largest share of their kernel time first
    (the median over the rounds where the run has rounds)."""
    v, hs = results["variants"], host_figures(results)
    names = [n for n in FUSED if n in hs and ok(results, n) and median(v[n].get("kernel_sum_us"))]

    def share(n):
        rounds = share_rounds(v[n])
        return round_median(rounds) if rounds and round_median(rounds) is not None else host_share(v[n])["median"]
    return sorted(names, key=lambda n: -share(n))


def host_leader(results):
    """(the backend named first, the runner-up or None, True where the first's share is the
    highest beyond noise): across rounds where both have them (order_holds), else by
    `differ`. Within noise, the first named is the one that comes first in FUSED's order,
    so that a rerun that swaps the two medians does not swap the names."""
    ranked = host_ranked(results)
    if not ranked:
        return None
    if len(ranked) == 1:
        return ranked[0], None, True
    v, (a, b) = results["variants"], ranked[:2]
    ra, rb = share_rounds(v[a]), share_rounds(v[b])
    holds = order_holds(ra, rb) if ra and rb else differ(host_share(v[a]), host_share(v[b]))
    if holds:
        return a, b, True
    first, second = sorted((a, b), key=FUSED.index)
    return first, second, False


@dataclass(frozen=True)
class CpuLeader:
    """The fused backend whose host overhead is largest next to its kernel time
    (host_leader), with its host overhead, kernel time and first call; against the
    runner-up (`other`, None where it is the only one): whether the order holds beyond
    noise, across the rounds where both have them (`rounds`, `other_rounds`: each one's
    share per round, in small ops against kernel time), else by the two figures' noise
    (`spread`, in %, with the runner-up's host overhead)."""
    variant: str
    host_us: float
    kernel_us: float
    first_us: float
    other: str | None
    holds: bool
    rounds: tuple[float | None, ...] | None
    other_rounds: tuple[float | None, ...] | None
    spread: float | None
    other_host_us: float | None


@finding("finding-rec-cpu")
def rec_cpu(results, ref) -> CpuLeader | None:
    """The fused backend whose host overhead is largest next to its kernel time; the order
    is stated only where it is beyond noise."""
    v = results["variants"]
    leader = host_leader(results)
    if leader is None:
        return None
    n, other, holds = leader
    ra = rb = spread_pct = other_host = None
    if other is not None:
        ra, rb = share_rounds(v[n]), share_rounds(v[other])
        if not (ra and rb):
            ra = rb = None
            spread_pct = 100 * noise(host_share(v[n]), host_share(v[other]))
            other_host = median(v[other]["host_time_us"])
    return CpuLeader(variant=n, host_us=median(v[n]["host_time_us"]), kernel_us=median(v[n]["kernel_sum_us"]),
                     first_us=v[n]["first_call_ms"] * 1000, other=other, holds=holds,
                     rounds=tuple(ra) if ra else None, other_rounds=tuple(rb) if rb else None,
                     spread=spread_pct, other_host_us=other_host)


@dataclass(frozen=True)
class InPlace:
    """The Memcpy that masked_fill_ removed: its time per forward pass and its share (%) of
    the out-of-place version's GPU span."""
    memcpy_us: float
    share: float


@finding("finding-rec-inplace")
def rec_inplace(results, ref) -> InPlace | None:
    if not ok(results, "naive"):
        return None
    copies = [k for k in results["variants"]["naive"]["kernels"] if k["kind"] == "memcpy"]
    if not copies:
        return None
    return InPlace(memcpy_us=copies[0]["avg_us"], share=100 * copies[0]["avg_us"] / cuda(results, "naive"))
