"""report/render/kernel_names.py: a kernel's name read off the name itself, for any GPU."""
import html
import re

import pytest
from factory import site_run

from report.render.kernel_names import brief, brief_names, decode, describe, kernel_cell, kernel_names
from report.text.catalog import t

MISSING = t("finding.missing", "en")  # the line a file without its data says

RUN = site_run()

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
    return {k["name"]: k for row in RUN["variants"].values() if row["status"] == "ok" for k in row["kernels"]
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
    text = kernel_names(RUN, "en", ["cudnn", "auto"])
    assert text.count("cudnn_generated") == 1 and "Run by: SDPA cuDNN, SDPA auto (unpinned)." in text
    assert kernel_names(RUN, "en", ["no_such_variant"]) == MISSING


# --- the short name a table shows for a long generated name -------------------------------

def test_a_long_generated_name_gets_a_short_name_decoded_from_it():
    cudnn = "cudnn_generated_fort_native_sdpa_sm90_flash_fprop_wgmma_f16_knob_7_64x128x64_4x1x1_cga1x1x1_kernel0_0"
    assert brief(cudnn) == "cuDNN sdpa fprop sm90 wgmma 64x128x64"
    gemm = ("sm90_xmma_gemm_f32f32_tf32f32_f32_nn_n_tilesize64x128x32_warpgroupsize1x1x1_"
            "execute_segment_k_off_kernel__5x_cublas")
    assert brief(gemm) == "cuBLAS xmma gemm sm90 tf32 nn 64x128x32"
    assert brief("fmha_cutlassB_bf16_aligned_64x64_k64_seqaligned_sm80") == "CUTLASS FMHA bwd sm80 64x64"
    # short enough, or readable as it is: shown in full
    assert brief("fmha_cutlassF_bf16_aligned_64x64_rf_sm80") is None
    assert brief("pytorch_flash::flash_bwd_dq_dk_dv_loop_seqk_parallel_kernel") is None


def test_every_committed_short_name_is_shorter_and_tells_its_table_apart():
    names = {k["short_name"] for row in RUN["variants"].values() if row["status"] == "ok"
             for k in row.get("kernels", [])}
    briefs = brief_names(names)
    shown = [b for b in briefs.values() if b]
    assert shown and len(shown) == len(set(shown))
    assert all(len(b) <= 48 for b in shown)
    # two names that would read the same are both shown in full
    twins = ["sm80_xmma_gemm_f32f32_f32f32_f32_tn_n_tilesize64x64x8_stage3_warpsize1x4x1_ffma_aligna4_" + tail
             for tail in ("alignc4_execute_kernel__5x_cublas", "alignc2_execute_kernel__5x_cublas")]
    assert brief_names(twins) == dict.fromkeys(twins)


def test_the_cell_opens_on_the_full_name_and_carries_it_as_a_tooltip():
    name = "cudnn_generated_fort_native_sdpa_sm90_flash_fprop_wgmma_f16_knob_7_64x128x64_4x1x1_cga1x1x1_kernel0_0"
    cell = kernel_cell(name, "nb", brief_names([name]))
    title = "Fullt navn&#58; " + name.replace("_", "&#95;")
    assert cell == (f'<details class="sdpa-kernel"><summary title="{title}">'
                    f"cuDNN sdpa fprop sm90 wgmma 64x128x64</summary>`{name}`</details>")
    assert html.unescape(title) == f"Fullt navn: {name}"
    assert kernel_cell("softmax_warp_forward", "en", {}) == "`softmax_warp_forward`"
    assert kernel_cell("Memset", "en", {}, bold=True) == "**`Memset`**"
    # a name from a stranger's results is text in the attribute, never markup, for HTML or Markdown
    odd = "x" * 50 + '_sm90_gemm_tn_"><script>[a](javascript:alert(1))*b*_64x64'
    summary = kernel_cell(odd, "en", brief_names([odd])).split("</summary>")[0]
    assert re.fullmatch(r'<details class="sdpa-kernel"><summary title="[A-Za-z0-9 &#;]+">[^<>]+', summary), summary


@pytest.mark.parametrize("name", ["math_gemms", "compiled", "flex", "train_kernels"])
def test_a_list_of_a_variant_s_kernels_keeps_its_order_when_their_times_swap(name):
    """results.json keeps kernels by total time, which two kernels of about the same time
    swap between runs; the findings that list kernel names (no ranking in them) list them
    in name order, so the words stay the same (issue 29, item 5)."""
    from factory import found

    from report.render.findings import FINDINGS
    from report.render.kernel_names import in_name_order

    run = site_run()
    flipped = site_run()
    for source in (flipped["variants"], (flipped.get("backward") or {}).get("rows") or {}):
        for row in source.values():
            if isinstance(row, dict) and row.get("kernels"):
                row["kernels"] = row["kernels"][::-1]
    assert found(FINDINGS[name], run) is not None and found(FINDINGS[name], flipped) == found(FINDINGS[name], run)
    rows = [{"short_name": "b", "name": "b"}, {"short_name": "Memset", "name": "Memset"}, {"short_name": "a", "name": "a"}]
    assert [k["short_name"] for k in in_name_order(rows)] == ["a", "b", "Memset"]
