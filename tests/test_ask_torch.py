"""--ask-torch (issue 37): the trace's recorded SDPA inputs replayed through PyTorch's
can_use_*_attention(SDPAParams(...), debug=True) on the reader's machine, with what each said
(Python warnings and c10's lines on descriptor 2); without CUDA one line and the recorded
table; without torch one line and exit 2, before the trace is read. The GPU path runs on a
made-up torch here."""
import json
import os
import types
import warnings

import pytest
from madeup import call, sdpa_args, trace_of

from report.doctor import ask_torch
from report.doctor.cli import main
from report.doctor.explain import explain
from report.doctor.rules import asked_table

SEED = (2, 8, 256, 64)
STRIDED = [[256 * 8 * 128, 256 * 128, 128, 2]] * 3


@pytest.fixture(autouse=True)
def no_table(monkeypatch, tmp_path):
    monkeypatch.setattr(asked_table, "FILE", tmp_path / "none.json")


def reading(args=None, op="aten::_scaled_dot_product_efficient_attention"):
    return explain(trace_of(*call(0, op, (), args or sdpa_args(SEED, SEED, strides=STRIDED))))


class Tensor:
    def __init__(self, shape, strides, dtype):
        self.shape, self.strides, self.dtype = tuple(shape), tuple(strides or ()), dtype

    def element_size(self):
        return 2


def fake_torch(cuda=True, cc=(9, 0)):
    """A torch whose can_use_* answer as sdp_utils.cpp's would for a strided last dimension:
    flash warns through Python, cuDNN through c10's handler on descriptor 2, efficient says yes."""
    asked = []

    def params(*args):
        asked.append(args)
        return args

    def flash(p, debug):
        warnings.warn("Both fused kernels require the last dimension of the input to have stride 1.", stacklevel=1)
        return False

    def cudnn(p, debug):
        os.write(2, b"[W1204 sdp_utils.cpp:1] Warning: cuDNN says no to stride 2 (function check)\n")
        return False

    cuda_backends = types.SimpleNamespace(SDPAParams=params, can_use_flash_attention=flash,
                                          can_use_cudnn_attention=cudnn,
                                          can_use_efficient_attention=lambda p, debug: True)
    return types.SimpleNamespace(
        __version__="2.11.0+cu130", bfloat16="bf16", float32="f32", bool="b",
        cuda=types.SimpleNamespace(is_available=lambda: cuda, get_device_name=lambda: "NVIDIA H200",
                                   get_device_capability=lambda: cc),
        backends=types.SimpleNamespace(cuda=cuda_backends),
        empty_strided=lambda s, st, dtype, device: Tensor(s, st, dtype),
        empty=lambda s, dtype, device=None: Tensor(s, None, dtype)), asked


def test_pytorch_is_asked_with_the_recorded_strides_and_its_words_come_back(monkeypatch):
    torch, asked = fake_torch()
    monkeypatch.setattr(ask_torch, "_torch", lambda: torch)
    lines = ask_torch.ask(reading())
    q = asked[0][0]
    assert q.shape == SEED and q.strides == tuple(STRIDED[0]) and q.dtype == "bf16"
    said = {line.split(":")[0].strip(): line for line in lines[2:]}
    assert said["cudnn"].endswith("cuDNN says no to stride 2")  # c10's line, its location and function cut
    assert "stride 1" in said["flash"] and said["efficient"].strip() == "efficient: yes"


def test_tensors_too_large_to_replay_are_not_made(monkeypatch):
    torch, asked = fake_torch()
    monkeypatch.setattr(ask_torch, "_torch", lambda: torch)
    huge = (64, 64, 65536, 128)
    lines = ask_torch.ask(reading(sdpa_args(huge, huge)))
    assert not asked and len(lines) == 3  # the header, the group, why it was not asked


def test_without_cuda_one_line_and_the_recorded_reasons_stand(monkeypatch):
    torch, asked = fake_torch(cuda=False)
    monkeypatch.setattr(ask_torch, "_torch", lambda: torch)
    assert len(ask_torch.ask(reading())) == 1 and not asked


def test_the_installed_torch_here_has_no_cuda_and_the_command_still_reads(tmp_path, capsys):
    torch = pytest.importorskip("torch")
    if torch.cuda.is_available():
        pytest.skip("this machine has CUDA")
    trace = trace_of(*call(0, "aten::_scaled_dot_product_flash_attention", (), sdpa_args(SEED, SEED)))
    path = tmp_path / "t.json"
    path.write_text(json.dumps(trace))
    assert main([str(path), "--ask-torch"]) == 0
    said = ask_torch.ask(explain(trace))
    assert len(said) == 1 and capsys.readouterr().out.splitlines()[0] == said[0]  # the line it could not ask: first
    assert main([str(path)]) == 0  # not asked for, and no CUDA here: the reading alone
    assert said[0] not in capsys.readouterr().out


def test_without_torch_one_line_and_exit_2_before_the_trace_is_read(monkeypatch, tmp_path, capsys):
    def gone():
        raise ImportError("No module named 'torch'")

    monkeypatch.setattr(ask_torch, "_torch", gone)
    assert main([str(tmp_path / "missing.json"), "--ask-torch"]) == 2
    done = capsys.readouterr()
    assert done.out == "" and len(done.err.splitlines()) == 1 and "missing.json" not in done.err


def test_json_and_ask_torch_do_not_go_together(capsys, tmp_path):
    assert main([str(tmp_path / "t.json"), "--ask-torch", "--format", "json"]) == 2
    assert len(capsys.readouterr().err.splitlines()) == 1


@pytest.mark.parametrize(("cc", "default"), [((9, 0), True), ((8, 9), False)])
def test_asking_is_the_default_where_the_gpu_here_is_of_the_traces_compute_capability(monkeypatch, tmp_path, capsys,
                                                                                    cc, default):
    torch, asked = fake_torch(cc=cc)  # the made-up trace is an H200's: compute capability 9.0
    monkeypatch.setattr(ask_torch, "_torch", lambda: torch)
    monkeypatch.setattr(ask_torch, "present", lambda: True)
    path = tmp_path / "t.json"
    path.write_text(json.dumps(trace_of(*call(0, "aten::_scaled_dot_product_efficient_attention", (),
                                              sdpa_args(SEED, SEED, strides=STRIDED)))))
    assert main([str(path)]) == 0
    out = capsys.readouterr().out
    assert bool(asked) is default
    assert out.startswith("--ask-torch is on by default") is default and ("efficient: yes" in out) is default
    monkeypatch.setattr(ask_torch, "present", lambda: False)  # no torch here: the reading alone, torch never asked
    asked.clear()
    assert main([str(path)]) == 0 and not asked and not capsys.readouterr().out.startswith("--ask-torch")
