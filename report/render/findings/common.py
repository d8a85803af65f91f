"""Small lookups the findings share."""
from __future__ import annotations

from dataclasses import dataclass

from ...schema import Kernel, OverheadRow, Results, VariantRow
from ...variants import FUSED
from ...verdict import compare_rounds, differ, median, noise, rounds_of


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
    (report/verdict): `lost` where auto's is larger beyond noise, by `ratio`. Across the
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
        if c.a is not None and c.b is not None:
            return Versus(lost=c.order == ">", ratio=c.a / c.b, rounds=len([r for r in a_rounds if r is not None]),
                          a_range=c.a_range, b_range=c.b_range)
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
