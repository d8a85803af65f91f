"""build_tables.py, the command: arguments, error paths, and small runs on the CPU."""
import json
import shutil

import pytest

import build_tables
from report.measure import backward, seed, sweep
from report.paths import DEFAULT_OUT as GENERATED
from report.render import site
from report.results import load_results
from report.variants import LANGS


def run_main(argv, capsys):
    try:
        code = build_tables.main(argv)
    except SystemExit as exc:  # argparse
        code = exc.code
    return code, capsys.readouterr()


@pytest.mark.parametrize("argv, message", [
    (["--variants", "naive,turbo"], "unknown variant(s) turbo"),
    (["--seq-len", "0"], "must be at least 1"),
    (["--head-dim", "sixty-four"], "is not a whole number"),
    (["--head-dim", "4096"], "larger than any attention kernel"),
    (["--batch", "100000", "--seq-len", "1000000"], "more than 2^34 elements"),
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
    dst = tmp_path / "generated" / "h200"
    shutil.copytree(GENERATED / "h200" / "tables", dst / "tables")
    shutil.copytree(GENERATED / "h200" / "figures", dst / "figures")
    shutil.copy(GENERATED / "h200" / "results.json", dst / "results.json")
    return dst


def snapshot(folder):
    return {p.relative_to(folder): p.read_bytes() for p in folder.rglob("*") if p.is_file()}


def test_render_only_reproduces_and_leaves_no_staging(tmp_path, capsys):
    folder = copy_committed(tmp_path)
    before = snapshot(folder)
    code, _ = run_main(["--render-only", "--out", str(folder.parent)], capsys)
    assert code == 0 and snapshot(folder) == before
    assert sorted(p.name for p in folder.iterdir()) == ["figures", "results.json", "tables"]


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


SMALL_CPU = ["--device", "cpu", "--batch", "1", "--heads", "2", "--seq-len", "64", "--head-dim", "32",
             "--dtype", "float32", "--steps", "3", "--timer-seconds", "0.01", "--host-calls", "5"]


@pytest.fixture(scope="module")
def cpu_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("cpu-run")
    code = build_tables.main(SMALL_CPU + ["--variants", "naive,math,efficient,auto", "--out", str(out)])
    assert code == 0
    return out / "cpu"


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
    assert build_tables.main(SMALL_CPU + ["--variants", "math,naive", "--out", str(tmp_path)]) == 0
    results = load_results(tmp_path / "cpu" / "results.json")
    assert results["variants"]["math"] == {"status": "oom", "label": "math",
                                           "reason": "CUDA out of memory. Tried to allocate 64.00 GiB"}
    assert results["variants"]["naive"]["status"] == "ok"
    assert "tom for minne" in (tmp_path / "cpu" / "tables" / "headline.nb.md").read_text("utf-8")


def test_ctrl_c_mid_run_keeps_the_previous_results(monkeypatch, tmp_path, capsys):
    folder = tmp_path / "cpu"
    folder.mkdir()
    (folder / "results.json").write_text('{"previous": true}', encoding="utf-8")
    calls = []
    real = seed.measure_variant

    def interrupted(torch, name, *args):
        calls.append(name)
        if len(calls) == 2:
            raise KeyboardInterrupt
        return real(torch, name, *args)

    monkeypatch.setattr(seed, "measure_variant", interrupted)
    code, out = run_main(SMALL_CPU + ["--variants", "naive,math", "--out", str(tmp_path)], capsys)
    assert code == 130 and "interrupted" in out.err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["cpu"]
    assert sorted(p.name for p in folder.iterdir()) == ["results.json"]
    assert (folder / "results.json").read_text(encoding="utf-8") == '{"previous": true}'


def test_a_crash_while_writing_keeps_the_previous_results(monkeypatch, tmp_path):
    folder = tmp_path / "cpu"
    folder.mkdir()
    (folder / "results.json").write_text('{"previous": true}', encoding="utf-8")

    def broken(*args):
        raise OSError("disk full")

    monkeypatch.setattr(site, "render_all", broken)
    with pytest.raises(OSError, match="disk full"):
        build_tables.main(SMALL_CPU + ["--variants", "naive", "--out", str(tmp_path)])
    assert sorted(p.name for p in tmp_path.iterdir()) == ["cpu"]
    assert (folder / "results.json").read_text(encoding="utf-8") == '{"previous": true}'


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
    argv = SMALL_CPU + ["--variants", "naive,math,efficient", "--sweep", "--out", str(tmp_path)]
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
    argv = SMALL_CPU + ["--variants", "naive,math", "--backward", "--out", str(tmp_path)]
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
    argv = SMALL_CPU + ["--variants", "naive", "--backward", "--out", str(tmp_path)]
    assert build_tables.main(argv) == 0
    results = load_results(tmp_path / "cpu" / "results.json")
    assert results["backward_error"] == "RuntimeError: graph capture exploded"
    assert results["variants"]["naive"]["status"] == "ok"
