"""Figures over rounds (report/verdict: rounds_of, round_range, round_median) and the paired
rule on one ratio per round (by_round_medians), on made-up rounds."""
import pytest

from report.schema_check import SchemaError, check
from report.verdict import by_round_medians, round_median, round_range, rounds_of


def fig(median, spread=0.0):
    """A stored figure as the build writes one: a summary with its within-round spread."""
    return {"median": median, "min": median * (1 - spread), "max": median * (1 + spread), "n": 10}


def test_an_order_that_holds_in_every_round_is_stated_both_ways_round():
    a, b = [fig(30), fig(31), fig(32)], [fig(40), fig(41), fig(39)]
    assert by_round_medians(a, b).order == "<" and by_round_medians(b, a).order == ">"


def test_one_round_that_reverses_the_order_leaves_it_undecided():
    """cuDNN's host overhead in three H200 runs: 32.2 / 46.9 / 31.8 µs, against flash's
    about 37 µs: cuDNN is below in two rounds and above in one."""
    cudnn, flash = [32.2, 46.9, 31.8], [37.1, 36.5, 37.4]
    assert by_round_medians(cudnn, flash).undecided and by_round_medians(flash, cudnn).undecided
    assert round_range(cudnn) == (31.8, 46.9) and round_range(flash) == (36.5, 37.4)


def test_the_same_order_in_every_round_inside_the_margin_is_the_same():
    a, b = [10.0, 10.5, 14.0], [10.2, 10.8, 14.5]  # b above a every round, by 2-4 %
    v = by_round_medians(a, b)
    assert v.same and v.order is None and v.interval[0] > 1 and v.interval[1] < 1.05


def test_identical_rounds_never_differ_and_equal_figures_have_no_order():
    same = [fig(5.0), fig(5.0), fig(5.0)]
    assert by_round_medians(same, same).same
    assert round_range(same) == (5.0, 5.0) and round_median(same) == 5.0
    assert by_round_medians(same, [fig(6.0)] * 3).order == "<"


def test_failed_rounds_are_left_out_and_rounds_pair_by_index():
    a = [fig(10), {"error": "RuntimeError: boom"}, fig(10.1), fig(10.2)]
    b = [fig(20), fig(5), None, fig(20.5)]
    assert round_range(a) == (10, 10.2)
    v = by_round_medians(a, b)  # rounds 1 and 4 only; round 2's reversal had no partner
    assert v.order == "<" and v.processes == 2  # two processes: t with one degree of freedom
    assert by_round_medians([], []).order is None and round_range([]) is None and round_median([None]) is None


def test_a_part_of_each_rounds_figure_host_overhead_in_small_ops():
    def host(us, ops):
        return {"host_time_us": {**fig(us), "per_small_op": fig(ops, 0.01)}}
    a = {"host_time_us": {**fig(30), "per_small_op": fig(3.0, 0.01)}, "rounds": [host(30, 3.0), host(45, 3.1)]}
    b = {"host_time_us": {**fig(40), "per_small_op": fig(4.0, 0.01)}, "rounds": [host(40, 4.0), host(38, 4.1)]}
    assert [f["median"] for f in rounds_of(a, "host_time_us", "per_small_op")] == [3.0, 3.1]
    assert by_round_medians(rounds_of(a, "host_time_us"), rounds_of(b, "host_time_us")).order is None  # µs: it reverses
    assert by_round_medians(rounds_of(a, "host_time_us", "per_small_op"),
                            rounds_of(b, "host_time_us", "per_small_op")).order == "<"  # small ops: it holds


def test_the_schema_takes_rounds_and_names_a_bad_one():
    round_ = {"kernel_sum_us": fig(57.8), "wall_time_us": {"median": 58.8, "iqr": 0.2, "runs": 9},
              "host_time_us": {**fig(32.2), "per_small_op": fig(3.1)}}
    results = {"schema_version": 1, "provenance": {}, "config": {}, "roof": {"tflops": 700.0},
               "variants": {"cudnn": {"status": "ok", "rounds": [round_, {"error": "oom: out of memory"}]}},
               "first_calls": {"rows": {"cudnn": {"status": "ok", "rounds": [
                   {"status": "ok", "first_call_ms": 683.1, "new_thread_first_ms": 40.2}]}}},
               "rounds": {"count": 2, "seconds": [4.1, 4.0]}, "phase_seconds": {"rounds": 8.1}}
    check(results)
    results["variants"]["cudnn"]["rounds"][0]["wall_time_us"]["median"] = "fast"
    with pytest.raises(SchemaError, match=r"results\.variants\.cudnn\.rounds\.0\.wall_time_us\.median"):
        check(results)
