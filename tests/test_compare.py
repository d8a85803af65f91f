"""report/render/compare.py and the page "Every GPU side by side": every GPU folder under
docs/generated/ becomes a column, with no code or page edit; the committed comparison is
exactly what the committed results render.

The second GPU here is made up (the made_up_gpu fixture): the site's run with another name
and scaled times, written into tmp_path, never under docs/generated/.
"""
import copy
import json
import shutil

import pytest
from factory import SITE_RUN, copy_run, site_run
from pagecode import DOCS, committed_result_dirs, expand_snippets, includes

import build_tables
from report.output.checks import check_target
from report.output.folders import MARKER
from report.output.write import render_comparison
from report.paths import COMPARE
from report.paths import DEFAULT_OUT as GENERATED
from report.render.compare import FILES, render_compare
from report.render.compare_columns import columns
from report.render.compare_findings import compare_findings
from report.results import UsageError, load_reference, load_results, write_results
from report.text.catalog import t
from report.text.display import LANGS
from report.text.format import fmt_us
from report.variants import FUSED
from report.verdict import pooled

OURS = SITE_RUN / "results.json"
SLUG = SITE_RUN.name
GPU = load_results(OURS)["provenance"]["gpu_name"]
MODEL = GPU.removeprefix("NVIDIA ").split()[0]  # the model alone, as a page would name it
PAGE = "compare-gpus"


def scaled(results, factor, gpu_name):
    """A copy of results as if another GPU took `factor` times as long for everything."""
    out = copy.deepcopy(results)
    out["provenance"]["gpu_name"] = gpu_name

    def scale(obj):
        for key, value in obj.items() if isinstance(obj, dict) else ():
            if key.endswith("_us") and isinstance(value, (int, float)):
                obj[key] = value * factor
            elif key.endswith("_us") and isinstance(value, dict):
                for k in ("median", "min", "max", "mean"):
                    if isinstance(value.get(k), (int, float)):
                        value[k] *= factor
            elif isinstance(value, (dict, list)):
                for item in value if isinstance(value, list) else [value]:
                    scale(item)

    scale(out["variants"])
    for point in (out.get("sweep") or {}).get("points", []):
        scale(point)
    return out


@pytest.fixture
def made_up_gpu(tmp_path):
    """A docs/generated/ look-alike: the site's run's folder, a made-up second GPU that takes
    twice as long, and a CPU run (which must never appear)."""
    out = tmp_path / "generated"
    (out / SLUG).mkdir(parents=True)
    copy_run(out / SLUG)
    ours = site_run()
    (out / "made-up-gpu").mkdir()
    write_results(scaled(ours, 2.0, "Made-up GPU 48GB"), out / "made-up-gpu" / "results.json")
    cpu = copy.deepcopy(ours)
    cpu["provenance"] = {k: v for k, v in cpu["provenance"].items() if k not in ("cuda", "cudnn")}
    cpu["provenance"]["gpu_name"] = "CPU (made up)"
    (out / "cpu").mkdir()
    write_results(cpu, out / "cpu" / "results.json")
    return out


def read(folder, name, lang):
    return (folder / COMPARE / "tables" / f"{name}.{lang}.md").read_text(encoding="utf-8")


def header(table_text):
    return next(line for line in table_text.splitlines() if line.startswith("| "))


# --- the committed comparison --------------------------------------------------------------

def test_committed_comparison_is_exactly_what_the_committed_results_render(tmp_path):
    runs = [(d.name, load_results(d / "results.json")) for d in committed_result_dirs()]
    written = render_compare(runs, load_reference(), tmp_path)
    committed = sorted(p.name for p in (GENERATED / COMPARE / "tables").iterdir())
    assert sorted(p.name for p in written) == committed
    for path in written:
        assert path.read_bytes() == (GENERATED / COMPARE / "tables" / path.name).read_bytes(), path.name


def test_the_compare_folder_is_no_gpu_folder():
    assert not (GENERATED / COMPARE / "results.json").exists()
    assert COMPARE not in [d.name for d in committed_result_dirs()]


def test_rendering_is_deterministic(tmp_path):
    runs = [(SLUG, load_results(OURS)), ("other", scaled(load_results(OURS), 2.0, "Other GPU"))]
    a = render_compare(runs, load_reference(), tmp_path / "a")
    b = render_compare(list(reversed(runs)), load_reference(), tmp_path / "b")
    assert [p.read_bytes() for p in a] == [p.read_bytes() for p in b]
    assert {p.name for p in a} == {f"{n}.{lang}.md" for n in FILES for lang in LANGS}


# --- a second GPU: a column with no code or page edit ----------------------------------------

def test_a_second_gpu_folder_gets_its_own_column(made_up_gpu, capsys):
    assert build_tables.main(["--render-only", "--out", str(made_up_gpu)]) == 0
    assert "compare" in capsys.readouterr().out
    for lang in LANGS:
        a100 = t("compare.a100", lang)
        for name in ("runs", "cuda-time", "cpu-time", "kernels"):
            assert header(read(made_up_gpu, name, lang)).endswith(
                f"| {GPU} | Made-up GPU 48GB | {a100} |"), (name, lang)
        assert header(read(made_up_gpu, "wall-time", lang)).endswith(f"| {GPU} | Made-up GPU 48GB |")
        for name in FILES:
            assert "CPU (made up)" not in read(made_up_gpu, name, lang), name
    cuda = read(made_up_gpu, "cuda-time", "en")
    ours = load_results(OURS)["variants"]["flash"]["cuda_time_us"]["median"]
    a100 = load_reference()["variants"]["flash"]["cuda_time_us"]
    assert f"| SDPA flash | {fmt_us(ours, 'en')} | {fmt_us(2 * ours, 'en')} | {fmt_us(a100, 'en')} |" in cuda
    assert "The same shape in every column" in cuda
    assert "compare-findings.en.md.j2" in read(made_up_gpu, "findings", "en").splitlines()[0]
    assert "Made-up GPU 48GB" in read(made_up_gpu, "sweep", "en")


def test_the_page_includes_only_the_comparison_so_a_new_gpu_needs_no_page_edit(made_up_gpu, tmp_path):
    build_tables.main(["--render-only", "--out", str(made_up_gpu)])
    for lang in LANGS:
        text = (DOCS / f"{PAGE}.{lang}.md").read_text(encoding="utf-8")
        targets = includes(text)
        assert sorted(targets) == sorted(f"generated/{COMPARE}/tables/{n}.{lang}.md" for n in FILES)
        assert MODEL not in text  # no claim about one GPU that a second one could make wrong
        # the unchanged page, expanded against the made-up docs/generated/
        expanded = expand_snippets(text, base_path=["snippets", str(tmp_path)])
        assert "Made-up GPU 48GB" in expanded and GPU in expanded
        assert "CPU (made up)" not in expanded


def test_the_measurement_run_refreshes_the_comparison(made_up_gpu):
    ref = load_reference()
    shutil.rmtree(made_up_gpu / "made-up-gpu")
    render_comparison(made_up_gpu, ref)
    assert "Made-up GPU" not in read(made_up_gpu, "cuda-time", "en")
    assert sorted(p.name for p in (made_up_gpu / COMPARE).iterdir()) == [MARKER, "tables"]  # no staging left


def test_only_cpu_runs_write_no_comparison(tmp_path):
    (tmp_path / "cpu").mkdir()
    cpu = site_run()
    del cpu["provenance"]["cuda"]
    write_results(cpu, tmp_path / "cpu" / "results.json")
    assert render_comparison(tmp_path, load_reference()) is None
    assert not (tmp_path / COMPARE).exists()


def test_compare_is_no_slug_for_a_gpu(tmp_path):
    args = build_tables.parse_args(["--out", str(tmp_path)])
    with pytest.raises(UsageError, match="comparison"):
        check_target(args, tmp_path, COMPARE, {"gpu_name": "NVIDIA H200"})


# --- what the comparison says and does not say ------------------------------------------------

def two_gpus(other):
    return [(SLUG, load_results(OURS)), ("other", other)]


def facts(runs):
    return compare_findings(columns(runs, load_reference(), "en"))


def with_rounds(results, factors):
    """The same results with each variant's rounds of kernel time at factors × its median
    (the factors given for the first rounds, the last one repeated for any further round)."""
    for row in results["variants"].values():
        if row.get("rounds"):
            m = row["kernel_sum_us"]["median"]
            row["rounds"] = [{**r, "kernel_sum_us": {**r["kernel_sum_us"], "median": m * f}}
                             for r, f in zip(row["rounds"], _each(factors, len(row["rounds"])), strict=True)]
    return results


def _each(factors, n):
    return (tuple(factors) + (factors[-1],) * n)[:n]


def runs_of_gpu(results, *factors):
    """results pooled with a rerun of the same code for each of `factors`, each run's rounds
    at that factor × results' (report/verdict: pooled, as render_compare pools data/reruns/)."""
    reruns = [(f"r{i}", with_rounds(copy.deepcopy(results), (f,))) for i, f in enumerate(factors)]
    return pooled(results, reruns)


def test_gpus_are_ranked_in_kernel_time_unpaired_with_the_run_as_the_unit():
    """10 % apart in every run: the other GPU is slower, by 1.1× for every variant, said once."""
    ours = with_rounds(load_results(OURS), (1.0, 1.0, 1.0))
    other = scaled(ours, 1.1, "Almost the same GPU")
    (group,) = facts([(SLUG, runs_of_gpu(ours, 1.0, 1.0)), ("other", runs_of_gpu(other, 1.0, 1.0))]).groups
    assert [g.name for g in group.timed] == [GPU, "Almost the same GPU"]
    assert group.others == () and group.total == len(ours["variants"])
    assert [g.name for g in group.shared.fastest] == [GPU]
    (slower,) = group.shared.slower
    assert slower.gpu.name == "Almost the same GPU" and slower.low.ratio == pytest.approx(1.1)
    assert slower.high.ratio == pytest.approx(1.1)


def test_runs_that_scatter_more_than_the_gap_are_not_told_apart():
    """10 % apart in the first runs, but a run of the other GPU 30 % the other way: no order."""
    ours = with_rounds(load_results(OURS), (1.0, 1.0, 1.0))
    other = scaled(ours, 1.1, "Almost the same GPU")
    (group,) = facts([(SLUG, runs_of_gpu(ours, 1.0, 1.0)), ("other", runs_of_gpu(other, 0.7, 1.0))]).groups
    assert group.shared.slower == () and len(group.shared.fastest) == 2


def test_one_run_a_gpu_ranks_no_gpu_however_far_apart():
    """GPUs are never timed together: no round of one pairs with a round of the other, and
    one run a side gives no interval across runs."""
    ours = with_rounds(load_results(OURS), (1.0, 1.0, 1.0))
    (group,) = facts([(SLUG, ours), ("other", scaled(ours, 3.0, "Slow GPU"))]).groups
    assert group.shared.slower == () and len(group.shared.fastest) == 2


def test_a_variant_with_another_verdict_is_an_exception_under_the_shared_one():
    ours = with_rounds(load_results(OURS), (1.0, 1.0, 1.0))
    other = scaled(ours, 2.0, "Made-up GPU")
    other = with_rounds(other, (1.0, 1.0, 1.0))
    flash = other["variants"]["flash"]
    flash["kernel_sum_us"] = {**flash["kernel_sum_us"], "median": ours["variants"]["flash"]["kernel_sum_us"]["median"] / 3}
    other = with_rounds(other, (1.0, 1.0, 1.0))
    (group,) = facts([(SLUG, runs_of_gpu(ours, 1.0, 1.0)), ("other", runs_of_gpu(other, 1.0, 1.0))]).groups
    assert "flash" not in group.shared.variants and len(group.shared.variants) == group.total - 1
    (exception,) = group.others
    assert exception.variants == ("flash",) and [g.name for g in exception.fastest] == ["Made-up GPU"]
    assert exception.slower[0].low.ratio == pytest.approx(3.0)


def test_the_a100s_profiler_figures_rank_no_gpu_and_no_backend():
    """Hugging Face's A100 has only its profiler's CUDA time: with our GPU alone beside it,
    no GPU is ranked, whatever its figures; its lowest CUDA time is named as the profiler's."""
    run = load_results(OURS)
    found = facts([(SLUG, run)])
    (group,) = found.groups
    assert [g.name for g in group.timed] == [GPU] and group.shared is None and group.others == ()
    assert [g.name for g in group.gpus] == [GPU, None]
    ref = load_reference()
    fused = {n: ref["variants"][n]["cuda_time_us"] for n in ("flash", "efficient", "cudnn")
             if ref["variants"].get(n, {}).get("cuda_time_us")}
    assert found.cited.lowest == min(fused, key=fused.get)
    # a GPU span on our side that would rank the A100 first changes nothing
    faked = copy.deepcopy(run)
    for row in faked["variants"].values():
        if row.get("cuda_time_us"):
            row["cuda_time_us"] = {**row["cuda_time_us"], "median": 1e9}
    assert facts([(SLUG, faked)]).groups == found.groups


def test_a_gpu_without_rounds_is_not_ranked():
    ours = load_results(OURS)
    other = scaled(ours, 2.0, "Old GPU")
    for row in other["variants"].values():
        row.pop("rounds", None)
    (group,) = facts([(SLUG, ours), ("other", other)]).groups
    assert [g.name for g in group.timed] == [GPU] and group.shared is None and group.others == ()


def test_another_shape_is_marked_and_not_compared(tmp_path):
    other = scaled(load_results(OURS), 3.0, "Long GPU")
    other["config"]["seq_len"] = 4096
    render_compare(two_gpus(other), load_reference(), tmp_path)
    for lang in LANGS:
        cuda = (tmp_path / f"cuda-time.{lang}.md").read_text(encoding="utf-8")
        rows = [line for line in cuda.splitlines() if line.startswith("| ")]
        assert rows[2].startswith(f"| {t('compare.shape_row', lang)} |")
        assert "8 × 16 × 1024 × 64, bfloat16 | 8 × 16 × 4096 × 64, bfloat16" in rows[2]
        assert t("compare.shapes_differ", lang) in cuda
    other["sweep"]["batch"] = 4
    render_compare(two_gpus(other), load_reference(), tmp_path)
    sweep = (tmp_path / "sweep.en.md").read_text(encoding="utf-8")
    assert "| Shape (B × H) | 8 × 16, bfloat16 | 4 × 16, bfloat16 |" in sweep
    assert t("compare.shapes_differ", "en") in sweep
    groups = facts(two_gpus(other)).groups
    assert [[g.name for g in group.gpus] for group in groups] == [[GPU, None], ["Long GPU"]]
    assert groups[1].shape.seq_len == 4096 and groups[1].shared is None and groups[1].others == ()


def test_two_runs_of_one_gpu_are_told_apart_by_folder(tmp_path):
    runs = [(SLUG, load_results(OURS)), (f"{SLUG}-again", load_results(OURS))]
    render_compare(runs, load_reference(), tmp_path)
    assert f"| {GPU} ({SLUG}) | {GPU} ({SLUG}-again) |" in (tmp_path / "cuda-time.en.md").read_text()


def test_a_gpu_without_a_variant_or_a_sweep_shows_a_dash(tmp_path):
    other = scaled(load_results(OURS), 2.0, "Small GPU")
    del other["variants"]["flex"], other["sweep"]
    other["variants"]["cudnn"] = {**other["variants"]["cudnn"], "status": "unsupported"}
    render_compare(two_gpus(other), load_reference(), tmp_path)
    cuda = (tmp_path / "cuda-time.en.md").read_text(encoding="utf-8")
    ours = load_results(OURS)["variants"]
    flex, cudnn = (fmt_us(ours[n]["cuda_time_us"]["median"], "en") for n in ("flex", "cudnn"))
    a100 = fmt_us(load_reference()["variants"]["cudnn"]["cuda_time_us"], "en")
    assert f"| FlexAttention (compiled) | {flex} | – | – |" in cuda
    assert f"| SDPA cuDNN | {cudnn} | not supported | {a100} |" in cuda
    assert "No sequence sweep: Small GPU." in (tmp_path / "sweep.en.md").read_text(encoding="utf-8")


def test_gpu_names_are_escaped(tmp_path):
    other = scaled(load_results(OURS), 2.0, "<b>GPU</b> *x* [y](http://evil)")
    render_compare(two_gpus(other), load_reference(), tmp_path)
    for path in tmp_path.iterdir():
        text = path.read_text(encoding="utf-8")
        assert "<b>" not in text and "[y](http" not in text, path.name


def test_made_up_gpu_json_is_written_only_into_tmp(made_up_gpu):
    """The fixture and a --render-only of its folder write under tmp only: every file of
    docs/generated is byte for byte what it was."""
    def snapshot():
        return {p: p.read_bytes() for p in GENERATED.rglob("*") if p.is_file()}

    before = snapshot()
    assert build_tables.main(["--render-only", "--out", str(made_up_gpu)]) == 0
    assert GENERATED not in made_up_gpu.parents and snapshot() == before
    assert json.loads((made_up_gpu / "made-up-gpu" / "results.json").read_text())["provenance"][
        "gpu_name"] == "Made-up GPU 48GB"


def test_the_fused_backends_are_ranked_by_kernel_time_and_by_paired_wall_time_never_by_gpu_span():
    """Issue 29: the H200 line ranked cuDNN and flash together by GPU span; kernel time and
    the seed shape's paired wall times tell them apart (in the site's run: one leader each)."""
    from report.render.compare_findings import kernel_leaders, wall_leaders
    run = load_results(OURS)
    kernel, wall = kernel_leaders(run), wall_leaders(run)
    kernel_us = {n: run["variants"][n]["kernel_sum_us"]["median"] for n in FUSED if run["variants"][n]["status"] == "ok"}
    (leader,) = kernel.names
    assert leader == min(kernel_us, key=kernel_us.get) and wall.names == (leader,)
    # a GPU span that puts another backend first changes neither
    other = min((n for n in kernel_us if n != leader), key=kernel_us.get)
    faked = copy.deepcopy(run)
    faked["variants"][other]["cuda_time_us"] = {**faked["variants"][other]["cuda_time_us"], "median": 1.0}
    assert kernel_leaders(faked) == kernel and wall_leaders(faked) == wall
    # its blocks equal to the leader's in every pair: the two are the same in wall time
    for rnd in faked["pairs"]["groups"]["seed_wall"]["rounds"]:
        rnd["blocks_us"][other] = list(rnd["blocks_us"][leader])
    assert set(wall_leaders(faked).names) == {leader, other}
    faked.pop("pairs")
    assert wall_leaders(faked) is None
