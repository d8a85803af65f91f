"""report/measure/roof.py: the exp (special-function) roof, on the CPU."""
import pytest
import torch

from report.measure import roof


def test_the_exp_roof_counts_every_exp_of_the_chain_and_refuses_a_wrong_compile():
    found = roof.measure_exp_roof(torch, "cpu", compile_fn=lambda f: f)  # eager: the counting, not the rate
    assert found["status"] == "ok" and found["exps_per_element"] == roof.EXP_CHAIN
    assert found["exps_per_s"] == pytest.approx(found["elements"] * roof.EXP_CHAIN / (found["median_ms"] / 1e3))
    assert found["min_ms"] <= found["median_ms"] <= found["max_ms"] and found["copy_ms"] > 0
    wrong = roof.measure_exp_roof(torch, "cpu", compile_fn=lambda f: (lambda t: f(t) + 1e-2))
    assert wrong["status"] == "error" and "differs from the eager one" in wrong["reason"]
    x = torch.rand(1000)
    assert 0.5 < float(roof.exp_chain(torch, x).min()) and float(roof.exp_chain(torch, x).max()) < 0.6


def test_the_fp32_roof_is_a_float32_matmul_with_tf32_off_and_leaves_the_switch_as_it_was():
    before = torch.backends.cuda.matmul.allow_tf32
    torch.backends.cuda.matmul.allow_tf32 = True  # a caller that allowed TF32 gets it back
    seen = []
    real = roof._runs
    try:
        roof._runs = lambda t, d, op: seen.append(t.backends.cuda.matmul.allow_tf32) or real(t, d, op)
        found = roof.measure_fp32_roof(torch, "cpu")
        assert torch.backends.cuda.matmul.allow_tf32 is True
    finally:
        roof._runs = real
        torch.backends.cuda.matmul.allow_tf32 = before
    assert seen == [False] and found["dtype"] == "float32"
    n = found["shape"][0]
    assert found["tflops"] == pytest.approx(2 * n**3 / (found["median_ms"] / 1e3) / 1e12)
