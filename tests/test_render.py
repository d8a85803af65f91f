"""report/render and report/text: locale formats, the catalog, and the committed renders."""
import copy
import math
import string

import pytest
from pagecode import committed_result_dirs, comparable, generated_by

from report.paths import DEFAULT_OUT as GENERATED
from report.paths import MODEL_TRACE, ROOT
from report.render import findings, tables
from report.render.figures import render_figures
from report.render.header import written_by
from report.render.site import render_all
from report.results import code_hashes, load_reference, load_results, snippet_hashes
from report.text.format import fmt_num, fmt_pct, fmt_ratio, fmt_us
from report.variants import LANGS, SNIPPET_FILES


def test_number_formats_follow_the_locale():
    assert fmt_us(1955.0, "nb") == "1,955\u00a0ms" and fmt_us(1955.0, "en") == "1.955 ms"
    assert fmt_us(146.8, "nb") == "146,8\u00a0µs" and fmt_us(146.8, "en") == "146.8 µs"
    assert fmt_us(5_348_648.0, "nb") == "5,3\u00a0s" and fmt_us(5_348_648.0, "en") == "5.3 s"
    assert fmt_num(7239, "nb", 0) == "7\u00a0239" and fmt_num(7239, "en", 0) == "7,239"
    assert fmt_pct(13, "nb", 0) == "13\u00a0%" and fmt_pct(13, "en", 0) == "13%"
    assert fmt_ratio(3.7, "nb") == "3,7×"


def test_there_are_committed_gpu_results():
    slugs = [d.name for d in committed_result_dirs()]
    assert "h200" in slugs


@pytest.mark.parametrize("folder", committed_result_dirs(), ids=lambda p: p.name)
def test_committed_tables_and_figures_are_exactly_what_results_json_renders(folder, tmp_path):
    results = load_results(folder / "results.json")
    written = render_all(results, load_reference(), tmp_path / "tables", tmp_path / "figures",
                         folder / "traces", MODEL_TRACE)
    committed = sorted(p.relative_to(folder).as_posix() for part in ("tables", "figures")
                       for p in (folder / part).glob("*"))
    assert sorted(p.relative_to(tmp_path).as_posix() for p in written) == committed
    for path in written:
        rel = path.relative_to(tmp_path)
        assert comparable(path, path.read_bytes()) == comparable(path, (folder / rel).read_bytes()), rel


@pytest.mark.parametrize("folder", committed_result_dirs(), ids=lambda p: p.name)
def test_committed_results_record_provenance(folder):
    results = load_results(folder / "results.json")
    prov = results["provenance"]
    for key in ("gpu_name", "driver", "cuda", "torch", "cudnn", "date", "command", "snippet_sha256"):
        assert prov.get(key), key
    assert prov["command"].startswith("python build_tables.py")
    assert set(prov["snippet_sha256"]) == set(SNIPPET_FILES)
    for _name, row in results["variants"].items():
        assert row["status"] in ("ok", "unsupported", "oom", "error")
        if row["status"] == "ok":
            assert row["steps"] == results["config"]["steps"]


@pytest.mark.parametrize("folder", committed_result_dirs(), ids=lambda p: p.name)
def test_committed_results_came_from_the_committed_snippets(folder):
    """A change to a measured snippet means the numbers must be measured again."""
    results = load_results(folder / "results.json")
    assert results["provenance"]["snippet_sha256"] == snippet_hashes()


@pytest.mark.parametrize("folder", committed_result_dirs(), ids=lambda p: p.name)
def test_committed_results_came_from_the_committed_measuring_code(folder):
    """A change to report/measure, report/trace or the variants also means measuring again."""
    results = load_results(folder / "results.json")
    assert results["provenance"].get("code_sha256") == code_hashes()


def test_measuring_code_hashes_cover_measure_and_trace():
    files = set(code_hashes())
    assert {"report/measure/seed.py", "report/trace/analyze.py", "report/variants.py"} <= files
    assert not any(f.startswith("report/render/") or f.startswith("report/text/") for f in files)


def test_readme_names_the_torch_pin_and_the_torch_of_the_committed_numbers():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    pin = next(line.split("==")[1].strip() for line in (ROOT / "requirements.txt").read_text().splitlines()
               if line.startswith("torch=="))
    assert f"torch {pin}" in readme
    for folder in committed_result_dirs():
        torch = load_results(folder / "results.json")["provenance"]["torch"]
        assert f"torch {torch}" in readme, torch


def test_generated_tables_carry_header_and_gpu_caption():
    for folder in committed_result_dirs():
        gpu = load_results(folder / "results.json")["provenance"]["gpu_name"]
        for path in (folder / "tables").glob("*.md"):
            text = path.read_text(encoding="utf-8")
            assert generated_by(text.splitlines()[0], path.name.split(".")[-2]), path.name
            assert f"**{gpu}**" in text, path.name


def test_every_generated_header_names_functions_that_exist():
    """One hop from a file to its code: each header names module files and functions of
    them that exist, and the findings files name exactly the findings they hold."""
    paths = [p for p in GENERATED.rglob("*") if p.suffix in (".md", ".svg")]
    assert len(paths) > 100
    for path in paths:
        lines = path.read_text(encoding="utf-8").splitlines()
        lang = path.name.split(".")[-2]
        writers = generated_by(lines[1] if path.suffix == ".svg" else lines[0], lang)
        assert writers, path.name
        for module, names in writers:
            source = (ROOT / module).read_text(encoding="utf-8")
            for name in names:
                assert f"\ndef {name}(" in source, (path.name, module, name)
    for file, names in {**findings.FILES, **findings.EXTRA_FILES}.items():
        first = (GENERATED / "h200" / "tables" / f"{file}.en.md").read_text(encoding="utf-8").splitlines()[0]
        assert [n for _, ns in generated_by(first, "en") for n in ns] == list(names), file


def test_a_header_groups_its_functions_by_module():
    assert written_by([findings.FINDINGS["home_math"], findings.FINDINGS["home_cpu"], tables.headline]) == (
        "report/render/findings/home.py: home_math, home_cpu; report/render/tables.py: headline")


def test_the_a100_figures_are_on_the_comparison_page_only(tmp_path):
    """Hugging Face's A100 figures live in one place, the comparison (compare.py), cited
    there; a GPU folder's headline table shows our own figures only."""
    from report.render.compare import bodies

    results = load_results(GENERATED / "h200" / "results.json")
    ref = load_reference()
    written = render_all(results, ref, tmp_path)
    assert len(written) % 2 == 0
    for lang in LANGS:
        a100 = (fmt_us(7239.0, lang), fmt_us(146.8, lang))
        for name in ("headline", "headline-home", "findings-fused"):
            text = (tmp_path / f"{name}.{lang}.md").read_text(encoding="utf-8")
            assert not any(x in text for x in a100) and ref["source"]["url"] not in text, name
        table, notes, _ = bodies([("h200", results)], ref, lang)["cuda-time"]
        assert all(x in table for x in a100) and any(ref["source"]["url"] in n for n in notes)


def test_figures_are_deterministic(tmp_path):
    results = load_results(GENERATED / "h200" / "results.json")
    a = render_figures(results, "nb", tmp_path / "a")
    b = render_figures(results, "nb", tmp_path / "b")
    assert a and [p.read_bytes() for p in a] == [p.read_bytes() for p in b]
    text = a[0].read_text("utf-8")
    assert "NVIDIA H200" in text and "<dc:date>" not in text
    assert generated_by(text.splitlines()[1], "nb") == [("report/render/figures.py", ["cuda_vs_cpu"])]


# --- the rendered text -------------------------------------------------------------

def test_placeholders_are_filled_in_every_rendered_file(tmp_path):
    results = load_results(GENERATED / "h200" / "results.json")
    for path in render_all(results, load_reference(), tmp_path):
        text = path.read_text(encoding="utf-8")
        fields = {name for _, name, _, _ in string.Formatter().parse(text.replace("{{", "").replace("}}", ""))
                  if name} if "{" in text else set()
        assert not fields, (path.name, fields)


# --- rendering never trusts results.json ----------------------------------------------

def test_a_nan_shows_as_a_dash_with_the_reason(tmp_path):
    results = copy.deepcopy(load_results(GENERATED / "h200" / "results.json"))
    results["variants"]["flash"]["cuda_time_us"]["median"] = math.nan
    results["variants"]["flash"]["wall_time_us"]["median"] = math.inf
    for lang, word in (("nb", "ikke et tall"), ("en", "not a number")):
        body = tables.headline(results, lang)
        row = next(line for line in body.splitlines() if "flash" in line)
        assert f"– ({word})" in row and "nan" not in row.lower() and "inf" not in row


def test_text_from_provenance_is_escaped(tmp_path):
    results = copy.deepcopy(load_results(GENERATED / "h200" / "results.json"))
    results["provenance"]["gpu_name"] = "<script>alert(1)</script> *GPU* [x](http://evil)"
    results["provenance"]["command"] = "python build_tables.py `rm -rf`"
    for path in render_all(results, load_reference(), tmp_path / "t"):
        text = path.read_text(encoding="utf-8")
        assert "<script>" not in text and " [x](http://evil)" not in text, path.name
        assert "`rm -rf`" not in text, path.name
    headline = (tmp_path / "t" / "headline.en.md").read_text(encoding="utf-8")
    assert "&lt;script&gt;" in headline and r"\*GPU\*" in headline and r"\[x\](http" in headline


def made_up(per_op, spread, kernel=100.0):
    """results with three fused backends whose host overhead in small ops and its spread are given."""
    def row(h):
        return {"status": "ok", "cuda_time_us": {"median": kernel}, "kernel_sum_us": {"median": kernel},
                "host_time_us": {"median": 10 * h, "spread_pct": 50.0,
                                 "per_small_op": {"median": h, "spread_pct": spread}},
                "first_call_ms": 1.0, "kernels": []}
    return {"provenance": {"gpu_name": "GPU"},
            "variants": {n: row(h) for n, h in zip(("flash", "efficient", "cudnn"), per_op, strict=True)}}


@pytest.mark.parametrize("per_op, spread, says", [
    ((3.0, 3.1, 6.0), 10.0, "highest host overhead"),  # 6.0 vs 3.1: far outside 10 %
    ((3.0, 5.5, 6.0), 10.0, "within noise"),           # 6.0 vs 5.5: 9 % apart, spread 10 %
    ((3.0, 5.5, 6.0), 5.0, "highest host overhead"),   # the same, with a tighter spread
])
def test_an_order_is_stated_only_outside_the_spread(per_op, spread, says):
    """Ordered by host overhead in small ops against kernel time; the µs figure's own
    spread (50 %, the CPU's drift) does not decide it."""
    from report.render.findings.recommendations import rec_cpu

    line = rec_cpu(made_up(per_op, spread), {"variants": {}}, "en")[0]
    assert says in line and "SDPA cuDNN" in line


def test_first_calls_finding_gives_the_lowest_and_highest_variant():
    from report.render.findings.fused import host_first_calls

    def row(wait, switch):
        return {"status": "ok", "host_time_us": {"warm": 3, "first_calls": {
            "after_wait": {"median": wait}, "after_switch": {"median": switch}}}}
    results = {"variants": {"flash": row(4.0, 5.25), "cudnn": row(6.5, 1.5), "math": {"status": "oom"}}}
    en, nb = host_first_calls(results, {}, "en")[0], host_first_calls(results, {}, "nb")[0]
    assert "4.0–6.5 times" in en and "1.5–5.2 times" in en and "after 3 untimed calls" in en
    assert "4,0–6,5 ganger" in nb and "etter 3 kall" in nb
    assert host_first_calls({"variants": {"math": {"status": "oom"}}}, {}, "en") == []


def sweep_of(points):
    return {"seq_lens": sorted({p["seq_len"] for p in points}), "head_dims": [64], "points": points}


def point(variant, seq, median, lo, hi, ran=None):
    return {"variant": variant, "seq_len": seq, "head_dim": 64, "status": "ok", "backend_ran": ran,
            "kernel_sum_us": {"median": median, "min": lo, "max": hi}, "cpu_time_us": {"median": 1.0}}


def test_auto_is_called_slower_only_beyond_noise():
    from report.render.extra_tables import auto_vs_best

    sweep = sweep_of([point("auto", 256, 12.0, 11.5, 12.5, "cudnn"), point("flash", 256, 10.0, 9.5, 10.5),
                      point("auto", 512, 10.4, 10.0, 10.8, "cudnn"), point("flash", 512, 10.0, 9.6, 10.6),
                      point("auto", 1024, 12.0, 11.5, 12.5, "flash"), point("flash", 1024, 10.0, 9.5, 10.5)])
    rows = {s: slower for s, _, _, slower in auto_vs_best(sweep, 64)}
    # 512: the ranges overlap, so within noise; 1024: auto ran flash itself, the same kernels
    assert rows == {256: True, 512: False, 1024: False}
    lines = findings.FINDINGS["auto_vs_best"]({"sweep": sweep}, {}, "en")
    assert lines == ["Head dimension 64: auto was slower than the fastest pinned backend, beyond noise, "
                     "at 256 (12.0 µs vs 10.0 µs for flash)."]



@pytest.mark.parametrize("folder", committed_result_dirs(), ids=lambda p: p.name)
def test_our_calculator_matches_ncu_for_every_recorded_kernel(folder):
    """Where the run has Nsight Compute's figures, its theoretical occupancy equals our
    calculator's with the kernel's opt-in shared memory, for every fused kernel."""
    results = load_results(folder / "results.json")
    section = results.get("ncu")
    if not section or section["status"] != "ok":
        pytest.skip(f"{folder.name}: no Nsight Compute figures in this run")
    checked = 0
    for name, row in section["rows"].items():
        ours = {tables.base_name(k["name"]): k for k in results["variants"][name]["kernels"] if k["kind"] == "kernel"}
        for kernel, metrics in row.get("kernels", {}).items():
            assert ours[tables.base_name(kernel)]["our_optin_pct"] == pytest.approx(metrics["theoretical_pct"], abs=0.1)
            checked += 1
    assert checked >= 3


def test_host_overhead_note_rounds_the_busy_share_down():
    """'at least' must not round up: 79 of 80 slices busy is 98.75 %, so the note says 98 %."""
    from report.render.tables import host_overhead

    quarters = {"median": 10.0, "quarters": [9.0, 11.0], "spread_pct": 22.0}
    h = {"median": 30.0, "spread_pct": 5.0, "per_small_op": {"median": 3.0, "spread_pct": 4.0},
         "small_op_us": quarters, "slices": 80, "calls": 400, "warm": 3, "gpu_kept_busy": 79 / 80}
    text = host_overhead({"variants": {"flash": {"status": "ok", "host_time_us": h}}}, "en")
    assert "in at least 98% of the slices" in text and "80 slices" in text


def test_time_growth_is_over_the_last_doubling_and_skips_a_variant_that_did_not_run_at_both():
    from report.render.findings.scaling import time_growth

    oom = {"variant": "math", "seq_len": 2048, "head_dim": 64, "status": "oom"}
    sweep = sweep_of([point("naive", 1024, 100.0, 99, 101), point("naive", 2048, 320.0, 318, 322),
                      point("flash", 1024, 10.0, 9, 11), point("flash", 2048, 39.0, 38, 40),
                      point("math", 1024, 50.0, 49, 51), oom])
    en = time_growth({"sweep": sweep}, {}, "en")[0]
    assert "From sequence length 1,024 to 2,048" in en
    assert "naive (`masked_fill`) 3.2×, SDPA flash 3.9×." in en and "math" not in en
    assert "causal triangle grows 4.0×" in en
    assert time_growth({"sweep": None}, {}, "en") == []


def test_explain_modules_are_not_measuring_code():
    """--explain reads a reader's trace: changing how it reads one re-measures nothing."""
    files = set(code_hashes())
    assert not any(f.startswith("report/trace/explain") for f in files)
    assert (ROOT / "report/trace/explain_timeline.py").is_file()  # one of those left out
