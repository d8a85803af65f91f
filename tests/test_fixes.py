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
from report.results import UsageError, collect_hashes


def collection(host="h1", boot="b1", torch="2.11.0+cu130", fix_speed=0.5, error=0.003, seed=0, pairs=20):
    """A made-up collection of one group: causal_mask as written (cuDNN), is_causal taking
    fix_speed of its time per pair."""
    rng = random.Random(seed)
    ref = [100.0 * (1 + 0.02 * rng.random()) for _ in range(pairs)]
    fix = [r * fix_speed * (1 + 0.01 * rng.random()) for r in ref]
    return {
        "protocol": 1, "collector": "fixes", "identity": {"protocol": 1, "sha256": {"report/collect/fix_collector.py": "ab"}},
        "host": {"host_id": host, "gpu_uuid_id": host, "boot_id": boot, "gpu_name": "NVIDIA H100 80GB HBM3",
                 "started": f"2026-12-07T21:0{seed}:00Z",
                 "versions": {"torch": torch, "cuda": "13.0", "cudnn": "9.19.0", "driver": "580.159.04"}},
        "groups": {"causal_mask": {"reference": "sdpa", "work": {}, "entries": {
            "sdpa": {"blocks_us": ref, "kernels": [["cudnn_generated_fort_native_sdpa_sm90", 90.0]],
                     "error": 0.002, "first_call_ms": 3.0},
            "is_causal": {"blocks_us": fix, "kernels": [["flash_fwd_kernel", 40.0]], "error": error,
                          "first_call_ms": 1.0},
        }}},
    }


def three_hosts(**kw):
    return [(f"c{i}.json.gz", collection(host=f"h{i}", seed=i, **kw)) for i in range(3)]


def test_a_fix_twice_as_fast_on_three_hosts_is_faster_and_runs_what_its_kernels_show():
    kept, left = fixes.pool(fixes.checked(three_hosts()))
    assert len(kept) == 3 and left == []
    row = next(r for r in fixes.rows(kept) if r.entry == "is_causal")
    assert row.ran == "flash" and row.right
    assert row.verdict.runs == 3 and row.verdict.order == ">"  # the fix (b) below the call as written (a)
    assert 0.49 < row.verdict.ratio < 0.52
    ref = next(r for r in fixes.rows(kept) if r.reference)
    assert ref.ran == "cudnn" and 100 <= ref.wall_us <= 102


def test_the_same_gpu_twice_is_one_host_and_one_host_decides_across_its_processes_only():
    same = [(f"c{i}.json.gz", collection(host="h1", boot=f"b{i}", seed=i)) for i in range(2)]
    kept, _ = fixes.pool(fixes.checked(same))
    row = next(r for r in fixes.rows(kept) if r.entry == "is_causal")
    assert row.verdict.runs == 1 and row.verdict.processes == 2


def test_a_wrong_result_shows_no_time():
    kept, _ = fixes.pool(fixes.checked(three_hosts(error=0.5)))
    row = next(r for r in fixes.rows(kept) if r.entry == "is_causal")
    assert not row.right
    for lang in ("nb", "en"):
        text = fixes.fixes_table(three_hosts(error=0.5), lang)
        line = next(ln for ln in text.splitlines() if "is_causal" in ln)
        assert "µs" not in line and "×" not in line


def test_a_collection_of_another_torch_is_left_out_and_named():
    runs = three_hosts() + [("other.json.gz", collection(host="h9", torch="2.12.0", seed=4))]
    kept, left = fixes.pool(fixes.checked(runs))
    assert [n for n, _ in kept] == ["c0.json.gz", "c1.json.gz", "c2.json.gz"]
    assert left == [("other.json.gz", "versions", "torch 2.12.0 (kept: 2.11.0+cu130)")]
    assert any(line.startswith("fixes: left out other.json.gz") and "2.12.0" in line
               for line in fixes.pool_lines(runs))
    assert "other.json.gz" in fixes.fixes_table(runs, "en")


@pytest.mark.parametrize("path, value", [
    (("groups", "causal_mask", "entries", "sdpa", "blocks_us", 0), float("nan")),
    (("groups", "causal_mask", "entries", "sdpa", "blocks_us", 0), -1.0),
    (("groups", "causal_mask", "entries", "is_causal", "kernels", 0), "x"),
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


def test_every_committed_collection_loads_and_derives():
    from report.paths import FIXES

    for gpu in FIXES.iterdir() if FIXES.is_dir() else ():
        collections = fixes.checked(fix_collections(gpu))
        kept, _ = fixes.pool(collections)
        assert kept, gpu
        assert all(r.ran or r.refused for r in fixes.rows(kept)), gpu


def test_a_call_that_waits_for_the_gpu_says_how_often():
    runs = three_hosts()
    for _, c in runs:
        c["groups"]["causal_mask"]["entries"]["is_causal"]["runtime"] = [
            ["cudaLaunchKernel", 3.0], ["cudaMemcpyAsync", 2.0], ["cudaStreamSynchronize", 40.0]]
    kept, _ = fixes.pool(fixes.checked(runs))
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


def test_every_committed_collection_was_made_by_the_collecting_code_here():
    """The fixes table's figures come from exactly this code: each committed collection's
    identity is report/collect's files (and what they import) as they are now, and its
    PROTOCOL."""
    from report.collect.fix_collector import PROTOCOL
    from report.paths import FIXES

    for gpu in FIXES.iterdir() if FIXES.is_dir() else ():
        for name, c in fix_collections(gpu):
            assert c["protocol"] == PROTOCOL, name
            assert c["identity"]["sha256"] == collect_hashes(), name


def test_a_string_of_a_collection_cannot_open_html_inside_its_closed_block():
    """The table's parts are <details markdown> blocks, which the HTML parser reads first: a
    refusal's text with "<!--" or "<script>" must not reach it raw (it would swallow the page)."""
    runs = three_hosts()
    for _, c in runs:
        c["groups"]["causal_mask"]["entries"]["is_causal"] = {"refused": "RuntimeError: <!-- <script>x</script>"}
    for lang in ("nb", "en"):
        text = fixes.fixes_table(runs, lang)
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
