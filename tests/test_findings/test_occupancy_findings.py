"""report/render/findings/occupancy_findings.py: flash's arithmetic, every 0 % Kineto shows,
and the launch API ruled out as its cause."""
import pytest
from factory import another_gpu, findings_of, found, kernel, nothing_measured, results, row, site_run

from report.render.findings import FINDINGS, occupancy_findings


@pytest.mark.parametrize("name", findings_of(occupancy_findings))
def test_each_finding_speaks_on_the_site_run_and_is_silent_without_its_data(name):
    assert found(FINDINGS[name], site_run()) is not None
    assert found(FINDINGS[name], nothing_measured()) is None


def zero_kernel(name, smem, grid, launched_by="cudaLaunchKernel"):
    return kernel(name, 50.0, kineto_occupancy_pct=0, shared_memory=smem, grid=list(grid), launched_by=launched_by,
                  registers_per_thread=128, our_optin_pct=12.5, our_optin_blocks=1,
                  our_optin_limited_by=["shared memory"], our_kineto_rule_pct=0.0)


def test_each_zero_says_why_shared_memory_or_a_small_grid():
    run = results({"cudnn": row(50.0, kernels=[zero_kernel("big_smem", 100_000, (64, 1, 1)),
                                               zero_kernel("small_grid", 0, (2, 1, 1))])})
    run["provenance"].update(smem_per_block=49152, smem_per_block_optin=232448, sm_count=132)
    big, small = found(occupancy_findings.occ_zero_all, run)
    assert (big.kernel, big.over_smem, big.smem) == ("big_smem", True, 100_000)
    assert (small.kernel, small.over_smem, small.grid, small.sms) == ("small_grid", False, 2, 132)
    zero = found(occupancy_findings.occ_zero, run)
    assert (zero.kernel, zero.smem, zero.default, zero.pct) == ("big_smem", 100_000, 49152, 12.5)


def test_the_launch_api_is_ruled_out_only_with_one_kernel_of_each_kind():
    ex = kernel("ex_kernel", launched_by="cudaLaunchKernelExC", kineto_occupancy_pct=50, shared_memory=0)
    plain = zero_kernel("plain_kernel", 100_000, (64, 1, 1))
    api = found(occupancy_findings.occ_launch_api, results({"flash": row(10.0, kernels=[ex, plain])}))
    assert (api.ex_kernel, api.ex_api, api.plain_kernel, api.plain_api) == (
        "ex_kernel", "cudaLaunchKernelExC", "plain_kernel", "cudaLaunchKernel")
    assert found(occupancy_findings.occ_launch_api, results({"flash": row(10.0, kernels=[ex])})) is None


def test_flash_arithmetic_stays_on_another_gpu_without_cudnn():
    flash = found(occupancy_findings.occ_flash, another_gpu())
    assert flash.per_warp % 256 == 0 and flash.per_block == flash.per_warp * flash.threads // 32
