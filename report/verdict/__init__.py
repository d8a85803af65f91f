"""Every verdict a page states on two figures ("faster", "larger", "first", "the same
within ±y %"), at render time: one rule family (paired.py), each rule returning a typed
`Verdict`, each comparison in one named metric (kernel time, wall time per call, host
overhead):
- `by_group` / `by_pairs`: paired, interleaved measurements, per-pair ratios per round
  (`by_group` reads them off a group of results.json's "pairs"), decided on one ratio per
  process (each round is a fresh process): every comparison the CPU paces (wall time per
  call, host overhead);
- `by_runs`: the same rule one level up, where reruns of the same code are pooled in
  (across_runs.py): each run one ratio, the interval across runs; by_group and
  by_run_round_medians read the pooled runs and fall back to one run's processes;
- `by_round_medians`: the same rule on one ratio per round (kernel time from rows'
  "rounds", read with `rounds_of`; also a figure derived per round, such as host overhead
  against kernel time);
- `by_points`: two sweep or shape points' kernel times (one run each), beyond the profiled
  steps' spread and the same margin;
- `leader`: a superlative ("the lowest", "the fastest") only where one candidate is ordered
  before every other by one of these rules.
Three outcomes each: ordered, the same within the margin, or undecided with its reason.
The profiler's own figures (GPU span, idle gaps, profiled CPU time) rank nothing.
across_rounds.py and one_run.py hold the figures the rules and the pages read (a round's
value, their range and median, a figure's spread); across_runs.py pools the reruns of the
same code into a run, where by_runs reads them.

Nothing here is measuring code: changing a rule re-renders the pages and re-measures
nothing (results.code_hashes)."""
from .across_rounds import (
    round_median,
    round_range,
    round_values,
    rounds_of,
)
from .across_runs import (
    PACE_FACTOR,
    VERSIONS,
    LeftOut,
    Pooling,
    host_pace,
    other_code,
    pooled,
    pooling,
    process_paces,
    run_rounds,
    runs_of,
)
from .leader import Leader, leader
from .one_run import (
    median,
    spread,
)
from .outcome import Verdict
from .paired import (
    CONFIDENCE,
    MIN_EFFECT,
    by_group,
    by_pairs,
    by_points,
    by_round_medians,
    by_run_round_medians,
    by_runs,
    by_unpaired_runs,
    decide,
    decided,
    pair_ratios,
    process_interval,
    run_pair_ratios,
    without_each_run,
)

__all__ = [
    "CONFIDENCE", "Leader", "MIN_EFFECT", "Verdict", "leader", "by_group", "by_pairs", "by_points", "by_round_medians",
    "median", "pair_ratios",
    "round_median", "round_range", "round_values", "rounds_of", "decide", "process_interval", "spread",
    "by_runs", "by_run_round_medians", "by_unpaired_runs", "decided", "other_code", "pooled", "run_pair_ratios",
    "run_rounds", "runs_of", "without_each_run", "PACE_FACTOR", "VERSIONS", "LeftOut", "Pooling", "host_pace",
    "pooling", "process_paces",
]
