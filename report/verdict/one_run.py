"""The rule within one run: two recorded figures (a stored summary each) differ only when
their medians are further apart than the larger of their spreads."""
from __future__ import annotations


def median(stat):
    """The median of a stored summary, or None where nothing was measured."""
    return stat["median"] if stat else None


def spread(figure):
    """How far a recorded figure moves between runs, as a share of its median: the spread
    its measurement recorded ("spread_pct": host overhead, between the quarters of its
    pass), else a wall timer's interquartile range ("iqr"), else the range of the profiled
    steps (max - min). A figure with none of these (a cited one) has 0."""
    if figure.get("spread_pct") is not None:
        return figure["spread_pct"] / 100
    if figure.get("iqr") is not None:
        return figure["iqr"] / figure["median"]
    if figure.get("min") is not None and figure.get("max") is not None:
        return (figure["max"] - figure["min"]) / figure["median"]
    return 0.0


def noise(a, b):
    """The noise two figures are compared within: the larger of their spreads."""
    return max(spread(a), spread(b))


def differ(a, b):
    """The rule for "faster", "larger" or "first" within one run: two recorded figures
    differ only when their medians are further apart than the noise, taken from the smaller
    median."""
    return abs(a["median"] - b["median"]) > noise(a, b) * min(a["median"], b["median"])


# Shape and sweep points: what a point is compared by.

def point_figure(p):
    """The recorded figure a sweep or shape point is compared by: its kernel time (the
    profiled CPU range without a GPU)."""
    return p.get("kernel_sum_us") or p.get("cpu_time_us")


def within_noise(a, b):
    """True when two points' times do not differ beyond noise (differ on point_figure)."""
    return not differ(point_figure(a), point_figure(b))
