"""report/render/findings/naive_math.py: naive against math: the ratio, the copy, the
Memset, the matmuls, the extra ops, where the extra time goes, math's switches."""
import pytest
from factory import another_gpu, findings_of, h200, kernel, nothing_measured, results, row, said

from report.render.findings import FINDINGS, naive_math


@pytest.mark.parametrize("name", findings_of(naive_math))
def test_each_finding_speaks_on_the_h200_run_and_is_silent_without_its_data(name):
    assert said(FINDINGS[name], h200())
    assert said(FINDINGS[name], nothing_measured()) == []


def test_the_ratio_is_ours_beside_hugging_faces():
    (line,) = said(naive_math.math_ratio, results({"math": row(1800.0, 2000.0), "naive_inplace": row(900.0, 1000.0)}))
    assert line.startswith("Pinned to math, SDPA has **2.0×** the kernel time") and "(1.800 ms vs 900.0 µs)" in line


def test_the_copy_is_named_only_where_the_out_of_place_version_has_one():
    copy = kernel("Memcpy DtoD (Device -> Device)", 150.0, kind="memcpy")
    run = results({"naive": row(1150.0, kernels=[kernel(avg_us=1000.0), copy]), "naive_inplace": row(1000.0)})
    (line,) = said(naive_math.memcpy, run)
    assert "`Memcpy DtoD (Device -> Device)` of 150.0 µs" in line
    run["variants"]["naive"]["kernels"] = [kernel(avg_us=1000.0)]
    assert said(naive_math.memcpy, run) == []


def test_where_the_extra_time_goes_lists_each_cause_with_its_sign():
    run = results({"math": row(300.0, attribution={"matmul": {"us_per_forward": 250.0},
                                                   "softmax": {"us_per_forward": 50.0}}),
                   "naive_inplace": row(200.0, attribution={"matmul": {"us_per_forward": 120.0},
                                                            "softmax": {"us_per_forward": 80.0}})})
    (line,) = said(naive_math.math_why, run)
    assert "+130.0 µs" in line and "\u221230.0 µs" in line and "130%" in line
    run["variants"]["math"]["attribution"]["matmul"]["us_per_forward"] = 100.0  # math is not slower: no line
    assert said(naive_math.math_why, run) == []


def test_the_switches_are_said_against_default_math():
    run = results({"math": row(900.0, 1000.0), "math_tf32": row(450.0, 500.0, rel_error=1e-3)})
    (line,) = said(naive_math.math_switches, run)
    assert "takes 500.0 µs (50% of default math)" in line and line.endswith("Default math takes 1.000 ms.")
    assert said(naive_math.math_switches, results({"math": row(900.0)})) == []


def test_another_gpu_keeps_every_line_of_the_page():
    assert all(said(FINDINGS[name], another_gpu()) for name in findings_of(naive_math))
