"""report/measure/round_processes.py and round_child.py: each round in a fresh process, on
the CPU with a tiny shape; failing, hanging and interrupted processes."""
import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from report.derive import sections
from report.measure import round_child, round_processes
from report.measure.callables import make_inputs, make_variant
from report.schema import RoundProcess
from report.schema_check import check

TINY = {"batch": 1, "heads": 2, "seq_len": 32, "head_dim": 16}
NAMES = ("naive", "math", "auto")


def args(**kw):
    return argparse.Namespace(**{"rounds": 2, "pairs": 2, "steps": 3, "timer_seconds": 0.01, "host_calls": 10,
                                 "device": "cpu", "dtype": "float32", "variants": [*NAMES, "flash"],
                                 "overhead": False, "shapes": False, "backward": False,
                                 "traces": tempfile.mkdtemp(prefix="traces-"), **TINY, **kw})


def results():
    return {"config": {**TINY, "dtype": "float32"},
            "variants": {n: {"status": "ok"} for n in NAMES} | {"flash": {"status": "unsupported"}}}


def test_a_fresh_process_measures_one_round_and_its_pairs(tmp_path):
    run = tmp_path / "run"  # the run's folder: the child keeps its profiles in its traces/
    out = round_processes.run_child(round_processes.spec(results(), args(traces=str(run / "traces")), 1), tmp_path)
    assert "error" not in out, out
    assert out["round"] == 1 and list(out["variants"]) == list(NAMES)  # flash refused in the seed
    assert all(r["wall_time_us"]["median"] > 0 and sections.round_figures(run, r, gpu=False)["cpu_time_us"]["n"] == 3
               for r in out["variants"].values())
    assert set(out["pairs"]) == {"seed_wall", "seed_host"}
    assert set(out["pairs"]["seed_wall"]["ratio"]) == {"naive", "math"}  # against auto
    assert all(len(v) == 2 for v in out["pairs"]["seed_wall"]["ratio"].values())  # --pairs 2
    check(out["process"], RoundProcess, "process")
    assert out["process"]["import_torch_s"] > 0 and set(out["process"]["warm_s"]) == set(NAMES)


def test_a_process_that_dies_or_cannot_start_is_a_round_with_the_reason(tmp_path, monkeypatch):
    monkeypatch.setattr(sys, "executable", "/bin/false")
    assert round_processes.run_child({"round": 0}, tmp_path) == {"error": "exit status 1: no output"}
    monkeypatch.setattr(sys, "executable", str(tmp_path / "no-python"))
    assert round_processes.run_child({}, tmp_path)["error"].startswith(f"could not start {tmp_path}")


def _sleeper(tmp_path):
    script = tmp_path / "sleeper"
    script.write_text("#!/bin/sh\nexec sleep 30\n")
    script.chmod(0o755)
    return str(script)


def test_a_process_that_hangs_is_killed_and_its_round_says_so(tmp_path, monkeypatch):
    monkeypatch.setattr(sys, "executable", _sleeper(tmp_path))
    t0 = time.perf_counter()
    out = round_processes.run_child({}, tmp_path, timeout=0.5)
    assert out == {"error": "the round's process took more than 0.5 s"}
    assert time.perf_counter() - t0 < 20  # killed, not waited for


def test_ctrl_c_while_a_round_runs_kills_its_process_and_goes_on_up(tmp_path, monkeypatch):
    monkeypatch.setattr(sys, "executable", _sleeper(tmp_path))
    started = []
    real_wait = subprocess.Popen.wait

    def interrupted(self, timeout=None):
        if timeout is not None:  # the round's wait: Ctrl-C arrives
            started.append(self)
            raise KeyboardInterrupt
        return real_wait(self)

    monkeypatch.setattr(subprocess.Popen, "wait", interrupted)
    with pytest.raises(KeyboardInterrupt):
        round_processes.run_child({}, tmp_path)
    assert started and started[0].poll() is not None  # no process outlives its round


def test_rounds_run_one_process_after_another_and_a_failed_one_is_recorded_everywhere(monkeypatch):
    import torch

    res = results() | {"overhead": {"rows": {"small": {"math": {"status": "ok"}, "naive": {"status": "oom"}}}}}
    made = {n: make_variant(n, TINY, "cpu") for n in (*NAMES, "flash")}
    seen, folders = [], []

    def child(spec, folder):
        seen.append(spec["round"])
        folders.append(folder)
        assert spec["status"]["flash"] == "unsupported" and spec["small_status"] == {"math": "ok", "naive": "oom"}
        if spec["round"] == 1:
            return {"error": "exit status 1: Segmentation fault"}
        return {"round": spec["round"], "variants": {n: {"wall_time_us": {"median": 1.0}} for n in NAMES},
                "small": {"math": {"eager_wall_us": {"median": 2.0}}},
                "pairs": {"seed_wall": {"ratio": {"math": [1.0]}, "seconds": 0.1}},
                "process": {"import_torch_s": 1.0, "rounds_s": 2.0, "pairs_s": 3.0}}

    cfg, pairs_out = round_processes.measure_rounds(
        torch, res, made, make_inputs(TINY, torch.float32, "cpu"), args(rounds=3), lambda line: None, child)
    assert seen == [0, 1, 2] and cfg["count"] == 3 and cfg["seconds"] == [2.0, 0.0, 2.0]
    assert [("error" in p) for p in cfg["processes"]] == [False, True, False]
    for name in NAMES:
        assert [r.get("error") for r in res["variants"][name]["rounds"]] == [
            None, "exit status 1: Segmentation fault", None]
    assert "rounds" not in res["variants"]["flash"] and "rounds" not in res["overhead"]["rows"]["small"]["naive"]
    assert len(res["overhead"]["rows"]["small"]["math"]["rounds"]) == 3
    wall, host = pairs_out["groups"]["seed_wall"]["rounds"], pairs_out["groups"]["seed_host"]["rounds"]
    assert "error" not in wall[0] and wall[1]["error"] == "exit status 1: Segmentation fault"
    assert all("error" in r for r in host)  # a group the process did not answer is said, not dropped
    assert pairs_out["seconds"] == [3.0, 0.0, 3.0]
    assert not Path(folders[0]).exists()  # the spec and answers are gone


def test_a_child_that_cannot_read_its_spec_answers_with_the_error(tmp_path):
    (tmp_path / "spec.json").write_text("{not json")
    assert round_child.main([str(tmp_path / "spec.json"), str(tmp_path / "out.json")]) == 0
    out = json.loads((tmp_path / "out.json").read_text())
    assert out["error"].startswith("JSONDecodeError")
    assert round_child.main([]) == 2  # wrong use: a usage line, no answer file
