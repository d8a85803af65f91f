"""report/measure/rounds.py and the fresh-process first calls, on the CPU with tiny shapes."""
import argparse
import sys
import tempfile
from pathlib import Path

import pytest

from report.derive import sections
from report.measure import first_calls, rounds
from report.measure.callables import make_inputs, make_variant

TINY = {"batch": 1, "heads": 2, "seq_len": 32, "head_dim": 16}


RUN = Path(tempfile.mkdtemp(prefix="rounds-run-"))  # a run's folder: its profiles go to traces/


def args(**kw):
    return argparse.Namespace(**{"rounds": 2, "steps": 3, "timer_seconds": 0.01, "host_calls": 10,
                                 "device": "cpu", "dtype": "float32", "traces": str(RUN / "traces"), **kw})


def setup(monkeypatch, names=("naive", "math")):
    import torch

    monkeypatch.setattr(rounds, "SMALL_SHAPE", TINY)
    results = {"variants": {n: {"status": "ok"} for n in names} | {"flash": {"status": "unsupported"}},
               "overhead": {"rows": {"small": {"math": {"status": "ok"}, "naive": {"status": "oom"}}}}}
    made = {n: make_variant(n, TINY, "cpu") for n in (*names, "flash")}
    return torch, results, made, make_inputs(TINY, torch.float32, "cpu")


def one_round(torch, results, made, inputs, a):
    """One round in this process, as round_child.py measures it."""
    cfg = rounds.settings(a)
    small, small_error = rounds.make_small(torch, results, a)
    return cfg, small_error, rounds.measure_round(torch, results, made, inputs, a, cfg, small)


def test_a_round_keeps_each_variants_figures_and_the_small_shapes(monkeypatch):
    torch, results, made, inputs = setup(monkeypatch)
    cfg, small_error, found = one_round(torch, results, made, inputs, args())
    assert cfg["count"] == 2 and cfg["profile_steps"] == 3 and cfg["unit"] == "process" and small_error is None
    assert list(found["variants"]) == ["naive", "math"]  # flash refused in the seed: nothing to repeat
    for r in found["variants"].values():
        assert "kernel_sum_us" not in r and r["trace"].startswith("traces/profiles/")  # raw: derive reads it
        figures = sections.round_figures(RUN, r, gpu=False)
        assert figures["kernel_sum_us"] is None and figures["cpu_time_us"]["n"] == 3  # no GPU: no kernel time
        assert r["wall_time_us"]["median"] > 0 and r["host_time_us"]["median"] > 0
        assert r["host_time_us"]["per_small_op"]["median"] > 0
    assert list(found["small"]) == ["math"]  # naive ran out of memory at the small shape
    assert found["small"]["math"]["eager_wall_us"]["median"] > 0 and "graph_wall_us" not in found["small"]["math"]


def test_a_round_visits_every_variant_then_the_small_shapes(monkeypatch):
    torch, results, made, inputs = setup(monkeypatch)
    order = []
    monkeypatch.setattr(rounds, "_profile_and_wall", lambda torch, name, *a: order.append(name) or {})
    one_round(torch, results, made, inputs, args(rounds=3))
    assert order == ["naive", "math", "math"]  # seed variants, then the small shape's


def test_a_figure_that_fails_is_recorded_and_the_others_stand(monkeypatch):
    torch, results, made, inputs = setup(monkeypatch, names=("math", "naive"))
    calls = []
    real = rounds.profile_short

    def second_fails(*a, **kw):
        calls.append(1)
        if len(calls) == 2:  # the second variant's profile
            raise ValueError("trace unreadable")
        return real(*a, **kw)

    def host_fails(*a, **kw):
        raise RuntimeError("no sleep today")

    def no_memory(cfg, dtype, device):
        raise MemoryError("small shape")

    monkeypatch.setattr(rounds, "profile_short", second_fails)
    monkeypatch.setattr(rounds, "host_overheads", host_fails)
    monkeypatch.setattr(rounds, "make_inputs", no_memory)
    _, small_error, found = one_round(torch, results, made, inputs, args())
    assert small_error == "MemoryError: small shape" and found["small"] == {}
    first, second = found["variants"]["math"], found["variants"]["naive"]
    assert sections.round_figures(RUN, first, gpu=False)["cpu_time_us"]["n"] == 3
    assert second["error"] == "ValueError: trace unreadable"
    assert first["host_error"] == second["host_error"] == "RuntimeError: no sleep today"


def test_a_fresh_process_measures_first_calls_a_new_shape_and_a_new_thread():
    spec = {"variant": "flash", "shape": TINY, "new_shape": first_calls.new_shape(TINY),
            "dtype": "float32", "device": "cpu"}
    row = first_calls._child(spec)
    assert row["status"] == "ok", row
    for key in ("import_torch_ms", "setup_ms", "first_call_ms", "same_shape_again_ms", "first_new_shape_ms",
                "new_shape_again_ms", "new_thread_first_ms", "new_thread_again_ms"):
        assert row[key] > 0, key
    assert row["process_s"] * 1e3 > row["import_torch_ms"]


def test_a_waiting_process_imports_torch_then_measures_only_on_go():
    spec = {"variant": "flash", "shape": TINY, "new_shape": first_calls.new_shape(TINY),
            "dtype": "float32", "device": "cpu"}
    proc, _ = first_calls._start(spec)
    assert proc.stdout.readline().strip() == "ready"
    out, _ = proc.communicate("", timeout=60)  # stdin closed, no "go": nothing measured
    assert proc.returncode == 0 and out == ""


def test_fresh_processes_all_import_before_the_first_measures(monkeypatch):
    events = []
    monkeypatch.setattr(first_calls, "_start", lambda spec: (events.append(("start", spec["variant"])), spec))
    monkeypatch.setattr(first_calls, "_finish", lambda started: events.append(("finish", started[1]["variant"])) or
                        {"status": "error", "reason": "made up"})
    found = first_calls.fresh_process_rounds(args(), TINY, ["flash", "cudnn"], 2, lambda line: None)
    assert events == [("start", "flash"), ("start", "cudnn")] * 2 + [("finish", "flash"), ("finish", "cudnn")] * 2
    assert [len(v) for v in found.values()] == [2, 2]


def test_a_fresh_process_that_dies_is_a_row_with_the_reason(monkeypatch):
    monkeypatch.setattr(sys, "executable", "/bin/false")
    row = first_calls._child({"variant": "flash"})
    assert row == {"status": "error", "reason": "exit status 1: no output"}
    monkeypatch.setattr(sys, "executable", "/nonexistent/python")
    assert first_calls._child({})["reason"].startswith("could not start /nonexistent/python")


@pytest.mark.parametrize("rounds_, host_calls, expected", [(3, 400, 133), (3, 5, 5), (1, 400, 400)])
def test_rounds_split_the_timer_and_the_host_calls(rounds_, host_calls, expected):
    cfg = rounds.settings(args(rounds=rounds_, host_calls=host_calls, timer_seconds=0.6, steps=50))
    assert cfg["host_calls"] == expected and cfg["timer_seconds"] == pytest.approx(0.6 / rounds_)
    assert cfg["profile_steps"] == rounds.ROUND_STEPS


def test_on_a_gpu_each_round_captures_a_graph_times_it_and_records_a_failed_capture(monkeypatch):
    """The CUDA branch's plumbing, with the capture and the device calls made up."""
    import torch

    from report import snippets

    captured = []

    class Graphs:
        @staticmethod
        def capture(fn, *inputs):
            captured.append(fn)
            if len(captured) == 2:
                raise RuntimeError("operation not permitted when stream is capturing")
            return lambda: fn(*inputs)

    monkeypatch.setattr(rounds, "SMALL_SHAPE", TINY)
    monkeypatch.setattr(rounds, "make_inputs", lambda cfg, dtype, device: make_inputs(cfg, dtype, "cpu"))
    monkeypatch.setattr(rounds, "make_variant", lambda name, cfg, device: make_variant(name, cfg, "cpu"))
    monkeypatch.setattr(rounds, "_profile_and_wall", lambda *a: {"eager_wall_us": {"median": 1.0}})
    real_load = snippets.load
    monkeypatch.setattr(snippets, "load", lambda name: Graphs if name == "cuda_graphs" else real_load(name))
    results = {"overhead": {"rows": {"small": {"math": {"status": "ok"}}}}}
    small = rounds._Small(torch, results, args(device="cuda"))
    first, second = (small.measure(torch, "math", rounds.settings(args())) for _ in range(2))
    assert first["graph_wall_us"]["median"] > 0 and "graph_error" not in first
    assert second["graph_error"].startswith("unsupported: operation not permitted") and "graph_wall_us" not in second
