"""report/render/findings/pairs_findings.py: CUDA-graph replays, what pinning costs and
issuing one call, from the paired timings at the small shape."""
import pytest
from factory import findings_of, found, nothing_measured, site_run

from report.render.findings import FINDINGS, pairs_findings


def group(blocks, rounds=3):
    """A pairs group whose every round has these blocks (entry -> µs per call, 12 pairs
    each, ±1 % alternating so that the pairs are not all equal)."""
    return {"metric": "wall", "shape": {}, "rounds": [
        {"blocks_us": {e: [us * (1.01 if i % 2 else 0.99) for i in range(12)] for e, us in blocks.items()}}
        for _ in range(rounds)]}


def with_groups(**groups):
    run = site_run()
    run["pairs"]["groups"] = {name: group(blocks) for name, blocks in groups.items()}
    return run


@pytest.mark.parametrize("name", findings_of(pairs_findings))
def test_each_finding_speaks_on_the_site_run_and_is_silent_without_its_data(name):
    assert found(FINDINGS[name], site_run()) is not None
    assert found(FINDINGS[name], nothing_measured()) is None


def test_the_largest_host_share_belongs_to_the_shortest_kernel_in_the_site_run():
    g = found(pairs_findings.rec_graph, site_run())
    assert [s.kernel_us for s in g.shares] == sorted(s.kernel_us for s in g.shares)
    assert g.largest == g.shares[0].name == max(g.shares, key=lambda s: s.pct).name and g.shortest


def test_a_replay_is_called_faster_only_by_the_paired_rule():
    run = with_groups(small={"cudnn": 40.0, "cudnn_graph": 10.0, "flash": 40.0, "flash_graph": 39.5})
    replays = {r.name: r for r in found(pairs_findings.rec_graph, run).replays}
    assert replays["cudnn"].verdict.order == "<" and replays["cudnn"].verdict.ratio == pytest.approx(4.0, rel=0.03)
    assert replays["flash"].verdict.order is None  # 1 % apart: within the 5 % the rule does not call


def test_pinning_around_every_call_is_slower_where_the_pairs_say_so():
    run = with_groups(small={"auto": 30.0, "flash": 30.0, "flash_each_call": 60.0,
                             "cudnn": 30.0, "cudnn_each_call": 30.5})
    p = found(pairs_findings.rec_pinning, run)
    assert p.each_slower == ("flash",) and p.once_slower == ()
    assert {r.name: r.each_us for r in p.rows} == {"flash": pytest.approx(60.0, rel=0.02),
                                                    "cudnn": pytest.approx(30.5, rel=0.02)}


def test_issuing_is_taken_apart_in_the_order_a_call_goes_and_needs_unpinned_sdpa():
    i = found(pairs_findings.waits_issue, with_groups(issue={"auto": 50.0, "python_call": 0.2, "choose_backend": 7.0}))
    assert [p for p, _ in i.parts] == ["python_call", "choose_backend", "auto"] and i.ran == "cudnn"
    assert found(pairs_findings.waits_issue, with_groups(issue={"python_call": 0.2})) is None


def test_the_graph_table_puts_this_run_s_ratio_beside_its_medians_and_the_runs_verdict_apart():
    import copy

    from report.verdict.across_runs import pooled

    run = site_run()
    alone = {r.name: r for r in found(pairs_findings.rec_graph, run).replays}
    assert all(r.run_a.runs == 1 and r.verdict.runs == 1 for r in alone.values())  # one run: the same rule twice
    slower = copy.deepcopy(run)  # a rerun whose replays took twice as long
    for rnd in slower["pairs"]["groups"]["small"]["rounds"]:
        for entry, blocks in rnd["blocks_us"].items():
            if entry.endswith("_graph"):
                rnd["blocks_us"][entry] = [2 * x for x in blocks]
    both = {r.name: r for r in found(pairs_findings.rec_graph, pooled(run, [("b", slower), ("c", slower)])).replays}
    for name, r in both.items():
        assert r.verdict.runs == 3 and r.run_a.runs == 1
        assert r.run_a.ratio == pytest.approx(alone[name].run_a.ratio)  # this run's ratio, whatever the reruns say
        assert r.eager_us == alone[name].eager_us and r.graph_us == alone[name].graph_us
