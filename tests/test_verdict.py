"""The verdict rules (report/verdict), on made-up figures, rounds and pairs."""
import math
import random
import statistics

import pytest

from report.verdict import (
    MIN_EFFECT,
    by_group,
    by_pairs,
    by_points,
    by_round_medians,
    by_run_round_medians,
    by_runs,
    decide,
    decided,
    leader,
    pair_ratios,
    process_interval,
    spread,
    without_each_run,
)
from report.verdict.student_t import t_quantile

# --- within one run: the larger spread ---------------------------------------------------


def test_a_figure_s_spread_is_the_one_its_measurement_recorded():
    assert spread({"median": 10.0, "spread_pct": 30.0, "iqr": 1.0, "min": 9.0, "max": 11.0}) == 0.3
    assert spread({"median": 10.0, "iqr": 1.0, "runs": 5}) == 0.1              # a wall timer
    assert spread({"median": 10.0, "min": 9.5, "max": 10.5, "n": 50}) == 0.1   # profiled steps
    assert spread({"median": 10.0}) == 0.0                                     # a cited figure


@pytest.mark.parametrize("a, b, order", [
    ({"median": 10.0, "min": 9.5, "max": 10.5}, {"median": 12.0, "min": 11.5, "max": 12.5}, "<"),
    ({"median": 10.0, "min": 9.5, "max": 10.5}, {"median": 10.9, "min": 10.4, "max": 11.4}, None),
    ({"median": 10.0, "iqr": 3.0}, {"median": 12.0, "iqr": 0.1}, None),      # the larger spread counts
    ({"median": 10.0}, {"median": 11.0, "min": 10.5, "max": 11.5}, "<"),    # cited: ours counts
    ({"median": 10.0}, {"median": 10.5, "min": 10.0, "max": 11.0}, None),
    ({"median": 10.0, "min": 10.0, "max": 10.0}, {"median": 10.4, "min": 10.4, "max": 10.4}, None),  # 4 %: under 5 %
])
def test_two_points_differ_only_beyond_the_larger_spread_and_the_minimum(a, b, order):
    flipped = {"<": ">", ">": "<", None: None}[order]
    assert by_points({"kernel_sum_us": a}, {"kernel_sum_us": b}).order == order
    assert by_points({"kernel_sum_us": b}, {"kernel_sum_us": a}).order == flipped


# --- paired ratios: one ratio per process, Student's t across processes ----------------

@pytest.mark.parametrize("df, t", [(1, 12.706), (2, 4.303), (3, 3.182), (4, 2.776), (9, 2.262), (29, 2.045)])
def test_the_t_quantile_is_the_printed_table_s(df, t):
    """Two-sided 95 % points of Student's t (any statistics table)."""
    assert t_quantile(df, 0.95) == pytest.approx(t, abs=5e-4)


def test_the_interval_is_student_s_on_the_log_of_the_processes_ratios():
    ratios = [1.1, 1.2, 1.15, 1.25]
    logs = [math.log(r) for r in ratios]
    mean, sd = statistics.fmean(logs), statistics.stdev(logs)
    centre, lo, hi = process_interval(ratios)
    assert centre == pytest.approx(math.exp(mean))
    assert (lo, hi) == pytest.approx((math.exp(mean - 3.1824 * sd / 2), math.exp(mean + 3.1824 * sd / 2)), rel=1e-4)


@pytest.mark.parametrize("lo, hi, n, outcome", [
    (1.06, 1.30, 4, ("<", False, None)),       # wholly beyond the margin: A faster
    (0.70, 0.94, 4, (">", False, None)),       # wholly below it: B faster
    (0.97, 1.04, 4, (None, True, None)),       # wholly inside: the same
    (1.02, 1.12, 4, (None, False, "margin")),  # excludes 1 but reaches inside: undecided, not "the same"
    (0.90, 1.10, 4, (None, False, "margin")),
    (1.20, 1.20, 1, (None, False, "processes")),  # one process: no interval
])
def test_three_outcomes_by_where_the_interval_lies_against_the_margin(lo, hi, n, outcome):
    assert decide(lo, hi, n) == outcome


def _pairs(rng, ratio, jitter, rounds=4, per_round=20, drift=0.0):
    """Per-round lists of B/A from made-up times: A's time drifts by `drift` per round
    (both sides of a pair move together), each pair's times jitter by `jitter`."""
    out = []
    for r in range(rounds):
        base = 30.0 * (1 + drift * r)
        out.append([(base * ratio * (1 + rng.uniform(-jitter, jitter))) / (base * (1 + rng.uniform(-jitter, jitter)))
                    for _ in range(per_round)])
    return out


def test_a_clear_win_with_noisy_pairs_is_called():
    rng = random.Random(1)
    pairs = _pairs(rng, 1.4, 0.25)           # each time moves by up to ±25 %
    verdict = by_pairs(pairs)
    assert verdict.order == "<" and verdict.rule == "pairs" and verdict.processes == 4 and verdict.pairs == 80
    lo, hi = verdict.interval
    assert 1.05 < lo <= verdict.ratio <= hi and 1.3 < verdict.ratio < 1.5
    assert by_pairs([[1 / r for r in rnd] for rnd in pairs]).order == ">"  # B faster: the other way


def test_a_one_percent_gap_with_tight_pairs_is_the_same():
    verdict = by_pairs(_pairs(random.Random(2), 1.01, 0.002))
    assert verdict.interval[0] > 1                      # the interval excludes 1 ...
    assert verdict.order is None and verdict.same       # ... and lies inside the margin
    assert verdict.noise == MIN_EFFECT and not verdict.undecided


def test_pairs_of_one_process_count_once():
    """Issue 39: 30 tight pairs in each process, but the processes' own ratios 0.76 / 0.90 /
    1.12 (FlexAttention against flash): pooled, the pairs gave a tight interval; per process
    the run cannot tell."""
    rng = random.Random(3)
    rounds = [_pairs(rng, r, 0.01, rounds=1, per_round=30)[0] for r in (0.76, 0.90, 1.12)]
    verdict = by_pairs(rounds)
    assert verdict.undecided and verdict.reason == "margin" and verdict.processes == 3
    assert verdict.interval[0] < 0.7 and verdict.interval[1] > 1.1


def test_an_interval_wholly_beyond_the_margin_is_never_the_same():
    """Issue 39: 'the same within ±24 %' was printed over an interval of 1.09x-1.13x."""
    rng = random.Random(4)
    rounds = [_pairs(rng, r, 0.01, rounds=1)[0] for r in (1.09, 1.13, 1.11, 1.10)]
    verdict = by_pairs(rounds)
    assert verdict.order == "<" and verdict.interval[0] > 1.05 and not verdict.same


def test_drift_that_moves_both_sides_together_decides_nothing():
    rng = random.Random(4)
    same = by_pairs(_pairs(rng, 1.0, 0.03, drift=0.3))     # the machine 30 % slower each round
    assert same.same and same.order is None
    win = by_pairs(_pairs(rng, 1.2, 0.03, drift=0.3))
    assert win.order == "<" and 1.15 < win.ratio < 1.25


def test_kernel_time_is_decided_on_one_ratio_per_process():
    fast, slow = [57.0, 57.3, 57.1], [93.6, 93.9, 93.8]
    verdict = by_round_medians(fast, slow)
    assert verdict.order == "<" and verdict.confidence == 0.95 and verdict.processes == 3
    assert verdict.interval[0] < min(s / f for f, s in zip(fast, slow, strict=True))
    assert by_round_medians([514.0, 515.0, 513.5], [519.0, 518.0, 520.0]).same   # 1 %, tight
    one = by_round_medians([57.0, None, 57.1], [93.6, 93.9, None])               # one round in both
    assert one.undecided and one.reason == "processes"


def test_no_pairs_is_no_verdict():
    verdict = by_pairs([[], [float("nan"), -1.0]])
    assert verdict.order is None and verdict.ratio is None and verdict.interval is None


def test_a_pair_group_of_results_json_gives_each_pair_s_ratio_between_any_two_entries():
    """measure/pairs.py's shape: per round, each entry's blocks (µs per call, one per pair)."""
    group = {"metric": "wall", "rounds": [
        {"blocks_us": {"auto": [50.0, 52.0], "efficient": [30.0, 31.2], "cudnn": [49.0, 55.0]},
         "ratio": {"efficient": [0.6, 0.6], "cudnn": [0.98, 55 / 52]}},
        {"error": "out of memory"},
        {"blocks_us": {"auto": [51.0], "efficient": [30.6]}},        # cudnn refused this round
    ]}
    assert pair_ratios(group, "auto", "efficient") == [[0.6, 0.6], [0.6]]
    assert pair_ratios(group, "efficient", "cudnn") == [[49.0 / 30.0, 55.0 / 31.2]]
    assert pair_ratios({"rounds": []}, "auto", "cudnn") == [] and by_group(None, "a", "b").order is None


def test_the_small_shape_s_never_overlapping_ranges_are_called_from_pairs():
    """Issue 29: efficient 25.5-34.9 µs against cuDNN 46.8-55.3 µs over four measurements,
    'within noise' by the run's floor; interleaved pairs call it."""
    rng = random.Random(5)
    rounds = []
    for drift in (1.0, 1.3, 1.35, 1.25):  # the machine's state moves both sides of a pair
        eff = [28.0 * drift * (1 + rng.uniform(-0.05, 0.05)) for _ in range(40)]
        cud = [49.0 * drift * (1 + rng.uniform(-0.05, 0.05)) for _ in range(40)]
        rounds.append({"blocks_us": {"efficient": eff, "cudnn": cud}})
    verdict = by_group({"rounds": rounds}, "efficient", "cudnn")
    assert verdict.order == "<" and 1.6 < verdict.ratio < 1.9 and verdict.confidence >= 0.95


def test_processes_that_scatter_widely_but_all_far_beyond_the_margin_are_called():
    """A CUDA-graph replay against an eager call whose pace moves with the CPU's between
    processes (the H200's small shape, SDPA efficient: processes' ratios 1.49-2.53x): the
    size moves, the order never does, and the interval stays beyond the margin."""
    rng = random.Random(7)
    verdict = by_pairs([_pairs(rng, r, 0.05, rounds=1, per_round=30)[0] for r in (1.59, 1.49, 2.53, 1.9)])
    assert verdict.order == "<" and verdict.interval[0] > 1.05


def test_a_superlative_names_a_leader_only_where_it_is_ordered_before_every_other():
    times = {"a": 10.0, "b": 10.2, "c": 20.0}

    def compare(x, y):
        return by_pairs([[times[y] / times[x] * (1 + 0.01 * i)] for i in range(4)])
    found = leader(sorted(times, key=times.get), compare)
    assert found.name is None and found.contenders == ("a", "b")  # a and b: the same within 5 %
    times["b"] = 15.0
    found = leader(sorted(times, key=times.get), compare)
    assert found.name == "a" and found.contenders == ("a",)
    assert leader([], compare) is None


def test_shape_points_need_a_gap_beyond_their_spread_and_the_margin():
    """Issue 29: decode, flash pinned, 1 against 4 tokens: 514 against 519 µs with steps
    spread under 1 % read '0.99× as long' in one run and 'the same' in the next two."""
    def point(us, spread=0.005):
        return {"kernel_sum_us": {"median": us, "min": us * (1 - spread), "max": us * (1 + spread)}}
    close = by_points(point(514.0), point(519.0))
    assert close.same and close.noise == MIN_EFFECT  # gap and spread inside the margin
    apart = by_points(point(474.5), point(519.4))
    assert apart.order == "<" and apart.rule == "points"
    wide = by_points(point(100.0, 0.2), point(110.0, 0.2))   # within the steps' spread of 20 %
    assert wide.undecided and wide.reason == "spread" and wide.noise == pytest.approx(0.4)


# --- across runs: the run as the unit ----------------------------------------------------


def test_across_runs_each_run_is_one_ratio_and_the_interval_is_across_runs():
    """Each run's ratio is the geometric mean of its processes' median ratios; the interval
    is Student's t on the runs' ratios, n - 1 degrees of freedom for n runs."""
    runs = [[[1.10, 1.12, 1.11], [1.09]], [[1.20]], [[1.14, 1.15], [1.16]]]
    v = by_runs(runs)
    expected = (math.sqrt(1.11 * 1.09), 1.20, math.sqrt(1.145 * 1.16))
    assert v.runs == 3 and v.run_ratios == pytest.approx(expected)
    assert (v.median_ratio, *v.interval) == pytest.approx(process_interval(expected))
    assert v.processes == 5 and v.pairs == 8
    assert by_runs([runs[0], [], [[float("nan")]]]) == by_pairs(runs[0])  # one run left: its processes


def test_processes_that_agree_within_each_run_do_not_decide_what_the_runs_do_not():
    """Issue 39: FlexAttention against flash in wall time, tight in each run (1.14x in two
    quiet runs, 0.92x-1.05x where the host was slower): each run alone decides something,
    the runs together do not."""
    rng = random.Random(11)
    runs = [_pairs(rng, r, 0.01, rounds=4) for r in (1.14, 1.14, 0.92, 1.05, 1.02)]
    assert by_pairs(runs[0]).order == "<" and by_pairs(runs[2]).order == ">"
    v = by_runs(runs)
    assert v.undecided and v.reason == "margin" and v.runs == 5 and v.processes == 20


def test_a_group_pooled_across_runs_is_decided_across_them():
    quiet = [{"blocks_us": {"a": [10.0, 10.1], "b": [11.5, 11.6]}} for _ in range(4)]
    slow = [{"blocks_us": {"a": [20.0, 20.2], "b": [20.4, 20.5]}} for _ in range(4)]
    one = {"rounds": quiet}
    assert by_group(one, "a", "b").order == "<" and by_group(one, "a", "b").runs == 1
    both = {"rounds": quiet, "run_rounds": [quiet, slow, quiet, None]}  # a run without the group: left out
    v = by_group(both, "a", "b")
    assert v.runs == 3 and v.processes == 12 and v.undecided
    assert len(v.run_ratios) == 4 and v.run_ratios[3] is None  # the runs' order, as the table names them


def test_kernel_time_across_runs_is_one_ratio_per_run_from_its_rounds():
    a_runs = [[57.0, 57.3, 57.1], [57.2, None, 57.0], None]
    b_runs = [[93.6, 93.9, 93.8], [94.0, 93.5, 93.7], [93.0]]
    v = by_run_round_medians(a_runs, b_runs)
    assert v.runs == 2 and v.order == "<" and v.processes == 5
    assert by_run_round_medians(a_runs[:1], b_runs[:1]) == by_round_medians(a_runs[0], b_runs[0])


def test_leaving_each_run_out_decides_on_the_others():
    ratios = (1.07, 1.08, 1.09, 1.07, 1.20)
    assert decided(ratios) == (None, False)  # the 1.20x run widens the interval past the margin
    assert without_each_run(ratios) == [(None, False)] * 4 + [("<", False)]
    assert without_each_run((1.1, 1.2)) == []


def test_two_gpus_are_compared_unpaired_with_the_run_as_the_unit():
    from report.verdict import by_unpaired_runs

    fast = [[100.0, 102.0, 98.0], [101.0, 99.0, 100.0], [103.0, 97.0, 100.0]]  # three runs of one GPU, rounds inside
    slow = [[200.0, 204.0, 196.0], [202.0, 198.0, 200.0]]
    v = by_unpaired_runs(fast, slow)
    assert v.order == "<" and v.ratio == pytest.approx(2.0, rel=0.01) and v.runs == 2 and v.processes == 5
    shuffled = [list(reversed(run)) for run in slow]  # no round of one GPU is paired with a round of the other
    assert by_unpaired_runs(fast, shuffled).interval == pytest.approx(v.interval)
    one = by_unpaired_runs(fast[:1], slow[:1])  # one run a side: no interval across runs
    assert one.order is None and not one.same and one.reason == "processes"
    same = by_unpaired_runs(fast, [[100.5, 99.5], [100.0, 100.2]])
    assert same.same and same.order is None
