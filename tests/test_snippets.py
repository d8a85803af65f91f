"""The snippet files readers copy: numerically right, and runnable on their own.

CPU checks run everywhere; the CUDA checks run in the GPU test pass on a CUDA machine.
"""
import math
import runpy
import sys
from pathlib import Path

import pytest
import torch
from naive_attention import NaiveCausalAttention, make_inputs
from sdpa_backends import BACKENDS, causal_sdpa, try_backends

ROOT = Path(__file__).resolve().parents[1]
SNIPPETS = ROOT / "snippets"

CUDA = torch.cuda.is_available()
needs_cuda = pytest.mark.skipif(not CUDA, reason="needs a CUDA GPU (runs in the GPU test pass)")


def reference(q, k, v):
    """Causal attention in float64, written independently of the snippets."""
    qd, kd, vd = q.double().cpu(), k.double().cpu(), v.double().cpu()
    s, d = q.shape[-2], q.shape[-1]
    scores = qd @ kd.transpose(-2, -1) / math.sqrt(d)
    future = torch.arange(s)[None, :] > torch.arange(s)[:, None]
    scores[..., future] = float("-inf")
    return torch.softmax(scores, dim=-1) @ vd


def rel_error(out, ref):
    return ((out.double().cpu() - ref).norm() / ref.norm()).item()


@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize("inplace", [False, True])
def test_naive_attention_matches_float64_on_cpu(inplace, seed):
    q, k, v = make_inputs(2, 3, 37, 16, dtype=torch.float32, device="cpu", seed=seed)
    with torch.no_grad():
        out = NaiveCausalAttention(37, inplace=inplace)(q, k, v)
    assert rel_error(out, reference(q, k, v)) < 1e-6


def test_sdpa_math_and_auto_match_float64_on_cpu():
    q, k, v = make_inputs(2, 3, 37, 16, dtype=torch.float32, device="cpu", seed=3)
    ref = reference(q, k, v)
    results = try_backends(q, k, v)
    assert rel_error(results["math"], ref) < 1e-6
    assert rel_error(causal_sdpa(q, k, v), ref) < 1e-6


def test_backends_the_cpu_lacks_are_reported_not_raised():
    if CUDA:
        pytest.skip("on a CUDA machine every backend may run")
    q, k, v = make_inputs(1, 1, 16, 16, dtype=torch.float32, device="cpu")
    results = try_backends(q, k, v)
    assert set(results) == set(BACKENDS)
    assert isinstance(results["efficient"], str) and results["efficient"].startswith("not supported: ")


def test_bf16_naive_attention_is_within_bf16_error():
    q, k, v = make_inputs(1, 2, 64, 32, device="cpu", seed=5)  # bfloat16 by default
    with torch.no_grad():
        out = NaiveCausalAttention(64)(q, k, v)
    assert out.dtype == torch.bfloat16
    assert 1e-4 < rel_error(out, reference(q, k, v)) < 1e-2


@needs_cuda
@pytest.mark.parametrize("seed", [0, 1])
def test_every_variant_matches_float64_on_the_gpu(seed):
    q, k, v = make_inputs(2, 4, 256, 64, device="cuda", seed=seed)
    ref = reference(q, k, v)
    with torch.no_grad():
        outputs = {"naive": NaiveCausalAttention(256).cuda()(q, k, v),
                   "naive_inplace": NaiveCausalAttention(256, inplace=True).cuda()(q, k, v),
                   "auto": causal_sdpa(q, k, v)}
        outputs.update(try_backends(q, k, v))
    for name, out in outputs.items():
        assert isinstance(out, torch.Tensor), (name, out)
        assert not out.isnan().any(), name
        assert rel_error(out, ref) < 1e-2, name


def test_fully_masked_row_is_nan_by_hand_and_zero_with_math(capsys):
    runpy.run_path(str(SNIPPETS / "fully_masked_row.py"), run_name="__main__")
    out = capsys.readouterr().out
    assert "by hand, row 2:      tensor([nan, nan, nan, nan])" in out
    assert "math backend, row 2: tensor([0., 0., 0., 0.])" in out
    assert "other rows agree:    True" in out


def test_masked_fill_inplace_under_autograd(capsys):
    runpy.run_path(str(SNIPPETS / "inplace_autograd.py"), run_name="__main__")
    out = capsys.readouterr().out
    # in the guide's module the in-place fill overwrites nothing backward needs ...
    assert "same gradients: True" in out
    # ... but on a tensor that backward does need, autograd refuses instead of lying
    assert "backward refused: one of the variables needed for gradient computation" in out


@pytest.mark.parametrize("path", sorted(SNIPPETS.glob("*.py")), ids=lambda p: p.name)
def test_snippet_file_runs_on_its_own(path, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)  # profile_attention.py writes a trace into the current folder
    monkeypatch.setattr(sys, "argv", [str(path)])
    runpy.run_path(str(path), run_name="__main__")
    assert capsys.readouterr().out.strip(), f"{path.name} printed nothing"


def test_training_step_gradients_match_the_hand_written_module(capsys):
    runpy.run_path(str(SNIPPETS / "training_step.py"), run_name="__main__")
    out = capsys.readouterr().out
    worst = float(out.rsplit("=", 1)[1])
    assert worst < 1e-10  # float64


def test_flex_attention_and_compiled_naive_match_sdpa(capsys):
    runpy.run_path(str(SNIPPETS / "flex_attention.py"), run_name="__main__")
    out = capsys.readouterr().out
    diffs = {line.split(" on ")[0]: float(line.rsplit("=", 1)[1]) for line in out.splitlines()}
    limit = 2e-2 if CUDA else 1e-5  # bf16 on the GPU, float32 on the CPU
    assert set(diffs) == {"flex", "compiled naive"} and max(diffs.values()) < limit


def test_inductor_rewrites_no_sdpa_pattern_in_the_hand_written_module_and_one_without_its_mask():
    """The compile section's reason (torch/_inductor/fx_passes/fuse_attention.py): no
    `_sfdp_pattern_*` has a masked_fill of a given boolean mask between a multiplication and
    the softmax; take the mask away and the rest is one (`_sfdp_pattern_2`)."""
    from torch._dynamo.utils import counters

    class Unmasked(torch.nn.Module):
        def forward(self, q, k, v):
            return torch.softmax((q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(q.size(-1))), dim=-1) @ v

    q, k, v = make_inputs(batch=1, heads=2, seq_len=64, head_dim=32, dtype=torch.float32, device="cpu")
    found = {}
    for name, module in (("naive", NaiveCausalAttention(64, inplace=True)), ("unmasked", Unmasked())):
        torch._dynamo.reset()
        counters.clear()
        # no cache: a graph Inductor has compiled before is loaded, not rewritten again
        with torch.no_grad(), torch._inductor.config.patch(force_disable_caches=True):
            torch.compile(module)(q, k, v)
        found[name] = counters["inductor"]["fuse_attention"]
    assert found == {"naive": 0, "unmasked": 1}
