"""The corpus tools: benchmarks/cut_trace.py (pure Python), tests/expected_verdicts.py (no
report/ import), and benchmarks/record_traces.py's refusals (its recording needs a GPU and
transformers; it is run on the GPU box, see CONTRIBUTING)."""
import ast
import gzip
import importlib.util
import json
import subprocess
import sys

from expected_verdicts import verdicts
from factory import SITE_RUN

from report.doctor.explain import explain, load_trace
from report.paths import ROOT
from report.trace.reading.events import INPUT_OPS

TRACE = SITE_RUN / "traces" / "cudnn.json.gz"  # 50 profiler steps


def cutter():
    spec = importlib.util.spec_from_file_location("cut_trace", ROOT / "benchmarks" / "cut_trace.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_cutter_keeps_the_first_steps_and_what_explain_reads(tmp_path):
    cut_trace = cutter()
    full = load_trace(TRACE)
    cut = cut_trace.cut(full, steps=2)
    events = cut["traceEvents"]
    steps = [e for e in events if e.get("cat") == "user_annotation" and e["name"].startswith("ProfilerStep#")]
    assert len(steps) == 2 and not any(e.get("cat") == "ac2g" for e in events)
    launches = {e["args"]["correlation"] for e in events if e.get("cat") in ("cuda_runtime", "cuda_driver")}
    gpu = [e for e in events if e.get("cat") in ("kernel", "gpu_memset", "gpu_memcpy")]
    assert gpu and all(e["args"]["correlation"] in launches for e in gpu)
    assert all(e["name"] in INPUT_OPS for e in events if "Input Dims" in (e.get("args") or {}))  # the shapes explain reads
    assert cut["deviceProperties"] == full["deviceProperties"]
    found = explain(cut)
    assert {k["calls"] for k in found["kernels"]} == {2}  # one kernel and one memset per step
    assert verdicts(cut) == {r["name"]: r["verdict"] for r in found["ranges"]}
    a, b = tmp_path / "a.json.gz", tmp_path / "b.json.gz"
    cut_trace.write(cut, a)
    cut_trace.write(cut_trace.cut(full, steps=2), b)
    assert a.read_bytes() == b.read_bytes()  # no timestamp in the gzip header
    assert json.loads(gzip.decompress(a.read_bytes())) == cut


def test_the_cutter_keeps_sdpas_recorded_inputs_and_kinetos_overhead_and_drops_other_shapes():
    shapes = {"Input Dims": [[1, 2, 3, 4]], "Input type": ["float"], "Input Strides": [[24, 12, 4, 1]],
              "Concrete Inputs": [""]}
    x = lambda cat, name, ts, dur, **args: {"ph": "X", "cat": cat, "name": name, "pid": 1, "tid": 1,  # noqa: E731
                                           "ts": ts, "dur": dur, "args": args}
    trace = {"traceEvents": [
        x("user_annotation", "ProfilerStep#1", 0, 100),
        x("cpu_op", "aten::scaled_dot_product_attention", 1, 20, **shapes),
        x("cuda_runtime", "cudaLaunchKernel", 2, 2, correlation=1), x("kernel", "k", 5, 3, correlation=1),
        x("cpu_op", "aten::mm", 30, 20, **shapes),
        x("cuda_runtime", "cudaLaunchKernel", 31, 2, correlation=2), x("kernel", "k", 35, 3, correlation=2),
        x("cpu_op", "aten::add", 52, 6, **shapes),
        x("cuda_runtime", "cudaLaunchKernel", 53, 2, correlation=3), x("kernel", "k", 56, 1, correlation=3),
        x("overhead", "Activity Buffer Request", 60, 5)]}
    events = cutter().cut(trace, steps=1)["traceEvents"]
    shaped = {e["name"] for e in events if "Input Dims" in (e.get("args") or {})}
    assert shaped == {"aten::scaled_dot_product_attention", "aten::mm"} and shaped <= INPUT_OPS  # not aten::add
    assert next(e for e in events if e["name"] == "aten::scaled_dot_product_attention")["args"] == shapes
    assert "Activity Buffer Request" in {e["name"] for e in events}


def test_a_trace_without_gpu_activity_is_cut_to_the_first_events_of_each_category():
    cut_trace = cutter()
    trace = {"schemaVersion": 1, "traceEvents": [{"ph": "M", "name": "process_name"}]
             + [{"ph": "X", "cat": "cpu_op", "name": f"op{i}", "ts": i, "dur": 1} for i in range(10)]
             + [{"ph": "X", "cat": "mtia_runtime", "name": f"rt{i}", "ts": i, "dur": 1} for i in range(10)]}
    cut = cut_trace.first(trace, 3)
    assert cut["schemaVersion"] == 1
    assert [e["name"] for e in cut["traceEvents"]] == ["process_name", "op0", "op1", "op2", "rt0", "rt1", "rt2"]


def test_the_independent_verdicts_import_nothing_of_report():
    tree = ast.parse((ROOT / "tests" / "expected_verdicts.py").read_text(encoding="utf-8"))
    modules = {a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
    modules |= {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)}
    assert modules <= {"__future__", "bisect", "gzip", "json", "re", "statistics", "sys", "pathlib"}


def test_the_recorder_refuses_an_unknown_case_in_one_line(tmp_path):
    done = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "record_traces.py"), str(tmp_path / "out"),
                           "--only", "nope"], capture_output=True, text=True, timeout=300)
    assert done.returncode == 2 and "unknown case(s): nope" in done.stderr
    assert done.stderr.strip().splitlines()[-1].startswith("record_traces.py: error:")
    assert not (tmp_path / "out").exists()


def test_the_cutter_refuses_to_cut_a_trace_onto_itself(tmp_path):
    """cut_trace.py SRC SRC (or --all DIR DIR) would replace the recorded traces with cut ones."""
    trace = tmp_path / "t.json.gz"
    trace.write_bytes(TRACE.read_bytes())
    for args in ([str(trace), str(trace)], ["--all", str(tmp_path), str(tmp_path) + "/."]):
        done = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "cut_trace.py"), *args],
                              capture_output=True, text=True, timeout=300)
        assert done.returncode == 2 and "the same as the source" in done.stderr
    assert trace.read_bytes() == TRACE.read_bytes()
