"""report/render/findings/home.py: the short answer Home starts with."""
import pytest
from factory import another_gpu, findings_of, h200, nothing_measured, results, row, said, stats

from report.render.findings import FINDINGS, home
from report.text.catalog import t


@pytest.mark.parametrize("name", findings_of(home))
def test_each_finding_speaks_on_the_h200_run_and_is_silent_without_its_data(name):
    assert said(FINDINGS[name], h200())
    assert said(FINDINGS[name], nothing_measured()) == []


def kernel_only(median, lo, hi):
    r = row(median)
    r["kernel_sum_us"] = r["cuda_time_us"] = {**stats(median), "min": lo, "max": hi}
    return r


def test_math_is_compared_only_beyond_noise():
    run = results({"math": kernel_only(200.0, 190.0, 210.0), "naive_inplace": kernel_only(100.0, 95.0, 105.0),
                   "flash": kernel_only(10.0, 9.0, 11.0), "cudnn": kernel_only(10.5, 10.2, 12.0)})
    (line,) = said(home.home_math, run)
    assert "2.0× as much as the hand-written in-place version" in line
    assert "flash, cuDNN (within noise of each other)" in line
    run = results({"math": kernel_only(101.0, 96.0, 104.0), "naive_inplace": kernel_only(100.0, 95.0, 105.0),
                   "flash": kernel_only(10.0, 9.0, 11.0)})
    (line,) = said(home.home_math, run)
    assert "as much as the hand-written in-place version (100.0 µs), within noise" in line
    assert "the fused backend with the least kernel time, flash" in line


def test_a_run_without_the_other_measurements_gets_no_answer_line():
    run = h200()
    for key in ("sweep", "overhead"):
        run.pop(key)
    del run["variants"]["auto"]
    assert said(home.home_auto, run) == [] and said(home.home_pin, run) == []
    (line,) = said(home.home_cpu, run)  # without its small-shape sentence
    assert t("finding.home_cpu_small", "en").split(":")[0] not in line


def test_the_answer_names_another_gpu_and_what_auto_ran_there():
    (line,) = said(home.home_auto, another_gpu())
    assert "NVIDIA A100-SXM4-80GB" in line and "flash" in line and "cuDNN" not in line
