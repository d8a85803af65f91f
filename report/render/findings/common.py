"""Small lookups the findings share."""
from __future__ import annotations

from ...schema import Kernel, OverheadRow, Results, VariantRow
from ...text.catalog import t
from ...text.format import fmt_pct, fmt_ratio, fmt_us_range
from ...variants import FUSED
from ...verdict import compare_rounds, differ, median, noise, rounds_of


def ok(results: Results, name: str) -> VariantRow | None:
    """The variant's row if it ran and has GPU times, else None."""
    row = results["variants"].get(name)
    return row if row and row["status"] == "ok" and row.get("cuda_time_us") else None


def ran_fused(results: Results) -> list[str]:
    """The fused backends that ran and have GPU times, in FUSED's order."""
    return [n for n in FUSED if ok(results, n)]


def lost_or_noise(a, b, lost_key, lang):
    """The verdict on unpinned SDPA's figure a against the fastest pinned backend's b: the
    text `lost_key` with the ratio where a is larger beyond noise (report/verdict),
    otherwise "within noise"; both name the spread."""
    spread = fmt_pct(100 * noise(a, b), lang, 0)
    if differ(a, b) and a["median"] > b["median"]:
        return t(lost_key, lang, ratio=fmt_ratio(a["median"] / b["median"], lang), spread=spread)
    return t("finding.rec_auto_noise", lang, spread=spread)


def rounds_verdict(a_row, b_row, key, lost_key, lang):
    """The verdict on unpinned SDPA (a_row) against the fastest pinned backend (b_row) in
    the figure `key`, across the rounds both rows have (report/verdict: compare_rounds): the
    text `lost_key` with the ratio of the medians of the rounds where a is larger in every
    round beyond the spread between rounds, otherwise "within noise"; both give each one's
    range over the rounds. Rows without rounds (older files): lost_or_noise on their own
    figures (the caller falls back to it on None)."""
    a_rounds, b_rounds = rounds_of(a_row, key), rounds_of(b_row, key)
    if a_rounds is None or b_rounds is None:
        return None
    c = compare_rounds(a_rounds, b_rounds)
    if c.a is None or c.b is None:
        return None
    ranges = t("finding.round_ranges", lang, a=fmt_us_range(c.a_range, lang), b=fmt_us_range(c.b_range, lang),
               n=len([r for r in a_rounds if r is not None]))
    if c.order == ">":
        return t(lost_key, lang, ratio=fmt_ratio(c.a / c.b, lang), ranges=ranges)
    return t("finding.noise_rounds", lang, ranges=ranges)


def eager_over_kernel(row: OverheadRow) -> float:
    """An overhead row's eager wall time per call against its kernel time (1.0: equal)."""
    return row["eager_wall_us"]["median"] / median(row["kernel_sum_us"])


def cuda(results: Results, name: str) -> float:
    return median(results["variants"][name]["cuda_time_us"])


def compute_kernel(row: VariantRow) -> Kernel | None:
    """The first real kernel of a variant (not a Memcpy or Memset)."""
    return next((k for k in row["kernels"] if k["kind"] == "kernel"), None)

