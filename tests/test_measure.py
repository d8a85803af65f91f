"""report/measure/host.py: how host overhead is sampled, with made-up calls (no GPU)."""
import time

import torch

from report.measure.host import PER_SLICE, host_overheads


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
    one_round = (["small"] * PER_SLICE + ["a"] * PER_SLICE + ["small"] * PER_SLICE + ["b"] * PER_SLICE)
    assert order[warmup:] == one_round * 4


def test_the_cost_in_small_ops_is_the_ratio_of_the_two_times():
    found = host_overheads(torch, "cpu", {"slow": (busy(300), None)}, busy(100), total_calls=8 * PER_SLICE)
    ratio = found["slow"]["per_small_op"]["median"]
    assert 2.5 < ratio < 3.5, ratio
    assert found["slow"]["median"] >= 300 and found["slow"]["small_op_us"]["median"] >= 100
