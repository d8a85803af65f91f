"""report/render/findings/decode_findings.py: what to use for decode, and why."""
import pytest
from factory import findings_of, found, nothing_measured, shape_results, site_run

from report.render.findings import FINDINGS, decode_findings
from report.render.shape_tables import decode_pairs_table


@pytest.mark.parametrize("name", findings_of(decode_findings))
def test_each_finding_speaks_on_the_site_run_and_on_made_up_points_and_is_silent_without_them(name):
    assert found(FINDINGS[name], site_run()) is not None
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


def _decode_group(run, q_len, kv, per_call):
    """Decode pairs at one point of batch 1: per_call[name] µs per call in every pair."""
    rounds = [{"blocks_us": {n: [us * (1 + (i % 5) * 0.02) for i in range(40)] for n, us in per_call.items()}}
              for _ in range(3)]
    run["pairs"]["groups"][f"decode_q{q_len}_kv{kv}"] = {
        "metric": "wall", "shape": {"batch": 1, "q_len": q_len, "kv_len": kv}, "rounds": rounds}


def test_wall_time_at_batch_1_is_decided_by_pairs_eager_and_inside_a_cuda_graph():
    """Issue 29: at batch 1 auto lost in wall time where its kernel time did not; inside a
    CUDA graph it held. Both answers, each counted from the paired rule."""
    run = shape_results()
    wall = found(decode_findings.shapes_decode_wall, run)
    # the site's pairs: every decode group a point, counted by its own verdict; where auto's
    # eager call lost, it lost to a pinned backend beyond the margin; replays never lost, and
    # at a long KV cache (32,768) the eager call kept up
    pts = {(p.q_len, p.kv_len): p for p in decode_findings.decode_pairs(run)}
    assert wall.eager_n == wall.graph_n == len(pts) == sum(n.startswith("decode_") for n in run["pairs"]["groups"])
    assert wall.eager_lost == sum(p.eager.verdict.order == "<" for p in pts.values()) > 0
    for p in pts.values():
        if p.eager.verdict.order == "<":
            assert p.eager.best != "auto" and p.eager.verdict.interval[0] > 1.05, p
    assert wall.graph_lost == 0
    assert pts[(1, 32768)].eager.verdict.order is None
    run["pairs"]["groups"] = {}
    _decode_group(run, 1, 1024, {"auto": 60.0, "auto_graph": 20.0, "flash": 40.0, "flash_graph": 12.0,
                                 "cudnn": 61.0, "cudnn_graph": 20.2})
    wall = found(decode_findings.shapes_decode_wall, run)
    assert (wall.eager_lost, wall.graph_lost, wall.eager_n) == (1, 1, 1)  # flash's replay: 20 against 12
    (p,) = decode_findings.decode_pairs(run)
    assert (p.eager.best, p.graph.best) == ("flash", "flash") and p.graph.verdict.ratio == pytest.approx(20 / 12)
    assert p.eager.contenders == ("flash",)  # flash's 40 µs is beyond the margin from cuDNN's 61 µs
    # two pinned backends within the margin of each other: the rule names no fastest
    run["pairs"]["groups"] = {}
    _decode_group(run, 1, 1024, {"auto": 60.0, "auto_graph": 20.0, "flash": 40.5, "flash_graph": 12.0,
                                 "cudnn": 40.0, "cudnn_graph": 20.2})
    (p,) = decode_findings.decode_pairs(run)
    assert p.eager.best == "cudnn" and p.eager.contenders == ("cudnn", "flash") and p.eager.verdict.order == "<"
    assert p.graph.contenders == ("flash",)
    row = next(line for line in decode_pairs_table(run, "en").splitlines() if line.startswith("| 1 | 1,024"))
    eager_cell = row.split(" | ")[2]
    assert "SDPA cuDNN or SDPA flash" in eager_cell and eager_cell.count("SDPA flash") == 1
    run.pop("pairs")
    assert found(decode_findings.shapes_decode_wall, run) is None  # not timed in pairs

def test_who_sets_the_pace_is_the_eager_call_against_its_graph_replay_timed_in_pairs():
    """The CPU sets the pace where replaying the call from a CUDA graph is faster in wall time
    per call (by_group); the GPU where it is not; never host overhead against kernel time."""
    run = shape_results()
    run["pairs"]["groups"] = {}
    _decode_group(run, 1, 1024, {"auto": 60.0, "auto_graph": 20.0})
    _decode_group(run, 1, 131072, {"auto": 500.0, "auto_graph": 498.0})
    short, long = found(decode_findings.shapes_decode_launch, run)
    assert (short.pace, short.verdict.order, short.verdict.metric) == ("cpu", "<", "wall")
    assert short.verdict.ratio == pytest.approx(3.0)
    assert (long.pace, long.verdict.order) == ("gpu", None)
    # a host overhead far above the kernel time changes nothing: the two metrics are not compared
    _decode(run, 1, 1, 131072, "auto")["host_time_us"]["median"] = 10_000.0
    assert found(decode_findings.shapes_decode_launch, run)[1].pace == "gpu"
    run.pop("pairs")
    assert all(x.pace is None and x.verdict is None for x in found(decode_findings.shapes_decode_launch, run))


def test_a_backend_change_between_one_and_a_few_tokens_is_said_with_the_same_backend_beside_it():
    run = shape_results()
    assert all(s.ran_few is None for s in found(decode_findings.shapes_decode_speculative, run))  # flash at both
    _decode(run, 1, 1, 131072, "auto")["backend_ran"] = "cudnn"
    (changed,) = [s for s in found(decode_findings.shapes_decode_speculative, run) if s.ran_few]
    assert (changed.ran_one, changed.one, changed.ran_few, changed.few) == ("cudnn", 1, "flash", 4)
    assert changed.same.variant == "flash"


def test_pinned_cudnn_that_builds_the_mask_is_said_only_where_its_kernels_show_it():
    run = site_run()
    assert any(s.cudnn and s.cudnn.kernel == "at::native::triu_tril_kernel"
               for s in found(decode_findings.shapes_decode_speculative, run))
    for p in run["shapes"]["points"]:
        if p["variant"] == "cudnn" and p.get("kernels"):
            p["kernels"] = [k for k in p["kernels"] if "triu_tril" not in k["short_name"]]
    assert not any(s.cudnn for s in found(decode_findings.shapes_decode_speculative, run))


def test_the_copy_roof_is_called_a_reference_only_where_a_kernel_beat_it():
    run = site_run()
    assert found(decode_findings.shapes_decode_bandwidth, run).above > 0
    run["shapes"]["copy_roof"]["gb_per_s"] = 10_000.0
    assert found(decode_findings.shapes_decode_bandwidth, run).above == 0
