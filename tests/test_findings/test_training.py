"""report/render/findings/training.py: forward + backward against forward, kernels, memory."""
import pytest
from factory import backward, findings_of, h200, kernel, nothing_measured, refused, results, row, said

from report.render.findings import FINDINGS, training


@pytest.mark.parametrize("name", findings_of(training))
def test_each_finding_speaks_on_the_h200_run_and_is_silent_without_its_data(name):
    assert said(FINDINGS[name], h200())
    assert said(FINDINGS[name], nothing_measured()) == []


def test_training_against_forward_its_own_kernels_and_memory():
    bwd = row(300.0, 300.0, kernels=[kernel("flash_bwd_kernel", 200.0, aten_op="aten::_flash_attention_backward"),
                                      kernel("flash_fwd_kernel", 100.0, aten_op="aten::_flash_attention_forward")],
              peak_extra_mib=64.0)
    run = results({"flash": row(100.0, 100.0), "math": row(400.0, 400.0)},
                  backward=backward({"flash": bwd, "math": refused("oom")}))
    assert said(training.train_ratio, run) == ["Forward + backward against forward only, in GPU span: SDPA flash 3.0×."]
    assert said(training.train_kernels, run) == ["Backward in SDPA flash is 1 kernels of its own: `flash_bwd_kernel`."]
    (line,) = said(training.train_memory, run)
    assert "SDPA flash 64" in line and "math" not in line
