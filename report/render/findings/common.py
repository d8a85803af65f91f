"""Small lookups the findings share."""
from __future__ import annotations

from ...schema import Kernel, OverheadRow, Results, VariantRow
from ...text.catalog import t
from ...text.format import fmt_pct, fmt_ratio
from ...trace.stats import differ, median, noise
from ...variants import FUSED


def ok(results: Results, name: str) -> VariantRow | None:
    """The variant's row if it ran and has GPU times, else None."""
    row = results["variants"].get(name)
    return row if row and row["status"] == "ok" and row.get("cuda_time_us") else None


def ran_fused(results: Results) -> list[str]:
    """The fused backends that ran and have GPU times, in FUSED's order."""
    return [n for n in FUSED if ok(results, n)]


def lost_or_noise(a, b, lost_key, lang):
    """The verdict on unpinned SDPA's figure a against the fastest pinned backend's b: the
    text `lost_key` with the ratio where a is larger beyond noise (trace/stats.py),
    otherwise "within noise"; both name the spread."""
    spread = fmt_pct(100 * noise(a, b), lang, 0)
    if differ(a, b) and a["median"] > b["median"]:
        return t(lost_key, lang, ratio=fmt_ratio(a["median"] / b["median"], lang), spread=spread)
    return t("finding.rec_auto_noise", lang, spread=spread)


def eager_over_kernel(row: OverheadRow) -> float:
    """An overhead row's eager wall time per call against its kernel time (1.0: equal)."""
    return row["eager_wall_us"]["median"] / median(row["kernel_sum_us"])


def cuda(results: Results, name: str) -> float:
    return median(results["variants"][name]["cuda_time_us"])


def compute_kernel(row: VariantRow) -> Kernel | None:
    """The first real kernel of a variant (not a Memcpy or Memset)."""
    return next((k for k in row["kernels"] if k["kind"] == "kernel"), None)
