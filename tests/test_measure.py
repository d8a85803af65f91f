"""report/measure/host.py: how host overhead is sampled, with made-up calls (no GPU)."""
import time

import torch

from report.measure.host import PER_SLICE, WARM, host_overheads


def busy(us):
    """A call that keeps the CPU busy for `us` microseconds."""
    def call():
        end = time.perf_counter() + us / 1e6
        while time.perf_counter() < end:
            pass
    return call


def test_every_slice_visits_every_variant_after_the_small_op():
    order = []
    calls = {name: ((lambda name=name: order.append(name)), None) for name in ("a", "b")}
    host_overheads(torch, "cpu", calls, lambda: order.append("small"), total_calls=4 * PER_SLICE)
    warmup = 2 * (1 + 3 + 3)  # per variant: one call, then 3 of it and 3 of the small op to size the sleep
    run = WARM + PER_SLICE  # untimed calls, then timed ones
    one_round = ["small"] * run + ["a"] * run + ["small"] * run + ["b"] * run
    assert order[warmup:] == one_round * 4


def test_the_cost_in_small_ops_is_the_ratio_of_the_two_times():
    found = host_overheads(torch, "cpu", {"slow": (busy(300), None)}, busy(100), total_calls=8 * PER_SLICE)
    ratio = found["slow"]["per_small_op"]["median"]
    assert 2.5 < ratio < 3.5, ratio
    assert found["slow"]["median"] >= 300 and found["slow"]["small_op_us"]["median"] >= 100


def test_the_first_call_after_a_switch_is_recorded_and_left_out_of_the_figure():
    """A call that is slow right after another call ran (a cold CPU) and fast when repeated:
    its first call per slice costs about three times the steady ones, and the figure is
    the steady cost, not one inflated by the cold call."""
    last = [None]

    def cold_after_switch(name, us):
        def call():
            busy(3 * us if last[0] != name else us)()
            last[0] = name
        return call

    found = host_overheads(torch, "cpu", {"v": (cold_after_switch("v", 200), None)},
                           cold_after_switch("small", 100), total_calls=8 * PER_SLICE)["v"]
    assert 2.5 < found["first_calls"]["after_switch"]["median"] < 3.5
    assert 2.5 < found["first_calls"]["after_wait"]["median"] < 3.5  # the small op follows the variant
    assert 200 <= found["median"] < 225 and 1.7 < found["per_small_op"]["median"] < 2.3
