"""Every verdict a page states on two figures ("faster", "larger", "first", "within
noise"), at render time: one interface, each rule returning a typed `Verdict`.

The rules, by what the run holds:
- `by_pairs` (paired.py): paired, interleaved measurements, per-pair ratios per round
  (`by_group` reads them off a group of results.json's "pairs"): every comparison the CPU
  paces (wall time, host overhead), and `by_round_medians`, the same rule on kernel time's
  rounds;
- `by_points` (paired.py): two shape points' kernel times, beyond the profiled steps'
  spread and the same minimum effect;
- `order_holds` (across_rounds.py): figures measured in several rounds: the same order in
  every round, the gap beyond the rounds' ranges (what is left on it: the host share of
  Recommendations and Home, in small ops);
- `differ` / `within_noise` (one_run.py): two figures of one run, beyond the larger spread
  (files without rounds; shape points).

Nothing here is measuring code: changing a rule re-renders the pages and re-measures
nothing (results.code_hashes)."""
from .across_rounds import (
    order_holds,
    round_median,
    round_range,
    round_values,
    rounds_of,
)
from .one_run import (
    differ,
    median,
    noise,
    point_figure,
    spread,
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

__all__ = [
    "CONFIDENCE", "MIN_EFFECT", "Verdict", "by_group", "by_pairs", "by_points", "by_round_medians",
    "differ", "median", "noise", "order_holds", "pair_ratios", "point_figure",
    "round_median", "round_range", "round_values", "rounds_of", "sign_test_interval", "spread", "within_noise",
]
