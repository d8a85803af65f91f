"""The figures of one run the rules read: a stored summary's median and how far a recorded
figure moves (its spread); a sweep or shape point is compared by its work's time
(report/rows.py: gpu_work). The rule itself is paired.py's."""
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

