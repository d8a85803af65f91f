"""Findings behind the three recommendations."""
from __future__ import annotations

import statistics
from dataclasses import dataclass

from ...rows import kernel_time
from ...variants import FUSED
from ...verdict import by_run_round_medians, leader, median, round_median, run_rounds
from ..markdown import host_figures
from ..prose import Data
from .common import Paired, by_pair_group, cuda, ok, pair_group, paired
from .registry import finding


@dataclass(frozen=True)
class AutoPick:
    """Unpinned SDPA (auto) against the fastest pinned fused backend (not against math), in
    wall time per call at the seed shape, timed in pairs: the backend auto ran, each one's
    median block, and the paired rule's verdict on the best (a) against auto (b) (None
    where auto ran the fastest itself). `best` is the pinned backend with the lowest median;
    `decided` where the paired rule puts it before every other pinned one (verdict.leader),
    else the page says only that its median is the lowest."""
    gpu: Data
    ran: str
    auto_us: float
    best: str
    best_us: float
    verdict: Paired | None
    decided: bool = True


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
    lead = leader(sorted(pinned, key=pinned.get), lambda a, b: by_pair_group(results, "seed_wall", a, b))
    best = lead.contenders[0]
    ran = v["auto"]["backend_ran"]
    verdict = None if ran == best else by_pair_group(results, "seed_wall", best, "auto")
    return AutoPick(gpu=Data(results["provenance"]["gpu_name"]), ran=ran, auto_us=statistics.median(auto),
                    best=best, best_us=pinned[best], verdict=verdict, decided=lead.name is not None)


@finding("finding-rec-auto")
def rec_auto(results, ref) -> AutoPick | None:
    return auto_against_pinned(results)


def share_rounds(row, part="per_small_op"):
    """Host overhead against kernel time in each round of a row (None for a round without
    both figures; None where the row has no rounds): in small ops by default, the figure
    the ranking compares; part=None gives µs over µs, the figure a page shows."""
    return shares_of(row.get("rounds"), part)


def shares_of(rounds, part="per_small_op"):
    """share_rounds of a list of rounds (one run's), None where there are none."""
    if not rounds:
        return None
    out = []
    for r in rounds:
        host, kernel = (r or {}).get("host_time_us") or {}, median(kernel_time(r))
        figure = host.get(part) if part else host
        out.append(figure["median"] / kernel if isinstance(figure, dict) and figure.get("median")
                   and kernel else None)
    return out


def host_ranked(results):
    """The fused backends with a host overhead, largest share of their kernel time first
    (the median over the rounds; host overhead in small ops over kernel time's median where
    the run has no rounds)."""
    v, hs = results["variants"], host_figures(results)
    names = [n for n in FUSED if n in hs and ok(results, n) and median(kernel_time(v[n]))]

    def share(n):
        rounds = share_rounds(v[n])
        if rounds and round_median(rounds) is not None:
            return round_median(rounds)
        return v[n]["host_time_us"]["per_small_op"]["median"] / median(kernel_time(v[n]))
    return sorted(names, key=lambda n: -share(n))


def host_share_verdict(row_a, row_b) -> Paired | None:
    """a's host overhead against its kernel time (in small ops over kernel time, in which
    what slows the small op and the call alike cancels) against b's, by the paired rule on
    one ratio per round (by_run_round_medians: across the runs pooled into the rows, else
    the run's processes; ">" where a's share is larger); None where either row lacks
    rounds. Not a paired group: the pairs time host overhead, not its share of the kernel
    time, which changes with the kernel."""
    ra, rb = share_rounds(row_a), share_rounds(row_b)
    n = sum(1 for x, y in zip(ra or (), rb or (), strict=False) if x and y)
    if not n:
        return None
    return paired(by_run_round_medians([shares_of(r) for r in run_rounds(row_a)],
                                       [shares_of(r) for r in run_rounds(row_b)]), "host_share")


def host_leader(results):
    """(the backend named first, the runner-up or None, the verdict on the two or None):
    the two with the largest share first (host_ranked); the verdict by host_share_verdict.
    Where the rule finds no order (or the run has no rounds), the first named is the one
    that comes first in FUSED's order, so that a rerun that swaps the two medians does not
    swap the names."""
    ranked = host_ranked(results)
    if not ranked:
        return None
    if len(ranked) == 1:
        return ranked[0], None, None
    v, (a, b) = results["variants"], ranked[:2]
    verdict = host_share_verdict(v[a], v[b])
    if verdict is not None and verdict.order == ">":
        return a, b, verdict
    if verdict is not None and verdict.order == "<":  # the rounds' ratios put b's share above a's
        return b, a, host_share_verdict(v[b], v[a])
    first, second = sorted((a, b), key=FUSED.index)
    return first, second, host_share_verdict(v[first], v[second])


@dataclass(frozen=True)
class CpuLeader:
    """The fused backend whose host overhead is largest next to its kernel time
    (host_leader), with its host overhead, kernel time and first call; against the
    runner-up (`other`, None where it is the only one): `verdict`, the paired rule on the
    rounds' shares (">" where `variant`'s is larger; None where the run has no rounds), and
    each one's share per round (`rounds`, `other_rounds`: in small ops against kernel time,
    the figure the rule compares); `pct`, `other_pct`: host overhead over kernel time (%),
    from the same medians as the tables (None without a runner-up)."""
    variant: str
    host_us: float
    kernel_us: float
    first_us: float
    other: str | None
    verdict: Paired | None
    rounds: tuple[float | None, ...] | None
    other_rounds: tuple[float | None, ...] | None
    pct: float = 0.0
    other_pct: float | None = None


@finding("finding-rec-cpu")
def rec_cpu(results, ref) -> CpuLeader | None:
    """The fused backend whose host overhead is largest next to its kernel time; the order
    against the runner-up is stated only where the paired rule on the rounds calls it."""
    v = results["variants"]
    leader = host_leader(results)
    if leader is None:
        return None
    n, other, verdict = leader
    ra = rb = None
    if verdict is not None:
        ra, rb = share_rounds(v[n]), share_rounds(v[other])
    def pct(name):
        return 100 * median(v[name]["host_time_us"]) / median(kernel_time(v[name]))

    return CpuLeader(variant=n, host_us=median(v[n]["host_time_us"]), kernel_us=median(kernel_time(v[n])),
                     first_us=v[n]["first_call_ms"] * 1000, other=other, verdict=verdict,
                     rounds=tuple(ra) if ra else None, other_rounds=tuple(rb) if rb else None,
                     pct=pct(n), other_pct=pct(other) if other else None)


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
