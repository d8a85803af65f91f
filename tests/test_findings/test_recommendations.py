"""report/render/findings/recommendations.py: the findings behind the three recommendations."""
import pytest
from factory import another_gpu, findings_of, found, host, nothing_measured, results, row, site_run

from report.render.findings import FINDINGS, recommendations


@pytest.mark.parametrize("name", findings_of(recommendations))
def test_each_finding_speaks_on_the_site_run_and_is_silent_without_its_data(name):
    assert found(FINDINGS[name], site_run()) is not None
    assert found(FINDINGS[name], nothing_measured()) is None


def made_up(per_op, spread, kernel=100.0):
    """Three fused backends whose host overhead in small ops and its spread are given (the
    µs figure's own spread, 50 %, is the CPU's drift); no rounds."""
    def fused(h):
        r = row(kernel, kernel, spread=0.0, host_us=10 * h)
        r["host_time_us"] = {**host(10 * h, per_small_op=h, spread_pct=50.0)}
        r["host_time_us"]["per_small_op"]["spread_pct"] = spread
        return r
    return results({n: fused(h) for n, h in zip(("flash", "efficient", "cudnn"), per_op, strict=True)})


@pytest.mark.parametrize("per_op", [(3.0, 3.1, 6.0), (3.0, 5.5, 6.0)])
def test_without_rounds_no_order_is_stated(per_op):
    """The share is compared by the paired rule on the rounds alone: a run without rounds
    names the two in FUSED's order, whichever median came out larger, with no verdict."""
    leader = found(recommendations.rec_cpu, made_up(per_op, 5.0))
    assert (leader.variant, leader.other, leader.verdict) == ("efficient", "cudnn", None)
    assert leader.rounds is None and leader.other_rounds is None


def _seed_pairs(run, per_call):
    """The seed shape's wall-time pairs: per_call[name] µs in every pair, 3 rounds of 40."""
    rounds = [{"blocks_us": {n: [us * (1 + (i % 5) * 0.02) for i in range(40)] for n, us in per_call.items()}}
              for _ in range(3)]
    run["pairs"] = {"groups": {"seed_wall": {"metric": "wall", "rounds": rounds}}}
    return run


def test_auto_is_said_to_lose_only_by_the_paired_rule():
    rows = {"flash": row(100.0), "auto": row(150.0, backend_ran="efficient")}
    pick = found(recommendations.rec_auto, _seed_pairs(results(dict(rows)), {"flash": 100.0, "auto": 150.0}))
    assert (pick.ran, pick.best, pick.verdict.order, pick.verdict.metric) == ("efficient", "flash", "<", "wall")
    assert pick.verdict.ratio == pytest.approx(1.5)
    even = found(recommendations.rec_auto, _seed_pairs(results(dict(rows)), {"flash": 100.0, "auto": 102.0}))
    assert even.verdict.same  # 2 % in every process: inside the margin
    same = {"flash": row(100.0), "auto": row(101.0, backend_ran="flash")}
    assert found(recommendations.rec_auto, _seed_pairs(results(same), {"flash": 100.0, "auto": 101.0})).verdict is None
    unsaid = {"flash": row(100.0), "auto": row(101.0)}
    assert found(recommendations.rec_auto, _seed_pairs(results(unsaid), {"flash": 100.0, "auto": 101.0})) is None
    assert found(recommendations.rec_auto, results(dict(rows))) is None  # not timed in pairs


def test_the_in_place_version_removes_the_copy_the_out_of_place_one_makes():
    copy = found(recommendations.rec_inplace, site_run())
    naive = site_run()["variants"]["naive"]
    memcpy = next(k for k in naive["kernels"] if k["kind"] == "memcpy")
    assert copy.memcpy_us == memcpy["avg_us"] and 0 < copy.share < 100


def test_another_gpu_is_named():
    assert found(recommendations.rec_auto, another_gpu()).gpu == "NVIDIA A100-SXM4-80GB"


def with_host_rounds(r, hosts_us, kernels_us, small_op_us=7.0):
    """A row with one round per (host µs, kernel µs) pair given."""
    r["rounds"] = [{"kernel_sum_us": {"median": k}, "host_time_us": host(h, small_op_us=small_op_us)}
                   for h, k in zip(hosts_us, kernels_us, strict=True)]
    return r


def test_the_highest_host_share_is_called_by_the_rounds_ratios_or_is_the_same():
    clear = results({"cudnn": with_host_rounds(row(60.0, host_us=32.0), [32, 33, 31], [60, 60, 60]),
                     "flash": with_host_rounds(row(100.0, host_us=37.0), [37, 38, 36], [100, 100, 100])})
    leader = found(recommendations.rec_cpu, clear)
    assert (leader.variant, leader.other, leader.verdict.order, leader.verdict.metric) == ("cudnn", "flash", ">",
                                                                                          "host_share")
    assert leader.verdict.ratio == pytest.approx((32 / 60) / (37 / 100), rel=0.01) and leader.verdict.rounds == 3
    assert len(leader.rounds) == 3 and min(leader.rounds) > max(leader.other_rounds)  # in every round
    home = found(FINDINGS["home_cpu"], clear)
    assert home.variant == "cudnn" and home.rounds == (32 / 60, 33 / 60, 31 / 60)
    # a round where flash's share is the larger: within noise, and the name does not follow
    # whichever median came out larger (FUSED's order names flash first)
    mixed = results({"cudnn": with_host_rounds(row(60.0, host_us=32.0), [32, 47, 31], [60, 60, 60]),
                     "flash": with_host_rounds(row(100.0, host_us=37.0), [37, 90, 36], [100, 100, 100])})
    leader = found(recommendations.rec_cpu, mixed)
    assert (leader.variant, leader.other, leader.verdict.order) == ("flash", "cudnn", None)
    swapped = results({"cudnn": with_host_rounds(row(60.0, host_us=32.0), [32, 95, 31], [60, 60, 60]),
                       "flash": with_host_rounds(row(100.0, host_us=37.0), [37, 38, 36], [100, 100, 100])})
    leader = found(recommendations.rec_cpu, swapped)  # every round on one side, but the rounds scatter more than the gap
    assert leader.variant == "flash" and leader.verdict.order is None


def test_the_cpu_leader_s_share_is_the_one_the_table_beside_it_shows():
    from report.verdict import median

    run = site_run()
    c = recommendations.rec_cpu(run, None)
    v = run["variants"]
    assert c.pct == pytest.approx(100 * median(v[c.variant]["host_time_us"]) / median(v[c.variant]["kernel_sum_us"]))
    assert c.other_pct == pytest.approx(100 * median(v[c.other]["host_time_us"]) / median(v[c.other]["kernel_sum_us"]))
