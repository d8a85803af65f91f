"""report/render/findings/ncu_findings.py: the tensor pipe beside occupancy, from ncu."""
import pytest
from factory import findings_of, found, nothing_measured, site_run

from report.render.findings import FINDINGS, ncu_findings


@pytest.mark.parametrize("name", findings_of(ncu_findings))
def test_each_finding_speaks_on_the_site_run_and_is_silent_without_its_data(name):
    assert found(FINDINGS[name], site_run()) is not None
    assert found(FINDINGS[name], nothing_measured()) is None


def test_each_fused_backend_shows_its_busiest_kernel_s_tensor_pipe_beside_its_occupancy():
    run = site_run()
    kernels = run["ncu"]["rows"]["cudnn"]["kernels"]
    busiest = max(kernels.values(), key=lambda k: k["tensor_hmma_pct"])
    rows = {r.name: r for r in found(ncu_findings.occ_tensor, run)}
    assert set(rows) == {"flash", "efficient", "cudnn"}
    assert (rows["cudnn"].tensor, rows["cudnn"].achieved) == (busiest["tensor_hmma_pct"], busiest["achieved_pct"])
    del run["roof"]
    assert all(r.roof_share is None for r in found(ncu_findings.occ_tensor, run))


def test_math_s_matmuls_run_on_the_fp32_cores_where_their_tensor_pipe_is_idle():
    run = site_run()
    m = found(ncu_findings.math_pipe, run)
    assert m.fp32_cores and m.tensor < ncu_findings.IDLE_PIPE and m.kernels >= 1
    spent = run["variants"]["math"]["attribution"]["matmul_fp32"]["us_per_forward"]
    assert m.tflops == pytest.approx(4 * 8 * 16 * 1024**2 * 64 / spent / 1e6)  # the square arithmetic at the seed shape
    for k in run["ncu"]["rows"]["math"]["kernels"].values():
        k["tensor_hmma_pct"] = k["tensor_pct"] = 40.0
    assert not found(ncu_findings.math_pipe, run).fp32_cores


def test_a_run_with_the_whole_tensor_pipe_shows_that_figure_and_which_kernels_ran_wgmma():
    run = site_run()
    assert {r.counter for r in found(ncu_findings.occ_tensor, run)} == {"tensor_pct"}  # the committed run read the whole pipe
    run["ncu"]["metrics"]["tensor_pct"] = "sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_active"
    for row in run["ncu"]["rows"].values():
        for kernel_name, k in row.get("kernels", {}).items():
            k["tensor_pct"] = k["tensor_hmma_pct"] + 1.0
            k["gmma_inst"] = 1000.0 if "wgmma" in kernel_name else 0.0
    rows = {r.name: r for r in found(ncu_findings.occ_tensor, run)}
    assert {r.counter for r in rows.values()} == {"tensor_pct"}
    busiest = max(run["ncu"]["rows"]["flash"]["kernels"].values(), key=lambda k: k["tensor_pct"])
    assert rows["flash"].tensor == busiest["tensor_pct"] and rows["flash"].wgmma is False
    assert rows["cudnn"].wgmma is True and found(ncu_findings.math_pipe, run).tensor >= 1.0


def test_more_of_the_roof_per_busy_cycle_is_said_only_where_every_wgmma_kernel_beats_every_other():
    run = site_run()
    fact = found(ncu_findings.occ_tensor_per_cycle, run)
    rows = {r.name: r for r in found(ncu_findings.occ_tensor, run)}
    assert set(fact.wgmma) == {n for n, r in rows.items() if r.wgmma}
    assert min(rows[n].roof_share / rows[n].tensor for n in fact.wgmma) > max(
        rows[n].roof_share / rows[n].tensor for n in fact.others)
    for row in run["ncu"]["rows"].values():  # no kernel ran wgmma: nothing to compare
        for k in row.get("kernels", {}).values():
            k["gmma_inst"] = 0.0
    assert found(ncu_findings.occ_tensor_per_cycle, run) is None
    del run["roof"]
    assert found(ncu_findings.occ_tensor_per_cycle, run) is None
