"""report/render/findings/fused.py: ranking, auto's choice, CPU against GPU span, idle gap,
first call, how busy the GPU is, host drift and first calls of the host pass."""
import pytest
from factory import another_gpu, findings_of, h200, nothing_measured, refused, results, row, said, stats

from report.render.findings import FINDINGS
from report.render.findings import fused as fused_module
from report.text.catalog import t


@pytest.mark.parametrize("name", findings_of(fused_module))
def test_each_finding_speaks_on_the_h200_run_and_is_silent_without_its_data(name):
    assert said(FINDINGS[name], h200())
    assert said(FINDINGS[name], nothing_measured()) == []


def test_the_ranking_orders_beyond_noise_and_ties_within_it():
    apart = results({"flash": row(100.0, 100.0), "efficient": row(150.0, 150.0), "cudnn": row(90.0, 90.0)})
    (line,) = said(fused_module.fused_rank, apart)
    assert "in kernel time: cuDNN (90.0 µs) < flash (100 µs) < efficient (150 µs)" in line and "≈" not in line
    close = results({"flash": row(100.0, 100.0), "cudnn": row(98.0, 98.0, spread=0.3)})
    (line,) = said(fused_module.fused_rank, close)
    assert "cuDNN (98.0 µs) ≈ flash (100 µs)" in line and "within noise" in line


def with_rounds(r, kernels_us):
    """A row with one round per kernel time given (the rounds' own spread small)."""
    r["rounds"] = [{"kernel_sum_us": stats(k, 0.001), "wall_time_us": {"median": k * 1.05, "iqr": 0.0, "runs": 1}}
                   for k in kernels_us]
    return r


def test_the_ranking_follows_every_round_not_one_run():
    steady = results({"flash": with_rounds(row(100.0, 100.0), [100, 101, 99]),
                      "cudnn": with_rounds(row(60.0, 95.0), [60, 61, 59])})
    (line,) = said(fused_module.fused_rank, steady)
    assert "in kernel time: cuDNN (60.0 µs) < flash (100 µs)" in line and "≈" not in line
    # one round reverses the order: within noise, although the medians are far apart
    reversed_once = results({"flash": with_rounds(row(100.0, 100.0), [100, 101, 55]),
                             "cudnn": with_rounds(row(60.0, 95.0), [60, 61, 59])})
    (line,) = said(fused_module.fused_rank, reversed_once)
    assert "cuDNN (60.0 µs) ≈ flash (100 µs)" in line and "did not hold in every round" in line
    # ranked by kernel time, never by the GPU span (cuDNN's span is the longer one here)
    assert line.index("cuDNN") < line.index("flash")


def test_auto_names_the_backend_it_ran_on_another_gpu():
    (line,) = said(fused_module.auto, another_gpu())
    assert "chose **flash** on the NVIDIA A100-SXM4-80GB" in line
    assert said(fused_module.first_call, another_gpu()) == []  # cuDNN's first call: not measured there


def test_the_gpu_is_busy_only_when_the_wall_time_is_close_to_the_kernel_time():
    busy = results({"flash": row(100.0, wall_us=105.0)})
    waits = results({"flash": row(100.0, wall_us=300.0)})
    assert "busy nearly all the time" in said(fused_module.gpu_busy, busy)[0]
    assert "waits for the CPU" in said(fused_module.gpu_busy, waits)[0]


def test_an_idle_gap_is_listed_only_when_it_is_not_negligible():
    (line,) = said(fused_module.idle_gap_finding, results({"cudnn": row(60.0, span_us=100.0), "flash": row(99.0, 100.0)}))
    assert "cuDNN" in line and "40.0 µs" in line and "flash" not in line
    (line,) = said(fused_module.idle_gap_finding, results({"flash": row(99.0, 100.0)}))
    assert line.startswith("No variant idles")


def test_the_host_first_calls_give_the_lowest_and_highest_variant():
    def fused(wait, switch):
        r = row(100.0, host_us=20.0)
        r["host_time_us"]["first_calls"] = {"after_wait": stats(wait), "after_switch": stats(switch)}
        return r
    run = results({"flash": fused(4.0, 5.25), "cudnn": fused(6.5, 1.5), "math": refused("oom")})
    (en,), (nb,) = said(fused_module.host_first_calls, run), fused_module.host_first_calls(run, {}, "nb")
    assert "4.0–6.5 times" in en and "1.5–5.2 times" in en and "after 3 untimed calls" in en
    assert "4,0–6,5 ganger" in nb and "etter 3 kall" in nb
    assert said(fused_module.host_first_calls, results({"math": refused("oom")})) == []


def test_the_host_drift_names_no_variant_gives_both_spreads_and_the_same_words_either_way():
    def drifting(us_spread, ops_spread):
        r = row(100.0, host_us=30.0)
        r["host_time_us"]["spread_pct"], r["host_time_us"]["per_small_op"]["spread_pct"] = us_spread, ops_spread
        return r
    steadier = results({"flash": drifting(21.0, 5.0), "cudnn": drifting(8.0, 3.0)})
    (line,) = said(fused_module.host_drift, steadier)
    assert "by up to 21% between quarters" in line and "by up to 5%." in line
    assert "flash" not in line and "cuDNN" not in line
    # which of the two spreads is larger is the run's noise, not a finding: the rule is said either way
    (other,) = said(fused_module.host_drift, results({"flash": drifting(21.0, 27.0)}))
    rule = t("finding.host_drift_rule", "en")
    assert rule in line and rule in other
