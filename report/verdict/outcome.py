"""The typed verdict every comparison rule returns."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Verdict:
    """How figure a stands against figure b, as one rule of this package decided it.

    order: "<" (a below b beyond noise), ">" (a above b) or None (the same within noise).
    a, b: the figures compared (medians, or the medians of the rounds); None where one is
    missing. noise: the share within which the two count as the same (0.03: ±3 %).
    a_range, b_range: (lowest, highest) of each over what the rule looked at, or None.
    interval: for paired ratios, (lo, hi) of the median ratio b / a, with the confidence
    it reaches (confidence) and that median (median_ratio); None for by_points.
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

    @property
    def ratio(self) -> float | None:
        """b / a: how many times as long b took (the median of the paired ratios for
        paired figures; None where a figure is missing or a is 0)."""
        if self.median_ratio is not None:
            return self.median_ratio
        return self.b / self.a if self.a and self.b is not None else None
