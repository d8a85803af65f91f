"""report/render/findings/shape_findings.py: what to use for prefill, grouped-query
attention and the sliding window, and why."""
import pytest
from factory import findings_of, found, nothing_measured, refused, shape_results, site_run, stats

from report.render.findings import FINDINGS, shape_findings


@pytest.mark.parametrize("name", findings_of(shape_findings))
def test_each_finding_speaks_on_the_site_run_and_on_made_up_points_and_is_silent_without_them(name):
    assert found(FINDINGS[name], site_run()) is not None
    assert found(FINDINGS[name], shape_results()) is not None
    assert found(FINDINGS[name], nothing_measured()) is None


def test_within_noise_is_said_when_the_spread_covers_the_difference():
    run = shape_results()
    compares = [g.compare for g in found(shape_findings.shapes_gqa, run).pairs]
    assert any(not c.even and round(c.ratio, 1) == 4.0 for c in compares)  # by hand: 4× as long
    for p in run["shapes"]["points"]:
        if p["family"] == "gqa_decode" and p["status"] == "ok":
            p["kernel_sum_us"] = stats(p["kernel_sum_us"]["median"], spread=2.5)  # steps far apart
    assert any(g.compare.even for g in found(shape_findings.shapes_gqa, run).pairs)


def test_a_family_where_every_point_was_refused_says_nothing_of_it():
    run = shape_results()
    for p in run["shapes"]["points"]:
        if p["family"] == "sliding":
            p.update(refused())
    assert found(shape_findings.shapes_sliding, run) is None


def test_prefill_names_what_ran_out_of_memory_where():
    oom = found(shape_findings.shapes_prefill, shape_results()).oom
    assert [(v, p.q_len) for v, p in oom] == [("math", 32768)]


def test_gqa_backends_give_math_the_size_of_its_copy_and_name_the_refusals():
    shapes = found(shape_findings.shapes_gqa_backends, site_run())
    assert len(shapes) == 4 and all(s.refused == ("efficient",) and s.copies for s in shapes)
    run = site_run()
    for p in run["shapes"]["points"]:
        if p["variant"] == "math" and p["family"].startswith("gqa"):
            p["peak_extra_mib"] = 1.0  # no room for a copy: the sentence must not claim one
    assert not any(s.copies for s in found(shape_findings.shapes_gqa_backends, run))
