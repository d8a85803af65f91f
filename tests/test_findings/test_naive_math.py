"""report/render/findings/naive_math.py: naive against math: the ratio, the copy, the
Memset, the matmuls, the extra ops, where the extra time goes, math's switches."""
import pytest
from factory import another_gpu, findings_of, found, kernel, nothing_measured, results, row, site_run

from report.render.findings import FINDINGS, naive_math


@pytest.mark.parametrize("name", findings_of(naive_math))
def test_each_finding_speaks_on_the_site_run_and_is_silent_without_its_data(name):
    assert found(FINDINGS[name], site_run()) is not None
    assert found(FINDINGS[name], nothing_measured()) is None


def test_the_ratio_is_ours_beside_hugging_faces():
    r = found(naive_math.math_ratio, results({"math": row(1800.0, 2000.0), "naive_inplace": row(900.0, 1000.0)}))
    assert (r.ratio, r.math_us, r.inplace_us) == (2.0, 1800.0, 900.0)  # kernel time, not the span
    assert r.a100_steps == 3 and r.a100_ratio == r.a100_math_us / r.a100_inplace_us


def test_the_copy_is_named_only_where_the_out_of_place_version_has_one():
    copy = kernel("Memcpy DtoD (Device -> Device)", 150.0, kind="memcpy")
    run = results({"naive": row(1150.0, kernels=[kernel(avg_us=1000.0), copy]), "naive_inplace": row(1000.0)})
    c = found(naive_math.memcpy, run)
    assert (c.name, c.memcpy_us) == ("Memcpy DtoD (Device -> Device)", 150.0)
    run["variants"]["naive"]["kernels"] = [kernel(avg_us=1000.0)]
    assert found(naive_math.memcpy, run) is None


def test_where_the_extra_time_goes_lists_each_cause_with_its_sign():
    run = results({"math": row(300.0, attribution={"matmul": {"us_per_forward": 250.0},
                                                   "softmax": {"us_per_forward": 50.0}}),
                   "naive_inplace": row(200.0, attribution={"matmul": {"us_per_forward": 120.0},
                                                            "softmax": {"us_per_forward": 80.0}})})
    why = found(naive_math.math_why, run)
    assert why.extra_us == 100.0 and why.causes == (("matmul", 130.0, 130.0), ("softmax", -30.0, -30.0))
    run["variants"]["math"]["attribution"]["matmul"]["us_per_forward"] = 100.0  # math is not slower: nothing
    assert found(naive_math.math_why, run) is None


def test_the_switches_are_said_against_default_math():
    run = results({"math": row(900.0, 1000.0), "math_tf32": row(450.0, 500.0, rel_error=1e-3)})
    s = found(naive_math.math_switches, run)
    # in kernel time (900 and 450), not in the profiler's GPU span (1000 and 500)
    assert s.math_us == 900.0 and s.switches == (naive_math.Switch("math_tf32", 450.0, 50.0, 1e-3),)
    assert found(naive_math.math_switches, results({"math": row(900.0)})) is None


def test_another_gpu_keeps_every_line_of_the_page():
    assert all(found(FINDINGS[name], another_gpu()) is not None for name in findings_of(naive_math))
