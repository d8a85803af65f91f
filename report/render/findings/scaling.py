"""Findings of the scaling page: where variants run out of memory, growth, the fastest."""
from __future__ import annotations

import statistics
from dataclasses import dataclass

from ...variants import FUSED
from ...verdict import leader
from .. import extra_tables
from ..extra_tables import point_time
from ..prose import Data
from .common import Paired, by_pair_group, pair_group
from .registry import finding


def _names(sweep):
    return list(dict.fromkeys(p["variant"] for p in sweep["points"]))


@dataclass(frozen=True)
class OutOfMemory:
    """A variant that ran out of memory at sequence length `seq` (head dimension `d`), the
    last length that fitted (`prev`) and the extra memory it used there (None: not measured)."""
    variant: str
    seq: int
    d: int
    prev: int
    mem_mib: float | None


@finding("findings-scaling")
def oom(results, ref) -> tuple[OutOfMemory, ...] | None:
    sweep = results.get("sweep")
    found = []
    for d in sweep["head_dims"] if sweep else ():
        for n in _names(sweep):
            mine = [p for p in sweep["points"] if p["variant"] == n and p["head_dim"] == d]
            bad = next((p for p in mine if p["status"] == "oom"), None)
            prev = [p for p in mine if bad and p["status"] == "ok" and p["seq_len"] < bad["seq_len"]]
            if prev:
                found.append(OutOfMemory(n, bad["seq_len"], d, prev[-1]["seq_len"], prev[-1].get("peak_extra_mib")))
    return tuple(found) or None


@dataclass(frozen=True)
class FitsAll:
    """The variants that ran at every sequence length of the sweep, up to `seq`."""
    variants: tuple[str, ...]
    seq: int


@finding("findings-scaling")
def fits_all(results, ref) -> FitsAll | None:
    sweep = results.get("sweep")
    if not sweep:
        return None
    full = [n for n in _names(sweep) if all(p["status"] == "ok" for p in sweep["points"]
                                            if p["variant"] == n)]
    if not full:
        return None
    return FitsAll(tuple(full), max(sweep["seq_lens"]))


@dataclass(frozen=True)
class MemoryGrowth:
    """How much naive's and flash's extra memory grew from sequence length a to b (head
    dimension d): quadratic against linear."""
    a: int
    b: int
    d: int
    naive: float
    flash: float


@finding("findings-scaling")
def growth(results, ref) -> MemoryGrowth | None:
    sweep = results.get("sweep")
    if not sweep:
        return None
    d = sweep["head_dims"][0]
    mem = {(p["variant"], p["seq_len"]): p.get("peak_extra_mib") for p in sweep["points"]
           if p["head_dim"] == d and p["status"] == "ok"}
    both = [s for s in sweep["seq_lens"] if mem.get(("naive", s)) and mem.get(("flash", s))]
    if len(both) < 2:
        return None
    a, b = both[-2], both[-1]
    return MemoryGrowth(a, b, d, naive=mem[("naive", b)] / mem[("naive", a)],
                        flash=mem[("flash", b)] / mem[("flash", a)])


@dataclass(frozen=True)
class TimeGrowth:
    """How much each variant's kernel time grew from sequence length a to b (head dimension
    d), beside how much the causal triangle's arithmetic grew (`work`)."""
    a: int
    b: int
    d: int
    grew: tuple[tuple[str, float], ...]
    work: float


@finding("findings-scaling")
def time_growth(results, ref) -> TimeGrowth | None:
    """How much each variant's kernel time grew over the sweep's last doubling of the
    sequence length, beside how much the causal arithmetic grew."""
    sweep = results.get("sweep")
    if not sweep or len(sweep["seq_lens"]) < 2:
        return None
    d, (a, b) = sweep["head_dims"][0], sweep["seq_lens"][-2:]
    time = {(p["variant"], p["seq_len"]): point_time(p) for p in sweep["points"]
            if p["head_dim"] == d and p["status"] == "ok"}
    grew = tuple((n, time[(n, b)] / time[(n, a)]) for n in _names(sweep) if time.get((n, a)) and time.get((n, b)))
    if not grew:
        return None
    return TimeGrowth(a, b, d, grew, work=b * (b + 1) / (a * (a + 1)))


@dataclass(frozen=True)
class Fastest:
    """The pinned variant that was fastest most often over the sweep (`top`; from `lo` to
    `hi`, at head dimensions `dims`), and each (head dimension, sequence length, variant)
    where another one was."""
    top: str
    lo: int
    hi: int
    dims: tuple[int, ...]
    exceptions: tuple[tuple[int, int, str], ...]


@finding("findings-scaling")
def fastest(results, ref) -> Fastest | None:
    """The fastest pinned variant per sequence length and head dimension, said once: the
    one that won most often, and by name the lengths where another won."""
    sweep = results.get("sweep")
    won = {}  # (head dimension, sequence length) -> the fastest variant
    for d in sweep["head_dims"] if sweep else ():
        for s in sweep["seq_lens"]:
            ok = [p for p in sweep["points"] if p["head_dim"] == d and p["seq_len"] == s
                  and p["status"] == "ok" and p["variant"] != "auto"]
            if ok:
                won[d, s] = min(ok, key=point_time)["variant"]
    if not won:
        return None
    names = list(won.values())
    top = max(dict.fromkeys(names), key=names.count)
    lens = sorted({s for _, s in won})
    return Fastest(top=top, lo=lens[0], hi=lens[-1], dims=tuple(dict.fromkeys(d for d, _ in won)),
                   exceptions=tuple((d, s, v) for (d, s), v in won.items() if v != top))


@dataclass(frozen=True)
class BestTflops:
    """The pinned variant with the highest TFLOP/s in the sweep, where (`seq`, `d`), its share
    of the run's matmul roof, `also_auto` where auto ran its kernels at that point; `roof`
    and `gpu` for the datasheet's figure beside the roof."""
    variant: str
    also_auto: bool
    tflops: float
    seq: int
    d: int
    share: float
    roof: dict
    gpu: Data


@finding("findings-scaling")
def best_tflops(results, ref) -> BestTflops | None:
    """The pinned variant with the highest TFLOP/s in the sweep. Auto is no entry of its
    own: it runs one of the pinned backends, and where it ran the winner's kernels at that
    point the two are one entry ("SDPA cuDNN, which auto ran too"), never each other's
    winner by a rounding."""
    sweep = results.get("sweep")
    ok = [p for p in sweep["points"] if p["status"] == "ok" and p["variant"] != "auto"] if sweep else []
    if not ok:
        return None
    p = max(ok, key=lambda p: p["tflops"])
    auto = next((a for a in sweep["points"] if a["variant"] == "auto" and a["status"] == "ok"
                 and a["seq_len"] == p["seq_len"] and a["head_dim"] == p["head_dim"]), None)
    return BestTflops(variant=p["variant"], also_auto=bool(auto and auto.get("backend_ran") == p["variant"]),
                      tflops=p["tflops"], seq=p["seq_len"], d=p["head_dim"],
                      share=100 * p["tflops"] / results["roof"]["tflops"], roof=results["roof"],
                      gpu=Data(results["provenance"].get("gpu_name") or "?"))


@dataclass(frozen=True)
class Slower:
    """One sequence length of the sweep where auto was slower than the fastest pinned
    backend beyond noise: both kernel times and that backend."""
    seq: int
    auto_us: float
    best_us: float
    backend: str


@dataclass(frozen=True)
class HeadDimSlower:
    """One head dimension of the sweep: the sequence lengths where auto lost (none: it never did)."""
    d: int
    slower: tuple[Slower, ...]


@finding("findings-auto-vs-best")
def auto_vs_best(results, ref) -> tuple[HeadDimSlower, ...] | None:
    """Where SDPA's own choice was slower than the fastest pinned backend, beyond noise
    (extra_tables.auto_vs_best), per head dimension of the sweep."""
    sweep = results.get("sweep")
    if not sweep or not any(p.get("backend_ran") for p in sweep["points"]):
        return None
    return tuple(HeadDimSlower(d, tuple(Slower(s, point_time(a), point_time(b), b["variant"])
                                        for s, a, b, is_slower in extra_tables.auto_vs_best(sweep, d) if is_slower))
                 for d in sweep["head_dims"])


@dataclass(frozen=True)
class SmallPinning:
    """At the small shape, where the CPU sets the pace: auto's eager wall time per call
    against the pinned fused backend's that was lowest, both timed in pairs (results.json's
    "pairs", group "small"); `auto_us`, `best_us` the medians of their blocks over every
    round, `verdict` the paired rule's on `best` (a) against auto (b); `decided` where the
    rule puts `best` before every other pinned backend (verdict.leader)."""
    ran: str
    auto_us: float
    best: str
    best_us: float
    verdict: Paired
    decided: bool = True


def _blocks(group, name) -> list[float]:
    return [x for rnd in group["rounds"] if "error" not in rnd for x in (rnd.get("blocks_us") or {}).get(name) or []]


def small_shape_pinning(results) -> SmallPinning | None:
    """Auto against the fastest pinned fused backend at the small shape (SmallPinning), or
    None where the run did not time them in pairs (files written before pairs)."""
    group = pair_group(results, "small")
    ran = results["variants"].get("auto", {}).get("backend_ran")
    if group is None or not ran or not _blocks(group, "auto"):
        return None
    pinned = {n: _blocks(group, n) for n in FUSED}
    pinned = {n: b for n, b in pinned.items() if b}
    if not pinned:
        return None
    lead = leader(sorted(pinned, key=lambda n: statistics.median(pinned[n])),
                  lambda a, b: by_pair_group(results, "small", a, b))
    best = lead.contenders[0]
    verdict = by_pair_group(results, "small", best, "auto")
    if verdict is None:
        return None
    return SmallPinning(ran=ran, auto_us=statistics.median(_blocks(group, "auto")), best=best,
                        best_us=statistics.median(pinned[best]), verdict=verdict, decided=lead.name is not None)


@finding("findings-auto-vs-best")
def auto_small(results, ref) -> SmallPinning | None:
    """At the small shape, where the CPU sets the pace: auto against the pinned backends."""
    return small_shape_pinning(results)
