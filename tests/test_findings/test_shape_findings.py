"""report/render/findings/shape_findings.py: what to use for each of today's shapes, and why."""
import pytest
from factory import findings_of, h200, nothing_measured, refused, said, shape_results, stats

from report.render.findings import FINDINGS, shape_findings


@pytest.mark.parametrize("name", findings_of(shape_findings))
def test_each_finding_speaks_on_the_h200_run_and_on_made_up_points_and_is_silent_without_them(name):
    assert said(FINDINGS[name], h200())
    assert said(FINDINGS[name], shape_results())
    assert said(FINDINGS[name], nothing_measured()) == []


def test_decode_pins_the_backend_that_wins_most_points():
    (line,) = said(shape_findings.shapes_decode_answer, shape_results())
    assert line.startswith("**Pin SDPA flash** for decode") and "as fast at 7 of 11" in line


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
