"""report/render/findings/shape_findings.py: what to use for prefill, grouped-query
attention and the sliding window, and why."""
import pytest
from factory import findings_of, h200, nothing_measured, refused, said, shape_results, stats

from report.render.findings import FINDINGS, shape_findings


@pytest.mark.parametrize("name", findings_of(shape_findings))
def test_each_finding_speaks_on_the_h200_run_and_on_made_up_points_and_is_silent_without_them(name):
    assert said(FINDINGS[name], h200())
    assert said(FINDINGS[name], shape_results())
    assert said(FINDINGS[name], nothing_measured()) == []


def test_within_noise_is_said_when_the_spread_covers_the_difference():
    run = shape_results()
    lines = said(shape_findings.shapes_gqa, run)
    assert any("by hand took 4.0× as long" in line for line in lines)
    for p in run["shapes"]["points"]:
        if p["family"] == "gqa_decode" and p["status"] == "ok":
            p["kernel_sum_us"] = stats(p["kernel_sum_us"]["median"], spread=2.5)  # steps far apart
    assert any("by hand took the same time, within noise" in line for line in said(shape_findings.shapes_gqa, run))


def test_a_family_where_every_point_was_refused_says_nothing_of_it():
    run = shape_results()
    for p in run["shapes"]["points"]:
        if p["family"] == "sliding":
            p.update(refused())
    assert said(shape_findings.shapes_sliding, run) == []


def test_gqa_backends_give_math_the_size_of_its_copy_and_name_the_refusals():
    lines = said(shape_findings.shapes_gqa_backends, h200())
    assert len(lines) == 4 and all("Refused: SDPA efficient" in line for line in lines)
    assert all("Math's is at least" in line for line in lines)
    run = h200()
    for p in run["shapes"]["points"]:
        if p["variant"] == "math" and p["family"].startswith("gqa"):
            p["peak_extra_mib"] = 1.0  # no room for a copy: the sentence must not claim one
    assert all("Math's is below" in line for line in said(shape_findings.shapes_gqa_backends, run))
