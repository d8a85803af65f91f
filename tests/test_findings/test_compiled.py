"""report/render/findings/compiled.py: torch.compile of the naive module, and FlexAttention."""
import pytest
from factory import findings_of, found, h200, kernel, nothing_measured, refused, stats

from report.render.findings import FINDINGS, compiled


@pytest.mark.parametrize("name", findings_of(compiled))
def test_each_finding_speaks_on_the_h200_run_and_is_silent_without_its_data(name):
    assert found(FINDINGS[name], h200()) is not None
    assert found(FINDINGS[name], nothing_measured()) is None


def test_the_verdict_follows_the_kernels_the_compiler_made():
    run = h200()
    assert not found(compiled.compiled, run).fused  # the committed run: Triton softmax, separate matmuls
    run["variants"]["compiled_naive"]["kernels"] = [kernel("pytorch_flash::flash_fwd_kernel")]
    run["variants"]["compiled_naive"]["gpu_activities_per_forward"] = stats(1)
    c = found(compiled.compiled, run)
    assert c.fused and c.n == 1 and c.kernels == ("pytorch_flash::flash_fwd_kernel",)


def test_flex_needs_flash_to_compare_with():
    run = h200()
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
    run = h200()
    f = found(compiled.flex, run)
    # the committed run: flex's kernels are shorter in every round (rounds' medians); its wall
    # time against flash's, timed in pairs, moves between processes (0.94x to 2.1x): undecided
    assert (f.kernel.order, f.kernel.metric) == ("<", "kernel") and f.kernel.ratio > 1.05
    assert (f.wall.order, f.wall.metric) == (None, "wall") and f.wall.undecided and f.wall.reason == "margin"
    _wall_pairs(run, [1.3, 1.3, 1.3])
    f = found(compiled.flex, run)
    assert f.wall.order == ">" and 1.28 < f.wall.ratio < 1.33 and f.wall.n == 120 and f.wall.rounds == 3
    _wall_pairs(run, [1.3, 1.3, 0.8])  # a process in which flex is faster: undecided
    f = found(compiled.flex, run)
    assert f.wall.undecided and f.wall.interval[0] < 1 < f.wall.interval[1]


def test_flex_without_pairs_or_rounds_states_no_order():
    run = h200()
    run.pop("pairs")
    assert found(compiled.flex, run).wall is None  # not measured in pairs
    for name in ("flex", "flash"):
        run["variants"][name].pop("rounds")
    f = found(compiled.flex, run)
    assert f.kernel is None and f.host is not None and f.host.kernel.range is None
