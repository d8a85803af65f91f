"""report/render/kernel_names.py: a kernel's name read off the name itself, for any GPU."""
import pytest

from report.paths import DEFAULT_OUT as GENERATED
from report.render.kernel_names import decode, describe, kernel_names
from report.results import load_results

H200 = load_results(GENERATED / "h200" / "results.json")

# names as an A100 (sm80) build of the same libraries writes them
A100_NAMES = {
    "cudnn_generated_fort_native_sdpa_sm80_flash_fprop_f16_knob_3_64x64x64_4x1x1_kernel0_0":
        {"origin": "cudnn", "arch": "sm_80", "compute_capability": "8.0", "wgmma": False, "tile": "64x64x64"},
    "fmha_cutlassF_bf16_aligned_64x64_rf_sm80": {"origin": "cutlass_fmha", "arch": "sm_80", "tile": "64x64"},
    "sm80_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x32_stage4_warpsize2x2x1_tensor16x8x16_kernel":
        {"origin": "cublas", "arch": "sm_80", "wgmma": False},
    "ampere_bf16_s16816gemm_bf16_128x128_ldg8_f2f_stages_32x5_tn": {"origin": "cublas", "arch": None},
}


def committed_kernels():
    return {k["name"]: k for row in H200["variants"].values() if row["status"] == "ok" for k in row["kernels"]
            if k["kind"] == "kernel"}


def test_the_committed_fused_kernels_decode():
    names = {decode(n)["origin"]: decode(n) for n in committed_kernels()
             if decode(n)["origin"] in ("flash", "cutlass_fmha", "cudnn")}
    assert names["flash"]["tile"] == "128x128" and names["flash"]["warps"] == 4 and names["flash"]["head_dim"] == 64
    assert names["cutlass_fmha"]["arch"] == "sm_80" and names["cutlass_fmha"]["tile"] == "64x64"
    assert names["cudnn"]["arch"] == "sm_90" and names["cudnn"]["wgmma"] and names["cudnn"]["tile"] == "64x128x64"


def test_every_committed_kernel_has_a_library_or_says_it_has_none():
    for name in committed_kernels():
        d = decode(name)
        assert d["origin"] in (None, "flash", "cutlass_fmha", "cudnn", "triton", "cublas", "aten"), name
        if d["arch"]:
            assert d["compute_capability"] in ("8.0", "9.0"), name


@pytest.mark.parametrize("name, expected", A100_NAMES.items())
def test_a100_names_decode(name, expected):
    d = decode(name)
    for key, value in expected.items():
        assert d[key] == value, (key, d)


def test_the_sentence_says_whether_the_kernel_was_built_for_the_gpu_it_ran_on():
    efficient = "fmha_cutlassF_bf16_aligned_64x64_rf_sm80"
    assert "the architecture of the GPU it ran on" in describe(efficient, "8.0", "en")
    assert "run on a GPU of compute capability 9.0" in describe(efficient, "9.0", "en")
    assert "wgmma" not in describe(efficient, "9.0", "en")
    cudnn = next(n for n in committed_kernels() if decode(n)["origin"] == "cudnn")
    assert "`wgmma` in the name" in describe(cudnn, "9.0", "en")
    assert describe(cudnn, "9.0", "nb").startswith("En kjerne fra cuDNNs bibliotek")


def test_a_kernel_two_variants_ran_is_listed_once_with_both():
    text = kernel_names(H200, "en", ["cudnn", "auto"])
    assert text.count("cudnn_generated") == 1 and "Run by: SDPA cuDNN, SDPA auto (unpinned)." in text
    assert kernel_names(H200, "en", ["no_such_variant"]) == "Not measured on this GPU."
