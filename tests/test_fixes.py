"""Each refusal beside its fix (issue 52): the collections of report/collect/fix_collector.py are
derived at render time (report/render/fixes.py), with the host as the unit, and only
collections of one code and one set of versions are pooled."""
import copy
import gzip
import json
import random

import pytest

from report.output.fix_files import fix_collections
from report.render import fixes
from report.render.keyed import keyed
from report.results import UsageError, collect_hashes
from report.text.catalog import t

CODE = {"report/collect/fix_collector.py": "ab"}  # the collecting code "as it is now" of these tests
RANGE = "fixes: one call"


def call_trace(kernels, runtime=(), after=()):
    """A made-up export of one profiled call, as the profiler writes it: the call's range, the
    runtime calls inside it (runtime) and after it (after: the collector's synchronisation),
    and the GPU activities ([name, µs] or [name, µs, category])."""
    events = [{"ph": "X", "cat": "user_annotation", "name": RANGE, "ts": 100.0, "dur": 50.0, "pid": 1, "tid": 7}]
    events += [{"ph": "X", "cat": "cuda_runtime", "name": n, "ts": 110.0 + i, "dur": d, "pid": 1, "tid": 7,
                "args": {"correlation": i}} for i, (n, d) in enumerate(runtime)]
    events += [{"ph": "X", "cat": "cuda_runtime", "name": n, "ts": 160.0 + i, "dur": d, "pid": 1, "tid": 7,
                "args": {"correlation": 100 + i}} for i, (n, d) in enumerate(after)]
    events += [{"ph": "X", "cat": k[2] if len(k) > 2 else "kernel", "name": k[0], "ts": 120.0 + i, "dur": k[1],
                "pid": 0, "tid": 7, "args": {"correlation": i, "device": 0, "stream": 7}}
               for i, k in enumerate(kernels)]
    return {"schemaVersion": 1, "traceEvents": events}


def collection(host="h1", boot="b1", torch="2.11.0+cu130", fix_speed=0.5, error=0.003, seed=0, pairs=20):
    """A made-up collection of one group: causal_mask as written (cuDNN), is_causal taking
    fix_speed of its time per pair."""
    rng = random.Random(seed)
    ref = [100.0 * (1 + 0.02 * rng.random()) for _ in range(pairs)]
    fix = [r * fix_speed * (1 + 0.01 * rng.random()) for r in ref]
    return {
        "protocol": 2, "collector": "fixes", "identity": {"protocol": 2, "sha256": dict(CODE)},
        "call_range": RANGE, "inductor_cache_files": 0,
        "host": {"host_id": host, "gpu_uuid_id": host, "boot_id": boot, "gpu_name": "NVIDIA H100 80GB HBM3",
                 "started": f"2026-12-07T21:0{seed}:00Z",
                 "versions": {"torch": torch, "cuda": "13.0", "cudnn": "9.19.0", "driver": "580.159.04"}},
        "groups": {"causal_mask": {"reference": "sdpa", "work": {}, "entries": {
            "sdpa": {"blocks_us": ref, "trace": call_trace([["cudnn_generated_fort_native_sdpa_sm90", 90.0]]),
                     "error": 0.002, "first_call_ms": 3.0},
            "is_causal": {"blocks_us": fix, "trace": call_trace([["flash_fwd_kernel", 40.0]]), "error": error,
                          "first_call_ms": 1.0},
        }}},
    }


def three_hosts(**kw):
    return [(f"c{i}.json.gz", collection(host=f"h{i}", seed=i, **kw)) for i in range(3)]


def test_a_fix_twice_as_fast_on_three_hosts_is_faster_and_runs_what_its_kernels_show():
    kept, left = fixes.pool(fixes.checked(three_hosts()), CODE)
    assert len(kept) == 3 and left == []
    row = next(r for r in fixes.rows(kept) if r.entry == "is_causal")
    assert row.ran == "flash" and row.right
    assert row.verdict.runs == 3 and row.verdict.order == ">"  # the fix (b) below the call as written (a)
    assert 0.49 < row.verdict.ratio < 0.52
    ref = next(r for r in fixes.rows(kept) if r.reference)
    assert ref.ran == "cudnn" and 100 <= ref.wall_us <= 102


def test_the_same_gpu_twice_is_one_host_and_one_host_decides_across_its_processes_only():
    same = [(f"c{i}.json.gz", collection(host="h1", boot=f"b{i}", seed=i)) for i in range(2)]
    kept, _ = fixes.pool(fixes.checked(same), CODE)
    row = next(r for r in fixes.rows(kept) if r.entry == "is_causal")
    assert row.verdict.runs == 1 and row.verdict.processes == 2


def test_a_wrong_result_shows_no_time():
    kept, _ = fixes.pool(fixes.checked(three_hosts(error=0.5)), CODE)
    row = next(r for r in fixes.rows(kept) if r.entry == "is_causal")
    assert not row.right
    for lang in ("nb", "en"):
        text = fixes.fixes_table(three_hosts(error=0.5), lang, CODE)
        line = next(ln for ln in text.splitlines() if "is_causal" in ln)
        assert "µs" not in line and "×" not in line


def test_a_collection_of_another_torch_is_left_out_and_named():
    runs = three_hosts() + [("other.json.gz", collection(host="h9", torch="2.12.0", seed=4))]
    kept, left = fixes.pool(fixes.checked(runs), CODE)
    assert [n for n, _ in kept] == ["c0.json.gz", "c1.json.gz", "c2.json.gz"]
    assert left == [("other.json.gz", "versions", "torch 2.12.0 (kept: 2.11.0+cu130)")]
    assert any(line.startswith("fixes: left out other.json.gz") and "2.12.0" in line
               for line in fixes.pool_lines(runs, CODE))
    assert "other.json.gz" in fixes.fixes_table(runs, "en", CODE)


@pytest.mark.parametrize("path, value", [
    (("groups", "causal_mask", "entries", "sdpa", "blocks_us", 0), float("nan")),
    (("groups", "causal_mask", "entries", "sdpa", "blocks_us", 0), -1.0),
    (("groups", "causal_mask", "entries", "is_causal", "trace"), "x"),
    (("groups", "causal_mask", "entries", "is_causal", "trace", "traceEvents"), {"ph": "X"}),
    (("inductor_cache_files",), -3),
    (("host", "versions"), None),
    (("groups", "causal_mask", "reference"), "missing"),
])
def test_a_malformed_collection_is_refused_naming_its_field(path, value):
    bad = copy.deepcopy(collection())
    node = bad
    for p in path[:-1]:
        node = node[p]
    node[path[-1]] = value
    with pytest.raises(fixes.Malformed, match="^bad.json.gz: "):
        fixes.checked([("bad.json.gz", bad)])


def test_collections_are_read_with_caps(tmp_path):
    good = tmp_path / "a.json.gz"
    good.write_bytes(gzip.compress(json.dumps(collection()).encode()))
    assert [n for n, _ in fix_collections(tmp_path)] == ["a.json.gz"]
    (tmp_path / "b.json.gz").write_bytes(gzip.compress(b"[" * 100_000 + b"]" * 100_000))
    with pytest.raises(UsageError, match="b.json.gz"):
        fix_collections(tmp_path)
    (tmp_path / "b.json.gz").write_bytes(gzip.compress(b" " * (33 * 2**20)))
    with pytest.raises(UsageError, match="unpacks to more than"):
        fix_collections(tmp_path)
    (tmp_path / "b.json.gz").write_bytes(b"not gzip")
    with pytest.raises(UsageError, match="b.json.gz"):
        fix_collections(tmp_path)
    assert fix_collections(tmp_path / "missing") == []


def test_the_collections_identity_is_the_collecting_code_not_the_analysis():
    files = set(collect_hashes())
    assert {"report/collect/fix_collector.py", "report/collect/machine.py", "report/measure/pairs.py"} <= files
    assert not any(f.startswith(("report/render/", "report/verdict/", "report/doctor/")) for f in files)


def test_every_committed_collection_loads_and_derives_or_is_named_as_other_code():
    """A committed collection of the collecting code as it is now is pooled and derives a row
    per entry, each saying what ran or why not; one of other code (PROTOCOL 1's) is left out,
    named, and its GPU's table says no collection of this code exists yet."""
    from report.paths import FIXES

    code = collect_hashes()
    for gpu in FIXES.iterdir() if FIXES.is_dir() else ():
        collections = fixes.checked(fix_collections(gpu))
        kept, left = fixes.pool(collections, code)
        assert all(c["identity"]["sha256"] == code for _, c in kept), gpu
        assert all(r.ran or r.refused for r in fixes.rows(kept)), gpu
        assert sorted(n for n, *_ in left) == sorted(n for n, c in collections if c["identity"]["sha256"] != code)
        lines = fixes.pool_lines(collections, code)
        assert len(lines) == len(collections) and all(line.count("\n") == 0 for line in lines)
        for lang in ("nb", "en"):
            table = fixes.fixes_table(collections, lang, code)
            assert all(n in table for n, *_ in left)
            assert ("<details" in table) == bool(kept)


def test_a_call_that_waits_for_the_gpu_says_how_often():
    """Counted inside the call's range only: the collector's own synchronisation after it is not the call's."""
    runs = three_hosts()
    for _, c in runs:
        c["groups"]["causal_mask"]["entries"]["is_causal"]["trace"] = call_trace(
            [["flash_fwd_kernel", 40.0]], runtime=[["cudaLaunchKernel", 3.0], ["cudaMemcpyAsync", 2.0],
                                                   ["cudaStreamSynchronize", 40.0]],
            after=[["cudaDeviceSynchronize", 30.0]])
        c["groups"]["causal_mask"]["entries"]["sdpa"]["trace"]["traceEvents"] += call_trace(
            [], after=[["cudaDeviceSynchronize", 30.0]])["traceEvents"][1:]
    kept, _ = fixes.pool(fixes.checked(runs), CODE)
    row = next(r for r in fixes.rows(kept) if r.entry == "is_causal")
    assert row.waits == 1
    assert next(r for r in fixes.rows(kept) if r.reference).waits == 0


def test_the_refusal_table_never_compares_different_work_without_saying_so():
    """head_dim_512's kernel time is set against a head dim 64 call: eight times less work."""
    from factory import site_run

    from report.render.findings.ask_common import by_id, cost, work_ratio

    results = site_run()
    c = by_id(results)["head_dim_512"]
    ref, _ = cost(results, c)
    assert work_ratio(results, c, ref) == 8.0
    causal = by_id(results)["causal_mask"]
    assert work_ratio(results, causal, cost(results, causal)[0]) == 1.0


def test_the_table_pools_only_the_collecting_code_as_it_is_now():
    """The fixes table's figures come from exactly this code: a collection of other code (an
    older PROTOCOL's collector) is left out and named, even where it has more hosts, and with
    none of this code the table says so and names them."""
    old = [(f"old{i}.json.gz", collection(host=f"o{i}", seed=i)) for i in range(4)]
    for _, c in old:
        c["protocol"] = c["identity"]["protocol"] = 1
        c["identity"]["sha256"] = {"report/collect/fix_collector.py": "00", "report/collect/machine.py": "cd"}
    kept, left = fixes.pool(fixes.checked(old + three_hosts()), CODE)
    assert [n for n, _ in kept] == ["c0.json.gz", "c1.json.gz", "c2.json.gz"]
    assert {(n, w) for n, w, _ in left} == {(f"old{i}.json.gz", "protocol") for i in range(4)}
    kept, left = fixes.pool(fixes.checked(old), CODE)
    assert kept == [] and [w for _, w, _ in left] == ["code"] * 4
    assert left[0][2] == "report/collect/fix_collector.py, report/collect/machine.py"
    assert all("left out old" in line and "other code" in line for line in fixes.pool_lines(old, CODE))
    for lang in ("nb", "en"):
        table = fixes.fixes_table(old, lang, CODE)
        assert "<details" not in table and all(n in table for n, _ in old)
        assert table.startswith(t("fixes.none_current", lang))


def test_a_string_of_a_collection_cannot_open_html_inside_its_closed_block():
    """The table's parts are <details markdown> blocks, which the HTML parser reads first: a
    refusal's text with "<!--" or "<script>" must not reach it raw (it would swallow the page)."""
    runs = three_hosts()
    for _, c in runs:
        c["groups"]["causal_mask"]["entries"]["is_causal"] = {"refused": "RuntimeError: <!-- <script>x</script>"}
    for lang in ("nb", "en"):
        text = fixes.fixes_table(runs, lang, CODE)
        assert "<!--" not in text and "<script>" not in text
        assert text.count("<details") == text.count("</details>") == 2


def test_fixes_takes_only_its_options_and_needs_a_gpu(capsys):
    import build_tables

    with pytest.raises(SystemExit) as stop:
        build_tables.main(["--fixes", "--all"])
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert "--fixes collects one thing" in err and err.count("\n") == 1


def test_fixes_without_cuda_is_one_line_and_nothing_written(capsys, monkeypatch, tmp_path):
    import build_tables
    from report import paths

    monkeypatch.setattr(paths, "FIXES", tmp_path / "fixes")
    assert build_tables.main(["--fixes"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "CUDA GPU" in err
    assert not (tmp_path / "fixes").exists()


def old_kernels(trace):
    """The collector's own reading before PROTOCOL 2 (report/collect/fix_collector.py, _kernels),
    kept here as the reference the one reader's derivation must equal."""
    return [[e.get("name", ""), round(float(e.get("dur", 0)), 3)] for e in trace.get("traceEvents", [])
            if e.get("cat") in ("kernel", "gpu_memcpy", "gpu_memset")]


def test_kernels_read_from_the_kept_trace_equal_what_the_collector_read_before():
    trace = call_trace([["void cutlass::Kernel<x>(Params)", 12.3456], ["Memcpy DtoD (Device -> Device)", 1.5, "gpu_memcpy"],
                        ["flash_fwd_kernel", 40.0], ["Memset (Device)", 0.768, "gpu_memset"]],
                       runtime=[["cudaLaunchKernel", 3.0]], after=[["cudaDeviceSynchronize", 9.0]])
    trace["traceEvents"].append({"ph": "X", "cat": "cpu_op", "name": "aten::mm", "ts": 101.0, "dur": 4.0,
                                 "pid": 1, "tid": 7})
    kernels, runtime = fixes.one_call({"trace": trace}, RANGE)
    assert [list(k) for k in kernels] == old_kernels(trace) and len(kernels) == 4
    assert runtime == [("cudaLaunchKernel", 3.0)]
    assert fixes.one_call({}, RANGE) == ([], [])


def test_the_collector_keeps_one_calls_export_which_the_render_reads(monkeypatch):
    """The collector reads no event (the one reader, report/trace/reading/, is the render's): it
    keeps the profiler's export of one call, its range around the call, without the machine's
    name. Profiled here on the CPU (the GPU's synchronisation made a no-op)."""
    torch = pytest.importorskip("torch")
    import torch.nn.functional as F

    from report.collect import fix_collector as fc

    monkeypatch.setattr(torch.cuda, "synchronize", lambda: None)
    q = torch.randn(1, 2, 16, 8)
    kept = fc._trace(torch, lambda: F.scaled_dot_product_attention(q, q, q), fc._pin(torch, None))
    assert fc.PROTOCOL == 2 and not set(fc.NOT_KEPT) & set(kept)
    trace = fixes.from_dict(kept)
    assert [e.name for e in trace.events if e.cat == "user_annotation"] == [fc.CALL_RANGE]
    assert any(e.name == "aten::scaled_dot_product_attention" for e in trace.events)
    assert fixes.one_call({"trace": kept}, fc.CALL_RANGE) == ([], [])  # a CPU call: no GPU activity


def test_the_pinned_flash_float32_group_is_built_and_its_fix_runs_pinned_on_cpu(monkeypatch):
    """Its call as written is the float32 call under the flash pin (refused on a GPU: flash takes
    no float32), its fix the same call cast to bfloat16 and back, under the same pin. On the CPU
    (whose flash kernel takes float32) both run: built on a small shape, the fix's result is float32
    and right within bfloat16's rounding."""
    torch = pytest.importorskip("torch")
    from report.collect import fix_collector as fc
    from report.render.fix_names import GROUPS

    assert "pinned_flash_float32" in GROUPS
    monkeypatch.setitem(fc.SHAPE, "batch", 2)
    monkeypatch.setitem(fc.SHAPE, "heads", 2)
    monkeypatch.setitem(fc.SHAPE, "seq", 32)
    monkeypatch.setitem(fc.SHAPE, "head_dim", 16)
    make = next(m for m in fc.groups(torch, "cpu") if m.__name__ == "pinned_flash_float32")
    g = make()
    assert g.id == "pinned_flash_float32" and g.reference == "sdpa" and set(g.entries) == {"sdpa", "bf16"}
    assert {e.pin for e in g.entries.values()} == {"flash"}
    with torch.no_grad(), fc._pin(torch, "flash")():
        out = g.entries["bf16"].call()
    assert out.dtype == torch.float32 and out.shape == (2, 2, 32, 16)
    assert fc._error(torch, out, g.truth()) < fixes.TOLERANCE


def refused_reference(seed):
    """A collection of pinned_flash_float32 as the collector writes it on a GPU: the call as
    written refused, its fix timed on its own."""
    c = collection(host=f"h{seed}", seed=seed)
    rng = random.Random(seed)
    c["groups"]["pinned_flash_float32"] = {"reference": "sdpa", "work": {}, "entries": {
        "sdpa": {"refused": "RuntimeError: No available kernel. Aborting execution.", "pin": "flash"},
        "bf16": {"blocks_us": [50 * (1 + 0.01 * rng.random()) for _ in range(20)], "pin": "flash",
                 "trace": call_trace([["flash_fwd_kernel", 40.0]]), "error": 0.003, "first_call_ms": 1.0},
    }}
    return (f"c{seed}.json.gz", c)


def test_a_refused_call_as_written_shows_its_fix_running_and_its_time_with_nothing_to_compare():
    runs = [refused_reference(i) for i in range(3)]
    kept, _ = fixes.pool(fixes.checked(runs), CODE)
    found = [r for r in fixes.rows(kept) if r.group == "pinned_flash_float32"]
    ref, fix = found
    assert ref.reference and ref.refused and fix.entry == "bf16" and fix.ran == "flash" and fix.right
    assert 50 <= fix.wall_us <= 51 and fix.verdict.ratio is None
    for lang in ("nb", "en"):
        table = fixes.fixes_table(runs, lang, CODE)
        summary = next(ln for ln in table.splitlines() if keyed("fix_group.", "pinned_flash_float32", lang) in ln)
        assert summary.count(keyed("fix_entry.", "bf16", lang)) == 1
        # counted: the causal fix alone (a fix with nothing to set it against decides nothing)
        assert table.startswith(t("fixes.summary", lang, n="1", faster="1", slower="0", same="0", undecided="0"))


def flex_collections():
    runs = three_hosts()
    for i, (_, c) in enumerate(runs):
        e = c["groups"]["causal_mask"]["entries"]
        c["groups"]["float_additive_mask"] = {"reference": "sdpa", "work": {}, "entries": {
            "sdpa": dict(e["sdpa"]),
            "flex_score_mod": dict(e["is_causal"], first_call_ms=[6000.0, 1400.0, 1300.0][i],
                                   trace=call_trace([["triton_tem_fused_0", 45.0]])),
        }}
        c["inductor_cache_files"] = [0, 12, 30][i]
    return runs


def test_a_compiled_entrys_first_call_is_its_own_figure_across_hosts_and_only_a_compiled_entrys():
    runs = flex_collections()
    kept, _ = fixes.pool(fixes.checked(runs), CODE)
    found = fixes.rows(kept)
    flex = next(r for r in found if r.entry == "flex_score_mod")
    assert flex.ran == "flex" and flex.verdict.ratio is not None
    assert flex.compile == fixes.FirstCall(ms=1400.0, hosts=3, warm=2, told=3)  # the median of the hosts
    assert all(r.compile is None for r in found if r is not flex)
    for lang in ("nb", "en"):
        lines = fixes.fixes_table(runs, lang, CODE).splitlines()
        shown = fixes._compile_words(flex.compile, lang)
        entry_line = next(ln for ln in lines if ln.startswith("- " + keyed("fix_entry.", "flex_score_mod", lang)))
        assert [ln for ln in lines if shown in ln] == [entry_line]


def test_a_fix_whose_call_as_written_refuses_is_timed_on_its_own(monkeypatch):
    """collect_group on the CPU (the GPU's synchronisation a no-op, the paired timing recorded
    instead of run): the refusal is recorded, the fix is timed alone as its own yardstick, and
    one call's trace is kept for each entry that runs."""
    torch = pytest.importorskip("torch")
    import torch.nn.functional as F

    from report.collect import fix_collector as fc

    monkeypatch.setattr(torch.cuda, "synchronize", lambda: None)
    monkeypatch.setattr(torch.cuda, "empty_cache", lambda: None)
    asked = []

    def measure_group(torch, device, entries, reference, metric, pairs, seed):
        asked.append((sorted(entries), reference))
        return {"blocks_us": {n: [10.0] * pairs for n in entries}, "calls_per_block": dict.fromkeys(entries, 1),
                "refused": {}}
    monkeypatch.setattr(fc, "measure_group", measure_group)
    q = torch.randn(1, 2, 16, 8)

    def refuses():
        raise RuntimeError("No available kernel. Aborting execution.\nmore")

    def make():
        return fc.Group("pinned_flash_float32", "sdpa", {
            "sdpa": fc.Entry(refuses, pin="flash"),
            "bf16": fc.Entry(lambda: F.scaled_dot_product_attention(q.bfloat16(), q.bfloat16(), q.bfloat16()).float(),
                             pin="flash"),
        }, truth=lambda: fc._truth(torch, q, q, q))
    out = fc.collect_group(torch, make, pairs=3)
    assert asked == [(["bf16"], "bf16")]
    assert out["entries"]["sdpa"]["refused"] == "RuntimeError: No available kernel. Aborting execution."
    fix = out["entries"]["bf16"]
    assert fix["blocks_us"] == [10.0] * 3 and fix["error"] < fixes.TOLERANCE and "trace" in fix
    assert fixes.from_dict(fix["trace"]).events
