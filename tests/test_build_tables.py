"""build_tables.py: trace parsing, occupancy, rendering and error paths (CPU only).

The traces under tests/fixtures/h200/ were recorded on an NVIDIA H200 by build_tables.py and
cut down by tests/fixtures/make_fixtures.py; the facts asserted here are facts of those traces.
"""
import gzip
import json
import math
import shutil
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "snippets")]

import build_tables as bt  # noqa: E402
from occupancy import GpuLimits, blocks_per_sm, occupancy  # noqa: E402

FIXTURES = ROOT / "tests" / "fixtures" / "h200"
GENERATED = ROOT / "docs" / "generated"
FUSED_BACKEND_OPS = {"flash": "aten::_flash_attention_forward",
                     "efficient": "aten::_efficient_attention_forward",
                     "cudnn": "aten::_cudnn_attention_forward"}


def fixture(variant):
    with gzip.open(FIXTURES / f"{variant}.json.gz", "rt") as fh:
        return bt.analyze_trace(json.load(fh), f"{variant}_fwd")


@pytest.fixture(scope="module")
def parsed():
    return {v: fixture(v) for v in bt.VARIANTS}


def kinds(analysis):
    out = {}
    for k in analysis["kernels"]:
        out[k["kind"]] = out.get(k["kind"], 0) + k["per_forward"]
    return out


# --- trace parsing -------------------------------------------------------------------

def test_every_fixture_has_whole_forward_passes(parsed):
    for variant, a in parsed.items():
        assert a["steps"] == 4, variant
        assert a["cuda_time_us"]["n"] == 4 and a["cpu_time_us"]["n"] == 4
        # every step launched the same number of GPU activities
        assert a["gpu_activities_per_forward"]["min"] == a["gpu_activities_per_forward"]["max"]
        # the GPU-side range spans its kernels, so it can't be shorter than their sum
        assert a["cuda_time_us"]["min"] >= a["kernel_sum_us"]["min"] - 0.01, variant


def test_out_of_place_masked_fill_adds_exactly_one_memcpy(parsed):
    naive, inplace = kinds(parsed["naive"]), kinds(parsed["naive_inplace"])
    assert naive.get("memcpy") == 1 and "memcpy" not in inplace
    assert naive["kernel"] == inplace["kernel"]
    memcpy = next(k for k in parsed["naive"]["kernels"] if k["kind"] == "memcpy")
    assert memcpy["aten_op"] == "aten::copy_" and "DtoD" in memcpy["name"]
    assert parsed["naive"]["cpu_ops_per_forward"]["aten::masked_fill"] == 1
    assert "aten::masked_fill" not in parsed["naive_inplace"]["cpu_ops_per_forward"]


def test_math_backend_upcasts_rebuilds_the_mask_and_uses_safe_softmax(parsed):
    math_ = parsed["math"]
    assert math_["gpu_activities_per_forward"]["median"] == 20
    ops = math_["cpu_ops_per_forward"]
    for op in ("aten::_safe_softmax", "aten::tril", "aten::ones", "aten::where"):
        assert ops.get(op, 0) >= 1, op
    gemms = [k for k in math_["kernels"] if "gemm" in k["name"]]
    assert len(gemms) == 2 and all("f32f32" in k["name"] for k in gemms)
    assert any(k["aten_op"] == "aten::tril" for k in math_["kernels"])
    # the hand-written version keeps bf16 matmuls (no fp32 gemm)
    assert not any("f32f32" in k["name"] for k in parsed["naive"]["kernels"])


def test_each_fused_backend_is_one_kernel(parsed):
    for variant, op in FUSED_BACKEND_OPS.items():
        compute = [k for k in parsed[variant]["kernels"] if k["kind"] == "kernel"]
        assert len(compute) == 1 and compute[0]["per_forward"] == 1, variant
        assert compute[0]["aten_op"] == op
        assert bt.backend_of_kernels([k["name"] for k in compute]) == variant


def test_backend_detection_reads_kernel_names(parsed):
    assert bt.backend_of_kernels([k["name"] for k in parsed["math"]["kernels"]]) == "math"
    # on this H200 SDPA picked cuDNN by itself
    assert bt.backend_of_kernels([k["name"] for k in parsed["auto"]["kernels"]]) == "cudnn"


def test_cudnn_kernel_is_launched_through_the_driver_api(parsed):
    kernel = next(k for k in parsed["cudnn"]["kernels"] if k["kind"] == "kernel")
    assert kernel["launched_by"] == "cuLaunchKernelEx"
    # ...and CUPTI still recorded its launch resources
    assert kernel["registers_per_thread"] > 0 and kernel["shared_memory"] > 48 * 1024


def test_cuda_time_without_gpu_ranges_falls_back_to_kernel_span():
    with gzip.open(FIXTURES / "flash.json.gz", "rt") as fh:
        trace = json.load(fh)
    full = bt.analyze_trace(trace, "flash_fwd")
    trace["traceEvents"] = [e for e in trace["traceEvents"] if e.get("cat") != "gpu_user_annotation"]
    bare = bt.analyze_trace(trace, "flash_fwd")
    assert bare["cuda_time_us"]["median"] == pytest.approx(full["kernel_sum_us"]["median"], abs=0.01)


def test_missing_range_is_a_clear_error():
    with gzip.open(FIXTURES / "flash.json.gz", "rt") as fh:
        trace = json.load(fh)
    with pytest.raises(ValueError, match="no record_function range named 'nope'"):
        bt.analyze_trace(trace, "nope")


def test_short_kernel_names():
    assert bt.short_kernel_name(
        "void at::native::(anonymous namespace)::cunn_SoftMaxForward<4, float>(float*, int)"
    ) == "at::native::cunn_SoftMaxForward"
    assert bt.short_kernel_name("Memcpy DtoD (Device -> Device)") == "Memcpy DtoD"
    assert bt.short_kernel_name("nvjet_sm90_tst_64x8") == "nvjet_sm90_tst_64x8"


# --- occupancy -----------------------------------------------------------------------

def kineto_round(x):
    return math.floor(x + 0.5)


def test_occupancy_reproduces_kineto_for_every_fixture_kernel(parsed):
    checked = 0
    for variant, a in parsed.items():
        limits = GpuLimits.from_trace(a["device_properties"])
        for k in bt.add_occupancy(a["kernels"], limits):
            if k["kind"] == "kernel":
                assert k["kineto_occupancy_pct"] is not None
                assert kineto_round(k["our_kineto_rule_pct"]) == k["kineto_occupancy_pct"], \
                    (variant, k["short_name"])
                checked += 1
    assert checked >= 20


def test_h200_flash_and_cudnn_readings(parsed):
    limits = GpuLimits.from_trace(parsed["flash"]["device_properties"])
    flash = bt.add_occupancy(parsed["flash"]["kernels"], limits)[0]
    assert (flash["registers_per_thread"], math.prod(flash["block"])) == (255, 128)
    assert flash["our_optin_blocks"] == 2 and flash["our_optin_pct"] == 12.5
    assert flash["kineto_occupancy_pct"] == 13
    cudnn = next(k for k in bt.add_occupancy(parsed["cudnn"]["kernels"], limits) if k["kind"] == "kernel")
    # Kineto's 0 % comes from its default 48 KiB shared-memory limit per block ...
    assert cudnn["kineto_occupancy_pct"] == 0 and cudnn["our_kineto_rule_pct"] == 0
    # ... while the kernel, which opted in to more, really holds one block per SM
    assert cudnn["our_optin_blocks"] == 1 and cudnn["our_optin_pct"] > 0


A100 = GpuLimits(name="A100", compute_capability=(8, 0), sm_count=108, max_threads_per_sm=2048,
                 regs_per_sm=65536, regs_per_block=65536, smem_per_sm=167936,
                 smem_per_block=49152, smem_per_block_optin=166912)


def test_a100_arithmetic_of_the_original_study():
    # flash: 128 threads x 255 registers -> 2 blocks -> 8 of 64 warps
    pct, blocks, why = occupancy(A100, 255, 128, 0)
    assert (blocks, pct, why) == (2, 12.5, ["registers"])
    # cuDNN: 256 threads x 240 registers = 61 440 registers -> 1 block -> 8 warps
    pct, blocks, why = occupancy(A100, 240, 256, 0)
    assert (blocks, pct, why) == (1, 12.5, ["registers"])


def test_register_allocation_granularity_and_other_limits():
    # 33 registers round up to 40 per thread (1280 per warp): 12 warps per scheduler
    assert blocks_per_sm(A100, 33, 32, 0)[0] == 32  # capped by the 32-block limit
    assert blocks_per_sm(A100, 33, 1024, 0) == (1, ["registers"])
    assert blocks_per_sm(A100, 16, 1024, 0) == (2, ["warps"])
    # too many registers for one block: it can't launch
    assert blocks_per_sm(A100, 255, 1024, 0)[0] == 0
    # shared memory: over the default 48 KiB only with opt-in
    assert blocks_per_sm(A100, 32, 128, 60 * 1024, opted_in=False)[0] == 0
    assert blocks_per_sm(A100, 32, 128, 60 * 1024, opted_in=True) == (2, ["shared memory"])
    # a small grid caps the estimate the way Kineto does
    pct, blocks, why = occupancy(A100, 32, 128, 0, grid_blocks=54)
    assert (blocks, why, pct) == (0.5, ["grid"], 0.5 * 128 / 2048 * 100)


# --- rendering -----------------------------------------------------------------------

def test_number_formats_follow_the_locale():
    assert bt.fmt_us(1955.0, "nb") == "1,955 ms" and bt.fmt_us(1955.0, "en") == "1.955 ms"
    assert bt.fmt_us(146.8, "nb") == "146,8 µs" and bt.fmt_us(146.8, "en") == "146.8 µs"
    assert bt.fmt_num(7239, "nb", 0) == "7\u00a0239" and bt.fmt_num(7239, "en", 0) == "7,239"
    assert bt.fmt_pct(13, "nb", 0) == "13\u00a0%" and bt.fmt_pct(13, "en", 0) == "13%"
    assert bt.fmt_ratio(3.7, "nb") == "3,7×"


def committed_result_dirs():
    return sorted(p.parent for p in GENERATED.glob("*/results.json"))


def test_there_are_committed_gpu_results():
    slugs = [d.name for d in committed_result_dirs()]
    assert "h200" in slugs


@pytest.mark.parametrize("folder", committed_result_dirs(), ids=lambda p: p.name)
def test_committed_tables_and_figures_are_exactly_what_results_json_renders(folder, tmp_path):
    results = bt.load_results(folder / "results.json")
    written = bt.render_all(results, bt.load_reference(), tmp_path / "tables", tmp_path / "figures")
    committed = sorted(p.relative_to(folder).as_posix() for part in ("tables", "figures")
                       for p in (folder / part).glob("*"))
    assert sorted(p.relative_to(tmp_path).as_posix() for p in written) == committed
    for path in written:
        rel = path.relative_to(tmp_path)
        assert path.read_bytes() == (folder / rel).read_bytes(), rel


@pytest.mark.parametrize("folder", committed_result_dirs(), ids=lambda p: p.name)
def test_committed_results_record_provenance(folder):
    results = bt.load_results(folder / "results.json")
    prov = results["provenance"]
    for key in ("gpu_name", "driver", "cuda", "torch", "cudnn", "date", "command", "snippet_sha256"):
        assert prov.get(key), key
    assert prov["command"].startswith("python build_tables.py")
    assert set(prov["snippet_sha256"]) == set(bt.SNIPPET_FILES)
    for name, row in results["variants"].items():
        assert row["status"] in ("ok", "unsupported", "oom", "error")
        if row["status"] == "ok":
            assert row["steps"] == results["config"]["steps"]


@pytest.mark.parametrize("folder", committed_result_dirs(), ids=lambda p: p.name)
def test_committed_results_came_from_the_committed_snippets(folder):
    """A change to a measured snippet means the numbers must be measured again."""
    results = bt.load_results(folder / "results.json")
    assert results["provenance"]["snippet_sha256"] == bt.snippet_hashes()


def test_generated_tables_carry_header_and_gpu_caption():
    for folder in committed_result_dirs():
        gpu = bt.load_results(folder / "results.json")["provenance"]["gpu_name"]
        for path in (folder / "tables").glob("*.md"):
            text = path.read_text(encoding="utf-8")
            lang = path.name.split(".")[-2]
            assert text.startswith(bt.TEXT["header"][lang]), path.name
            assert f"**{gpu}**" in text, path.name


def test_headline_cites_the_a100_figures_in_both_languages(tmp_path):
    results = bt.load_results(GENERATED / "h200" / "results.json")
    ref = bt.load_reference()
    for lang in bt.LANGS:
        body = bt.render_headline(results, ref, lang)
        assert bt.fmt_us(7239.0, lang) in body and bt.fmt_us(146.8, lang) in body
    written = bt.render_all(results, ref, tmp_path)
    headline = (tmp_path / "headline.nb.md").read_text(encoding="utf-8")
    assert ref["source"]["url"] in headline and len(written) % 2 == 0


# --- command line and error paths ----------------------------------------------------

def run_main(argv, capsys):
    try:
        code = bt.main(argv)
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
    code = bt.main(SMALL_CPU + ["--variants", "naive,math,efficient,auto", "--out", str(out)])
    assert code == 0
    return out / "cpu"


def test_cpu_run_writes_results_tables_and_traces(cpu_run):
    results = bt.load_results(cpu_run / "results.json")
    assert results["provenance"]["gpu_name"].startswith("CPU")
    assert list(results["variants"]) == ["naive", "math", "efficient", "auto"]
    naive = results["variants"]["naive"]
    assert naive["status"] == "ok" and naive["rel_error"] < 1e-5
    assert naive["cuda_time_us"] is None and naive["cpu_time_us"]["n"] == 3
    assert (cpu_run / "traces" / "naive.json.gz").exists()
    for lang in bt.LANGS:
        text = (cpu_run / "tables" / f"headline.{lang}.md").read_text(encoding="utf-8")
        assert "CPU" in text


def test_unsupported_backend_gets_a_row_with_the_reason_and_the_run_goes_on(cpu_run):
    results = bt.load_results(cpu_run / "results.json")
    row = results["variants"]["efficient"]
    assert row["status"] == "unsupported" and len(row["reason"]) > 20
    assert results["variants"]["auto"]["status"] == "ok"
    text = (cpu_run / "tables" / "headline.nb.md").read_text(encoding="utf-8")
    assert "ikke støttet" in text


def test_out_of_memory_gets_a_row_and_the_run_goes_on(monkeypatch, tmp_path):
    import torch

    real = bt.make_variant

    def fake(name, cfg, device, torch_):
        if name == "math":
            def boom(q, k, v):
                raise torch.cuda.OutOfMemoryError("CUDA out of memory. Tried to allocate 64.00 GiB")
            return boom, real(name, cfg, device, torch_)[1]
        return real(name, cfg, device, torch_)

    monkeypatch.setattr(bt, "make_variant", fake)
    assert bt.main(SMALL_CPU + ["--variants", "math,naive", "--out", str(tmp_path)]) == 0
    results = bt.load_results(tmp_path / "cpu" / "results.json")
    assert results["variants"]["math"] == {"status": "oom", "label": "math",
                                           "reason": "CUDA out of memory. Tried to allocate 64.00 GiB"}
    assert results["variants"]["naive"]["status"] == "ok"
    assert "tom for minne" in (tmp_path / "cpu" / "tables" / "headline.nb.md").read_text("utf-8")


def test_ctrl_c_mid_run_keeps_the_previous_results(monkeypatch, tmp_path, capsys):
    folder = tmp_path / "cpu"
    folder.mkdir()
    (folder / "results.json").write_text('{"previous": true}', encoding="utf-8")
    calls = []
    real = bt.measure_variant

    def interrupted(name, *args):
        calls.append(name)
        if len(calls) == 2:
            raise KeyboardInterrupt
        return real(name, *args)

    monkeypatch.setattr(bt, "measure_variant", interrupted)
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

    monkeypatch.setattr(bt, "render_all", broken)
    with pytest.raises(OSError, match="disk full"):
        bt.main(SMALL_CPU + ["--variants", "naive", "--out", str(tmp_path)])
    assert sorted(p.name for p in tmp_path.iterdir()) == ["cpu"]
    assert (folder / "results.json").read_text(encoding="utf-8") == '{"previous": true}'


# --- beyond the seed's shape (build_extra.py) -----------------------------------------

def test_kernel_span_covers_kernels_the_gpu_range_misses():
    with gzip.open(FIXTURES / "naive.json.gz", "rt") as fh:
        trace = json.load(fh)
    # hide the GPU-side range of the first step: kernel_span must not need it
    span = bt.analyze_trace(trace, "naive_fwd", cuda_time="kernel_span")
    ranged = bt.analyze_trace(trace, "naive_fwd")
    assert span["cuda_time_us"]["n"] == 4
    assert span["cuda_time_us"]["min"] >= span["kernel_sum_us"]["min"] - 0.01
    assert span["cuda_time_us"]["median"] <= ranged["cuda_time_us"]["median"] + 0.01


def test_sweep_records_out_of_memory_and_refusals_and_goes_on(monkeypatch, tmp_path):
    import torch

    import build_extra

    monkeypatch.setattr(build_extra, "SWEEP_SEQ_LENS", (32, 64))
    monkeypatch.setattr(build_extra, "SWEEP_HEAD_DIMS", (16,))
    real = bt.make_variant

    def limited(name, cfg, device, torch_):
        fn, ctx = real(name, cfg, device, torch_)
        if name == "math" and cfg["seq_len"] >= 64:  # a pretend device that holds S < 64 only
            def boom(q, k, v):
                raise torch.cuda.OutOfMemoryError("CUDA out of memory (pretend limit)")
            return boom, ctx
        return fn, ctx

    monkeypatch.setattr(bt, "make_variant", limited)
    argv = SMALL_CPU + ["--variants", "naive,math,efficient", "--sweep", "--out", str(tmp_path)]
    assert bt.main(argv) == 0
    results = bt.load_results(tmp_path / "cpu" / "results.json")
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
    assert bt.main(argv) == 0
    results = bt.load_results(tmp_path / "cpu" / "results.json")
    rows = results["backward"]["rows"]
    assert set(rows) == {"naive", "math"} and all(r["status"] == "ok" for r in rows.values())
    ops = {k["aten_op"] for k in rows["math"]["kernels"]}  # empty on CPU: no GPU activities
    assert ops == set()
    assert "backward.en.md" in {p.name for p in (tmp_path / "cpu" / "tables").iterdir()}


def test_a_failing_section_is_recorded_and_the_run_keeps_the_rest(monkeypatch, tmp_path):
    import build_extra

    def broken(*args):
        raise RuntimeError("graph capture exploded")

    monkeypatch.setattr(build_extra, "measure_backward", broken)
    argv = SMALL_CPU + ["--variants", "naive", "--backward", "--out", str(tmp_path)]
    assert bt.main(argv) == 0
    results = bt.load_results(tmp_path / "cpu" / "results.json")
    assert results["backward_error"] == "RuntimeError: graph capture exploded"
    assert results["variants"]["naive"]["status"] == "ok"


def test_figures_are_deterministic(tmp_path):
    results = bt.load_results(GENERATED / "h200" / "results.json")
    import build_extra

    a = build_extra.render_figures(bt, results, "nb", tmp_path / "a")
    b = build_extra.render_figures(bt, results, "nb", tmp_path / "b")
    assert a and [p.read_bytes() for p in a] == [p.read_bytes() for p in b]
    text = a[0].read_text("utf-8")
    assert "NVIDIA H200" in text and "<dc:date>" not in text
    assert "<!-- generated by build_tables.py from results.json: do not edit by hand -->" in text
