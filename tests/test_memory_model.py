"""report/render/memory_model.py: the model a page teaches before its measurement, worked out
from the run's shape and the ceilings measured in the same run, on any GPU."""
import copy

import pytest
from factory import site_run

from report.render.memory_model import (
    ONE_PASS_SLACK,
    binding,
    ceilings,
    ceilings_check,
    fused_check,
    fused_floor,
    hand_written_check,
    mask_bytes,
    model,
    model_text,
    sizes,
)
from report.text.catalog import t
from report.text.format import fmt_sig, fmt_us, fmt_us_sig

MISSING = t("finding.missing", "en")  # the line a file without its data says

RUN = site_run()


def test_sizes_count_the_seed_shape():
    z = sizes({"batch": 8, "heads": 16, "seq_len": 1024, "head_dim": 64, "dtype": "bfloat16"})
    assert z["x"] == 8 * 16 * 1024 * 64 and z["x_bytes"] == 16 * 2**20
    assert z["s"] == 8 * 16 * 1024 * 1024 and z["s_bytes"] == 256 * 2**20
    assert z["pass_bytes"] == 512 * 2**20 and z["fused_bytes"] == 64 * 2**20
    assert z["flops_square"] == 4 * 8 * 16 * 1024**2 * 64
    assert z["flops_causal"] == 4 * 8 * 16 * 64 * 1024 * 1025 // 2
    assert z["exps_causal"] == 8 * 16 * 1024 * 1025 // 2  # ≈ 67 M: one per score the causal mask keeps
    assert sizes({"batch": 1, "heads": 1, "seq_len": 2, "head_dim": 2, "dtype": "float32"})["s_bytes"] == 16


def test_the_model_uses_the_ceilings_measured_in_the_run():
    bandwidth, roof = ceilings(RUN)
    assert bandwidth == pytest.approx(RUN["shapes"]["copy_roof"]["gb_per_s"] * 1e3)
    assert roof == pytest.approx(RUN["roof"]["tflops"] * 1e6)
    m = model(RUN)
    assert m.pass_us == pytest.approx(sizes(RUN["config"])["pass_bytes"] / bandwidth)
    assert m.square_us == pytest.approx(sizes(RUN["config"])["flops_square"] / roof)
    assert m.pass_us > m.square_us  # bound by memory: one pass (129 µs) costs more than the square (45 µs)
    for lang in ("nb", "en"):
        assert model_text(RUN, lang).count("\n\n") == 2  # three paragraphs: sizes, bytes, arithmetic


def test_the_verdict_follows_the_ceilings_not_the_gpu():
    fast_memory = copy.deepcopy(RUN)
    fast_memory["shapes"]["copy_roof"]["gb_per_s"] *= 10  # a pass now costs less than the arithmetic
    fast = model(fast_memory)
    assert fast.pass_us < fast.square_us  # the arithmetic is the larger floor now
    no_copy = copy.deepcopy(RUN)
    del no_copy["shapes"]
    m = model(no_copy)
    assert m.copy is None and m.pass_us is None and m.fused_us is None
    assert "TB/s" not in model_text(no_copy, "nb")  # no bandwidth is given where none was measured
    assert hand_written_check(no_copy, "en") == MISSING
    assert fused_check(no_copy, "en", ["flash"]) == MISSING


def test_the_hand_written_steps_are_read_in_passes_over_the_score_matrix():
    bandwidth, _ = ceilings(RUN)
    one_pass = sizes(RUN["config"])["pass_bytes"] / bandwidth
    text = hand_written_check(RUN, "en")
    scaling = RUN["variants"]["naive"]["attribution"]["scaling"]["us_per_forward"]
    assert f"| scaling | 1 | {fmt_us(scaling, 'en')} | {fmt_sig(scaling / one_pass, 'en')} |" in text
    assert "(scaling, copy of the score matrix, applying the mask, softmax)" in text
    refused = copy.deepcopy(RUN)
    refused["variants"]["naive"] = {"status": "oom", "reason": "out of memory"}
    assert hand_written_check(refused, "en") == MISSING


def test_fused_backends_against_their_floors():
    text = fused_check(RUN, "en", ["flash", "cudnn", "no_such_backend"])
    assert "| SDPA flash |" in text and "| SDPA cuDNN |" in text and "no_such" not in text
    f = fused_floor(RUN)
    assert (f.flops_us > f.bytes_us) == (f.intensity > f.ridge)  # the arithmetic's floor is higher above the ridge
    assert f.exp_us == pytest.approx(f.exps / (RUN["exp_roof"]["exps_per_s"] / 1e6))
    floors = {"bytes": f.bytes_us, "flops": f.flops_us, "exps": f.exp_us}
    assert [f.binds, f.runner_up] == sorted(floors, key=floors.get, reverse=True)[:2]
    # the site's run's two highest floors lie within 5 % of each other (by_points' margin):
    # a tie, not "the <first> binds"
    assert abs(f.tie.ratio - 1) <= 0.05 and f.tie.order is None
    timed = {"bytes": RUN["shapes"]["copy_roof"], "flops": RUN["roof"], "exps": RUN["exp_roof"]}
    spreads = [(c["max_ms"] - c["min_ms"]) / c["median_ms"] for c in (timed[f.binds], timed[f.runner_up])
               if "min_ms" in c and "max_ms" in c]  # a ceiling timed without min and max has no spread
    assert f.tie.noise == pytest.approx(max([*spreads, abs(f.tie.ratio - 1), 0.05]))  # by_points' margin: at least 5 %
    slow_exp = copy.deepcopy(RUN)
    slow_exp["exp_roof"]["exps_per_s"] /= 10
    assert fused_floor(slow_exp).binds == "exps" and fused_floor(slow_exp).tie.order is not None
    assert [n for n, _ in fused_floor(slow_exp).contenders] == ["exps"]  # the one floor that binds
    # every floor the rule does not order below the largest is a contender, the largest first
    assert f.contenders[0] == (f.binds, floors[f.binds]) and (f.runner_up, floors[f.runner_up]) in f.contenders
    slow_copy = copy.deepcopy(RUN)
    slow_copy["shapes"]["copy_roof"]["gb_per_s"] /= 1.5
    g = fused_floor(slow_copy)
    assert g.binds == "bytes" and g.contenders == (("bytes", g.bytes_us),) and g.tie.order is not None
    text = fused_check(RUN, "en", ["flash"])
    assert "\n\n| Ceiling |" in text  # the table of ceilings starts a block of its own, not inside the paragraph
    fast_matmul = copy.deepcopy(RUN)
    fast_matmul["roof"]["tflops"] *= 10
    del fast_matmul["exp_roof"]
    f = fused_floor(fast_matmul)
    assert f.binds == "bytes" and f.exp_us is None
    columns = [fused_check(run, "en", ["flash"]).split("\n")[0].count("|") for run in (RUN, fast_matmul)]
    assert columns[0] == columns[1] + 1  # the exponentials' column only where the run measured the ceiling


def test_the_mask_s_dram_bytes_say_inefficiency_or_extra_work():
    bandwidth, _ = ceilings(RUN)
    one_pass = sizes(RUN["config"])["pass_bytes"] / bandwidth
    m = mask_bytes(RUN, one_pass)
    assert m.byte_passes < 1 + ONE_PASS_SLACK < m.time_passes and not m.extra_work  # one pass of bytes, slowly
    more = copy.deepcopy(RUN)
    kernel = next(k for name, k in more["ncu"]["rows"]["naive"]["kernels"].items() if "masked_fill" in name)
    kernel["dram_read_bytes"] *= 3
    assert mask_bytes(more, one_pass).extra_work
    del more["ncu"]
    assert mask_bytes(more, one_pass) is None


def with_fp32_roof(run, tflops):
    """The run as a newer one records it: results["fp32_roof"], the shape of results["roof"]."""
    run = copy.deepcopy(run)
    run["fp32_roof"] = {"shape": [8192, 8192, 8192], "dtype": "float32", "tflops": tflops,
                        "median_ms": 2 * 8192**3 / (tflops * 1e12) * 1e3}
    return run


def test_the_hand_written_version_is_bound_by_its_memory_passes_not_its_matmuls():
    b = binding(RUN, "naive")
    z = sizes(RUN["config"])
    bandwidth, roof = ceilings(RUN)
    assert b.matmul == "roof" and b.matmul_us == pytest.approx(z["flops_square"] / roof)  # bf16, tensor cores
    kernels = RUN["ncu"]["rows"]["naive"]["kernels"].values()
    assert b.dram_bytes == sum(k["dram_read_bytes"] + k["dram_write_bytes"] for k in kernels)
    assert b.bytes_us == pytest.approx(b.dram_bytes / bandwidth)
    assert b.exp_us == pytest.approx(z["exps_square"] / (RUN["exp_roof"]["exps_per_s"] / 1e6))
    # every kernel moves more than it computes, so the sum of the kernels' floors is their bytes
    assert b.floor.matmul_binds == "bytes" and b.floor.matmul_bytes_us > 3 * b.matmul_us
    assert not b.floor.exps_bind and b.floor.total_us == pytest.approx(b.bytes_us)
    # ncu counts kernels, not the Memcpy of masked_fill's copy nor the matmul's Memset
    assert b.lower_bound and b.counted == len(kernels) < b.activities
    assert b.over == pytest.approx(b.kernel_us / b.floor.total_us) and b.over > 1
    # no ncu row (the in-place version is not profiled by ncu): bytes and the floor unmeasured
    inplace = binding(RUN, "naive_inplace")
    assert inplace.dram_bytes is None and inplace.floor is None and inplace.matmul_us == b.matmul_us


def test_math_waits_for_its_fp32_roof():
    """A run without an FP32 matmul roof: math's matmul floor and binding are "not measured";
    a run with one gives the floor at it and the larger floor binds."""
    without = copy.deepcopy(RUN)
    without.pop("fp32_roof", None)  # a run from before the roof was measured
    b = binding(without, "math")
    assert b.matmul == "fp32_roof" and b.matmul_us is None and b.matmul_tflops is None and b.floor is None
    assert b.dram_bytes and b.lower_bound  # ncu keeps one launch per kernel name: 13 of 20
    for lang in ("nb", "en"):
        fp32_row = next(r for r in ceilings_check(without, lang).splitlines() if t("word.ceiling_fp32", lang) in r)
        assert fp32_row.count(t("finding.missing", lang)) == 2  # the rate, and math's floor
    z = sizes(RUN["config"])
    measured = with_fp32_roof(RUN, 51.0)
    b = binding(measured, "math")
    assert b.matmul_tflops == 51.0 and b.matmul_us == pytest.approx(z["flops_square"] / 51e6)
    # math's kernels run one after another: the call's floor is the sum of the matmuls'
    # arithmetic (more than their bytes) and the other kernels' bytes, not the largest floor
    gemms = [k for name, k in RUN["ncu"]["rows"]["math"]["kernels"].items() if "gemm" in name]
    gemm_bytes = sum(k["dram_read_bytes"] + k["dram_write_bytes"] for k in gemms)
    bandwidth, _ = ceilings(RUN)
    assert b.floor.matmul_binds == "flops" and b.floor.matmul_bytes == gemm_bytes
    assert b.floor.total_us == pytest.approx(b.matmul_us + (b.dram_bytes - gemm_bytes) / bandwidth)
    assert b.floor.total_us > max(b.matmul_us, b.bytes_us)
    assert b.floor.rest_kernels == len(RUN["ncu"]["rows"]["math"]["kernels"]) - 2
    assert binding(measured, "naive").matmul_us == binding(RUN, "naive").matmul_us  # bf16 keeps its roof
    slow = binding(with_fp32_roof(RUN, 5.0), "math")  # an FP32 roof a tenth as fast: the matmuls bind
    assert slow.floor.matmul_binds == "flops" and slow.floor.matmul_share > 50
    for lang in ("nb", "en"):
        fp32_row = next(r for r in ceilings_check(measured, lang).splitlines() if t("word.ceiling_fp32", lang) in r)
        assert t("finding.missing", lang) not in fp32_row and fmt_us_sig(b.matmul_us, lang) in fp32_row
    broken = copy.deepcopy(RUN)
    broken["fp32_roof"] = {"status": "error"}  # no rate: as if not measured
    assert binding(broken, "math").matmul_us is None


def test_a_softmax_slower_at_its_exponentials_than_at_its_bytes_counts_its_exponentials():
    from report.render.call_floor import call_floor
    row = RUN["variants"]["math"]
    kernels = RUN["ncu"]["rows"]["math"]["kernels"]
    bandwidth, _ = ceilings(RUN)
    fast, slow = (call_floor(row, kernels, 100.0, exp_us, bandwidth) for exp_us in (1.0, 10_000.0))
    softmax = next(k for name, k in kernels.items() if "softmax" in name)
    assert not fast.exps_bind and slow.exps_bind
    assert slow.rest_us - fast.rest_us == pytest.approx(
        10_000.0 - (softmax["dram_read_bytes"] + softmax["dram_write_bytes"]) / bandwidth)
    assert call_floor(row, kernels, None, 1.0, bandwidth) is None  # no matmul floor, no sum


def test_the_ceilings_table_needs_the_bandwidth_and_a_run_variant():
    no_ncu = copy.deepcopy(RUN)
    del no_ncu["ncu"]
    assert all(binding(no_ncu, n).floor is None for n in ("naive", "naive_inplace", "math"))
    no_copy = copy.deepcopy(RUN)
    del no_copy["shapes"]
    assert ceilings_check(no_copy, "en") == MISSING
    refused = copy.deepcopy(RUN)
    for n in ("naive", "naive_inplace", "math"):
        refused["variants"][n] = {"status": "oom", "reason": "out of memory"}
    assert ceilings_check(refused, "nb") == t("finding.missing", "nb")
    one = copy.deepcopy(RUN)
    one["variants"]["math"] = {"status": "oom", "reason": "out of memory"}
    assert ceilings_check(one, "en").splitlines()[0].count("|") == 5  # ceiling, rate, the two that ran
