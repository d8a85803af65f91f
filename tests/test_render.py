"""report/render and report/text: locale formats, the catalog, and the committed renders."""
import math
import string

import factory
import pytest
from pagecode import committed_result_dirs, comparable, generated_by

from report.output.fix_files import fix_collections
from report.output.rerun_files import rerun_results
from report.paths import DEFAULT_OUT as GENERATED
from report.paths import FIXES, MODEL_TRACE, RERUNS, ROOT
from report.render import findings, tables
from report.render.figures import render_figures
from report.render.header import written_by
from report.render.site import render_all
from report.results import code_hashes, collect_hashes, load_reference, load_results, snippet_hashes
from report.text.catalog import t
from report.text.display import LANGS
from report.text.format import fmt_num, fmt_pct, fmt_ratio, fmt_us
from report.variants import FUSED, SNIPPET_FILES

MISSING = t("finding.missing", "en")  # the line a file without its data says


def test_number_formats_follow_the_locale():
    assert fmt_us(1955.0, "nb") == "1,955\u00a0ms" and fmt_us(1955.0, "en") == "1.955 ms"
    assert fmt_us(146.8, "nb") == "146,8\u00a0µs" and fmt_us(146.8, "en") == "146.8 µs"
    assert fmt_us(5_348_648.0, "nb") == "5,3\u00a0s" and fmt_us(5_348_648.0, "en") == "5.3 s"
    assert fmt_num(7239, "nb", 0) == "7\u00a0239" and fmt_num(7239, "en", 0) == "7,239"
    assert fmt_pct(13, "nb", 0) == "13\u00a0%" and fmt_pct(13, "en", 0) == "13%"
    assert fmt_ratio(3.7, "nb") == "3,7×"


def test_there_are_committed_gpu_results():
    assert factory.SITE_RUN in committed_result_dirs()


@pytest.mark.parametrize("folder", committed_result_dirs(), ids=lambda p: p.name)
def test_committed_tables_and_figures_are_exactly_what_results_json_renders(folder, tmp_path):
    results = load_results(folder / "results.json")
    written = render_all(results, load_reference(), tmp_path / "tables", tmp_path / "figures",
                         folder / "traces", MODEL_TRACE, rerun_results(RERUNS / folder.name),
                         fixes=fix_collections(FIXES / folder.name), fixes_code=collect_hashes())
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
    """A change to the measuring code (report/measure and what it imports) also means measuring again."""
    results = load_results(folder / "results.json")
    assert results["provenance"].get("code_sha256") == code_hashes()


def test_measuring_code_hashes_cover_what_collects_and_no_analysis():
    """A run's identity is the code that collects (report/measure/ and what it imports), not
    the analysis its figures are derived with (trace/, derive/, doctor/, render/, verdict/)."""
    files = set(code_hashes())
    assert {"report/measure/seed.py", "report/measure/timing.py", "report/variants.py", "report/stats.py"} <= files
    analysis = ("report/trace/", "report/derive/", "report/doctor/", "report/render/", "report/verdict/", "report/text/")
    assert not any(f.startswith(analysis) for f in files), sorted(files)


def test_editing_a_noise_rule_or_a_display_name_leaves_the_measuring_code_hash_alone(tmp_path, monkeypatch):
    """The hash covers what measures: report/measure and what it imports (results.code_hashes).
    On a copy of report/, a changed verdict rule or backend name keeps it; a changed stats()
    does not."""
    import shutil

    from report import results as results_module

    shutil.copytree(ROOT / "report", tmp_path / "report", ignore=shutil.ignore_patterns("__pycache__"))
    monkeypatch.setattr(results_module, "ROOT", tmp_path)
    monkeypatch.setattr(results_module, "PACKAGE", tmp_path / "report")
    before = code_hashes()
    assert before == results_module.code_hashes() and "report/stats.py" in before

    def edit(rel, old, new):
        path = tmp_path / rel
        text = path.read_text(encoding="utf-8")
        assert old in text, rel
        path.write_text(text.replace(old, new, 1), encoding="utf-8")

    edit("report/verdict/one_run.py", 'return figure["spread_pct"] / 100', 'return figure["spread_pct"] / 50')
    edit("report/verdict/paired.py", "MIN_EFFECT = 0.05", "MIN_EFFECT = 0.10")
    edit("report/text/display.py", '"cudnn": "cuDNN"', '"cudnn": "NVIDIA cuDNN"')
    edit("report/trace/analyze.py", '"""Per-forward figures', '"""Per forward figures')
    edit("report/trace/names.py", "def ", "def  ")
    assert results_module.code_hashes() == before
    edit("report/stats.py", '"median": statistics.median(values)', '"median": statistics.fmean(values)')
    assert results_module.code_hashes() != before


def test_readme_names_the_torch_pin_and_the_torch_of_the_committed_numbers():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    pin = next(line.split("==")[1].strip() for line in (ROOT / "requirements.txt").read_text().splitlines()
               if line.startswith("torch=="))
    assert f"torch {pin}" in readme
    for folder in committed_result_dirs():
        torch = load_results(folder / "results.json")["provenance"]["torch"]
        assert f"torch {torch}" in readme, torch


def test_generated_tables_carry_a_header_and_only_measured_on_names_the_run():
    """Provenance once per page: the caption (GPU, driver, versions, command) is in
    measured-on.<lang>.md alone, which each page includes once, at its end."""
    for folder in committed_result_dirs():
        gpu = load_results(folder / "results.json")["provenance"]["gpu_name"]
        for path in (folder / "tables").glob("*.md"):
            text = path.read_text(encoding="utf-8")
            assert generated_by(text.splitlines()[0], path.name.split(".")[-2]), path.name
            assert (f"**{gpu}**" in text) == path.name.startswith("measured-on."), path.name


def test_every_generated_header_names_functions_that_exist():
    """One hop from a file to its code: each header names module files and functions of
    them that exist, and the findings files name exactly the findings they hold."""
    paths = [p for p in GENERATED.rglob("*") if p.suffix in (".md", ".svg")]
    assert len(paths) > 100
    for path in paths:
        lines = path.read_text(encoding="utf-8").splitlines()
        lang = path.name.split(".")[-2]
        writers = generated_by(lines[1] if lines[0].startswith("<?xml") else lines[0], lang)
        assert writers, path.name
        for module, names in writers:
            source = (ROOT / module).read_text(encoding="utf-8")
            for name in names:
                assert f"\ndef {name}(" in source, (path.name, module, name)
    for file, names in {**findings.FILES, **findings.EXTRA_FILES}.items():
        first = (factory.SITE_RUN / "tables" / f"{file}.en.md").read_text(encoding="utf-8").splitlines()[0]
        assert [n for _, ns in generated_by(first, "en") for n in ns] == list(names), file
        templates = [m for m, ns in generated_by(first, "en") if m.endswith(".j2")]
        assert templates == [f"report/text/templates/{file}.en.md.j2"], file


def test_a_header_groups_its_functions_by_module():
    assert written_by([findings.FINDINGS["home_math"], findings.FINDINGS["home_cpu"], tables.headline]) == (
        "report/render/findings/home.py: home_math, home_cpu; report/render/tables.py: headline")


def test_the_a100_figures_are_on_the_comparison_page_only(tmp_path):
    """Hugging Face's A100 figures live in one place, the comparison (compare.py), cited
    there; a GPU folder's headline table shows our own figures only."""
    from report.render.compare import bodies

    results = factory.site_run()
    ref = load_reference()
    written = render_all(results, ref, tmp_path)
    assert len(written) % 2 == 0
    for lang in LANGS:
        a100 = (fmt_us(7239.0, lang), fmt_us(146.8, lang))
        for name in ("headline", "headline-home", "findings-fused"):
            text = (tmp_path / f"{name}.{lang}.md").read_text(encoding="utf-8")
            assert not any(x in text for x in a100) and ref["source"]["url"] not in text, name
        table, notes, _ = bodies([(factory.SITE_RUN.name, results)], ref, lang)["cuda-time"]
        assert all(x in table for x in a100) and any(ref["source"]["url"] in n for n in notes)


def test_figures_are_deterministic(tmp_path):
    results = factory.site_run()
    a = render_figures(results, "nb", tmp_path / "a")
    b = render_figures(results, "nb", tmp_path / "b")
    assert a and [p.read_bytes() for p in a] == [p.read_bytes() for p in b]
    text = a[0].read_text("utf-8")
    assert results["provenance"]["gpu_name"] in text and "<dc:date>" not in text
    assert generated_by(text.splitlines()[1], "nb") == [("report/render/figures.py", ["cuda_vs_cpu"])]


# --- the rendered text -------------------------------------------------------------

def test_placeholders_are_filled_in_every_rendered_file(tmp_path):
    results = factory.site_run()
    for path in render_all(results, load_reference(), tmp_path):
        text = path.read_text(encoding="utf-8")
        bare = text.replace("{{", "").replace("}}", "").replace("\\{", "").replace("\\}", "")  # \{: a brace of data
        fields = {name for _, name, _, _ in string.Formatter().parse(bare)
                  if name} if "{" in text else set()
        assert not fields, (path.name, fields)


# --- rendering never trusts results.json ----------------------------------------------

def test_a_nan_shows_as_a_dash_with_the_reason(tmp_path):
    results = factory.site_run()
    results["variants"]["flash"]["cuda_time_us"]["median"] = math.nan
    results["variants"]["flash"]["wall_time_us"]["median"] = math.inf
    for lang, word in (("nb", "ikke et tall"), ("en", "not a number")):
        body = tables.headline(results, lang)
        row = next(line for line in body.splitlines() if "flash" in line)
        assert f"– ({word})" in row and "nan" not in row.lower() and "inf" not in row


def test_text_from_provenance_is_escaped(tmp_path):
    results = factory.site_run()
    results["provenance"]["gpu_name"] = "<script>alert(1)</script> *GPU* [x](http://evil)"
    results["provenance"]["command"] = "python build_tables.py `rm -rf`"
    for path in render_all(results, load_reference(), tmp_path / "t"):
        text = path.read_text(encoding="utf-8")
        assert "<script>" not in text and " [x](http://evil)" not in text, path.name
        assert "`rm -rf`" not in text, path.name
    shown = (tmp_path / "t" / "measured-on.en.md").read_text(encoding="utf-8")
    assert "&lt;script&gt;" in shown and r"\*GPU\*" in shown and r"\[x\](http" in shown


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
        if name not in FUSED:  # math's and naive's kernels share base names across template arguments
            continue
        ours = {tables.base_name(k["name"]): k for k in results["variants"][name]["kernels"] if k["kind"] == "kernel"}
        for kernel, metrics in row.get("kernels", {}).items():
            assert ours[tables.base_name(kernel)]["our_optin_pct"] == pytest.approx(metrics["theoretical_pct"], abs=0.1)
            checked += 1
    assert checked >= 3


def test_host_overhead_note_rounds_the_busy_share_down():
    """'at least' must not round up: 79 of 80 slices busy is 98.75 %, so the note says 98 %."""
    run = factory.results({"flash": factory.row(100.0, host_us=30.0)})
    run["variants"]["flash"]["host_time_us"].update(slices=80, gpu_kept_busy=79 / 80)
    text = tables.host_overhead(run, "en")
    assert "in at least 98% of the slices" in text and "80 slices" in text


def test_explain_modules_are_not_measuring_code():
    """--explain reads a reader's trace: changing how it reads one re-measures nothing."""
    files = set(code_hashes())
    assert not any(f.startswith("report/doctor/explain") for f in files)
    assert (ROOT / "report/doctor/model/timeline.py").is_file()  # one of those left out


def test_the_rounds_table_gives_each_figure_as_its_range_over_the_rounds():
    from factory import host, results, row, stats

    flash = row(100.0, host_us=37.0)
    flash["rounds"] = [{"kernel_sum_us": stats(k), "wall_time_us": {"median": w, "iqr": 0.0, "runs": 1},
                        "host_time_us": host(h)} for k, w, h in ((99.0, 101.0, 32.0), (100.0, 103.0, 47.0),
                                                                  (101.0, 102.0, 33.0))]
    text = tables.rounds_table(results({"flash": flash, "cudnn": row(60.0)}), "en")
    assert "| SDPA flash | 99.0–101 µs | 101–103 µs | 32.0–47.0 µs | 4.57–6.71 |" in text
    assert "cuDNN" not in text and "over 3 independent rounds" in text
    assert tables.rounds_table(results({"flash": row(100.0)}), "en") == MISSING


def test_a_column_of_times_has_one_unit():
    from report.text.format import column_time_unit, fmt_us_column

    assert column_time_unit([8.2, 2622.0, None]) == "µs" and column_time_unit([1500.0, 2.8e5]) == "ms"
    assert column_time_unit([1.4e6, 2e6]) == "s"
    assert fmt_us_column([8.2, 2622.0, None, 283613.0], "en") == ["8.20 µs", "2,622 µs", None, "283,600 µs"]  # four figures at most
    assert fmt_us_column([1439824.0, 9373.0], "nb") == ["1\u00a0440\u00a0ms", "9,37\u00a0ms"]
