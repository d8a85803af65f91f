"""Small lookups the findings share."""
from __future__ import annotations

from dataclasses import dataclass

from ...rows import KERNEL_TIME, kernel_time
from ...schema import Kernel, OverheadRow, Results, VariantRow
from ...variants import FUSED
from ...verdict import (
    Verdict,
    by_group,
    by_run_round_medians,
    median,
    pair_ratios,
    round_values,
    rounds_of,
    runs_of,
)


def ok(results: Results, name: str) -> VariantRow | None:
    """The variant's row if it ran and has GPU times, else None."""
    row = results["variants"].get(name)
    return row if row and row["status"] == "ok" and row.get("cuda_time_us") else None


def ran_fused(results: Results) -> list[str]:
    """The fused backends that ran and have GPU times, in FUSED's order."""
    return [n for n in FUSED if ok(results, n)]


def eager_over_kernel(row: OverheadRow) -> float:
    """An overhead row's eager wall time per call against its kernel time (1.0: equal)."""
    return row["eager_wall_us"]["median"] / median(kernel_time(row))


def cuda(results: Results, name: str) -> float:
    return median(results["variants"][name]["cuda_time_us"])


def compute_kernel(row: VariantRow) -> Kernel | None:
    """The first real kernel of a variant (not a Memcpy or Memset)."""
    return next((k for k in row["kernels"] if k["kind"] == "kernel"), None)


@dataclass(frozen=True)
class Paired:
    """A comparison by the paired rule (report/verdict/paired.py) in one `metric` ("wall":
    wall time per call, "host": host overhead per call, "kernel": kernel time): `order` "<"
    (a faster), ">" (b faster) or None; `same` where the two are the same within ±`within`
    % (the margin), neither: undecided, for `reason`; `ratio` the slower's figure over the
    faster's (≥ 1; a's over b's where no order), `interval` that ratio's interval at
    `confidence` across `rounds` processes, from `n` ratios in all; where `runs` > 1, across
    that many runs instead (report/verdict: by_runs), `run_ratios` each run's ratio,
    oriented as `ratio` (None for a run without it)."""
    order: str | None
    metric: str
    ratio: float
    interval: tuple[float, float]
    confidence: float  # %
    within: float
    n: int
    rounds: int
    same: bool = False
    reason: str | None = None
    runs: int = 1
    run_ratios: tuple[float | None, ...] = ()

    @property
    def undecided(self) -> bool:
        return self.order is None and not self.same


def paired(v: Verdict, metric: str) -> Paired | None:
    """A paired Verdict as a fact, oriented so that `ratio` ≥ 1 where it found an order;
    None where the rule had no ratios."""
    if v.median_ratio is None or v.interval is None:
        return None
    lo, hi = v.interval
    ratio, interval, run_ratios = v.median_ratio, (lo, hi), v.run_ratios
    if v.order != "<":  # b faster, or no order: a's figure over b's
        ratio, interval = 1 / ratio, (1 / hi, 1 / lo)
        run_ratios = tuple(None if r is None else 1 / r for r in run_ratios)
    return Paired(v.order, metric, ratio, interval, 100 * v.confidence, 100 * v.noise, v.pairs,
                  v.processes, v.same, v.reason, v.runs, run_ratios)


def pair_group(results: Results, name: str) -> dict | None:
    """One group of results.json's paired timing (measure/pair_groups.py), or None where the
    run has no pairs (files written before them)."""
    return ((results.get("pairs") or {}).get("groups") or {}).get(name)


def by_pair_group(results: Results, name: str, a: str, b: str) -> Paired | None:
    """a against b in pair group `name` by the paired rule (by_group: across the runs pooled
    into the results, else the run's processes), or None where the run did not time them in
    pairs."""
    group = pair_group(results, name)
    if not pair_ratios(group, a, b):
        return None
    return paired(by_group(group, a, b), group.get("metric", "wall"))


def by_rounds(a_row, b_row, key=KERNEL_TIME, b_key=None, metric="kernel") -> Paired | None:
    """a's figure `key` against b's (`b_key`, else the same) by the same rule, one ratio per
    round (by_run_round_medians: across the runs pooled into the rows, else the run's
    processes): for kernel time, which is not timed in pairs; None where either row of the
    run lacks rounds."""
    a_rounds, b_rounds = rounds_of(a_row, key), rounds_of(b_row, b_key or key)
    if a_rounds is None or b_rounds is None:
        return None
    n = sum(1 for x, y in zip(a_rounds, b_rounds, strict=False) if round_values([x]) and round_values([y]))
    a_runs, b_runs = runs_of(a_row, key), runs_of(b_row, b_key or key)
    return paired(by_run_round_medians(a_runs, b_runs), metric) if n else None
