"""report/render/findings/home.py: the short answer Home starts with."""
import pytest
from factory import another_gpu, findings_of, found, nothing_measured, results, row, site_run, stats, sweep, sweep_point

from report.render.findings import FINDINGS, home


@pytest.mark.parametrize("name", findings_of(home))
def test_each_finding_speaks_on_the_site_run_and_is_silent_without_its_data(name):
    assert found(FINDINGS[name], site_run()) is not None
    assert found(FINDINGS[name], nothing_measured()) is None


def kernel_rounds(median, factors=(1.0, 1.01, 0.99)):
    """A row whose kernel time is `median` with three rounds around it."""
    r = row(median)
    r["rounds"] = [{"kernel_sum_us": stats(median * f)} for f in factors]
    return r


def test_math_is_compared_by_the_rounds_medians():
    run = results({"math": kernel_rounds(200.0), "naive_inplace": kernel_rounds(100.0),
                   "flash": kernel_rounds(10.0), "cudnn": kernel_rounds(10.3, (1.0, 0.97, 1.02))})
    m = found(home.home_math, run)
    assert (m.vs_naive.verdict.order, m.vs_naive.verdict.metric, m.vs_naive.us) == (">", "kernel", 100.0)
    assert m.vs_naive.verdict.ratio == pytest.approx(2.0)
    assert m.fused == ("flash", "cudnn") and 0 < m.within < 10  # cuDNN 3 % from flash: the same, both named
    assert m.vs_fused.verdict.order == ">" and m.vs_fused.verdict.ratio == pytest.approx(20.0)
    run = results({"math": kernel_rounds(102.0), "naive_inplace": kernel_rounds(100.0),
                   "flash": kernel_rounds(10.0), "cudnn": kernel_rounds(13.0)})
    m = found(home.home_math, run)
    assert m.vs_naive.verdict.order is None and m.fused == ("flash",)  # 2 %: under the minimum; cuDNN 30 % slower
    assert m.cause is None  # the made-up rows have no attribution
    for r in run["variants"].values():
        r.pop("rounds")
    assert found(home.home_math, run) is None  # without rounds kernel time is not compared


def test_the_largest_extra_cost_is_the_cause_math_pays_most_for_its_fp32_matmuls_net():
    m = found(home.home_math, site_run())
    a, b = (site_run()["variants"][n]["attribution"] for n in ("math", "naive_inplace"))
    extra = {c: a[c]["us_per_forward"] - b.get(c, {}).get("us_per_forward", 0.0) for c in a if c != "matmul_fp32"}
    extra["matmul"] = a["matmul_fp32"]["us_per_forward"] - b["matmul"]["us_per_forward"]  # net of what it replaces
    assert m.cause == max(extra, key=extra.get) and m.cause_extra_us == pytest.approx(extra[m.cause])
    # FP32 matmuls that cost more than every other cause: the cause, with their net figure
    heavier = site_run()
    fp32 = heavier["variants"]["math"]["attribution"]["matmul_fp32"]
    more = sum(abs(x) for x in extra.values())
    fp32["us_per_forward"] += more
    h = found(home.home_math, heavier)
    assert h.cause == "matmul" and h.cause_extra_us == pytest.approx(extra["matmul"] + more)
    assert h.cause_extra_us < fp32["us_per_forward"]  # not the gross FP32 figure


def test_a_run_without_the_other_measurements_gets_no_answer_line():
    run = site_run()
    for key in ("sweep", "overhead"):
        run.pop(key)
    del run["variants"]["auto"]
    assert found(home.home_auto, run) is None and found(home.home_pin, run) is None
    cpu = found(home.home_cpu, run)
    assert cpu is not None and cpu.small is None  # without its small-shape sentence


def test_the_cpu_line_gives_the_share_per_round_where_the_run_has_rounds():
    cpu = found(home.home_cpu, site_run())
    assert cpu.rounds is not None and len(cpu.rounds) == site_run()["rounds"]["count"] and cpu.small > 1
    assert cpu.pct == pytest.approx(100 * cpu.host_us / cpu.kernel_us)


def point(variant, seq, median, lo, hi, ran=None):
    p = sweep_point(variant, seq, median, backend_ran=ran)
    p["kernel_sum_us"] = {**stats(median), "min": lo, "max": hi}
    return p


def test_pinning_counts_the_sweep_points_where_auto_lost_beyond_noise():
    run = results(sweep=sweep([point("auto", 256, 12.0, 11.5, 12.5, "cudnn"), point("flash", 256, 10.0, 9.5, 10.5),
                               point("auto", 512, 10.4, 10.0, 10.8, "cudnn"), point("flash", 512, 10.0, 9.6, 10.6)]))
    pin = found(home.home_pin, run)
    assert (pin.sweep_lost, pin.sweep_points, pin.small) == (1, 2, None)
    assert found(home.home_pin, site_run()).small is not None


def test_the_answer_names_another_gpu_and_what_auto_ran_there():
    auto = found(home.home_auto, another_gpu())
    assert auto.gpu == "NVIDIA A100-SXM4-80GB" and auto.ran == "flash"
