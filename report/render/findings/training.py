"""Findings of the training page: forward + backward against forward, a step's wall time
timed in pairs, kernels, memory."""
from __future__ import annotations

from dataclasses import dataclass

from ...rows import kernel_time
from ...verdict import median
from ...verdict.outcome import Verdict
from ...verdict.paired import by_group
from ..kernel_names import in_name_order
from ..prose import Data
from .registry import finding


def _rows(results):
    backward = results.get("backward")
    return {n: r for n, r in backward["rows"].items() if r["status"] == "ok"} if backward else {}


@finding("findings-training")
def train_ratio(results, ref) -> tuple[tuple[str, float], ...] | None:
    """(variant, forward + backward over forward alone, in kernel time) for each variant
    with both (never in GPU span: that is the profiler's, with the host's gaps in it)."""
    rows = _rows(results)
    fwd = {n: median(kernel_time(results["variants"][n])) for n in rows
           if results["variants"].get(n, {}).get("status") == "ok"}
    return tuple((n, median(kernel_time(r)) / fwd[n]) for n, r in rows.items()
                 if fwd.get(n) and kernel_time(r)) or None


@dataclass(frozen=True)
class StepPair:
    """One variant's training step against unpinned SDPA's, timed in pairs (results.json
    pairs.groups.training): both medians in µs per step, and report/verdict/paired.py's
    verdict of auto against it (a: auto; ratio: the variant's step over auto's)."""
    name: str
    step_us: float
    verdict: Verdict


@dataclass(frozen=True)
class TrainPairs:
    """Unpinned SDPA's training step (µs, wall time, median of its blocks) and every other
    variant's against it."""
    auto_us: float
    rows: tuple[StepPair, ...]


@finding("findings-training")
def train_pairs(results, ref) -> TrainPairs | None:
    """A training step's wall time per variant against unpinned SDPA's, timed in
    alternating blocks (wall time without the profiler: what a training loop waits for);
    None where the run did not time training in pairs."""
    from .pairs_findings import per_call

    group = ((results.get("pairs") or {}).get("groups") or {}).get("training")
    auto = per_call(group, "auto")
    if not auto:
        return None
    names = [n for n in (group["rounds"][0].get("blocks_us") or {}) if n != "auto"] if group["rounds"] else []
    rows = tuple(StepPair(n, per_call(group, n), by_group(group, "auto", n)) for n in names if per_call(group, n))
    return TrainPairs(auto, rows) if rows else None


@finding("findings-training")
def train_kernels(results, ref) -> tuple[tuple[str, tuple[Data, ...]], ...] | None:
    """(variant, its backward kernels) for flash and cuDNN, where the run has them."""
    rows = _rows(results)
    found = []
    for n in ("flash", "cudnn"):
        bwd = [k for k in rows.get(n, {}).get("kernels", [])
               if k["kind"] == "kernel" and "backward" in (k.get("aten_op") or "")]
        if bwd:
            found.append((n, tuple(Data(k["short_name"]) for k in in_name_order(bwd))))
    return tuple(found) or None


@finding("findings-training")
def train_memory(results, ref) -> tuple[tuple[str, float], ...] | None:
    """(variant, extra memory of one training step in MiB) for each variant that has it."""
    return tuple((n, r["peak_extra_mib"]) for n, r in _rows(results).items()
                 if r.get("peak_extra_mib") is not None) or None
