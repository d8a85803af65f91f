"""report/render/findings/fused.py: ranking, auto's choice, CPU against GPU span, idle gap,
first call, how busy the GPU is, host drift and first calls of the host pass."""
import pytest
from factory import another_gpu, findings_of, found, nothing_measured, refused, results, row, site_run, stats

from report.render.findings import FINDINGS
from report.render.findings import fused as fused_module


@pytest.mark.parametrize("name", findings_of(fused_module))
def test_each_finding_speaks_on_the_site_run_and_is_silent_without_its_data(name):
    assert found(FINDINGS[name], site_run()) is not None
    assert found(FINDINGS[name], nothing_measured()) is None


def test_without_rounds_the_kernel_ranking_states_no_order():
    apart = results({"flash": row(100.0, 100.0), "efficient": row(150.0, 150.0), "cudnn": row(90.0, 90.0)})
    rank = found(fused_module.fused_rank, apart)
    assert [r.backend for r in rank.kernel] == ["cudnn", "flash", "efficient"]  # by kernel time ...
    assert [r.even for r in rank.kernel] == [False, True, True] and rank.tied   # ... but none told apart
    assert rank.wall is None  # no pairs: no wall-time ranking


def with_rounds(r, kernels_us):
    """A row with one round per kernel time given (the rounds' own spread small)."""
    r["rounds"] = [{"kernel_sum_us": stats(k, 0.001), "wall_time_us": {"median": k * 1.05, "iqr": 0.0, "runs": 1}}
                   for k in kernels_us]
    return r


def test_the_ranking_follows_every_round_not_one_run():
    steady = results({"flash": with_rounds(row(100.0, 100.0), [100, 101, 99]),
                      "cudnn": with_rounds(row(60.0, 95.0), [60, 61, 59])})
    rank = found(fused_module.fused_rank, steady)
    assert [(r.backend, r.even) for r in rank.kernel] == [("cudnn", False), ("flash", False)]
    # one round reverses the order: within noise, although the medians are far apart
    reversed_once = results({"flash": with_rounds(row(100.0, 100.0), [100, 101, 55]),
                             "cudnn": with_rounds(row(60.0, 95.0), [60, 61, 59])})
    rank = found(fused_module.fused_rank, reversed_once)
    # ranked by kernel time, never by the GPU span (cuDNN's span is the longer one here)
    assert [(r.backend, r.even) for r in rank.kernel] == [("cudnn", False), ("flash", True)]


def test_auto_names_the_backend_it_ran_on_another_gpu():
    choice = found(fused_module.auto, another_gpu())
    assert (choice.ran, choice.gpu) == ("flash", "NVIDIA A100-SXM4-80GB")
    assert found(fused_module.first_call, another_gpu()) is None  # cuDNN's first call: not measured there


def test_the_gpu_is_busy_only_when_the_wall_time_is_close_to_the_kernel_time():
    assert found(fused_module.gpu_busy, results({"flash": row(100.0, wall_us=105.0)})).busy
    assert not found(fused_module.gpu_busy, results({"flash": row(100.0, wall_us=300.0)})).busy


def test_every_fused_backend_s_idle_gap_is_listed_whatever_its_size():
    """A threshold on the profiler's idle gap named cuDNN in one H200 run and not in the
    next: every fused backend is listed, in FUSED's order, and the list ranks nothing."""
    gaps = found(fused_module.idle_gap_finding, results({"cudnn": row(60.0, span_us=100.0), "flash": row(99.0, 100.0)}))
    assert [(g.variant, g.gap_us, g.share) for g in gaps.gaps] == [("flash", 1.0, 1.0), ("cudnn", 40.0, 40.0)]


def test_the_host_first_calls_give_the_lowest_and_highest_variant():
    def fused(wait, switch):
        r = row(100.0, host_us=20.0)
        r["host_time_us"]["first_calls"] = {"after_wait": stats(wait), "after_switch": stats(switch)}
        return r
    run = results({"flash": fused(4.0, 5.25), "cudnn": fused(6.5, 1.5), "math": refused("oom")})
    f = found(fused_module.host_first_calls, run)
    assert (f.wait_low, f.wait_high, f.switch_low, f.switch_high, f.warm) == (4.0, 6.5, 1.5, 5.25, 3)
    assert found(fused_module.host_first_calls, results({"math": refused("oom")})) is None


def test_the_host_drift_names_no_variant_and_gives_both_spreads():
    def drifting(us_spread, ops_spread):
        r = row(100.0, host_us=30.0)
        r["host_time_us"]["spread_pct"], r["host_time_us"]["per_small_op"]["spread_pct"] = us_spread, ops_spread
        return r
    drift = found(fused_module.host_drift, results({"flash": drifting(21.0, 5.0), "cudnn": drifting(8.0, 3.0)}))
    assert (drift.us_spread, drift.ops_spread) == (21.0, 5.0)  # the largest of each, whichever variant
    assert not hasattr(drift, "variant")


def test_the_wall_ranking_comes_from_the_seed_shape_s_pairs():
    run = site_run()
    rank = found(fused_module.fused_rank, run)
    assert [(r.backend, r.even) for r in rank.wall] == [("cudnn", False), ("flash", False), ("efficient", False)]
    for rnd in run["pairs"]["groups"]["seed_wall"]["rounds"]:  # flash's blocks as cuDNN's: the same
        rnd["blocks_us"]["flash"] = [x * 1.01 for x in rnd["blocks_us"]["cudnn"]]
    rank = found(fused_module.fused_rank, run)
    assert [(r.backend, r.even) for r in rank.wall][:2] == [("cudnn", False), ("flash", True)]


def test_the_idle_gap_is_set_against_the_wall_time_without_the_profiler():
    gaps = found(fused_module.idle_gap_finding, results({"cudnn": row(60.0, span_us=100.0, cpu_us=110.0,
                                                                       wall_us=62.0)}))
    (g,) = gaps.gaps
    assert (g.cpu_us, g.kernel_us, g.wall_us, g.busy) == (110.0, 60.0, 62.0, True)  # the profiler's gap
    gaps = found(fused_module.idle_gap_finding, results({"cudnn": row(60.0, span_us=100.0, wall_us=90.0)}))
    assert not gaps.gaps[0].busy  # the GPU waits without the profiler too


def test_the_first_call_is_set_against_the_warm_wall_time_not_the_span():
    first = found(fused_module.first_call, site_run())
    assert first.cudnn_us == site_run()["variants"]["cudnn"]["wall_time_us"]["median"]


def test_the_idle_gaps_listed_do_not_depend_on_their_size():
    run = site_run()
    before = [g.variant for g in found(fused_module.idle_gap_finding, run).gaps]
    for r in run["variants"]["cudnn"]["rounds"]:
        r["cuda_time_us"] = {**r["kernel_sum_us"], "median": r["kernel_sum_us"]["median"] * 1.01}
    assert [g.variant for g in found(fused_module.idle_gap_finding, run).gaps] == before
    assert before == [n for n in ("flash", "efficient", "cudnn", "auto") if n in run["variants"]]
