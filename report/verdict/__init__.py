"""Every verdict a page states on two figures ("faster", "larger", "first", "within
noise"), at render time: one interface, each rule returning a typed `Verdict`.

The rules, by what the run holds:
- `by_pairs` (paired.py): paired, interleaved measurements, per-pair ratios per round
  (`by_group` reads them off a group of results.json's "pairs"); the rule every comparison
  moves to once the runs hold pairs (issue 29), and `by_round_medians`, the same rule on
  kernel time's rounds;
- `compare_rounds` / `order_holds` / `rows_differ` (across_rounds.py): figures measured in
  several rounds: the same order in every round, the gap beyond the rounds' ranges;
- `by_floor` / `below` (run_floor.py): figures the CPU paces, against the run's floor
  (`host_floor`);
- `by_spread` / `differ` (one_run.py): two figures of one run, beyond the larger spread;
  `by_walls` / `walls_differ` / `within_noise` the same on shape points.

`compare_rows` is the one a finding asks about two rows' figure. Nothing here is measuring
code: changing a rule re-renders the pages and re-measures nothing (results.code_hashes)."""
from .across_rounds import (
    compare_rounds,
    order_holds,
    round_median,
    round_range,
    round_values,
    rounds_of,
    rows_differ,
)
from .one_run import (
    by_spread,
    by_walls,
    differ,
    median,
    noise,
    point_figure,
    spread,
    wall_figure,
    walls_differ,
    within_noise,
)
from .outcome import Verdict
from .paired import (
    CONFIDENCE,
    MIN_EFFECT,
    by_group,
    by_pairs,
    by_points,
    by_round_medians,
    pair_ratios,
    sign_test_interval,
)
from .run_floor import below, by_floor, floor, host_floor, samples, small_rows


def compare_rows(a_row, b_row, key, part=None) -> Verdict:
    """The verdict on two rows' figure `key` (its `part`): across the rounds where both rows
    have them (compare_rounds), else by_spread on the rows' own figures (files without
    rounds). Its order is there exactly where rows_differ is true."""
    a_rounds, b_rounds = rounds_of(a_row, key, part), rounds_of(b_row, key, part)
    if a_rounds is not None and b_rounds is not None:
        return compare_rounds(a_rounds, b_rounds)
    a, b = (a_row[key][part], b_row[key][part]) if part is not None else (a_row[key], b_row[key])
    return by_spread(a, b)


__all__ = [
    "CONFIDENCE", "MIN_EFFECT", "Verdict", "below", "by_floor", "by_group", "by_pairs", "by_points",
    "by_round_medians", "by_spread", "by_walls", "compare_rounds", "compare_rows", "differ",
    "floor", "host_floor", "median", "noise", "order_holds", "pair_ratios", "point_figure",
    "round_median", "round_range", "round_values", "rounds_of", "rows_differ", "samples",
    "sign_test_interval", "small_rows", "spread", "wall_figure", "walls_differ", "within_noise",
]
