"""report/render/findings/first_call_findings.py: a fused backend's first call, taken apart."""
import pytest
from factory import findings_of, first_calls, first_calls_row, h200, nothing_measured, refused, results, said

from report.render.findings import FINDINGS, first_call_findings


@pytest.mark.parametrize("name", findings_of(first_call_findings))
def test_each_finding_speaks_on_the_h200_run_and_is_silent_without_its_data(name):
    assert said(FINDINGS[name], h200())
    assert said(FINDINGS[name], nothing_measured()) == []


def test_a_new_shape_pays_again_only_when_its_first_call_is_ten_times_its_second():
    run = results(first_calls=first_calls({
        "cudnn": first_calls_row(900.0, new_shape_ms=400.0, new_again_ms=0.1),
        "flash": first_calls_row(50.0, new_shape_ms=0.5, new_again_ms=0.1),
        "efficient": refused()}))
    cudnn, flash = said(first_call_findings.first_calls, run)
    assert cudnn.startswith("SDPA cuDNN: the first call in the process took 900.000 ms") and "pays again" in cudnn
    assert "sequence length 2,048" in cudnn
    assert flash.startswith("SDPA flash") and "costs little extra" in flash
