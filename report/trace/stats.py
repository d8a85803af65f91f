"""The summary every measured time is stored as."""
import statistics


def stats(values):
    """{"median", "min", "max", "mean", "n"} of the values; None for no values."""
    values = [float(v) for v in values]
    if not values:
        return None
    return {"median": statistics.median(values), "min": min(values), "max": max(values),
            "mean": statistics.fmean(values), "n": len(values)}


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
    """The one rule for "faster", "larger" or "first": two recorded figures differ only when
    their medians are further apart than the noise, taken from the smaller median."""
    return abs(a["median"] - b["median"]) > noise(a, b) * min(a["median"], b["median"])
