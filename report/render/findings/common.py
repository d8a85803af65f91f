"""Small lookups the findings share."""
from __future__ import annotations

import statistics
from dataclasses import dataclass

from ...schema import Kernel, OverheadRow, Results, VariantRow
from ...trace.stats import compare_rounds, differ, median, noise, round_values, rounds_of
from ...variants import FUSED


def ok(results: Results, name: str) -> VariantRow | None:
    """The variant's row if it ran and has GPU times, else None."""
    row = results["variants"].get(name)
    return row if row and row["status"] == "ok" and row.get("cuda_time_us") else None


def ran_fused(results: Results) -> list[str]:
    """The fused backends that ran and have GPU times, in FUSED's order."""
    return [n for n in FUSED if ok(results, n)]


@dataclass(frozen=True)
class Versus:
    """Unpinned SDPA's figure against the fastest pinned backend's, by the noise rule
    (trace/stats.py): `lost` where auto's is larger beyond noise, by `ratio`. Across the
    rounds both rows have (`rounds`: how many; `a_range`, `b_range`: each one's range over
    them; `ratio`: of the rounds' medians), or, for rows without rounds (older files;
    `rounds` None), on their own figures (`spread`: the larger timer IQR, in % of the
    median)."""
    lost: bool
    ratio: float
    rounds: int | None = None
    a_range: tuple[float, float] | None = None
    b_range: tuple[float, float] | None = None
    spread: float | None = None


def versus(a_row, b_row, key) -> Versus:
    """Auto's row (a_row) against the fastest pinned backend's (b_row) in the figure `key`:
    across the rounds both rows have (compare_rounds), else on the rows' own figures
    (differ, noise)."""
    a_rounds, b_rounds = rounds_of(a_row, key), rounds_of(b_row, key)
    if a_rounds is not None and b_rounds is not None:
        c = compare_rounds(a_rounds, b_rounds)
        if c["a_median"] is not None and c["b_median"] is not None:
            return Versus(lost=c["order"] == ">", ratio=c["a_median"] / c["b_median"],
                          rounds=len([r for r in a_rounds if r is not None]),
                          a_range=c["a_range"], b_range=c["b_range"])
    a, b = a_row[key], b_row[key]
    return Versus(lost=differ(a, b) and a["median"] > b["median"], ratio=a["median"] / b["median"],
                  spread=100 * noise(a, b))


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
