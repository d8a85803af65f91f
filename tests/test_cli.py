"""build_tables.py, the command: arguments, error paths, and small runs on the CPU."""
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from factory import ONE_SHORT_ROUND, SITE_RUN, SMALL_CPU, replay_run, run_main
from pagecode import comparable

import build_tables
from report.measure import backward, overhead, run, seed, sweep
from report.measure.host import PER_SLICE
from report.output.folders import MARKER, mark
from report.output.marker import files_of, read_marker
from report.paths import DEFAULT_OUT as GENERATED
from report.paths import ROOT, SCRATCH_OUT
from report.render import site
from report.results import UsageError, load_results
from report.text.display import LANGS


@pytest.mark.parametrize("argv, message", [
    (["--variants", "naive,turbo"], "unknown variant(s) turbo"),
    (["--seq-len", "0"], "must be at least 1"),
    (["--head-dim", "sixty-four"], "is not a whole number"),
    (["--head-dim", "4096"], "larger than any attention kernel"),
    (["--batch", "4096", "--seq-len", "1000000"], "more than 2^34 elements"),
    (["--steps", "2"], "at least 3"),
    (["--dtype", "int8"], "invalid choice"),
])
def test_bad_arguments_are_refused_by_argparse(argv, message, capsys, tmp_path):
    code, out = run_main(argv + ["--out", str(tmp_path / "out")], capsys)
    assert code == 2 and message in out.err
    assert not (tmp_path / "out").exists()


def test_no_cuda_device_is_one_line_exit_2_and_writes_nothing(monkeypatch, capsys, tmp_path):
    import torch

    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    code, out = run_main(["--out", str(tmp_path / "out")], capsys)
    assert code == 2
    assert out.err.count("\n") == 1 and "no CUDA device" in out.err and "--device cpu" in out.err
    assert not (tmp_path / "out").exists()


def copy_committed(tmp_path):
    dst = tmp_path / "generated" / SITE_RUN.name
    shutil.copytree(SITE_RUN, dst)  # with its marker: a folder build_tables.py wrote
    return dst


def snapshot(folder, marker=True):
    """Every file under folder; figures as pagecode.comparable sees them; the marker (which
    lists the SVGs' bytes, that another matplotlib moves) unless marker=False."""
    return {p.relative_to(folder): comparable(p, p.read_bytes()) for p in folder.rglob("*")
            if p.is_file() and (marker or p.name != MARKER)}


def test_render_only_reproduces_and_leaves_no_staging(tmp_path, capsys):
    folder = copy_committed(tmp_path)
    before = snapshot(folder, marker=False)
    code, _ = run_main(["--render-only", "--out", str(folder.parent)], capsys)
    assert code == 0 and snapshot(folder, marker=False) == before
    assert sorted(p.name for p in folder.iterdir()) == [MARKER, "figures", "results.json", "tables", "traces"]
    assert read_marker(folder)["files"] == files_of(folder)  # what it holds, each file's sha256


@pytest.mark.parametrize("damage, message", [
    (lambda t: t[: len(t) // 2], "is not valid JSON"),
    (lambda t: json.dumps({**json.loads(t), "schema_version": 0}), "schema version 0"),
    (lambda t: json.dumps({"hello": 1}), "no schema_version"),
    (lambda t: json.dumps({k: v for k, v in json.loads(t).items() if k != "roof"}), "missing roof"),
    (lambda t: json.dumps({**json.loads(t), "variants": {"flash": {"status": "ok"}}}), "damaged"),
])
def test_corrupt_results_json_is_a_clear_error_and_changes_nothing(damage, message, tmp_path, capsys):
    folder = copy_committed(tmp_path)
    path = folder / "results.json"
    path.write_text(damage(path.read_text(encoding="utf-8")), encoding="utf-8")
    before = snapshot(folder)
    code, out = run_main(["--render-only", "--out", str(folder.parent)], capsys)
    assert code == 2 and message in out.err and out.err.startswith("build_tables.py: error:")
    assert snapshot(folder) == before


def test_render_only_without_results_is_a_clear_error(tmp_path, capsys):
    code, out = run_main(["--render-only", "--out", str(tmp_path)], capsys)
    assert code == 2 and "no results.json" in out.err




def test_cpu_run_writes_results_tables_and_traces(cpu_run):
    results = load_results(cpu_run / "results.json")
    assert results["provenance"]["gpu_name"].startswith("CPU")
    assert list(results["variants"]) == ["naive", "math", "efficient", "auto"]
    naive = results["variants"]["naive"]
    assert naive["status"] == "ok" and naive["rel_error"] < 1e-5
    assert naive["cuda_time_us"] is None and naive["cpu_time_us"]["n"] == 3
    assert (cpu_run / "traces" / "naive.json.gz").exists()
    for lang in LANGS:
        text = (cpu_run / "tables" / f"headline.{lang}.md").read_text(encoding="utf-8")
        assert "CPU" in text


def test_every_variant_that_ran_keeps_its_rounds_and_the_run_its_phase_times(cpu_run):
    results = load_results(cpu_run / "results.json")
    assert results["rounds"]["count"] == 4 and len(results["rounds"]["seconds"]) == 4  # the default
    for name in ("naive", "math", "auto"):
        row = results["variants"][name]
        assert len(row["rounds"]) == 4, name
        assert all(r["cpu_time_us"]["n"] == 3 and r["wall_time_us"]["median"] > 0
                   and r["host_time_us"]["median"] > 0 for r in row["rounds"])
        assert row["wall_time_us"]["median"] > 0  # the full measurement's keys stay as they were
    assert "rounds" not in results["variants"]["efficient"]
    assert {"setup", "variants", "host_overhead", "rounds"} <= set(results["phase_seconds"])
    # each round in a fresh process of its own, its figures and its pairs
    assert results["rounds"]["unit"] == "process" and len(results["rounds"]["processes"]) == 4
    assert all("error" not in p and p["import_torch_s"] > 0 for p in results["rounds"]["processes"])


def test_the_seed_shapes_variants_are_also_timed_in_pairs_in_every_round(cpu_run):
    pairs = load_results(cpu_run / "results.json")["pairs"]
    assert list(pairs["groups"]) == ["seed_wall", "seed_host"]  # no --overhead, --shapes, --backward
    for group in pairs["groups"].values():
        assert len(group["rounds"]) == 4
        for r in group["rounds"]:
            assert set(r["ratio"]) == {"naive", "math"}  # efficient refused on the CPU: not compared
            assert all(len(v) == pairs["pairs"] for v in [*r["ratio"].values(), *r["blocks_us"].values()])


@pytest.mark.parametrize("argv, message", [
    (["--rounds", "0"], "must be at least 1"),
    (["--rounds", "two"], "is not a whole number"),
    (["--explain", "trace.json", "--rounds", "2"], "takes no other option but --svg, --ask-torch and --lang, not --rounds"),
    (["--format", "json"], "--format goes with --explain TRACE"),
])
def test_rounds_must_be_a_positive_whole_number_and_only_for_measuring(argv, message, capsys):
    code, out = run_main(argv, capsys)
    assert code == 2 and message in out.err and out.err.count("\n") == 1


def test_unsupported_backend_gets_a_row_with_the_reason_and_the_run_goes_on(cpu_run):
    results = load_results(cpu_run / "results.json")
    row = results["variants"]["efficient"]
    assert row["status"] == "unsupported" and len(row["reason"]) > 20
    assert results["variants"]["auto"]["status"] == "ok"
    text = (cpu_run / "tables" / "headline.nb.md").read_text(encoding="utf-8")
    assert "ikke støttet" in text


def test_out_of_memory_gets_a_row_and_the_run_goes_on(monkeypatch, tmp_path):
    import torch

    real = seed.make_variant

    def fake(name, cfg, device):
        if name == "math":
            def boom(q, k, v):
                raise torch.cuda.OutOfMemoryError("CUDA out of memory. Tried to allocate 64.00 GiB")
            return boom, real(name, cfg, device)[1]
        return real(name, cfg, device)

    monkeypatch.setattr(seed, "make_variant", fake)
    assert build_tables.main(SMALL_CPU + ONE_SHORT_ROUND + ["--variants", "math,naive", "--out", str(tmp_path)]) == 0
    results = load_results(tmp_path / "cpu" / "results.json")
    assert results["variants"]["math"] == {"status": "oom", "label": "math",
                                           "reason": "CUDA out of memory. Tried to allocate 64.00 GiB"}
    assert results["variants"]["naive"]["status"] == "ok"
    assert "tom for minne" in (tmp_path / "cpu" / "tables" / "headline.nb.md").read_text("utf-8")


def test_ctrl_c_mid_run_keeps_the_previous_results(monkeypatch, tmp_path, capsys):
    folder = tmp_path / "cpu"
    folder.mkdir()
    (folder / "results.json").write_text('{"previous": true}', encoding="utf-8")
    mark(folder)  # a folder an earlier run wrote: its marker lists its results.json
    calls = []
    real = seed.measure_variant

    def interrupted(torch, name, *args):
        calls.append(name)
        if len(calls) == 2:
            raise KeyboardInterrupt
        return real(torch, name, *args)

    monkeypatch.setattr(seed, "measure_variant", interrupted)
    argv = SMALL_CPU + ["--variants", "naive,math", "--out", str(tmp_path), "--replace"]
    code, out = run_main(argv, capsys)
    assert code == 130 and "interrupted" in out.err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["cpu"]
    assert sorted(p.name for p in folder.iterdir()) == [MARKER, "results.json"]
    assert (folder / "results.json").read_text(encoding="utf-8") == '{"previous": true}'


def test_a_crash_while_writing_keeps_the_previous_results(monkeypatch, tmp_path, capsys, cpu_run):
    folder = tmp_path / "cpu"
    folder.mkdir()
    (folder / "results.json").write_text('{"previous": true}', encoding="utf-8")
    mark(folder)  # a folder an earlier run wrote: its marker lists its results.json

    def broken(*args, **kwargs):
        raise OSError(28, "No space left on device")

    replay_run(monkeypatch, cpu_run)  # the write is what is tested: the session's run, not another
    monkeypatch.setattr(site, "render_all", broken)
    code, out = run_main(SMALL_CPU + ["--variants", "naive", "--out", str(tmp_path), "--replace"], capsys)
    assert code == 2 and "could not write" in out.err and out.err.count("\n") == 1
    assert sorted(p.name for p in tmp_path.iterdir()) == ["cpu"]
    assert (folder / "results.json").read_text(encoding="utf-8") == '{"previous": true}'


# --- inputs that must never cost a run or committed data ---------------------------

def never_measure(monkeypatch):
    """Make any measurement fail the test: the refusals below must come before one."""
    def boom(*args, **kwargs):
        raise AssertionError("a measurement started")
    monkeypatch.setattr(seed, "measure_variant", boom)
    monkeypatch.setattr(run, "measure_roof", boom)


def test_a_cpu_run_writes_outside_docs_by_default():
    args = build_tables.parse_args(["--device", "cpu"])
    assert args.out == SCRATCH_OUT and GENERATED not in (args.out, *args.out.parents)
    ignored = subprocess.run(["git", "check-ignore", "-q", str(SCRATCH_OUT / "cpu" / "results.json")],
                             cwd=ROOT, capture_output=True)
    assert ignored.returncode == 0, "build-out/ must be git-ignored"
    assert build_tables.parse_args([]).out == GENERATED


@pytest.mark.parametrize("slug", [".", "..", "../elsewhere", "H200", "-x", "a/b", ""])
def test_a_bad_slug_is_refused(slug, capsys, tmp_path):
    code, out = run_main(["--slug", slug, "--out", str(tmp_path)], capsys)
    assert code == 2 and "--slug" in out.err and out.err.count("\n") == 1
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("value", ["nan", "inf", "-inf", "0", "-1", "soon"])
@pytest.mark.parametrize("option", ["--timer-seconds", "--sweep-timer-seconds"])
def test_timer_seconds_must_be_positive_and_finite(option, value, capsys):
    code, out = run_main(["--device", "cpu", f"{option}={value}"], capsys)
    assert code == 2 and option in out.err


def test_steps_states_its_minimum(capsys):
    with pytest.raises(SystemExit):
        build_tables.main(["--help"])
    assert "at least 3" in capsys.readouterr().out


@pytest.mark.parametrize("extra", [["--steps", "5"], ["--seq-len=2048"], ["--device", "cpu"], ["--all"],
                                   ["--rounds", "2"]])
def test_render_only_refuses_options_it_would_ignore(extra, capsys, tmp_path):
    code, out = run_main(["--render-only", "--out", str(tmp_path)] + extra, capsys)
    assert code == 2 and "takes only --out and --slug" in out.err and extra[0].split("=")[0] in out.err


def test_an_out_that_is_a_file_is_refused_before_measuring(monkeypatch, capsys, tmp_path):
    never_measure(monkeypatch)
    target = tmp_path / "file"
    target.write_text("x")
    code, out = run_main(SMALL_CPU + ["--out", str(target / "deeper")], capsys)
    assert code == 2 and "not a folder" in out.err and target.read_text() == "x"


def test_an_unwritable_out_is_refused_before_measuring(monkeypatch, capsys, tmp_path):
    never_measure(monkeypatch)
    made = []

    def read_only(*args, **kwargs):
        made.append(kwargs.get("prefix"))
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(tempfile, "mkstemp", read_only)
    before = set(Path(tempfile.gettempdir()).glob("traces-*"))
    code, out = run_main(SMALL_CPU + ["--out", str(tmp_path)], capsys)
    assert code == 2 and "cannot write" in out.err and out.err.count("\n") == 1
    assert made and set(Path(tempfile.gettempdir()).glob("traces-*")) == before


def results_of(tmp_path, **changes):
    folder = tmp_path / "cpu"
    folder.mkdir(parents=True)
    data = {"schema_version": 1, "provenance": {"gpu_name": "NVIDIA H200"},
            "config": {"batch": 1, "heads": 2, "seq_len": 64, "head_dim": 32, "dtype": "float32"},
            "roof": {"tflops": 1.0}, "variants": {"naive": {}, "math": {}}} | changes
    (folder / "results.json").write_text(json.dumps(data), encoding="utf-8")
    mark(folder)
    return folder / "results.json"


def test_a_run_of_another_device_does_not_replace_its_results(monkeypatch, capsys, tmp_path):
    never_measure(monkeypatch)
    path = results_of(tmp_path)
    before = path.read_bytes()
    code, out = run_main(SMALL_CPU + ["--variants", "naive,math", "--out", str(tmp_path), "--slug", "cpu"],
                         capsys)
    assert code == 2 and "NVIDIA H200" in out.err and "--replace" in out.err
    assert path.read_bytes() == before


def test_a_subset_run_does_not_replace_a_fuller_one(monkeypatch, capsys, tmp_path):
    import platform

    path = results_of(tmp_path, provenance={"gpu_name": f"CPU ({platform.processor() or platform.machine()})"},
                      sweep={"points": []})
    before = path.read_bytes()
    never_measure(monkeypatch)
    code, out = run_main(SMALL_CPU + ["--variants", "naive", "--out", str(tmp_path)], capsys)
    assert code == 2 and "math" in out.err and "--sweep" in out.err and path.read_bytes() == before
    monkeypatch.undo()
    assert build_tables.main(SMALL_CPU + ONE_SHORT_ROUND + ["--variants", "naive", "--out", str(tmp_path), "--replace"]) == 0
    assert list(load_results(path)["variants"]) == ["naive"]


def test_results_json_that_is_a_folder_is_one_line(capsys, tmp_path):
    (tmp_path / "cpu" / "results.json").mkdir(parents=True)
    code, out = run_main(["--render-only", "--out", str(tmp_path), "--slug", "cpu"], capsys)
    assert code == 2 and "is not a file" in out.err and out.err.count("\n") == 1


@pytest.mark.parametrize("roof", [0, -3.0, None, "fast"])
def test_a_roof_that_is_not_a_positive_number_is_refused(roof, capsys, tmp_path):
    folder = copy_committed(tmp_path)
    data = json.loads((folder / "results.json").read_text(encoding="utf-8"))
    data["roof"]["tflops"] = roof
    (folder / "results.json").write_text(json.dumps(data), encoding="utf-8")
    before = snapshot(folder)
    code, out = run_main(["--render-only", "--out", str(folder.parent)], capsys)
    assert code == 2 and "matmul roof" in out.err and snapshot(folder) == before


def test_an_absurdly_long_string_is_refused(capsys, tmp_path):
    folder = copy_committed(tmp_path)
    data = json.loads((folder / "results.json").read_text(encoding="utf-8"))
    data["provenance"]["gpu_name"] = "H" * 1_000_000
    (folder / "results.json").write_text(json.dumps(data), encoding="utf-8")
    code, out = run_main(["--render-only", "--out", str(folder.parent)], capsys)
    assert code == 2 and "results.provenance.gpu_name is longer than" in out.err and len(out.err) < 400


def test_invalid_json_names_the_real_path(capsys, tmp_path):
    folder = copy_committed(tmp_path)
    (folder / "results.json").write_text("{", encoding="utf-8")
    code, out = run_main(["--render-only", "--out", str(folder.parent)], capsys)
    assert code == 2 and f"git checkout -- {folder / 'results.json'}" in out.err and "{path}" not in out.err


def test_a_cpu_allocation_failure_is_one_line(monkeypatch, capsys, tmp_path):
    def no_memory(*args):
        raise RuntimeError("[enforce fail at alloc_cpu.cpp:117] DefaultCPUAllocator: can't allocate memory")

    monkeypatch.setattr(run, "make_inputs", no_memory)
    code, out = run_main(SMALL_CPU + ["--out", str(tmp_path)], capsys)
    assert code == 2 and "do not fit in memory" in out.err and out.err.count("\n") == 1
    assert not (tmp_path / "cpu").exists()


def test_ctrl_c_while_the_profiler_starts_is_exit_130(monkeypatch, capsys, tmp_path):
    from report import snippets

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(snippets.load("profile_attention"), "profile_forward", interrupted)
    code, out = run_main(SMALL_CPU + ["--variants", "naive", "--out", str(tmp_path)], capsys)
    assert code == 130 and "interrupted" in out.err and not (tmp_path / "cpu").exists()


def test_every_timer_uses_the_same_thread_count(monkeypatch, tmp_path):
    """The wall timer times calls in the process's own thread count, the one provenance
    records (torch.utils.benchmark's Timer would default to one thread)."""
    import timeit

    import torch

    from report.measure import timing

    seen = []

    class Spy(timeit.Timer):
        def timeit(self, number=1):
            seen.append(torch.get_num_threads())
            return super().timeit(number)

    monkeypatch.setattr(timing.timeit, "Timer", Spy)
    assert build_tables.main(SMALL_CPU + ONE_SHORT_ROUND + ["--variants", "naive", "--out", str(tmp_path)]) == 0
    prov = load_results(tmp_path / "cpu" / "results.json")["provenance"]
    assert seen and set(seen) == {torch.get_num_threads()} == {prov["cpu_threads"]}


def test_wall_timer_times_about_twenty_blocks_within_its_budget():
    import time

    from report.measure.timing import BLOCKS, MIN_BLOCKS, wall_us

    fast = wall_us(lambda: sum(range(200)), 0.2, with_number=True)
    assert fast["calls_per_run"] > 1 and BLOCKS / 4 <= fast["runs"] <= BLOCKS * 4
    slow = wall_us(lambda: time.sleep(0.05), 0.01, with_number=True)
    assert slow["runs"] == MIN_BLOCKS and slow["calls_per_run"] == 1
    assert 0.05e6 <= slow["median"] < 0.05e6 * 3 and slow["iqr"] >= 0


def test_host_overhead_records_its_spread_and_its_cost_in_small_ops(cpu_run):
    for name in ("naive", "math"):  # cpu_run: factory.CPU_RUN, --host-calls 80
        host = load_results(cpu_run / "results.json")["variants"][name]["host_time_us"]
        assert host["calls"] == 80 and host["slices"] == host["n"] == 80 // PER_SLICE and len(host["quarters"]) == 4
        assert min(host["quarters"]) <= host["median"] <= max(host["quarters"]) and host["spread_pct"] >= 0
        ops = host["per_small_op"]
        # the ratio of two CPU times: a call of attention costs more than one small op
        assert ops["n"] == host["slices"] and ops["median"] > 1 and host["small_op_us"]["median"] > 0
        assert host["gpu_kept_busy"] == 0  # no GPU to keep busy
        assert host["warm"] >= 1 and {"after_wait", "after_switch"} == set(host["first_calls"])
        assert all(f["n"] == host["slices"] and f["median"] > 0 for f in host["first_calls"].values())


@pytest.mark.skipif(__import__("torch").cuda.is_available(), reason="checks the no-GPU path")
@pytest.mark.parametrize("how", [["-m", "benchmarks.stability"], ["benchmarks/stability.py"],
                                 [str(ROOT / "benchmarks" / "stability.py")]])
def test_stability_benchmark_without_a_gpu_is_one_line(how, tmp_path):
    cwd = tmp_path if Path(how[-1]).is_absolute() else ROOT  # the path form from anywhere
    proc = subprocess.run([sys.executable, *how], cwd=cwd, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1 and "no CUDA device" in proc.stderr


def test_sweep_records_out_of_memory_and_refusals_and_goes_on(monkeypatch, tmp_path):
    import torch

    monkeypatch.setattr(sweep, "SWEEP_SEQ_LENS", (32, 64))
    monkeypatch.setattr(sweep, "SWEEP_HEAD_DIMS", (16,))
    real = sweep.make_variant

    def limited(name, cfg, device):
        fn, ctx = real(name, cfg, device)
        if name == "math" and cfg["seq_len"] >= 64:  # a pretend device that holds S < 64 only
            def boom(q, k, v):
                raise torch.cuda.OutOfMemoryError("CUDA out of memory (pretend limit)")
            return boom, ctx
        return fn, ctx

    monkeypatch.setattr(sweep, "make_variant", limited)
    argv = SMALL_CPU + ONE_SHORT_ROUND + ["--variants", "naive,math,efficient", "--sweep", "--out", str(tmp_path)]
    assert build_tables.main(argv) == 0
    results = load_results(tmp_path / "cpu" / "results.json")
    points = {(p["variant"], p["seq_len"]): p for p in results["sweep"]["points"]}
    assert points[("math", 32)]["status"] == "ok" and points[("math", 64)]["status"] == "oom"
    assert points[("efficient", 64)]["status"] == "unsupported"
    assert points[("naive", 64)]["status"] == "ok"  # the sweep went on after the OOM
    table = (tmp_path / "cpu" / "tables" / "sweep-time-d16.nb.md").read_text("utf-8")
    assert "tom for minne" in table and "ikke støttet" in table
    findings = (tmp_path / "cpu" / "tables" / "findings-scaling.en.md").read_text("utf-8")
    assert "SDPA math runs out of memory at sequence length 64 (head dimension 16)" in findings
    assert (tmp_path / "cpu" / "figures" / "sweep-time-d16.en.svg").exists()


def test_backward_section_on_cpu(tmp_path):
    argv = SMALL_CPU + ONE_SHORT_ROUND + ["--variants", "naive,math", "--backward", "--out", str(tmp_path)]
    assert build_tables.main(argv) == 0
    results = load_results(tmp_path / "cpu" / "results.json")
    rows = results["backward"]["rows"]
    assert set(rows) == {"naive", "math"} and all(r["status"] == "ok" for r in rows.values())
    ops = {k["aten_op"] for k in rows["math"]["kernels"]}  # empty on CPU: no GPU activities
    assert ops == set()
    assert "backward.en.md" in {p.name for p in (tmp_path / "cpu" / "tables").iterdir()}


def test_a_failing_section_is_recorded_and_the_run_keeps_the_rest(monkeypatch, tmp_path):
    def broken(*args):
        raise RuntimeError("graph capture exploded")

    monkeypatch.setattr(backward, "measure_backward", broken)
    argv = SMALL_CPU + ONE_SHORT_ROUND + ["--variants", "naive", "--backward", "--out", str(tmp_path)]
    assert build_tables.main(argv) == 0
    results = load_results(tmp_path / "cpu" / "results.json")
    assert results["backward_error"] == "RuntimeError: graph capture exploded"
    assert results["variants"]["naive"]["status"] == "ok"


def test_first_calls_math_switches_and_sweep_backends_on_cpu(tmp_path):
    argv = SMALL_CPU + ["--rounds", "2", "--pairs", "2", "--variants", "math,math_tf32,math_bf16_reduction,flash,auto",
                        "--first-calls",
                        "--sweep", "--sweep-max-seq", "256", "--sweep-steps", "3", "--out", str(tmp_path)]
    assert build_tables.main(argv) == 0
    results = load_results(tmp_path / "cpu" / "results.json")
    assert all(results["variants"][n]["status"] == "ok" for n in ("math_tf32", "math_bf16_reduction"))
    row = results["first_calls"]["rows"]["flash"]
    assert row["status"] == "ok" and row["first_new_shape_ms"] > 0
    assert [r["status"] for r in row["rounds"]] == ["ok"] * results["rounds"]["count"]  # one fresh process per round
    assert all(r["first_call_ms"] > 0 and r["new_thread_first_ms"] > 0 for r in row["rounds"])
    assert results["first_calls"]["new_shape"]["seq_len"] == 128
    tables = tmp_path / "cpu" / "tables"
    assert "SDPA flash" in (tables / "findings-first-calls.en.md").read_text("utf-8")
    assert "bf16 reduction allowed" in (tables / "headline.en.md").read_text("utf-8")


def test_math_switches_are_restored():
    import torch

    from report.measure.callables import math_switch

    before = (torch.backends.cuda.fp16_bf16_reduction_math_sdp_allowed(), torch.backends.cuda.matmul.allow_tf32)
    for name in ("math_bf16_reduction", "math_tf32"):
        with math_switch(name):
            assert (torch.backends.cuda.fp16_bf16_reduction_math_sdp_allowed(),
                    torch.backends.cuda.matmul.allow_tf32) != before
    assert (torch.backends.cuda.fp16_bf16_reduction_math_sdp_allowed(), torch.backends.cuda.matmul.allow_tf32) == before


# --- a run deletes only what it made; every refusal before anything is measured ----------

def tree(folder):
    return sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*"))


@pytest.mark.parametrize("out, slug", [(ROOT / "docs", "generated"), (ROOT, "snippets"),
                                       (ROOT, "report"), (ROOT, "tests")])
def test_a_source_folder_is_never_a_target(out, slug, monkeypatch, capsys):
    never_measure(monkeypatch)
    before = tree(out / slug)
    code, got = run_main(SMALL_CPU + ["--out", str(out), "--slug", slug, "--replace"], capsys)
    assert code == 2 and "never replaces" in got.err and got.err.count("\n") == 1
    assert tree(out / slug) == before


def test_a_users_folder_is_never_replaced_even_with_replace(monkeypatch, capsys, tmp_path):
    monkeypatch.setenv("HOME", str(tmp_path))
    notes = tmp_path / "runs" / "notes"
    notes.mkdir(parents=True)
    (notes / "todo.txt").write_text("mine")
    never_measure(monkeypatch)
    code, got = run_main(SMALL_CPU + ["--out", str(tmp_path / "runs"), "--slug", "notes", "--replace"],
                         capsys)
    assert code == 2 and "not written by build_tables.py" in got.err
    assert tree(tmp_path / "runs") == ["notes", "notes/todo.txt"]


def test_a_dangling_symlink_out_is_refused_before_measuring(monkeypatch, capsys, tmp_path):
    never_measure(monkeypatch)
    (tmp_path / "out").symlink_to(tmp_path / "gone")
    code, got = run_main(SMALL_CPU + ["--out", str(tmp_path / "out")], capsys)
    assert code == 2 and "symbolic link to a missing" in got.err and got.err.count("\n") == 1


@pytest.mark.parametrize("out, says", [("", "is empty"), ("   ", "is empty"), ("a\nb", "line break"),
                                       ("x\x1b[31m", "control character")])
def test_an_empty_or_unprintable_out_is_refused(out, says, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code, got = run_main(SMALL_CPU + ["--out", out], capsys)
    assert code == 2 and "--out" in got.err and says in got.err and got.err.count("\n") == 1
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("argv, says", [
    (["--variants", "naive,math,naive"], "naive given more than once"),
    (["--sweep", "--sweep-max-seq", "100"], "leaves the sweep empty"),
])
def test_an_empty_sweep_and_duplicated_variants_are_refused(argv, says, capsys, tmp_path):
    code, got = run_main(SMALL_CPU + argv + ["--out", str(tmp_path)], capsys)
    assert code == 2 and says in got.err and list(tmp_path.iterdir()) == []


def test_a_shape_that_does_not_fit_in_memory_is_refused_before_allocating(monkeypatch, capsys, tmp_path):
    never_measure(monkeypatch)
    monkeypatch.setattr(run, "make_inputs", lambda *a: pytest.fail("allocated"))
    argv = ["--device", "cpu", "--batch", "1", "--heads", "1", "--seq-len", "1000000",
            "--head-dim", "16", "--out", str(tmp_path)]
    code, got = run_main(argv, capsys)
    assert code == 2 and got.err.count("\n") == 1
    assert "needs about" in got.err and "GiB" in got.err and "smaller shape" in got.err


def test_the_default_cpu_shape_says_how_long_it_takes_before_it_starts(monkeypatch, capsys, tmp_path):
    def stop(*args, **kwargs):
        raise UsageError("stopped before measuring")

    monkeypatch.setattr(run, "run_measurements", stop)
    code, got = run_main(["--device", "cpu", "--out", str(tmp_path)], capsys)
    assert code == 2 and got.out.count("\n") == 1 and "will take roughly" in got.out
    minutes = float(got.out.split("roughly ")[1].split()[0])
    assert minutes >= 10  # it ran over 10 minutes on a laptop
    code, got = run_main(SMALL_CPU + ["--out", str(tmp_path)], capsys)
    assert "will take" not in got.out  # a small shape gets no estimate


def test_a_temporary_folder_that_cannot_be_written_is_refused_before_measuring(monkeypatch, capsys, tmp_path):
    never_measure(monkeypatch)
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "no-such-tmp"))
    code, got = run_main(SMALL_CPU + ["--out", str(tmp_path / "out")], capsys)
    assert code == 2 and "TMPDIR" in got.err and got.err.count("\n") == 1


def test_previous_results_untouched_is_said_only_where_there_were_some(monkeypatch, capsys, tmp_path, cpu_run):
    def broken(*args, **kwargs):
        raise OSError(28, "No space left on device")

    replay_run(monkeypatch, cpu_run)  # the write is what is tested: the session's run, not another
    monkeypatch.setattr(site, "render_all", broken)
    code, got = run_main(SMALL_CPU + ["--variants", "naive", "--out", str(tmp_path)], capsys)
    assert code == 2 and "nothing was written" in got.err and "untouched" not in got.err
    assert list(tmp_path.iterdir()) == []


def test_ctrl_c_while_the_profiler_starts_is_one_line_and_130(monkeypatch, capsys, tmp_path):
    import os
    import signal

    def profiler_start(*args, **kwargs):  # what torch.profiler does when Ctrl-C hits its start
        try:
            os.kill(os.getpid(), signal.SIGINT)
        except KeyboardInterrupt:
            raise AssertionError("Profiler must be initialized before exiting") from None

    monkeypatch.setattr(seed, "_profile", profiler_start)
    code, got = run_main(SMALL_CPU + ["--variants", "naive", "--out", str(tmp_path)], capsys)
    assert code == 130 and got.err == "build_tables.py: interrupted; the existing results were left as they were\n"
    assert list(tmp_path.iterdir()) == []


def test_ctrl_c_swallowed_by_a_section_still_stops_the_run(monkeypatch, capsys, tmp_path):
    import os
    import signal

    def swallowing(*args):
        try:
            os.kill(os.getpid(), signal.SIGTERM)
        except KeyboardInterrupt as err:
            raise RuntimeError("the section failed") from err

    monkeypatch.setattr(backward, "measure_backward", swallowing)  # _sections records it as an error
    code, got = run_main(SMALL_CPU + ["--variants", "naive", "--backward", "--out", str(tmp_path)], capsys)
    assert code == 143 and "terminated" in got.err and list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("signame, code", [("SIGTERM", 143), ("SIGINT", 130)])
def test_a_signal_mid_run_cleans_up_after_itself(signame, code, tmp_path):
    import os
    import signal

    tmp, out = tmp_path / "tmp", tmp_path / "out"
    tmp.mkdir()
    argv = [sys.executable, "build_tables.py", *SMALL_CPU, "--variants", "naive,math", "--host-calls",
            "100000", "--out", str(out)]
    proc = subprocess.Popen(argv, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env={**os.environ, "TMPDIR": str(tmp)})
    for line in proc.stdout:  # the host timing of 100000 calls takes a while: stop it there
        if line.startswith("[2/2]"):
            break
    proc.send_signal(getattr(signal, signame))
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == code, err
    ours = [line for line in err.splitlines() if not line.startswith("USDT:")]  # the profiler's log
    assert len(ours) == 1 and "existing results were left as they were" in ours[0] and "Traceback" not in err
    ours = [p.name for p in tmp.iterdir() if not p.name.startswith("torchinductor_")]  # torch's cache
    assert ours == [] and (not out.exists() or list(out.iterdir()) == [])


def test_a_deeply_nested_or_huge_results_json_is_one_line(capsys, tmp_path):
    folder = tmp_path / "cpu"
    folder.mkdir()
    (folder / "results.json").write_text('{"schema_version": 1, "x": ' + "[" * 100_000 + "]" * 100_000 + "}")
    code, got = run_main(["--render-only", "--out", str(tmp_path), "--slug", "cpu"], capsys)
    assert code == 2 and "nested deeper than" in got.err and got.err.count("\n") == 1
    with open(folder / "results.json", "wb") as f:
        f.truncate(60 * 2**20)  # sparse: costs no disk
    code, got = run_main(["--render-only", "--out", str(tmp_path), "--slug", "cpu"], capsys)
    assert code == 2 and "60 MB, more than the 50 MB" in got.err


def test_a_schema_version_as_text_is_told_apart(capsys, tmp_path):
    folder = copy_committed(tmp_path)
    data = json.loads((folder / "results.json").read_text(encoding="utf-8"))
    data["schema_version"] = "1"
    (folder / "results.json").write_text(json.dumps(data), encoding="utf-8")
    code, got = run_main(["--render-only", "--out", str(folder.parent)], capsys)
    assert code == 2 and "schema version '1', this build_tables.py reads versions 1 and 2" in got.err


def test_render_only_of_the_comparison_slug(capsys):
    code, got = run_main(["--render-only", "--slug", "compare"], capsys)
    assert code == 2 and "without --slug" in got.err and "run on a GPU" not in got.err


def test_an_out_of_memory_message_keeps_the_allocation_size_whole(monkeypatch, capsys, tmp_path):
    message = ("CUDA out of memory. Tried to allocate 64.00 GiB. GPU 0 has a total capacity of 139.81 GiB "
               "of which 75.25 GiB is free. Including non-PyTorch memory, this process has 64.54 GiB in use.")

    def oom(*args):
        raise RuntimeError(message)

    monkeypatch.setattr(run, "make_inputs", oom)
    code, got = run_main(SMALL_CPU + ["--out", str(tmp_path)], capsys)
    assert code == 2 and got.err.count("\n") == 1
    assert "Tried to allocate 64.00 GiB. GPU 0 has a total capacity of 139.81 GiB of which 75.25 GiB is free." in got.err
    assert "is free.); use a smaller shape" in got.err  # the rest is left out at a sentence's end


def test_every_option_says_what_it_does():
    """`--help` explains each option (issue 30, item 7: --device had none)."""
    bare = [a.option_strings for a in build_tables._parser()._actions
            if a.option_strings and not (a.help or "").strip()]
    assert bare == []


def test_the_small_shapes_traces_are_kept_eagerly_and_replayed_where_a_graph_can_be_captured(tmp_path):
    """overhead.record_traces: the eager trace always; the replay's where CUDA graphs exist,
    one cudaGraphLaunch per profiled step putting the call's kernels on the GPU."""
    import argparse
    import gzip

    import torch

    from report.measure.callables import make_inputs, make_variant

    device = "cuda" if torch.cuda.is_available() else "cpu"
    cfg = {"batch": 1, "heads": 2, "seq_len": 64, "head_dim": 32}
    fn, ctx = make_variant(overhead.TRACED, cfg, device)
    q, k, v = make_inputs(cfg, torch.float16 if device == "cuda" else torch.float32, device)
    with ctx(), torch.no_grad():
        overhead.record_traces(torch, fn, q, k, v, argparse.Namespace(steps=4), tmp_path)
    kept = sorted(p.name for p in tmp_path.iterdir())
    assert kept == (["small_auto.json.gz", "small_auto_graph.json.gz"] if device == "cuda" else ["small_auto.json.gz"])
    events = json.loads(gzip.open(tmp_path / "small_auto.json.gz", "rt").read())["traceEvents"]
    assert sum(e.get("name") == "small_auto_fwd" and e.get("ph") == "X" for e in events) >= 4
    if device == "cuda":
        replay = json.loads(gzip.open(tmp_path / "small_auto_graph.json.gz", "rt").read())["traceEvents"]
        assert sum(e.get("name") == "cudaGraphLaunch" for e in replay) >= 4
        assert any(e.get("cat") == "kernel" for e in replay)
