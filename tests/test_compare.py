"""report/render/compare.py and the page "Every GPU side by side": every GPU folder under
docs/generated/ becomes a column, with no code or page edit; the committed comparison is
exactly what the committed results render.

The second GPU here is made up (the made_up_gpu fixture): the committed H200 results with
another name and scaled times, written into tmp_path, never under docs/generated/.
"""
import copy
import json
import re
import shutil

import pytest
from pagecode import DOCS, committed_result_dirs, expand_snippets, includes

import build_tables
from report.output.checks import check_target
from report.output.folders import MARKER
from report.output.write import render_comparison
from report.paths import COMPARE
from report.paths import DEFAULT_OUT as GENERATED
from report.render.compare import FILES, render_compare
from report.results import UsageError, load_reference, load_results, write_results
from report.text.catalog import t
from report.text.display import LANGS
from report.text.format import fmt_ratio, fmt_us

H200 = GENERATED / "h200" / "results.json"
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
    """A docs/generated/ look-alike: the H200's folder, a made-up second GPU that takes
    twice as long, and a CPU run (which must never appear)."""
    out = tmp_path / "generated"
    (out / "h200").mkdir(parents=True)
    shutil.copy(H200, out / "h200" / "results.json")
    h200 = load_results(H200)
    (out / "made-up-gpu").mkdir()
    write_results(scaled(h200, 2.0, "Made-up GPU 48GB"), out / "made-up-gpu" / "results.json")
    cpu = copy.deepcopy(h200)
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
    runs = [("h200", load_results(H200)), ("other", scaled(load_results(H200), 2.0, "Other GPU"))]
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
                f"| NVIDIA H200 | Made-up GPU 48GB | {a100} |"), (name, lang)
        assert header(read(made_up_gpu, "wall-time", lang)).endswith("| NVIDIA H200 | Made-up GPU 48GB |")
        for name in FILES:
            assert "CPU (made up)" not in read(made_up_gpu, name, lang), name
    cuda = read(made_up_gpu, "cuda-time", "en")
    ours = load_results(H200)["variants"]["flash"]["cuda_time_us"]["median"]
    a100 = load_reference()["variants"]["flash"]["cuda_time_us"]
    assert f"| SDPA flash | {fmt_us(ours, 'en')} | {fmt_us(2 * ours, 'en')} | {fmt_us(a100, 'en')} |" in cuda
    assert "The same shape in every column" in cuda
    findings = read(made_up_gpu, "findings", "en")
    # the variants the A100 has too: one verdict, the made-up GPU's factor the same for all
    assert "Fastest on the NVIDIA H200 for naive in-place (`masked_fill_`), SDPA math, SDPA flash, " \
           "SDPA efficient and SDPA cuDNN; the Made-up GPU 48GB takes 2.0× as long, the A100 (Hugging Face) " \
           f"takes {fmt_ratio(a100 / ours, 'en')} (SDPA flash" in findings
    assert "Made-up GPU 48GB" in read(made_up_gpu, "sweep", "en")


def test_the_page_includes_only_the_comparison_so_a_new_gpu_needs_no_page_edit(made_up_gpu, tmp_path):
    build_tables.main(["--render-only", "--out", str(made_up_gpu)])
    for lang in LANGS:
        text = (DOCS / f"{PAGE}.{lang}.md").read_text(encoding="utf-8")
        targets = includes(text)
        assert sorted(targets) == sorted(f"generated/{COMPARE}/tables/{n}.{lang}.md" for n in FILES)
        assert "H200" not in text  # no claim about one GPU that a second one could make wrong
        # the unchanged page, expanded against the made-up docs/generated/
        expanded = expand_snippets(text, base_path=["snippets", str(tmp_path)])
        assert "Made-up GPU 48GB" in expanded and "NVIDIA H200" in expanded
        assert "CPU (made up)" not in expanded


def test_the_measurement_run_refreshes_the_comparison(made_up_gpu):
    ref = load_reference()
    shutil.rmtree(made_up_gpu / "made-up-gpu")
    render_comparison(made_up_gpu, ref)
    assert "Made-up GPU" not in read(made_up_gpu, "cuda-time", "en")
    assert sorted(p.name for p in (made_up_gpu / COMPARE).iterdir()) == [MARKER, "tables"]  # no staging left


def test_only_cpu_runs_write_no_comparison(tmp_path):
    (tmp_path / "cpu").mkdir()
    cpu = load_results(H200)
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
    return [("h200", load_results(H200)), ("other", other)]


def with_spread(results, spread):
    """The same results with every GPU span's steps spread by `spread` around the median."""
    for row in results["variants"].values():
        if row.get("cuda_time_us"):
            m = row["cuda_time_us"]["median"]
            row["cuda_time_us"].update(min=m * (1 - spread / 2), max=m * (1 + spread / 2))
    return results


def test_a_difference_within_the_recorded_spread_is_not_called(tmp_path):
    ours = with_spread(load_results(H200), 0.02)
    other = with_spread(scaled(load_results(H200), 1.1, "Almost the same GPU"), 0.2)  # 10 % apart, 20 % spread
    render_compare([("h200", ours), ("other", other)], load_reference(), tmp_path)
    text = (tmp_path / "findings.en.md").read_text(encoding="utf-8")
    a100 = [n for n, row in load_reference()["variants"].items() if row.get("cuda_time_us")]
    alone = len(ours["variants"]) - len(a100)  # the variants only our two GPUs have a GPU span for
    assert (f"- No clear difference between the NVIDIA H200 and Almost the same GPU for {alone} of the "
            f"{len(ours['variants'])} variants measured on more than one GPU. The exceptions:\n"
            "    - Fastest on the NVIDIA H200 and Almost the same GPU for naive in-place (`masked_fill_`), "
            "SDPA math, SDPA flash, SDPA efficient and SDPA cuDNN; the A100 (Hugging Face) takes ") in text
    assert "Almost the same GPU takes" not in text
    text = (tmp_path / "findings.nb.md").read_text(encoding="utf-8")
    assert (f"- Ingen klar forskjell mellom NVIDIA H200 og Almost the same GPU for {alone} av de "
            f"{len(ours['variants'])} variantene som er målt på mer enn én GPU. Unntakene:") in text


def test_the_findings_say_a_shared_verdict_once_and_name_the_exceptions(tmp_path):
    """One sentence for the verdict most variants share, with the range of the factors and
    the variants at either end; a variant with another verdict under it, by name."""
    h200 = load_results(H200)
    render_compare([("h200", h200)], load_reference(), tmp_path)
    ref = load_reference()["variants"]
    ratios = {n: row["cuda_time_us"] / h200["variants"][n]["cuda_time_us"]["median"]
              for n, row in ref.items() if row.get("cuda_time_us")}
    low, high = min(ratios, key=ratios.get), max(ratios, key=ratios.get)
    for lang in LANGS:
        text = (tmp_path / f"findings.{lang}.md").read_text(encoding="utf-8")
        verdicts = [line for line in text.splitlines() if "H200" in line and "A100" in line and "fused" not in line
                    and "fusjonerte" not in line and "Kineto" not in line]
        assert len(verdicts) == 1, verdicts  # said once, not once per variant
        assert fmt_ratio(ratios[low], lang) in verdicts[0] and fmt_ratio(ratios[high], lang) in verdicts[0]
        assert t(f"variant.{high}", lang) in verdicts[0]
    # one variant with a verdict of its own: the exception, named under the shared one
    odd = copy.deepcopy(h200)
    odd["variants"]["flash"]["cuda_time_us"] = {**odd["variants"]["flash"]["cuda_time_us"], "median": 1e6,
                                                "min": 1e6, "max": 1e6}
    render_compare([("h200", odd)], load_reference(), tmp_path)
    text = (tmp_path / "findings.en.md").read_text(encoding="utf-8")
    assert "Fastest on the NVIDIA H200 for 4 of the 5 variants measured on more than one GPU;" in text
    assert "The exception:\n    - SDPA flash: fastest on the A100 (Hugging Face); the NVIDIA H200 takes " in text


def test_a_difference_beyond_the_recorded_spread_is_called(tmp_path):
    ours = with_spread(load_results(H200), 0.02)
    other = with_spread(scaled(load_results(H200), 1.1, "Almost the same GPU"), 0.02)  # 10 % apart, 2 % spread
    render_compare([("h200", ours), ("other", other)], load_reference(), tmp_path)
    text = (tmp_path / "findings.en.md").read_text(encoding="utf-8")
    assert f"Almost the same GPU takes {fmt_ratio(1.1, 'en')} as long" in text


def test_another_shape_is_marked_and_not_compared(tmp_path):
    other = scaled(load_results(H200), 3.0, "Long GPU")
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
    findings = (tmp_path / "findings.en.md").read_text(encoding="utf-8")
    assert "The Long GPU measured a shape no other column measured (8 × 16 × 4096 × 64" in findings
    assert not re.search(r"Long GPU takes", findings)


def test_two_runs_of_one_gpu_are_told_apart_by_folder(tmp_path):
    runs = [("h200", load_results(H200)), ("h200-again", load_results(H200))]
    render_compare(runs, load_reference(), tmp_path)
    assert "| NVIDIA H200 (h200) | NVIDIA H200 (h200-again) |" in (tmp_path / "cuda-time.en.md").read_text()


def test_a_gpu_without_a_variant_or_a_sweep_shows_a_dash(tmp_path):
    other = scaled(load_results(H200), 2.0, "Small GPU")
    del other["variants"]["flex"], other["sweep"]
    other["variants"]["cudnn"] = {**other["variants"]["cudnn"], "status": "unsupported"}
    render_compare(two_gpus(other), load_reference(), tmp_path)
    cuda = (tmp_path / "cuda-time.en.md").read_text(encoding="utf-8")
    ours = load_results(H200)["variants"]
    flex, cudnn = (fmt_us(ours[n]["cuda_time_us"]["median"], "en") for n in ("flex", "cudnn"))
    a100 = fmt_us(load_reference()["variants"]["cudnn"]["cuda_time_us"], "en")
    assert f"| FlexAttention (compiled) | {flex} | – | – |" in cuda
    assert f"| SDPA cuDNN | {cudnn} | not supported | {a100} |" in cuda
    assert "No sequence sweep: Small GPU." in (tmp_path / "sweep.en.md").read_text(encoding="utf-8")


def test_gpu_names_are_escaped(tmp_path):
    other = scaled(load_results(H200), 2.0, "<b>GPU</b> *x* [y](http://evil)")
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
    the seed shape's paired wall times tell them apart."""
    from report.render.compare import kernel_leaders, wall_leaders
    run = load_results(GENERATED / "h200" / "results.json")
    kernel, wall = kernel_leaders(run), wall_leaders(run)
    assert kernel.names == ("cudnn",) and wall.names == ("cudnn",)
    # a GPU span that puts flash first changes neither
    faked = copy.deepcopy(run)
    faked["variants"]["flash"]["cuda_time_us"] = {**faked["variants"]["flash"]["cuda_time_us"], "median": 1.0}
    assert kernel_leaders(faked) == kernel and wall_leaders(faked) == wall
    # flash's blocks equal to cuDNN's in every pair: the two are the same in wall time
    for rnd in faked["pairs"]["groups"]["seed_wall"]["rounds"]:
        rnd["blocks_us"]["flash"] = list(rnd["blocks_us"]["cudnn"])
    assert set(wall_leaders(faked).names) == {"cudnn", "flash"}
    faked.pop("pairs")
    assert wall_leaders(faked) is None
