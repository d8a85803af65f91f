"""report/render/memory_model.py: the model a page teaches before its measurement, worked out
from the run's shape and the ceilings measured in the same run, on any GPU."""
import copy

import pytest

from report.paths import DEFAULT_OUT as GENERATED
from report.render.memory_model import ceilings, fused_check, hand_written_check, model, model_text, sizes
from report.results import load_results
from report.text.format import fmt_sig, fmt_us

H200 = load_results(GENERATED / "h200" / "results.json")


def test_sizes_count_the_seed_shape():
    z = sizes({"batch": 8, "heads": 16, "seq_len": 1024, "head_dim": 64, "dtype": "bfloat16"})
    assert z["x"] == 8 * 16 * 1024 * 64 and z["x_bytes"] == 16 * 2**20
    assert z["s"] == 8 * 16 * 1024 * 1024 and z["s_bytes"] == 256 * 2**20
    assert z["pass_bytes"] == 512 * 2**20 and z["fused_bytes"] == 64 * 2**20
    assert z["flops_square"] == 4 * 8 * 16 * 1024**2 * 64
    assert z["flops_causal"] == 4 * 8 * 16 * 64 * 1024 * 1025 // 2
    assert sizes({"batch": 1, "heads": 1, "seq_len": 2, "head_dim": 2, "dtype": "float32"})["s_bytes"] == 16


def test_the_model_uses_the_ceilings_measured_in_the_run():
    bandwidth, roof = ceilings(H200)
    assert bandwidth == pytest.approx(H200["shapes"]["copy_roof"]["gb_per_s"] * 1e3)
    assert roof == pytest.approx(H200["roof"]["tflops"] * 1e6)
    m = model(H200)
    assert m.pass_us == pytest.approx(sizes(H200["config"])["pass_bytes"] / bandwidth)
    assert m.square_us == pytest.approx(sizes(H200["config"])["flops_square"] / roof)
    assert m.pass_us > m.square_us  # bound by memory: one pass (129 µs) costs more than the square (45 µs)
    for lang in ("nb", "en"):
        assert model_text(H200, lang).count("\n\n") == 2  # three paragraphs: sizes, bytes, arithmetic


def test_the_verdict_follows_the_ceilings_not_the_gpu():
    fast_memory = copy.deepcopy(H200)
    fast_memory["shapes"]["copy_roof"]["gb_per_s"] *= 10  # a pass now costs less than the arithmetic
    fast = model(fast_memory)
    assert fast.pass_us < fast.square_us  # the arithmetic is the larger floor now
    no_copy = copy.deepcopy(H200)
    del no_copy["shapes"]
    m = model(no_copy)
    assert m.copy is None and m.pass_us is None and m.fused_us is None
    assert "TB/s" not in model_text(no_copy, "nb")  # no bandwidth is given where none was measured
    assert hand_written_check(no_copy, "en") == "Not measured on this GPU."
    assert fused_check(no_copy, "en", ["flash"]) == "Not measured on this GPU."


def test_the_hand_written_steps_are_read_in_passes_over_the_score_matrix():
    bandwidth, _ = ceilings(H200)
    one_pass = sizes(H200["config"])["pass_bytes"] / bandwidth
    text = hand_written_check(H200, "en")
    scaling = H200["variants"]["naive"]["attribution"]["scaling"]["us_per_forward"]
    assert f"| scaling | 1 | {fmt_us(scaling, 'en')} | {fmt_sig(scaling / one_pass, 'en')} |" in text
    assert "(scaling, copy of the score matrix, applying the mask, softmax)" in text
    refused = copy.deepcopy(H200)
    refused["variants"]["naive"] = {"status": "oom", "reason": "out of memory"}
    assert hand_written_check(refused, "en") == "Not measured on this GPU."


def test_fused_backends_against_their_two_floors():
    text = fused_check(H200, "en", ["flash", "cudnn", "no_such_backend"])
    assert "| SDPA flash |" in text and "| SDPA cuDNN |" in text and "no_such" not in text
    assert "the floor is set by arithmetic" in text  # 256 FLOP/byte is above the H200's ridge
    slow_matmul = copy.deepcopy(H200)
    slow_matmul["roof"]["tflops"] /= 10
    assert "set by arithmetic" in fused_check(slow_matmul, "en", ["flash"])
    fast_matmul = copy.deepcopy(H200)
    fast_matmul["roof"]["tflops"] *= 10
    assert "set by memory" in fused_check(fast_matmul, "en", ["flash"])
