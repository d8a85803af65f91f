"""report/verdict/run_floor.py: the run's floor for host-paced figures (samples,
floor, below, host_floor), and the findings that judge by it: the decode wall time at batch 1, and the idle gap listed only where every round has it."""
from factory import found, h200, overhead, overhead_row, results, stats, wall

from report.render.findings import fused
from report.verdict import run_floor


def with_rounds(row, key, values):
    """The row with one round per value of `key` (the overhead section's measurement
    stays the row's own)."""
    return {**row, "rounds": [{key: wall(v) if v is not None else None} for v in values]}


def small(eager, graph=None, auto_ran="cudnn"):
    """A run whose small shape has, per variant, (own, rounds...) eager wall times."""
    rows = {}
    for name, values in eager.items():
        row = overhead_row(5.0, values[0], graph_us=(graph or {}).get(name, (None,))[0])
        rows[name] = {**row, "rounds": [{"eager_wall_us": wall(v), "kernel_sum_us": stats(5.0),
                                         **({"graph_wall_us": wall(graph[name][i + 1])} if graph else {})}
                                        for i, v in enumerate(values[1:])]}
    run = results(overhead=overhead({"small": rows}))
    run["variants"]["auto"] = {"status": "ok", "backend_ran": auto_ran}
    return run


def test_samples_are_the_measurement_and_each_round():
    row = with_rounds({"eager_wall_us": wall(30.0)}, "eager_wall_us", [31.0, 29.0, None])
    assert run_floor.samples(row, "eager_wall_us") == [30.0, 31.0, 29.0]
    assert run_floor.samples({}, "eager_wall_us") == []


def test_the_floor_is_the_largest_change_of_one_variant_and_below_needs_more_than_it():
    a = with_rounds({"w": wall(20.0)}, "w", [21.0, 19.0])      # 10 % change
    b = with_rounds({"w": wall(30.0)}, "w", [45.0, 31.0])      # 50 % change: the floor
    c = with_rounds({"w": wall(40.0)}, "w", [41.0, 39.0])
    assert run_floor.floor([a, b, c], "w") == (45.0 - 30.0) / 31.0
    f = run_floor.floor([a, b, c], "w")
    assert run_floor.below(a, c, "w", f)  # 39 / 21 - 1 = 86 % > 48 %
    assert not run_floor.below(a, b, "w", f)  # 30 / 21 - 1 = 43 %: within the floor
    reversing = with_rounds({"w": wall(20.0)}, "w", [21.0, 42.0])  # one round above c's lowest
    assert not run_floor.below(reversing, c, "w", 0.0)


def test_an_idle_gap_on_the_threshold_in_one_round_is_not_named():
    run = h200()
    v = run["variants"]
    assert "cudnn" in [g.variant for g in found(fused.idle_gap_finding, run).gaps]
    for r in v["cudnn"]["rounds"]:
        r["cuda_time_us"] = {**r["kernel_sum_us"], "median": r["kernel_sum_us"]["median"] * 1.01}
    assert "cudnn" not in [g.variant for g in found(fused.idle_gap_finding, run).gaps]
