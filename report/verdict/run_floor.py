"""The rule for figures the CPU paces, against the run's floor.

A host-paced figure (an eager call at the small shape, a host overhead) moves with the
machine's state between measurements of the same variant, by more than the spread of any
one measurement: on the H200 of our runs an eager call at the small shape moved by up to
1.6x between one 0.17 s timer and the next. An order between two such figures is stated
only where it holds against every measurement the run made of both (the full measurement
and each round) and the gap is larger than the largest change the run saw between
measurements of one variant (the run's floor); otherwise "within noise"."""
from __future__ import annotations

import statistics

from .across_rounds import round_values, rounds_of
from .outcome import Verdict


def samples(row, key) -> list[float]:
    """Every measurement of a row's figure `key` in the run: the full measurement's
    median, then each round's."""
    own = row.get(key) if isinstance(row, dict) else None
    found = [float(own["median"])] if isinstance(own, dict) and isinstance(own.get("median"), (int, float)) else []
    return found + round_values(rounds_of(row, key) or [])


def floor(rows, key) -> float:
    """The largest relative change between measurements of one figure among `rows`,
    (highest - lowest) / median of one row's samples; 0 where no row has two."""
    changes = [(max(s) - min(s)) / statistics.median(s) for s in (samples(r, key) for r in rows) if len(s) > 1]
    return max(changes, default=0.0)


def below(a_row, b_row, key, noise_floor) -> bool:
    """True when a's figure is below b's beyond the run's noise: every measurement of a
    below every measurement of b, and b's lowest above a's highest by more than the floor."""
    a, b = samples(a_row, key), samples(b_row, key)
    return bool(a and b) and max(a) < min(b) and min(b) / max(a) - 1 > noise_floor


def small_rows(results) -> dict:
    """The small shape's overhead rows that ran."""
    rows = (results.get("overhead") or {}).get("rows", {}).get("small", {})
    return {n: r for n, r in rows.items() if r.get("status") == "ok"}


def host_floor(results) -> float:
    """The run's floor for figures the CPU paces: the largest change between measurements
    of one variant's eager wall time at the small shape (0 where the run lacks it)."""
    return floor(small_rows(results).values(), "eager_wall_us")


def by_floor(a_row, b_row, key, noise_floor) -> Verdict:
    """`below` both ways as a Verdict: a's and b's samples' medians and ranges, the floor
    as the noise."""
    a, b = samples(a_row, key), samples(b_row, key)
    order = "<" if below(a_row, b_row, key, noise_floor) else ">" if below(b_row, a_row, key, noise_floor) else None
    return Verdict(order, statistics.median(a) if a else None, statistics.median(b) if b else None, noise_floor,
                   (min(a), max(a)) if a else None, (min(b), max(b)) if b else None, rule="floor")
