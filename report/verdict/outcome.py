"""The typed verdict every comparison rule returns."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Verdict:
    """How figure a stands against figure b, as one rule of this package decided it.

    order: "<" (a below b beyond the margin), ">" (a above b) or None (not ordered).
    same: True where the rule finds them the same within the margin; noise: that margin
    (0.05: ±5 %);
    order None and not same is undecided, for `reason` ("processes": too few processes for
    an interval; "margin": the interval reaches both inside and beyond the margin;
    "spread": two points' gap or spread reaches beyond the margin without the gap clearing
    the spread). a, b: the figures compared (medians); None where one is missing.
    a_range, b_range: (lowest, highest) of each over what the rule looked at, or None.
    interval: for paired ratios, (lo, hi) of the ratio b / a across processes, at
    `confidence`, around its centre (median_ratio: the geometric mean of the processes'
    ratios), from `processes` processes and `pairs` ratios in all; None for by_points.
    runs: how many runs the interval is across (paired.by_runs: more than 1, each run one
    ratio, run_ratios, in the order of the runs, None for a run without one; 1: across one
    run's processes).
    rule: which rule decided ("pairs": by_pairs, by_group, by_round_medians; "points": by_points)."""

    order: str | None
    a: float | None
    b: float | None
    noise: float = 0.0
    a_range: tuple[float, float] | None = None
    b_range: tuple[float, float] | None = None
    interval: tuple[float, float] | None = None
    rule: str = ""
    confidence: float | None = None
    median_ratio: float | None = None
    same: bool = False
    reason: str | None = None
    processes: int = 0
    pairs: int = 0
    runs: int = 1
    run_ratios: tuple[float | None, ...] = ()

    @property
    def undecided(self) -> bool:
        """Neither ordered nor the same: the measurements cannot tell."""
        return self.order is None and not self.same

    @property
    def ratio(self) -> float | None:
        """b / a: how many times as long b took (the median of the paired ratios for
        paired figures; None where a figure is missing or a is 0)."""
        if self.median_ratio is not None:
            return self.median_ratio
        return self.b / self.a if self.a and self.b is not None else None
