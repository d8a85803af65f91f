"""report/trace: trace parsing and occupancy, on traces recorded on an NVIDIA H200.

The traces under tests/fixtures/h200/ were recorded by build_tables.py and cut down by
tests/fixtures/make_fixtures.py; the facts asserted here are facts of those traces.
"""
import math

import pytest
from factory import FIXTURES
from occupancy import GpuLimits, blocks_per_sm, occupancy, smem_alloc_unit

from report.doctor.explain import load_trace
from report.trace.analyze import analyze_trace
from report.trace.kernel_occupancy import add_occupancy
from report.trace.names import backend_of_kernels, short_kernel_name
from report.variants import VARIANTS

FUSED_BACKEND_OPS = {"flash": "aten::_flash_attention_forward",
                     "efficient": "aten::_efficient_attention_forward",
                     "cudnn": "aten::_cudnn_attention_forward"}


def raw_fixture(variant):
    return load_trace(FIXTURES / f"{variant}.json.gz")


def fixture(variant):
    return analyze_trace(raw_fixture(variant), f"{variant}_fwd")


@pytest.fixture(scope="module")
def parsed():
    return {v: fixture(v) for v in VARIANTS}


def kinds(analysis):
    out = {}
    for k in analysis["kernels"]:
        out[k["kind"]] = out.get(k["kind"], 0) + k["per_forward"]
    return out


# --- trace parsing -------------------------------------------------------------------

def test_every_fixture_has_whole_forward_passes(parsed):
    for variant, a in parsed.items():
        assert a["steps"] == 4, variant
        assert a["cuda_time_us"]["n"] == 4 and a["cpu_time_us"]["n"] == 4
        # every step launched the same number of GPU activities
        assert a["gpu_activities_per_forward"]["min"] == a["gpu_activities_per_forward"]["max"]
        # the GPU-side range spans its kernels, so it can't be shorter than their sum
        assert a["cuda_time_us"]["min"] >= a["kernel_sum_us"]["min"] - 0.01, variant


def test_out_of_place_masked_fill_adds_exactly_one_memcpy(parsed):
    naive, inplace = kinds(parsed["naive"]), kinds(parsed["naive_inplace"])
    assert naive.get("memcpy") == 1 and "memcpy" not in inplace
    assert naive["kernel"] == inplace["kernel"]
    memcpy = next(k for k in parsed["naive"]["kernels"] if k["kind"] == "memcpy")
    assert memcpy["aten_op"] == "aten::copy_" and "DtoD" in memcpy["name"]
    assert parsed["naive"]["cpu_ops_per_forward"]["aten::masked_fill"] == 1
    assert "aten::masked_fill" not in parsed["naive_inplace"]["cpu_ops_per_forward"]


def test_math_backend_upcasts_rebuilds_the_mask_and_uses_safe_softmax(parsed):
    math_ = parsed["math"]
    assert math_["gpu_activities_per_forward"]["median"] == 20
    ops = math_["cpu_ops_per_forward"]
    for op in ("aten::_safe_softmax", "aten::tril", "aten::ones", "aten::where"):
        assert ops.get(op, 0) >= 1, op
    gemms = [k for k in math_["kernels"] if "gemm" in k["name"]]
    assert len(gemms) == 2 and all("f32f32" in k["name"] for k in gemms)
    assert any(k["aten_op"] == "aten::tril" for k in math_["kernels"])
    # the hand-written version keeps bf16 matmuls (no fp32 gemm)
    assert not any("f32f32" in k["name"] for k in parsed["naive"]["kernels"])


def test_each_fused_backend_is_one_kernel(parsed):
    for variant, op in FUSED_BACKEND_OPS.items():
        compute = [k for k in parsed[variant]["kernels"] if k["kind"] == "kernel"]
        assert len(compute) == 1 and compute[0]["per_forward"] == 1, variant
        assert compute[0]["aten_op"] == op
        assert backend_of_kernels([k["name"] for k in compute]) == variant


def test_backend_detection_reads_kernel_names(parsed):
    assert backend_of_kernels([k["name"] for k in parsed["math"]["kernels"]]) == "math"
    # on this H200 SDPA picked cuDNN by itself
    assert backend_of_kernels([k["name"] for k in parsed["auto"]["kernels"]]) == "cudnn"


def test_cudnn_kernel_is_launched_through_the_driver_api(parsed):
    kernel = next(k for k in parsed["cudnn"]["kernels"] if k["kind"] == "kernel")
    assert kernel["launched_by"] == "cuLaunchKernelEx"
    # ...and CUPTI still recorded its launch resources
    assert kernel["registers_per_thread"] > 0 and kernel["shared_memory"] > 48 * 1024


def test_cuda_time_without_gpu_ranges_falls_back_to_kernel_span():
    trace = raw_fixture("flash")
    full = analyze_trace(trace, "flash_fwd")
    trace["traceEvents"] = [e for e in trace["traceEvents"] if e.get("cat") != "gpu_user_annotation"]
    bare = analyze_trace(trace, "flash_fwd")
    assert bare["cuda_time_us"]["median"] == pytest.approx(full["kernel_sum_us"]["median"], abs=0.01)


def test_missing_range_is_a_clear_error():
    trace = raw_fixture("flash")
    with pytest.raises(ValueError, match="no record_function range named 'nope'"):
        analyze_trace(trace, "nope")


def test_short_kernel_names():
    assert short_kernel_name(
        "void at::native::(anonymous namespace)::cunn_SoftMaxForward<4, float>(float*, int)"
    ) == "at::native::cunn_SoftMaxForward"
    assert short_kernel_name("Memcpy DtoD (Device -> Device)") == "Memcpy DtoD"
    assert short_kernel_name("nvjet_sm90_tst_64x8") == "nvjet_sm90_tst_64x8"


# --- occupancy -----------------------------------------------------------------------

def kineto_round(x):
    return math.floor(x + 0.5)


def test_occupancy_reproduces_kineto_for_every_fixture_kernel(parsed):
    checked = 0
    for variant, a in parsed.items():
        limits = GpuLimits.from_trace(a["device_properties"])
        for k in add_occupancy(a["kernels"], limits):
            if k["kind"] == "kernel":
                assert k["kineto_occupancy_pct"] is not None
                assert kineto_round(k["our_kineto_rule_pct"]) == k["kineto_occupancy_pct"], \
                    (variant, k["short_name"])
                checked += 1
    assert checked >= 20


def test_h200_flash_and_cudnn_readings(parsed):
    limits = GpuLimits.from_trace(parsed["flash"]["device_properties"])
    flash = add_occupancy(parsed["flash"]["kernels"], limits)[0]
    assert (flash["registers_per_thread"], math.prod(flash["block"])) == (255, 128)
    assert flash["our_optin_blocks"] == 2 and flash["our_optin_pct"] == 12.5
    assert flash["kineto_occupancy_pct"] == 13
    cudnn = next(k for k in add_occupancy(parsed["cudnn"]["kernels"], limits) if k["kind"] == "kernel")
    # Kineto's 0 % comes from its default 48 KiB shared-memory limit per block ...
    assert cudnn["kineto_occupancy_pct"] == 0 and cudnn["our_kineto_rule_pct"] == 0
    # ... while the kernel, which opted in to more, really holds one block per SM
    assert cudnn["our_optin_blocks"] == 1 and cudnn["our_optin_pct"] > 0


A100 = GpuLimits(name="A100", compute_capability=(8, 0), sm_count=108, max_threads_per_sm=2048,
                 regs_per_sm=65536, regs_per_block=65536, smem_per_sm=167936,
                 smem_per_block=49152, smem_per_block_optin=166912)


def test_a100_arithmetic_of_the_original_study():
    # flash: 128 threads x 255 registers -> 2 blocks -> 8 of 64 warps
    pct, blocks, why = occupancy(A100, 255, 128, 0)
    assert (blocks, pct, why) == (2, 12.5, ["registers"])
    # cuDNN: 256 threads x 240 registers = 61 440 registers -> 1 block -> 8 warps
    pct, blocks, why = occupancy(A100, 240, 256, 0)
    assert (blocks, pct, why) == (1, 12.5, ["registers"])


def test_register_allocation_granularity_and_other_limits():
    # 33 registers round up to 40 per thread (1280 per warp): 12 warps per scheduler
    assert blocks_per_sm(A100, 33, 32, 0)[0] == 32  # capped by the 32-block limit
    assert blocks_per_sm(A100, 33, 1024, 0) == (1, ["registers"])
    assert blocks_per_sm(A100, 16, 1024, 0) == (2, ["warps"])
    # too many registers for one block: it can't launch
    assert blocks_per_sm(A100, 255, 1024, 0)[0] == 0
    # shared memory: over the default 48 KiB only with opt-in
    assert blocks_per_sm(A100, 32, 128, 60 * 1024, opted_in=False)[0] == 0
    assert blocks_per_sm(A100, 32, 128, 60 * 1024, opted_in=True) == (2, ["shared memory"])
    # a small grid caps the estimate the way Kineto does
    pct, blocks, why = occupancy(A100, 32, 128, 0, grid_blocks=54)
    assert (blocks, why, pct) == (0.5, ["grid"], 0.5 * 128 / 2048 * 100)


def test_kernel_span_covers_kernels_the_gpu_range_misses():
    trace = raw_fixture("naive")
    # hide the GPU-side range of the first step: kernel_span must not need it
    span = analyze_trace(trace, "naive_fwd", cuda_time="kernel_span")
    ranged = analyze_trace(trace, "naive_fwd")
    assert span["cuda_time_us"]["n"] == 4
    assert span["cuda_time_us"]["min"] >= span["kernel_sum_us"]["min"] - 0.01
    assert span["cuda_time_us"]["median"] <= ranged["cuda_time_us"]["median"] + 0.01


# --- attribution per cause -----------------------------------------------------------

@pytest.mark.parametrize("variant", VARIANTS)
def test_causes_add_up_to_the_kernel_time(parsed, variant):
    a = parsed[variant]
    total = sum(c["us_per_forward"] for c in a["attribution"].values())
    assert total == pytest.approx(a["kernel_sum_us"]["median"], rel=0.01)
    assert sum(c["activities_per_forward"] for c in a["attribution"].values()) == \
        a["gpu_activities_per_forward"]["median"]
    assert "other" not in a["attribution"], a["attribution"]


def test_math_time_by_cause(parsed):
    causes = parsed["math"]["attribution"]
    # the upcast: FP32 matmuls and the conversions around them; no bf16 matmul at all
    assert causes["matmul_fp32"]["activities_per_forward"] == 2 and "matmul" not in causes
    assert causes["dtype_conversion"]["activities_per_forward"] == 5
    # _safe_softmax's guard is 4 activities; the mask's own fill_/where are counted apart
    assert causes["safe_softmax_extras"]["activities_per_forward"] == 4
    assert causes["mask_construction"]["activities_per_forward"] == 5
    naive = parsed["naive"]["attribution"]
    assert naive["copy"]["activities_per_forward"] == 1 and "copy" not in parsed["naive_inplace"]["attribution"]


def test_one_kernel_name_under_two_ops_is_two_rows(parsed):
    # the same elementwise kernel builds the mask (4 µs) and guards softmax (400 µs)
    where = [k for k in parsed["math"]["kernels"] if k["aten_op"] == "aten::where"]
    assert {k["cause"] for k in where} == {"mask_construction", "safe_softmax_extras"}
    assert len({k["name"] for k in where}) == 1


def test_fused_backends_are_one_cause(parsed):
    for variant in ("flash", "efficient", "cudnn", "auto"):
        assert set(parsed[variant]["attribution"]) == {"fused_attention"}, variant


# --- Nsight Compute's occupancy, read back (recorded on the H200) -----------------------

def test_ncu_output_is_parsed_per_kernel():
    from report.measure.ncu import parse

    text = (FIXTURES.parent / "ncu" / "flash-cudnn-occupancy.csv").read_text()
    kernels = parse(text)
    flash = next(m for name, m in kernels.items() if "flash_fwd_kernel" in name)
    cudnn = next(m for name, m in kernels.items() if "cudnn_generated" in name)
    assert flash["theoretical_pct"] == 12.5 and flash["limit_registers"] == 2
    assert 0 < flash["achieved_pct"] <= flash["theoretical_pct"]
    assert cudnn["theoretical_pct"] == 18.75 and cudnn["limit_shared_memory"] == 1
    assert parse("==PROF== nothing profiled\n") == {}


def test_our_calculator_gives_ncu_theoretical_occupancy(parsed):
    """ncu's theoretical occupancy for the flash and cuDNN kernels of the H200 run equals
    what our calculator gives with each kernel's opt-in shared memory."""
    from report.measure.ncu import parse

    # ncu and Kineto spell template arguments differently (0 and false): match on the short name
    kernels = {short_kernel_name(name): m for name, m in
               parse((FIXTURES.parent / "ncu" / "flash-cudnn-occupancy.csv").read_text()).items()}
    for variant in ("flash", "cudnn"):
        limits = GpuLimits.from_trace(parsed[variant]["device_properties"])
        ours = next(k for k in add_occupancy(parsed[variant]["kernels"], limits) if k["kind"] == "kernel")
        assert kernels[ours["short_name"]]["theoretical_pct"] == pytest.approx(ours["our_optin_pct"], abs=0.01), variant


# --- the calculator's constants, as CUDA 13.0's cuda_occupancy.h has them --------------------

def _gpu(cc, smem_per_sm=102400):
    return GpuLimits(name="made up", compute_capability=cc, sm_count=10, max_threads_per_sm=2048,
                     regs_per_sm=65536, regs_per_block=65536, smem_per_sm=smem_per_sm,
                     smem_per_block=49152, smem_per_block_optin=smem_per_sm - 1024)


@pytest.mark.parametrize("cc, blocks", [((12, 0), 24), ((10, 1), 24), ((8, 9), 24), ((9, 0), 32), ((10, 0), 32)])
def test_blocks_per_sm_follow_cuda_occupancy_h(cc, blocks):
    """cudaOccMaxBlocksPerMultiprocessor: a tiny block is limited by the block count only."""
    assert blocks_per_sm(_gpu(cc), 16, 32, 0) == (blocks, ["blocks"])


def test_shared_memory_is_allocated_in_256_bytes_before_ampere():
    """cudaOccSMemAllocationGranularity: 256 bytes on sm7x, 128 from sm80 on. A 3,100-byte
    block takes 3,328 bytes on Volta (29 fit in 96 KiB), 3,200 in 128-byte units (30)."""
    assert blocks_per_sm(_gpu((7, 0), 98304), 16, 32, 3100)[0] == 29
    assert smem_alloc_unit((8, 0)) == smem_alloc_unit((12, 0)) == 128
