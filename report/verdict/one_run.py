"""The rule within one run: two recorded figures (a stored summary each) differ only when
their medians are further apart than the larger of their spreads."""
from __future__ import annotations

from .outcome import Verdict


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


def by_spread(a, b, rule="spread") -> Verdict:
    """`differ` as a Verdict: the order of a against b where they differ, else None."""
    order = ("<" if a["median"] < b["median"] else ">") if differ(a, b) else None
    return Verdict(order, a["median"], b["median"], noise(a, b), rule=rule)


# Shape and sweep points: what a point is compared by.

def point_figure(p):
    """The recorded figure a sweep or shape point is compared by: its kernel time (the
    profiled CPU range without a GPU)."""
    return p.get("kernel_sum_us") or p.get("cpu_time_us")


def within_noise(a, b):
    """True when two points' times do not differ beyond noise (differ on point_figure)."""
    return not differ(point_figure(a), point_figure(b))


def wall_figure(p):
    """A point's wall time as the noise rule compares it (differ). A wall time of one timer
    run has no spread of its own (an IQR of one run is 0): then its spread is the larger of
    the point's host overhead's and kernel time's, the two that set the pace of
    back-to-back calls."""
    wall = dict(p["wall_time_us"])
    if (wall.get("runs") or 0) < 2:
        wall["spread_pct"] = 100 * max(spread(p[k]) for k in ("host_time_us", "kernel_sum_us") if p.get(k)) \
            if any(p.get(k) for k in ("host_time_us", "kernel_sum_us")) else 0.0
    return wall


def walls_differ(a, b):
    """True when two points' wall times differ beyond noise (wall_figure, differ)."""
    return differ(wall_figure(a), wall_figure(b))


def by_walls(a, b) -> Verdict:
    """`walls_differ` as a Verdict on two shape points' wall times."""
    return by_spread(wall_figure(a), wall_figure(b), rule="walls")
