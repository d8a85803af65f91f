"""report/render/findings/decode_findings.py: what to use for decode, and why."""
import pytest
from factory import findings_of, h200, nothing_measured, said, shape_results

from report.render.findings import FINDINGS, decode_findings
from report.verdict import host_floor


@pytest.mark.parametrize("name", findings_of(decode_findings))
def test_each_finding_speaks_on_the_h200_run_and_on_made_up_points_and_is_silent_without_them(name):
    assert said(FINDINGS[name], h200())
    assert said(FINDINGS[name], shape_results())
    assert said(FINDINGS[name], nothing_measured()) == []


def test_decode_pins_the_backend_that_wins_most_points():
    run = shape_results()
    # unpinned ran flash's own kernels at every point: one entry with flash, never slower than it
    (line,) = said(decode_findings.shapes_decode_answer, run)
    assert line.startswith("**Leave SDPA unpinned** for decode")
    for p in run["shapes"]["points"]:  # where it is slower, say it ran another backend
        if p["family"] == "decode" and p["variant"] == "auto" and p["q_len"] == 4:
            p["backend_ran"] = "cudnn"
    (line,) = said(decode_findings.shapes_decode_answer, run)
    assert line.startswith("**Pin SDPA flash** for decode") and "as fast at 7 of 11" in line


def _decode(run, q_len, batch, kv, variant):
    return next(p for p in run["shapes"]["points"] if p["family"] == "decode" and p["variant"] == variant
                and (p["q_len"], p["batch"], p["kv_len"]) == (q_len, batch, kv))


def test_wall_time_at_batch_1_names_the_points_where_unpinned_lost_beyond_noise():
    # made up: unpinned is 1.3× flash's kernel time at query length 4, and its host overhead
    # (40 µs against 35 µs) sets the pace of its calls where the kernels are short
    run = shape_results()
    # one measurement per point of a host-paced figure: judged against the run's floor
    floor = host_floor(run)
    assert floor > 0.3
    (line,) = said(decode_findings.shapes_decode_wall, run)
    assert f"moved by up to {round(100 * floor)}%" in line and "at 8 of 8 points" in line
    run["overhead"] = None  # a file without the small shape's rounds: the points' own noise
    (line,) = said(decode_findings.shapes_decode_wall, run)
    assert "at 3 of 8 points" in line and "query length 1, KV 1,024" in line and "query length 1, KV 8,192" not in line
    assert "one timer run" not in line  # the made-up walls have runs of their own
    auto = _decode(run, 1, 1, 1024, "auto")
    auto["wall_time_us"] = dict(auto["wall_time_us"], runs=1, iqr=0.0)
    auto["host_time_us"]["spread_pct"] = 150.0  # the wall's noise is borrowed: larger than the gap
    (line,) = said(decode_findings.shapes_decode_wall, run)
    assert "at 4 of 8 points" in line and "query length 1, KV 1,024" not in line
    assert "one timer run" in line  # said where the noise is borrowed
    for p in run["shapes"]["points"]:
        if p["family"] == "decode" and p["variant"] == "auto" and p["status"] == "ok":
            p["wall_time_us"] = dict(p["wall_time_us"], median=1.0)
    (line,) = said(decode_findings.shapes_decode_wall, run)
    assert "at all 8 points" in line


def test_a_backend_change_between_one_and_a_few_tokens_is_said_with_the_same_backend_beside_it():
    run = shape_results()
    lines = said(decode_findings.shapes_decode_speculative, run)
    assert not any("the backend changed" in line for line in lines)  # flash at both in the made-up run
    _decode(run, 1, 1, 131072, "auto")["backend_ran"] = "cudnn"
    lines = said(decode_findings.shapes_decode_speculative, run)
    (changed,) = [line for line in lines if "the backend changed" in line]
    assert "ran cuDNN for 1 query token and flash for 4" in changed and "SDPA flash pinned" in changed


def test_pinned_cudnn_that_builds_the_mask_is_said_only_where_its_kernels_show_it():
    run = h200()
    lines = said(decode_findings.shapes_decode_speculative, run)
    assert any("`at::native::triu_tril_kernel`" in line for line in lines)
    for p in run["shapes"]["points"]:
        if p["variant"] == "cudnn" and p.get("kernels"):
            p["kernels"] = [k for k in p["kernels"] if "triu_tril" not in k["short_name"]]
    assert not any("triu_tril" in line for line in said(decode_findings.shapes_decode_speculative, run))


def test_the_copy_roof_is_called_a_reference_only_where_a_kernel_beat_it():
    run = h200()
    assert any("a reference, not a roof" in line for line in said(decode_findings.shapes_decode_bandwidth, run))
    run["shapes"]["copy_roof"]["gb_per_s"] = 10_000.0
    assert not any("a reference, not a roof" in line for line in said(decode_findings.shapes_decode_bandwidth, run))
