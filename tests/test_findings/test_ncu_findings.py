"""report/render/findings/ncu_findings.py: the tensor pipe beside occupancy, from ncu."""
import pytest
from factory import findings_of, found, h200, nothing_measured

from report.render.findings import FINDINGS, ncu_findings


@pytest.mark.parametrize("name", findings_of(ncu_findings))
def test_each_finding_speaks_on_the_h200_run_and_is_silent_without_its_data(name):
    assert found(FINDINGS[name], h200()) is not None
    assert found(FINDINGS[name], nothing_measured()) is None


def test_each_fused_backend_shows_its_busiest_kernel_s_tensor_pipe_beside_its_occupancy():
    run = h200()
    kernels = run["ncu"]["rows"]["cudnn"]["kernels"]
    busiest = max(kernels.values(), key=lambda k: k["tensor_hmma_pct"])
    rows = {r.name: r for r in found(ncu_findings.occ_tensor, run)}
    assert set(rows) == {"flash", "efficient", "cudnn"}
    assert (rows["cudnn"].tensor, rows["cudnn"].achieved) == (busiest["tensor_hmma_pct"], busiest["achieved_pct"])
    del run["roof"]
    assert all(r.roof_share is None for r in found(ncu_findings.occ_tensor, run))


def test_math_s_matmuls_run_on_the_fp32_cores_where_their_tensor_pipe_is_idle():
    run = h200()
    m = found(ncu_findings.math_pipe, run)
    assert m.fp32_cores and m.tensor < ncu_findings.IDLE_PIPE and m.kernels >= 1
    spent = run["variants"]["math"]["attribution"]["matmul_fp32"]["us_per_forward"]
    assert m.tflops == pytest.approx(4 * 8 * 16 * 1024**2 * 64 / spent / 1e6)  # the square arithmetic at the seed shape
    for k in run["ncu"]["rows"]["math"]["kernels"].values():
        k["tensor_hmma_pct"] = 40.0
    assert not found(ncu_findings.math_pipe, run).fp32_cores
