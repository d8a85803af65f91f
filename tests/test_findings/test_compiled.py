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
