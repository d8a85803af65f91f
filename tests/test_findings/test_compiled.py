"""report/render/findings/compiled.py: torch.compile of the naive module, and FlexAttention."""
import pytest
from factory import findings_of, found, kernel, nothing_measured, refused, site_run, stats

from report.render.findings import FINDINGS, compiled


@pytest.mark.parametrize("name", findings_of(compiled))
def test_each_finding_speaks_on_the_site_run_and_is_silent_without_its_data(name):
    assert found(FINDINGS[name], site_run()) is not None
    assert found(FINDINGS[name], nothing_measured()) is None


def test_the_verdict_follows_the_kernels_the_compiler_made():
    run = site_run()
    assert not found(compiled.compiled, run).fused  # the committed run: Triton softmax, separate matmuls
    run["variants"]["compiled_naive"]["kernels"] = [kernel("pytorch_flash::flash_fwd_kernel")]
    run["variants"]["compiled_naive"]["gpu_activities_per_forward"] = stats(1)
    c = found(compiled.compiled, run)
    assert c.fused and c.n == 1 and c.kernels == ("pytorch_flash::flash_fwd_kernel",)


def test_flex_needs_flash_to_compare_with():
    run = site_run()
    run["variants"]["flash"] = refused()
    assert found(compiled.flex, run) is None


def _wall_pairs(run, flex_over_flash):
    """The seed shape's wall-time pairs with flex's block at `flex_over_flash[r]` times
    flash's in round r (40 pairs a round, a little jitter)."""
    rounds = []
    for r, times in enumerate(flex_over_flash):
        flash = [95.0 + (i % 5) * 0.3 + r for i in range(40)]
        rounds.append({"blocks_us": {"flash": flash, "flex": [x * times * (1 + (i % 3) * 0.01)
                                                                for i, x in enumerate(flash)]}})
    run["pairs"]["groups"]["seed_wall"] = {"metric": "wall", "rounds": rounds}


def test_flex_against_flash_in_kernel_time_by_the_rounds_and_in_wall_time_by_the_pairs():
    run = site_run()
    f = found(compiled.flex, run)
    # the site's run: kernel time by the rounds' medians (one figure a round), wall time by
    # the seed shape's pairs (every pair of blocks of every round); each called only where
    # its whole interval lies beyond the margin
    fx, fl, pairs = run["variants"]["flex"], run["variants"]["flash"], run["pairs"]["groups"]["seed_wall"]["rounds"]
    assert (f.kernel.metric, f.kernel.rounds) == ("kernel", len(fx["rounds"]))
    assert (f.wall.metric, f.wall.rounds, f.wall.n) == ("wall", len(pairs), sum(len(r["blocks_us"]["flex"]) for r in pairs))
    for verdict in (f.kernel, f.wall):
        assert (verdict.order is not None) == (verdict.interval[0] > 1 + verdict.within / 100), verdict
        assert verdict.undecided == (verdict.order is None and not verdict.same)
    if all(a["kernel_sum_us"]["median"] * 1.05 < b["kernel_sum_us"]["median"] for a, b in zip(fx["rounds"], fl["rounds"], strict=True)):
        assert f.kernel.order == "<"  # flex's kernels shorter by the margin in every round
    _wall_pairs(run, [1.3, 1.3, 1.3])
    f = found(compiled.flex, run)
    assert f.wall.order == ">" and 1.28 < f.wall.ratio < 1.33 and f.wall.n == 120 and f.wall.rounds == 3
    _wall_pairs(run, [1.3, 1.3, 0.8])  # a process in which flex is faster: undecided
    f = found(compiled.flex, run)
    assert f.wall.undecided and f.wall.interval[0] < 1 < f.wall.interval[1]


def test_flex_without_pairs_or_rounds_states_no_order():
    run = site_run()
    run.pop("pairs")
    assert found(compiled.flex, run).wall is None  # not measured in pairs
    for name in ("flex", "flash"):
        run["variants"][name].pop("rounds")
    f = found(compiled.flex, run)
    assert f.kernel is None and f.host is not None and f.host.kernel.range is None
