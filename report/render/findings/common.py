"""Small lookups the findings share."""
from __future__ import annotations

import statistics

from ...schema import Kernel, OverheadRow, Results, VariantRow
from ...text.catalog import t
from ...text.format import fmt_pct, fmt_ratio, fmt_us_range
from ...trace.stats import compare_rounds, differ, median, noise, round_values, rounds_of
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


def rounds_verdict(a_row, b_row, key, lost_key, lang):
    """The verdict on unpinned SDPA (a_row) against the fastest pinned backend (b_row) in
    the figure `key`, across the rounds both rows have (trace/stats.py compare_rounds): the
    text `lost_key` with the ratio of the medians of the rounds where a is larger in every
    round beyond the spread between rounds, otherwise "within noise"; both give each one's
    range over the rounds. Rows without rounds (older files): lost_or_noise on their own
    figures (the caller falls back to it on None)."""
    a_rounds, b_rounds = rounds_of(a_row, key), rounds_of(b_row, key)
    if a_rounds is None or b_rounds is None:
        return None
    c = compare_rounds(a_rounds, b_rounds)
    if c["a_median"] is None or c["b_median"] is None:
        return None
    ranges = t("finding.round_ranges", lang, a=fmt_us_range(c["a_range"], lang), b=fmt_us_range(c["b_range"], lang),
               n=len([r for r in a_rounds if r is not None]))
    if c["order"] == ">":
        return t(lost_key, lang, ratio=fmt_ratio(c["a_median"] / c["b_median"], lang), ranges=ranges)
    return t("finding.noise_rounds", lang, ranges=ranges)


def eager_over_kernel(row: OverheadRow) -> float:
    """An overhead row's eager wall time per call against its kernel time (1.0: equal)."""
    return row["eager_wall_us"]["median"] / median(row["kernel_sum_us"])


def cuda(results: Results, name: str) -> float:
    return median(results["variants"][name]["cuda_time_us"])


def compute_kernel(row: VariantRow) -> Kernel | None:
    """The first real kernel of a variant (not a Memcpy or Memset)."""
    return next((k for k in row["kernels"] if k["kind"] == "kernel"), None)


# What one run's machine state moves a figure by, for comparisons the CPU paces.
#
# A host-paced figure (an eager call at the small shape, a host overhead) moves with the
# machine's state between measurements of the same variant, by more than the spread of
# any one measurement: on the H200 of our runs an eager call at the small shape moved by
# up to 1.6x between one 0.17 s timer and the next. An order between two such figures is
# stated only where it holds against every measurement the run made of both (the full
# measurement and each round) and the gap is larger than the largest change the run saw
# between measurements of one variant (the run's floor); otherwise "within noise".

def samples(row, key) -> list[float]:
    """Every measurement of a row's figure `key` in the run: the full measurement's
    median, then each round's."""
    own = row.get(key) if isinstance(row, dict) else None
    found = [float(own["median"])] if isinstance(own, dict) and isinstance(own.get("median"), (int, float)) else []
    return found + round_values(rounds_of(row, key) or [])


def floor(rows, key) -> float:
    """The largest relative change between measurements of one figure among `rows`,
    (highest - lowest) / median of one row's samples; 0 where no row has two."""
    changes = [(max(s) - min(s)) / statistics.median(s) for s in (samples(r, key) for r in rows) if len(s) > 1]
    return max(changes, default=0.0)


def below(a_row, b_row, key, noise_floor) -> bool:
    """True when a's figure is below b's beyond the run's noise: every measurement of a
    below every measurement of b, and b's lowest above a's highest by more than the floor."""
    a, b = samples(a_row, key), samples(b_row, key)
    return bool(a and b) and max(a) < min(b) and min(b) / max(a) - 1 > noise_floor


def small_rows(results) -> dict:
    """The small shape's overhead rows that ran."""
    rows = (results.get("overhead") or {}).get("rows", {}).get("small", {})
    return {n: r for n, r in rows.items() if r.get("status") == "ok"}


def host_floor(results) -> float:
    """The run's floor for figures the CPU paces: the largest change between measurements
    of one variant's eager wall time at the small shape (0 where the run lacks it)."""
    return floor(small_rows(results).values(), "eager_wall_us")
