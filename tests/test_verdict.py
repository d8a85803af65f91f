"""The verdict rules (report/verdict), on made-up figures, rounds and pairs."""
import random

import pytest

from report.verdict import (
    MIN_EFFECT,
    by_group,
    by_pairs,
    by_points,
    by_round_medians,
    pair_ratios,
    sign_test_interval,
    spread,
)

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


# --- paired ratios: the one rule with a confidence -----------------------------------------

@pytest.mark.parametrize("n, k", [(6, 1), (10, 2), (20, 6), (40, 14)])
def test_the_sign_test_interval_is_the_binomial_order_statistic_one(n, k):
    """Tables of the 95 % interval of a median (e.g. Conover, Practical Nonparametric
    Statistics): [x(k), x(n+1-k)], 1-based."""
    lo, hi, reached = sign_test_interval(list(range(1, n + 1)))
    assert (lo, hi) == (k, n + 1 - k) and reached >= 0.95


def test_fewer_than_six_ratios_reach_no_95_percent_interval():
    lo, hi, reached = sign_test_interval([1.2, 1.3, 1.4])
    assert (lo, hi) == (1.2, 1.4) and reached == 0.75
    assert by_pairs([[1.2, 1.3, 1.4]]).order is None  # 75 %: not called


def _pairs(rng, ratio, jitter, rounds=4, per_round=20, drift=0.0):
    """Per-round lists of B/A from made-up times: A's time drifts by `drift` per round
    (both sides of a pair move together), each pair's times jitter by `jitter`."""
    out = []
    for r in range(rounds):
        base = 30.0 * (1 + drift * r)
        out.append([(base * ratio * (1 + rng.uniform(-jitter, jitter))) / (base * (1 + rng.uniform(-jitter, jitter)))
                    for _ in range(per_round)])
    return out


def test_a_clear_win_with_noisy_rounds_is_called():
    rng = random.Random(1)
    pairs = _pairs(rng, 1.4, 0.25)           # each time moves by up to ±25 %
    verdict = by_pairs(pairs)
    assert verdict.order == "<" and verdict.rule == "pairs"
    lo, hi = verdict.interval
    assert 1 < lo <= verdict.ratio <= hi and 1.3 < verdict.ratio < 1.5
    assert verdict.confidence >= 0.95
    assert by_pairs([[1 / r for r in rnd] for rnd in pairs]).order == ">"  # B faster: the other way


def test_a_one_percent_gap_with_tight_steps_is_the_same():
    rng = random.Random(2)
    verdict = by_pairs(_pairs(rng, 1.01, 0.002))
    assert verdict.interval[0] > 1           # the interval excludes 1 ...
    assert verdict.order is None             # ... but the gap is under the minimum
    assert 0.01 <= verdict.noise < MIN_EFFECT  # "the same within ±y", y from the data


def test_a_round_that_reverses_the_order_makes_it_the_same():
    rng = random.Random(3)
    rounds = _pairs(rng, 1.3, 0.05, rounds=3) + _pairs(rng, 0.9, 0.05, rounds=1)
    verdict = by_pairs(rounds)
    assert verdict.interval[0] > 1           # pooled, A looks faster ...
    assert verdict.order is None             # ... but one round says the opposite
    assert verdict.noise >= 0.28             # y covers every round's median ratio


def test_drift_that_moves_both_sides_together_decides_nothing():
    rng = random.Random(4)
    same = by_pairs(_pairs(rng, 1.0, 0.03, drift=0.3))     # the machine 30 % slower each round
    assert same.order is None and same.noise < 0.03
    win = by_pairs(_pairs(rng, 1.2, 0.03, drift=0.3))
    assert win.order == "<" and 1.15 < win.ratio < 1.25


def test_kernel_time_is_decided_on_the_rounds_medians():
    """Three rounds: the interval is their range, at 75 %; an order in each and a gap
    beyond the minimum are what call it."""
    fast, slow = [57.0, 57.3, 57.1], [93.6, 93.9, 93.8]
    verdict = by_round_medians(fast, slow)
    assert verdict.order == "<" and verdict.confidence == 0.75
    assert verdict.interval == (min(s / f for f, s in zip(fast, slow, strict=True)),
                                max(s / f for f, s in zip(fast, slow, strict=True)))
    assert by_round_medians([514.0, 515.0, 513.5], [519.0, 518.0, 520.0]).order is None   # 1 %
    assert by_round_medians([57.0, None, 57.1], [93.6, 93.9, None]).confidence == 0.0  # one round in both


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


def test_rounds_that_scatter_by_more_than_the_gap_make_it_the_same():
    """Issue 29's Flex against flash in wall time: every round the same side of 1, each
    round's median tight, but the rounds' medians 0.68-0.86 against a median of 0.82, and
    some pairs of the highest round within 5 % of 1."""
    rng = random.Random(6)
    rounds = [[c * (1 + w * (i / 39 - 0.5)) for i in range(40)] for c, w in ((0.86, 0.24), (0.815, 0.05), (0.684, 0.05))]
    assert max(max(r) for r in rounds) > 1 / 1.05  # a pair within the minimum effect
    verdict = by_pairs(rounds)
    assert verdict.interval[1] < 1 and abs(verdict.ratio - 0.815) < 0.03  # pooled, B looks faster ...
    assert verdict.order is None             # ... but the rounds scatter by more than the gap
    assert verdict.noise > 0.3               # y covers the lowest round
    tight = [_pairs(rng, r, 0.02, rounds=1, per_round=40)[0] for r in (0.80, 0.82, 0.81)]
    assert by_pairs(tight).order == ">"


def test_rounds_that_scatter_are_still_called_where_every_pair_is_beyond_the_minimum():
    """A CUDA-graph replay against an eager call whose pace moves with the CPU's between
    rounds (the H200's small shape, SDPA efficient: rounds' medians 1.49-2.53x): the size
    moves, the order never does, so the order is called."""
    rng = random.Random(7)
    rounds = [_pairs(rng, r, 0.05, rounds=1, per_round=30)[0] for r in (1.59, 1.49, 2.53)]
    assert min(min(r) for r in rounds) > 1.05
    verdict = by_pairs(rounds)
    assert verdict.order == "<" and verdict.interval[0] > 1.4
    one_within = [list(r) for r in rounds]
    one_within[1][0] = 1.03  # a single pair within 5 % of 1: the scatter rule decides again
    assert by_pairs(one_within).order is None


def test_shape_points_need_a_gap_beyond_their_spread_and_the_minimum():
    """Issue 29: decode, flash pinned, 1 against 4 tokens: 514 against 519 µs with steps
    spread under 1 % read '0.99× as long' in one run and 'the same' in the next two."""
    def point(us, spread=0.005):
        return {"kernel_sum_us": {"median": us, "min": us * (1 - spread), "max": us * (1 + spread)}}
    close = by_points(point(514.0), point(519.0))
    assert close.order is None and close.noise == MIN_EFFECT  # y: at least the minimum
    apart = by_points(point(474.5), point(519.4))
    assert apart.order == "<" and apart.rule == "points"
    assert by_points(point(100.0, 0.2), point(110.0, 0.2)).order is None  # within the steps' spread
