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
