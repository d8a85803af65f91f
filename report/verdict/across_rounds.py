"""The figures of several independent rounds (results.json rows with "rounds"): each
round's value, their range and median for display, and the rounds two figures share, which
paired.by_round_medians compares."""
from __future__ import annotations

import statistics


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


def rounds_of(row, key, part=None):
    """The figure `key` of each of a row's rounds (None for a round without it), or None
    where the row has no rounds (results files written before rounds existed). With
    part, that part of each round's figure: rounds_of(row, "host_time_us", "per_small_op")."""
    rounds = row.get("rounds") if isinstance(row, dict) else None
    return figures_of(rounds, key, part) if rounds else None


def figures_of(rounds, key, part=None):
    """The figure `key` (its `part`) of each of a list of rounds, None for a round without it."""
    figures = [r.get(key) if isinstance(r, dict) else None for r in rounds]
    if part is not None:
        figures = [f.get(part) if isinstance(f, dict) else None for f in figures]
    return figures
