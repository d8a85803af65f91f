"""report/render/findings/scaling.py: the --all sweep: out of memory, growth, the fastest,
auto against the fastest pinned backend."""
import pytest
from factory import findings_of, found, nothing_measured, results, site_run, stats, sweep, sweep_point

from report.render.extra_tables import auto_vs_best as auto_vs_best_rows
from report.render.findings import FINDINGS, scaling


@pytest.mark.parametrize("name", findings_of(scaling))
def test_each_finding_speaks_on_the_site_run_and_is_silent_without_its_data(name):
    assert found(FINDINGS[name], site_run()) is not None
    assert found(FINDINGS[name], nothing_measured()) is None


def point(variant, seq, median, lo, hi, ran=None):
    p = sweep_point(variant, seq, median, backend_ran=ran)
    p["kernel_sum_us"] = {**stats(median), "min": lo, "max": hi}
    return p


def test_auto_is_called_slower_only_beyond_noise():
    run = results(sweep=sweep([point("auto", 256, 12.0, 11.5, 12.5, "cudnn"), point("flash", 256, 10.0, 9.5, 10.5),
                               point("auto", 512, 10.4, 10.0, 10.8, "cudnn"), point("flash", 512, 10.0, 9.6, 10.6),
                               point("auto", 1024, 12.0, 11.5, 12.5, "flash"),
                               point("flash", 1024, 10.0, 9.5, 10.5)]))
    rows = {s: slower for s, _, _, slower in auto_vs_best_rows(run["sweep"], 64)}
    # 512: the ranges overlap, so within noise; 1024: auto ran flash itself, the same kernels
    assert rows == {256: True, 512: False, 1024: False}
    assert found(scaling.auto_vs_best, run) == (scaling.HeadDimSlower(64, (scaling.Slower(256, 12.0, 10.0, "flash"),)),)


def test_time_growth_is_over_the_last_doubling_and_skips_a_variant_that_did_not_run_at_both():
    run = results(sweep=sweep([point("naive", 1024, 100.0, 99, 101), point("naive", 2048, 320.0, 318, 322),
                               point("flash", 1024, 10.0, 9, 11), point("flash", 2048, 39.0, 38, 40),
                               point("math", 1024, 50.0, 49, 51), sweep_point("math", 2048, 0, status="oom")]))
    g = found(scaling.time_growth, run)
    assert (g.a, g.b) == (1024, 2048) and g.grew == (("naive", 3.2), ("flash", 3.9))  # math: not at both
    assert round(g.work, 2) == 4.0  # the causal triangle: b(b+1) / a(a+1)
    assert found(scaling.time_growth, results(sweep=None)) is None


def test_out_of_memory_names_the_last_length_that_fit_and_fits_all_the_rest():
    run = results(sweep=sweep([sweep_point("math", 1024, 50.0), sweep_point("math", 2048, 0, status="oom"),
                               sweep_point("flash", 1024, 10.0), sweep_point("flash", 2048, 30.0)]))
    (o,) = found(scaling.oom, run)
    assert (o.variant, o.seq, o.prev) == ("math", 2048, 1024) and o.mem_mib is not None
    assert found(scaling.fits_all, run) == scaling.FitsAll(("flash",), 2048)


def test_auto_is_never_the_winner_of_its_own_backend():
    """Auto and the pinned backend it ran are one entry: the winner is the pinned one,
    named with auto, even where auto's TFLOP/s came out a rounding higher."""
    points = [sweep_point("cudnn", 4096, 100.0), sweep_point("flash", 4096, 150.0),
              sweep_point("auto", 4096, 99.9, backend_ran="cudnn")]
    points[0]["tflops"], points[1]["tflops"], points[2]["tflops"] = 500.0, 330.0, 500.5
    best = found(scaling.best_tflops, results(sweep=sweep(points)))
    assert (best.variant, best.also_auto, best.tflops) == ("cudnn", True, 500.0)
    points[2]["backend_ran"] = "flash"
    best = found(scaling.best_tflops, results(sweep=sweep(points)))
    assert (best.variant, best.also_auto) == ("cudnn", False)


def test_the_fastest_is_said_once_with_the_exceptions_by_name():
    all_cudnn = found(scaling.fastest, site_run())
    assert (all_cudnn.top, all_cudnn.lo, all_cudnn.hi, all_cudnn.dims, all_cudnn.exceptions) == (
        "cudnn", 256, 16384, (64, 128), ())
    run = results(sweep=sweep([point("flash", 256, 10.0, 9.5, 10.5), point("cudnn", 256, 12.0, 11.5, 12.5),
                               point("flash", 512, 20.0, 19.0, 21.0), point("cudnn", 512, 15.0, 14.0, 16.0),
                               point("flash", 1024, 40.0, 39.0, 41.0), point("cudnn", 1024, 30.0, 29.0, 31.0)]))
    f = found(scaling.fastest, run)
    assert f.top == "cudnn" and f.exceptions == ((64, 256, "flash"),)


def _small_pairs(run, over_auto):
    """The small shape's wall-time pairs: each pinned backend's block at over_auto[name][r]
    times auto's in round r (40 pairs a round, the machine drifting by round)."""
    rounds = []
    for r in range(3):
        auto = [48.0 * (1 + 0.3 * r) * (1 + (i % 4) * 0.01) for i in range(40)]
        rounds.append({"blocks_us": {"auto": auto, **{n: [x * f[r] for x in auto] for n, f in over_auto.items()}}})
    run["pairs"]["groups"]["small"] = {"metric": "wall", "rounds": rounds}


def test_the_small_shape_s_pinning_is_decided_by_the_pairs_in_wall_time():
    run = site_run()
    pin = found(scaling.auto_small, run)
    # the committed run: efficient pinned faster than auto (cuDNN) in every pair's round
    assert (pin.best, pin.ran, pin.verdict.order, pin.verdict.metric) == ("efficient", "cudnn", "<", "wall")
    assert pin.verdict.ratio > 1.4 and pin.best_us < pin.auto_us
    _small_pinned = {"efficient": [0.98, 0.97, 0.99], "flash": [1.1, 1.1, 1.1], "cudnn": [1.0, 1.0, 1.0]}
    _small_pairs(run, _small_pinned)
    pin = found(scaling.auto_small, run)
    assert pin.best == "efficient" and pin.verdict.same  # 2 %: the same
    _small_pairs(run, {"efficient": [0.6, 0.62, 1.05], "flash": [1.1, 1.1, 1.1]})  # one round reverses
    assert found(scaling.auto_small, run).verdict.order is None


def test_the_small_shape_s_pinning_needs_pairs():
    run = site_run()
    run.pop("pairs")
    assert found(scaling.auto_small, run) is None
