"""Findings of the training page: forward + backward against forward, kernels, memory."""
from __future__ import annotations

from ...verdict import median
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
    fwd = {n: median(results["variants"][n].get("kernel_sum_us")) for n in rows
           if results["variants"].get(n, {}).get("status") == "ok"}
    return tuple((n, median(r["kernel_sum_us"]) / fwd[n]) for n, r in rows.items()
                 if fwd.get(n) and r.get("kernel_sum_us")) or None


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
