"""The summary every measured time is stored as. The verdicts drawn from such summaries
(what differs beyond noise) are rendering's: report/verdict/."""
import statistics


def stats(values):
    """{"median", "min", "max", "mean", "n"} of the values; None for no values."""
    values = [float(v) for v in values]
    if not values:
        return None
    return {"median": statistics.median(values), "min": min(values), "max": max(values),
            "mean": statistics.fmean(values), "n": len(values)}
