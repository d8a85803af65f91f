"""report/render/findings/compiled.py: torch.compile of the naive module, and FlexAttention."""
import pytest
from factory import findings_of, h200, kernel, nothing_measured, refused, said, stats

from report.render.findings import FINDINGS, compiled


@pytest.mark.parametrize("name", findings_of(compiled))
def test_each_finding_speaks_on_the_h200_run_and_is_silent_without_its_data(name):
    assert said(FINDINGS[name], h200())
    assert said(FINDINGS[name], nothing_measured()) == []


def test_the_verdict_follows_the_kernels_the_compiler_made():
    run = h200()
    (line,) = said(compiled.compiled, run)
    assert "did not recognise attention" in line  # the committed run: Triton softmax, separate matmuls
    run["variants"]["compiled_naive"]["kernels"] = [kernel("pytorch_flash::flash_fwd_kernel")]
    run["variants"]["compiled_naive"]["gpu_activities_per_forward"] = stats(1)
    (line,) = said(compiled.compiled, run)
    assert "replaced the pattern with a fused attention kernel" in line and "gave 1 GPU activities" in line


def test_flex_needs_flash_to_compare_with():
    run = h200()
    run["variants"]["flash"] = refused()
    assert said(compiled.flex, run) == []


def test_flex_against_flash_in_kernel_time_and_in_wall_time_each_by_the_rounds():
    run = h200()
    (line,) = said(compiled.flex, run)
    kernel_part, wall_part = line.split("Against flash in kernel time: ")[1].split("Against flash in wall time per call: ")
    assert "GPU span" not in line
    # the committed rounds: flex's kernels are shorter in every round; its calls, paced by the
    # CPU, are judged against the run's floor for such figures
    assert kernel_part.startswith("FlexAttention is faster")
    assert wall_part.startswith("within noise") and "moved by up to" in wall_part
    run["overhead"] = None  # no floor: the rounds' own rule
    flex = run["variants"]["flex"]
    for r, f in zip(flex["rounds"], run["variants"]["flash"]["rounds"], strict=True):
        r["wall_time_us"] = {**r["wall_time_us"], "median": 1.3 * f["wall_time_us"]["median"]}
        r["host_time_us"] = {**r["host_time_us"], "median": 2 * r["kernel_sum_us"]["median"]}
    (line,) = said(compiled.flex, run)
    assert "Against flash in wall time per call: FlexAttention is slower" in line
    assert "is above its kernel time" in line and "in every round" in line
    # a round in which flex's wall time is below flash's: the order no longer holds
    flash_walls = [r["wall_time_us"]["median"] for r in run["variants"]["flash"]["rounds"]]
    flex["rounds"][0]["wall_time_us"]["median"] = min(flash_walls) - 1.0
    (line,) = said(compiled.flex, run)
    assert "Against flash in wall time per call: within noise" in line


def test_flex_without_rounds_falls_back_to_the_rows_own_spread():
    run = h200()
    for name in ("flex", "flash"):
        run["variants"][name].pop("rounds")
    (line,) = said(compiled.flex, run)
    assert "rounds" not in line and "spread" in line
    run["variants"]["flex"]["wall_time_us"] = dict(run["variants"]["flash"]["wall_time_us"])  # the same figure
    (line,) = said(compiled.flex, run)
    assert "Against flash in wall time per call: within noise" in line
