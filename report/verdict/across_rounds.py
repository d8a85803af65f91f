"""The rule across rounds: for files whose figures were measured in several independent
rounds (results.json rows with "rounds"); figures.differ stays the rule for files without."""
from __future__ import annotations

import statistics

from .one_run import differ


def round_values(figures):
    """The per-round numbers of a list of figures: a stored summary gives its median, a
    number itself; rounds that measured nothing (None, or a round that failed) are left out."""
    out = []
    for f in figures:
        if isinstance(f, dict):
            f = f.get("median")
        if isinstance(f, (int, float)):
            out.append(float(f))
    return out


def round_range(figures):
    """(lowest, highest) over the rounds, or None where no round measured the figure."""
    values = round_values(figures)
    return (min(values), max(values)) if values else None


def round_median(figures):
    """The median of the rounds' figures (each round's own median), or None."""
    values = round_values(figures)
    return statistics.median(values) if values else None


def paired_rounds(a_rounds, b_rounds):
    """The rounds in which both figures were measured, as (a, b, a's figure, b's figure):
    round i of one against round i of the other, which were measured together (interleaved)."""
    pairs = []
    for a, b in zip(a_rounds, b_rounds, strict=False):  # a round one of them lacks is left out
        av, bv = round_values([a]), round_values([b])
        if av and bv:
            pairs.append((av[0], bv[0], a, b))
    return pairs


def order_holds(a_rounds, b_rounds):
    """The rule for "faster", "highest", "wins" across rounds: True only if one figure is
    below the other in every round both measured, and the gap between their
    medians-of-rounds is larger than the range over the rounds of either. Otherwise the
    two are within noise (say so, with both round_range()s).

    One round shows no spread between rounds: then the round's own figures decide by
    `differ` (their within-run spread), and two bare numbers never differ."""
    pairs = paired_rounds(a_rounds, b_rounds)
    if not pairs:
        return False
    if len(pairs) == 1:
        _, _, a, b = pairs[0]
        return isinstance(a, dict) and isinstance(b, dict) and differ(a, b)
    signs = {(a > b) - (a < b) for a, b, _, _ in pairs}
    if signs != {1} and signs != {-1}:
        return False
    a_vals, b_vals = [p[0] for p in pairs], [p[1] for p in pairs]
    gap = abs(statistics.median(a_vals) - statistics.median(b_vals))
    return gap > max(max(a_vals) - min(a_vals), max(b_vals) - min(b_vals))


def rounds_of(row, key, part=None):
    """The figure `key` of each of a row's rounds (None for a round without it), or None
    where the row has no rounds (results files written before rounds existed). With
    part, that part of each round's figure: rounds_of(row, "host_time_us", "per_small_op")."""
    rounds = row.get("rounds") if isinstance(row, dict) else None
    if not rounds:
        return None
    figures = [r.get(key) if isinstance(r, dict) else None for r in rounds]
    if part is not None:
        figures = [f.get(part) if isinstance(f, dict) else None for f in figures]
    return figures
