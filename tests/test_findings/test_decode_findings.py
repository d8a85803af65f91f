"""report/render/findings/decode_findings.py: what to use for decode, and why."""
import pytest
from factory import findings_of, found, h200, nothing_measured, shape_results

from report.render.findings import FINDINGS, decode_findings
from report.verdict import host_floor


@pytest.mark.parametrize("name", findings_of(decode_findings))
def test_each_finding_speaks_on_the_h200_run_and_on_made_up_points_and_is_silent_without_them(name):
    assert found(FINDINGS[name], h200()) is not None
    assert found(FINDINGS[name], shape_results()) is not None
    assert found(FINDINGS[name], nothing_measured()) is None


def test_decode_pins_the_backend_that_wins_most_points():
    run = shape_results()
    # unpinned ran flash's own kernels at every point: one entry with flash, never slower than it
    a = found(decode_findings.shapes_decode_answer, run)
    assert a.good == a.n == 11 and a.ran == (("flash", 11),)
    for p in run["shapes"]["points"]:  # where it is slower, say it ran another backend
        if p["family"] == "decode" and p["variant"] == "auto" and p["q_len"] == 4:
            p["backend_ran"] = "cudnn"
    a = found(decode_findings.shapes_decode_answer, run)
    assert (a.top, a.good, a.n) == ("flash", 7, 11) and a.worst.best == "flash" and a.worst.ratio > 1


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
    wall = found(decode_findings.shapes_decode_wall, run)
    assert wall.floor == 100 * floor and (wall.good, wall.n) == (8, 8)
    run["overhead"] = None  # a file without the small shape's rounds: the points' own noise
    wall = found(decode_findings.shapes_decode_wall, run)
    assert wall.floor is None and (wall.good, wall.n) == (3, 8)
    assert (1, 1024) in [(w.q_len, w.kv_len) for w in wall.lost] and (1, 8192) not in [(w.q_len, w.kv_len)
                                                                                          for w in wall.lost]
    assert not wall.one_run  # the made-up walls have runs of their own
    auto = _decode(run, 1, 1, 1024, "auto")
    auto["wall_time_us"] = dict(auto["wall_time_us"], runs=1, iqr=0.0)
    auto["host_time_us"]["spread_pct"] = 150.0  # the wall's noise is borrowed: larger than the gap
    wall = found(decode_findings.shapes_decode_wall, run)
    assert wall.good == 4 and (1, 1024) not in [(w.q_len, w.kv_len) for w in wall.lost]
    assert wall.one_run  # said where the noise is borrowed
    for p in run["shapes"]["points"]:
        if p["family"] == "decode" and p["variant"] == "auto" and p["status"] == "ok":
            p["wall_time_us"] = dict(p["wall_time_us"], median=1.0)
    wall = found(decode_findings.shapes_decode_wall, run)
    assert wall.lost == () and wall.good == wall.n == 8


def test_a_backend_change_between_one_and_a_few_tokens_is_said_with_the_same_backend_beside_it():
    run = shape_results()
    assert all(s.ran_few is None for s in found(decode_findings.shapes_decode_speculative, run))  # flash at both
    _decode(run, 1, 1, 131072, "auto")["backend_ran"] = "cudnn"
    (changed,) = [s for s in found(decode_findings.shapes_decode_speculative, run) if s.ran_few]
    assert (changed.ran_one, changed.one, changed.ran_few, changed.few) == ("cudnn", 1, "flash", 4)
    assert changed.same.variant == "flash"


def test_pinned_cudnn_that_builds_the_mask_is_said_only_where_its_kernels_show_it():
    run = h200()
    assert any(s.cudnn and s.cudnn.kernel == "at::native::triu_tril_kernel"
               for s in found(decode_findings.shapes_decode_speculative, run))
    for p in run["shapes"]["points"]:
        if p["variant"] == "cudnn" and p.get("kernels"):
            p["kernels"] = [k for k in p["kernels"] if "triu_tril" not in k["short_name"]]
    assert not any(s.cudnn for s in found(decode_findings.shapes_decode_speculative, run))


def test_the_copy_roof_is_called_a_reference_only_where_a_kernel_beat_it():
    run = h200()
    assert found(decode_findings.shapes_decode_bandwidth, run).above > 0
    run["shapes"]["copy_roof"]["gb_per_s"] = 10_000.0
    assert found(decode_findings.shapes_decode_bandwidth, run).above == 0
