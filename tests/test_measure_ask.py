"""report/measure/ask*.py: issue 37's eligibility grid on the CPU build, and its capture of
what PyTorch says, with made-up functions where the CPU build says nothing."""
import argparse
import gzip
import json
import logging
import os
import types
import warnings

import pytest
import torch

import build_tables
from report.derive import sections
from report.measure import ask
from report.measure.ask_capture import c10_messages, can_use, heard
from report.measure.ask_conditions import BY_ID, CONDITIONS
from report.schema import Eligibility
from report.schema_check import SchemaError, check

ARGS = argparse.Namespace(batch=2, heads=4, seq_len=32, head_dim=16, dtype="bfloat16", device="cpu")
EAGER = [c for c in CONDITIONS if not c.api.startswith("compiled")]  # compiling takes a minute here


@pytest.fixture(scope="module")
def grid(tmp_path_factory):
    folder = tmp_path_factory.mktemp("traces")
    return ask.measure_eligibility(torch, ARGS, lambda line: None, folder, EAGER), folder


def rows(found):
    return {row["id"]: row for row in found["conditions"]}


def test_every_condition_is_recorded_and_the_section_has_its_schema(grid):
    found, _ = grid
    check(found, Eligibility, "eligibility")
    assert [r["id"] for r in found["conditions"]] == [c.id for c in EAGER]
    assert found["shapes"]["decode"]["seq_q"] == 1 and found["shapes"]["seed"]["seq_q"] == ARGS.seq_len
    assert found["versions"]["torch"] == torch.__version__ and found["versions"]["gpu_name"] is None


def test_every_fix_names_a_condition_of_the_grid():
    assert all(c.fix is None or c.fix in BY_ID for c in CONDITIONS)
    assert len(BY_ID) == len(CONDITIONS)


def test_a_refused_call_records_its_error_and_the_others_still_run(grid):
    found, _ = grid
    r = rows(found)
    # the CPU has no efficient backend: pinned to it, SDPA refuses
    assert "No viable backend" in r["baseline_pinned_efficient"]["error"]
    assert r["baseline_pinned_efficient"]["trace"] is None
    assert r["baseline"]["error"] is None and r["decode_baseline"]["error"] is None


def test_each_condition_that_ran_has_a_trace_with_its_shapes(grid):
    found, folder = grid
    row = rows(found)["head_dim_72"]
    assert row["trace"] == "traces/ask-head_dim_72.json.gz"
    with gzip.open(folder / "ask-head_dim_72.json.gz", "rt") as f:
        events = json.load(f)["traceEvents"]
    sdpa = [e for e in events if e.get("name") == "aten::scaled_dot_product_attention"]
    assert len(sdpa) == ask.STEPS
    assert sdpa[0]["args"]["Input Dims"][0] == [ARGS.batch, ARGS.heads, ARGS.seq_len, 72]


def test_decode_causal_is_aligned_top_left_and_lower_right_sees_every_key(grid):
    found, _ = grid
    top_left = rows(found)["decode_causal"]["check"]
    assert top_left["max_abs_diff_vs_first_value"] == 0 and top_left["max_abs_diff_vs_not_causal"] > 0.01
    lower_right = rows(found)["decode_causal_lower_right"]["check"]
    assert lower_right["max_abs_diff_vs_not_causal"] == 0 and lower_right["max_abs_diff_vs_first_value"] > 0.01


def test_conditions_without_sdpa_params_say_why(grid):
    found, _ = grid
    r = rows(found)
    assert r["mha_need_weights"]["can_use"] is None and r["mha_need_weights"]["can_use_error"]
    assert set(r["decode_causal_lower_right"]["can_use"]) == {"flash", "efficient", "cudnn"}
    assert set(r["baseline"]["can_use"]) == {"flash", "efficient", "cudnn"}
    assert r["nested_jagged"]["setting"]["layout"] == "nested_jagged"


def test_one_failing_condition_does_not_stop_the_grid(monkeypatch):
    real = ask.prepare

    def failing(torch, cond, *a):
        if cond.id == "causal":
            raise MemoryError("made up")
        return real(torch, cond, *a)
    monkeypatch.setattr(ask, "prepare", failing)
    some = [BY_ID["baseline"], BY_ID["causal"], BY_ID["float16"]]
    found = ask.measure_eligibility(torch, ARGS, lambda line: None, None, some)
    assert [r["error"] for r in found["conditions"]] == [None, "MemoryError: made up", None]


def test_a_spent_budget_records_the_rest_as_not_measured(monkeypatch):
    ticks = iter(range(0, 10**6, 30))  # each look at the clock: half a minute later
    monkeypatch.setattr(ask, "time", types.SimpleNamespace(perf_counter=lambda: next(ticks)))
    found = ask.measure_eligibility(torch, ARGS, lambda line: None, None, EAGER[:4])
    check(found, Eligibility, "eligibility")
    skipped = [(r["error"] or "").startswith("not measured") for r in found["conditions"]]
    assert skipped[0] is False and skipped[-1] is True  # 30 s in: measured; later: not
    assert skipped == sorted(skipped)  # once the budget is spent, every later one is left out


def test_a_phase_that_fails_as_a_whole_is_an_error_not_an_exception(monkeypatch):
    def broken(torch, device):
        raise RuntimeError("no properties")
    monkeypatch.setattr(ask, "versions", broken)
    assert ask.measure_eligibility(torch, ARGS, lambda line: None) == {"error": "no properties"}


def test_the_innermost_cause_names_a_wrapped_refusal():
    try:
        try:
            raise RuntimeError("No available kernel. Aborting execution.\nmore")
        except RuntimeError as inner:
            raise ValueError("RuntimeError when making fake tensor call") from inner
    except ValueError as err:
        assert ask._error(err) == "No available kernel. Aborting execution."
    try:  # raised while handling it, its context hidden "from None", as Dynamo does
        try:
            raise RuntimeError("No viable backend for scaled_dot_product_attention was found.")
        except RuntimeError:
            raise TypeError("RuntimeError when making fake tensor call") from None
    except TypeError as err:
        assert ask._error(err) == "No viable backend for scaled_dot_product_attention was found."
    try:
        try:
            raise KeyError("x")
        except KeyError:
            raise ValueError("bad input") from None
    except ValueError as err:
        assert ask._error(err) == "ValueError: bad input"


def test_c10_warning_lines_are_read_and_other_lines_ignored():
    text = ("[W1204 18:20:00.123456 1234 sdp_utils.cpp:123] Warning: Flash attention requires q to "
            "be 4-D (function check_tensor_shapes)\nsome other library's line\n[I1204 x] info\n")
    assert c10_messages(text) == ["Flash attention requires q to be 4-D"]


def test_heard_keeps_python_warnings_and_descriptor_2_once_each_without_the_source_location():
    with heard() as said:
        warnings.warn("a reason (Triggered internally at /pytorch/aten/x.cpp:12.)", stacklevel=1)
        warnings.warn("a reason", stacklevel=1)
        logging.getLogger("torch.nested._internal.sdpa").warning("Flash attention kernel not used because:")
        logging.getLogger("torch.nested._internal.sdpa").info("not a warning")
        os.write(2, b"[W12 x.cpp:1] Warning: from c10 (function f)\n")
    assert said == ["a reason", "Flash attention kernel not used because:", "from c10"]


def test_can_use_records_each_backends_answer_and_reasons():
    def says(ok, how):
        def fn(params, debug=False):
            assert debug is True
            if how == "python":
                warnings.warn("Flash attention does not support float32", stacklevel=1)
            else:
                os.write(2, b"[W1 sdp_utils.cpp:9] Warning: Mem efficient needs x (function check)\n")
            return ok
        return fn
    def raises(params, debug=False):
        raise RuntimeError("sym_size on a jagged dimension\nmore")
    cuda = types.SimpleNamespace(can_use_flash_attention=says(False, "python"),
                                 can_use_efficient_attention=says(True, "c10"),
                                 can_use_cudnn_attention=raises)
    fake = types.SimpleNamespace(backends=types.SimpleNamespace(cuda=cuda))
    got = can_use(fake, params=None)
    assert got["flash"] == {"ok": False, "reasons": ["Flash attention does not support float32"]}
    assert got["efficient"] == {"ok": True, "reasons": ["Mem efficient needs x"]}
    assert got["cudnn"] == {"ok": False, "reasons": [], "error": "sym_size on a jagged dimension"}
    del cuda.can_use_cudnn_attention
    assert "does not exist" in can_use(fake, params=None)["cudnn"]["reasons"][0]


@pytest.mark.parametrize("names, ran", [
    ([], None),
    (["void pytorch_flash::flash_fwd_kernel<Flash_fwd_kernel_traits<64>>(Flash_fwd_params)"], "flash"),
    (["fmha_cutlassF_bf16_aligned_64x64_rf_sm80"], "efficient"),
    (["triton_per_fused__softmax_0", "sm90_xmma_gemm_bf16"], "other"),
    (["sm90_xmma_gemm_bf16", "void at::native::cunn_SoftMaxForward<8>"], "math"),
])
def test_the_backend_read_off_kernel_names(names, ran):
    assert sections.ask_backend(names) == ran


def test_a_bool_is_checked_as_true_or_false():
    with pytest.raises(SchemaError, match="ok: expected true or false"):
        check({"conditions": [{"id": "x", "shape": "seed", "can_use": {"flash": {"ok": 1, "reasons": []}}}]},
              Eligibility, "eligibility")
    with pytest.raises(SchemaError, match="not a finite number"):
        check({"conditions": [{"id": "x", "shape": "seed",
                               "kernel_time_us": {"median": float("nan"), "steps": []}}]},
              Eligibility, "eligibility")


def test_all_turns_ask_on_and_ask_alone_is_a_flag():
    assert build_tables.parse_args(["--all"]).ask is True
    assert build_tables.parse_args(["--ask"]).ask is True
    assert build_tables.parse_args([]).ask is False


def test_a_run_without_ask_keeps_a_folder_that_holds_eligibility(monkeypatch, tmp_path):
    from report.output import checks
    from report.results import UsageError

    monkeypatch.setattr(checks, "check_folder", lambda out, slug: None)
    args = build_tables.parse_args(["--out", str(tmp_path)])
    (tmp_path / "h200").mkdir()
    old = {"provenance": {"gpu_name": "NVIDIA H200"}, "config": {k: vars(args)[k] for k in (
        "batch", "heads", "seq_len", "head_dim", "dtype")}, "variants": {}, "eligibility": {}}
    (tmp_path / "h200" / "results.json").write_text(json.dumps(old))
    with pytest.raises(UsageError, match="holds --ask, which this run would not measure"):
        checks.check_target(args, tmp_path, "h200", {"gpu_name": "NVIDIA H200"})
    checks.check_target(build_tables.parse_args(["--out", str(tmp_path), "--ask"]), tmp_path, "h200",
                        {"gpu_name": "NVIDIA H200"})


def test_a_gpu_trace_gives_the_backend_that_ran_and_the_kernel_time_per_step(monkeypatch, tmp_path):
    """A condition's trace kept on a made-up GPU profile (two steps, each one flash kernel
    launched in its range; the profile itself needs a GPU), and what derive reads off it."""
    def made_up_profile(torch, prep, name, path, device):
        events = []
        for step, (ts, dur) in enumerate([(0, 30.0), (100, 40.0)]):
            events += [
                {"ph": "X", "cat": "user_annotation", "name": name, "ts": ts, "dur": 50},
                {"ph": "X", "cat": "cpu_op", "name": "aten::scaled_dot_product_attention", "ts": ts + 1, "dur": 20},
                {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "ts": ts + 2, "dur": 5,
                 "args": {"correlation": step + 1}},
                {"ph": "X", "cat": "kernel", "name": "void pytorch_flash::flash_fwd_kernel<T>(P)",
                 "ts": ts + 10, "dur": dur, "args": {"correlation": step + 1}},
            ]
        path.write_text(json.dumps({"traceEvents": events}))
    monkeypatch.setattr(ask, "_profile", made_up_profile)
    row = {}
    (tmp_path / "traces").mkdir()
    ask._keep_trace(torch, row, BY_ID["baseline"], None, tmp_path / "traces", "cuda")
    assert row == {"trace": "traces/ask-baseline.json.gz", "range": "ask_baseline"}  # raw: no figure
    assert (tmp_path / "traces" / "ask-baseline.json.gz").exists()
    assert not (tmp_path / "traces" / "ask-baseline.json").exists()
    found = sections.ask_row(tmp_path, row, gpu=True)
    assert found["ran"] == "flash" and found["kernel_time_us"] == {"median": 35.0, "steps": [30.0, 40.0]}


def test_a_profile_that_fails_half_way_leaves_no_raw_trace_and_the_answers_stand(monkeypatch, tmp_path):
    def half_way(torch, prep, name, path, device):
        path.write_text("{")  # what an export cut short leaves
        raise RuntimeError("profiler broke")
    monkeypatch.setattr(ask, "_profile", half_way)
    found = ask.measure_eligibility(torch, ARGS, lambda line: None, tmp_path, [BY_ID["baseline"]])
    row = found["conditions"][0]
    assert row["profile_error"] == "profiler broke" and row["error"] is None and row["trace"] is None
    assert row["can_use"] is not None and list(tmp_path.iterdir()) == []
