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


def test_flex_against_flash_in_kernel_time_and_in_wall_time_each_by_the_rounds():
    run = h200()
    f = found(compiled.flex, run)
    # the committed rounds: flex's kernels are shorter in every round; its calls, paced by the
    # CPU, are judged against the run's floor for such figures
    assert (f.kernel.order, f.kernel.by) == ("<", "rounds") and f.kernel.ratio > 1
    assert (f.wall.order, f.wall.by) == (None, "floor") and f.wall.floor > 0
    run["overhead"] = None  # no floor: the rounds' own rule
    flex = run["variants"]["flex"]
    for r, fl in zip(flex["rounds"], run["variants"]["flash"]["rounds"], strict=True):
        r["wall_time_us"] = {**r["wall_time_us"], "median": 1.3 * fl["wall_time_us"]["median"]}
        r["host_time_us"] = {**r["host_time_us"], "median": 2 * r["kernel_sum_us"]["median"]}
    f = found(compiled.flex, run)
    assert (f.wall.order, f.wall.by) == (">", "rounds")
    assert f.host is not None and f.host.rounds  # above its kernel time in every round
    # a round in which flex's wall time is below flash's: the order no longer holds
    flash_walls = [r["wall_time_us"]["median"] for r in run["variants"]["flash"]["rounds"]]
    flex["rounds"][0]["wall_time_us"]["median"] = min(flash_walls) - 1.0
    assert found(compiled.flex, run).wall.order is None


def test_flex_without_rounds_falls_back_to_the_rows_own_spread():
    run = h200()
    for name in ("flex", "flash"):
        run["variants"][name].pop("rounds")
    f = found(compiled.flex, run)
    assert f.kernel.by == "figures" and f.kernel.spread > 0
    run["variants"]["flex"]["wall_time_us"] = dict(run["variants"]["flash"]["wall_time_us"])  # the same figure
    assert found(compiled.flex, run).wall.order is None
