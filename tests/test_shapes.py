"""--shapes: the snippet's numerics on the CPU, the section through build_tables.main on the
CPU, the memory cap, and the rendering of made-up GPU results (no GPU needed)."""
import copy
import math
import runpy
from pathlib import Path

import pytest
import torch
import torch.nn.functional as F
from factory import ONE_SHORT_ROUND, SMALL_CPU, found, shape_results, site_run
from shapes import cache_attention, check_heads, make_cache_inputs, make_flex, repeat_kv, sliding_window

import build_tables
from report.measure import shape_runs
from report.render import shape_figures, shape_tables
from report.render.findings import decode_findings, shape_findings
from report.render.findings.registry import files_of
from report.render.shape_points import refusal_line
from report.render.site import render_all
from report.results import load_reference, load_results
from report.text.catalog import t
from report.text.display import LANGS
from report.variants import SHAPES_CPU, SHAPES_GPU

ROOT = Path(__file__).resolve().parents[1]
SHAPE_FINDING_FILES = files_of(decode_findings, shape_findings)


def expected(q, k, v, window=None):
    """Attention in float64, written out here: query i of L sits at cache place S - L + i and
    sees the keys at places <= its own (and, with a window, fewer than `window` back)."""
    hq, hk = q.shape[1], k.shape[1]
    L, S, d = q.shape[2], k.shape[2], q.shape[3]
    out = torch.empty(q.shape, dtype=torch.float64)
    for b in range(q.shape[0]):
        for h in range(hq):
            kh = h * hk // hq  # query heads h*hk//hq share one K/V head, in order
            for i in range(L):
                place = S - L + i
                seen = [j for j in range(S) if j <= place and (window is None or place - j < window)]
                s = torch.stack([(q[b, h, i].double() * k[b, kh, j].double()).sum() for j in seen]) / math.sqrt(d)
                w = torch.softmax(s, dim=0)
                out[b, h, i] = sum(w[n] * v[b, kh, j].double() for n, j in enumerate(seen))
    return out


def rel(out, ref):
    return ((out.double() - ref).norm() / ref.norm()).item()


# --- the snippet: alignment, GQA, sliding window, validation ---------------------------

@pytest.mark.parametrize("q_len, kv_len", [(1, 9), (3, 9), (9, 9), (1, 1)])
@pytest.mark.parametrize("q_heads, kv_heads", [(4, 4), (4, 2), (6, 1)])
def test_cache_attention_is_lower_right_causal(q_len, kv_len, q_heads, kv_heads):
    q, k, v = make_cache_inputs(2, q_heads, kv_heads, q_len, kv_len, 8, dtype=torch.float32, device="cpu", seed=1)
    ref = expected(q, k, v)
    with torch.no_grad():
        assert rel(cache_attention(q, k, v), ref) < 1e-6
        assert rel(cache_attention(q, *repeat_kv(q, k, v)), ref) < 1e-6


def test_is_causal_true_is_top_left_and_differs_for_a_short_query():
    """The reason cache_attention does not pass is_causal=True for decode (see
    torch/nn/functional.py, scaled_dot_product_attention's docstring, and
    torch/nn/attention/bias.py, CausalVariant)."""
    q, k, v = make_cache_inputs(1, 2, 2, 3, 7, 8, dtype=torch.float64, device="cpu", seed=2)
    top_left = F.scaled_dot_product_attention(q, k, v, is_causal=True)
    # top-left: query i sees keys 0..i, as if the cache were as short as the query
    assert rel(top_left, expected(q[:, :, :, :], k[:, :, :3], v[:, :, :3])) < 1e-12
    assert rel(top_left, expected(q, k, v)) > 0.1
    assert rel(cache_attention(q, k, v), expected(q, k, v)) < 1e-12


def test_one_query_token_sees_the_whole_cache():
    q, k, v = make_cache_inputs(1, 2, 2, 1, 6, 8, dtype=torch.float64, device="cpu", seed=3)
    weights = torch.softmax(q @ k.transpose(-2, -1) / math.sqrt(8), dim=-1)
    assert torch.allclose(cache_attention(q, k, v), weights @ v)
    assert torch.allclose(F.scaled_dot_product_attention(q, k, v, is_causal=True), v[:, :, :1])


def test_sliding_window_matches_float64():
    q, k, v = make_cache_inputs(1, 2, 2, 256, 256, 8, dtype=torch.float32, device="cpu", seed=4)
    attend, block_mask = make_flex(sliding_window(5), 256, "cpu", compile=False)
    with torch.no_grad():
        assert rel(attend(q, k, v), expected(q, k, v, window=5)) < 1e-5
    assert block_mask.sparsity() == 25.0  # of 2 × 2 tiles of 128, the one above the diagonal


@pytest.mark.parametrize("q_heads, kv_heads", [(32, 12), (6, 4), (4, 8)])
def test_heads_that_do_not_divide_are_refused_clearly(q_heads, kv_heads):
    with pytest.raises(ValueError, match="cannot share"):
        make_cache_inputs(1, q_heads, kv_heads, 1, 8, 8, dtype=torch.float32, device="cpu")
    q = torch.randn(1, q_heads, 1, 8)
    k = v = torch.randn(1, kv_heads, 8, 8)
    for call in (lambda: cache_attention(q, k, v), lambda: repeat_kv(q, k, v)):
        with pytest.raises(ValueError, match="multiple of the number of K/V heads"):
            call()


@pytest.mark.parametrize("sizes, message", [
    (dict(batch=0), "at least 1"),
    (dict(kv_len=-3), "at least 1"),
    (dict(head_dim=8.0), "whole numbers"),
    (dict(q_len=True), "whole numbers"),
    (dict(q_len=9, kv_len=8), "at least as many keys"),
])
def test_shape_validation(sizes, message):
    args = dict(batch=1, q_heads=2, kv_heads=1, q_len=1, kv_len=8, head_dim=8) | sizes
    with pytest.raises(ValueError, match=message):
        make_cache_inputs(**args, dtype=torch.float32, device="cpu")


def test_mismatched_tensors_are_refused():
    q = torch.randn(1, 2, 1, 8)
    with pytest.raises(ValueError, match="4-D"):
        check_heads(q[0], q, q)
    with pytest.raises(ValueError, match="same shape"):
        check_heads(q, torch.randn(1, 2, 4, 8), torch.randn(1, 2, 5, 8))
    with pytest.raises(ValueError, match="batch and head_dim"):
        check_heads(q, torch.randn(1, 2, 4, 16), torch.randn(1, 2, 4, 16))


def test_snippet_prints_its_checks(capsys):
    runpy.run_path(str(ROOT / "snippets" / "shapes.py"), run_name="__main__")
    out = capsys.readouterr().out
    assert "is_causal=True sees key 0 only: True" in out
    assert "cache_attention sees all 6 keys: True" in out
    checks = [line for line in out.splitlines() if "within" in line]
    assert len(checks) == 5 and all(line.endswith(": True") for line in checks)


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA GPU (runs in the GPU test pass)")
@pytest.mark.parametrize("q_len, kv_len, q_heads, kv_heads", [(1, 1024, 8, 8), (4, 1024, 8, 8), (1, 1024, 8, 2),
                                                              (256, 256, 8, 1)])
def test_every_backend_that_accepts_a_cache_shape_gets_it_right_on_the_gpu(q_len, kv_len, q_heads, kv_heads):
    """On the GPU, pinned to each backend (CausalBias and enable_gqa reach the real kernels):
    a backend may refuse, but what it returns is lower-right causal attention."""
    import warnings

    from sdpa_backends import BACKENDS
    from torch.nn.attention import sdpa_kernel

    q, k, v = make_cache_inputs(2, q_heads, kv_heads, q_len, kv_len, 128, device="cuda", seed=6)
    ref = shape_runs.reference_rows(torch, q, k, v, rows=8)
    ran = []
    for name, backend in BACKENDS.items():
        with warnings.catch_warnings(), sdpa_kernel(backend), torch.no_grad():
            warnings.simplefilter("ignore")
            try:
                out = cache_attention(q, k, v)
            except RuntimeError:
                continue
        assert shape_runs.rel_error(out, ref) < 2e-2, name
        ran.append(name)
    assert "math" in ran and len(ran) >= 2, ran


# --- the measuring code's own pieces ---------------------------------------------------

@pytest.mark.parametrize("q_len, kv_len, window", [(1, 9, None), (4, 9, None), (9, 9, None), (9, 9, 3),
                                                   (20, 20, 20), (3, 10, 4), (1, 10, 4), (30, 30, 7)])
def test_allowed_pairs_counts_the_mask(q_len, kv_len, window):
    brute = sum(1 for i in range(q_len) for j in range(kv_len)
                if j <= kv_len - q_len + i and (window is None or kv_len - q_len + i - j < window))
    assert shape_runs.allowed_pairs(q_len, kv_len, window) == brute


def test_reference_rows_is_lower_right_and_maps_shared_heads():
    q, k, v = make_cache_inputs(2, 6, 2, 5, 12, 8, dtype=torch.float32, device="cpu", seed=5)
    ref = shape_runs.reference_rows(torch, q, k, v, rows=3)
    assert shape_runs.rel_error(expected(q, k, v).float(), ref) < 1e-6
    assert shape_runs.rel_error(F.scaled_dot_product_attention(q, k, v, is_causal=True, enable_gqa=True),
                                    ref) > 0.1


def test_the_memory_cap_skips_only_what_is_too_large():
    shape = {"batch": 32, "q_heads": 32, "kv_heads": 32, "q_len": 1, "kv_len": 131072, "head_dim": 128,
             "window": None}
    h200 = 139.8 * 2**30
    assert shape_runs.sizes(shape, 2)["kv_bytes"] == 64 * 2**30
    why = shape_runs.too_large(shape, "flash", 2, h200)
    assert why and "64.0 GiB" in why and "25 %" in why
    assert shape_runs.too_large(shape | {"batch": 1}, "flash", 2, h200) is None
    assert shape_runs.too_large(shape, "flash", 2, None) is None  # the CPU: no cap
    gqa = shape | {"batch": 32, "kv_heads": 1, "kv_len": 8192}
    assert shape_runs.too_large(gqa, "auto", 2, 2**30) is None
    assert "copies" in shape_runs.too_large(gqa, "repeat_kv", 2, 2**30)


def test_the_gpu_plan_stays_small():
    """The section must stay well under two minutes on the H200: count its measurements."""
    plan = shape_runs.plan(SHAPES_GPU)
    runs = sum(len(v) for _, _, v in plan)
    skipped = sum(len(v) for _, s, v in plan
                  if shape_runs.too_large(s, "auto", 2, 139.8 * 2**30))
    assert runs - skipped <= 95
    assert {f for f, _, _ in plan} == {"decode", "prefill", "gqa_decode", "gqa_prefill", "sliding"}
    assert all(s["head_dim"] == 128 for _, s, _ in plan)


def test_refusal_line_keeps_the_reason_only():
    reason = ("Memory efficient kernel not used because: (Triggered internally at /x/sdp_utils.cpp:1.) | "
              "Memory Efficient attention has been runtime disabled. (Triggered internally at /x/a.cpp:2.) | "
              "Flash attention kernel not used because: | "
              "Flash attention does not support the is_causal flag when seqlen_q != seqlen_k. Got seqlen_q: 1 "
              "seqlen_k: 1024. (Triggered internally at /x/sdp_utils.cpp:3.) | "
              "No available kernel. Aborting execution.")
    assert refusal_line(reason) == ("Flash attention does not support the is_causal flag when seqlen_q != "
                                    "seqlen_k. Got seqlen_q: 1 seqlen_k: 1024.")
    assert refusal_line("No viable backend for scaled_dot_product_attention was found.") == (
        "No viable backend for scaled_dot_product_attention was found.")
    assert len(refusal_line("x" * 1000)) == 240


# --- the section through build_tables.main, on the CPU ---------------------------------

# one short round: these tests check the shapes section, not the rounds (conftest.cpu_run does)
SMALL_SHAPES = SMALL_CPU + ONE_SHORT_ROUND + ["--sweep-steps", "3", "--sweep-timer-seconds", "0.01", "--variants", "math",
                                       "--shapes"]


@pytest.fixture(scope="module")
def shapes_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("shapes-run")
    assert build_tables.main(SMALL_SHAPES + ["--out", str(out)]) == 0
    return out / "cpu"


def test_cpu_shapes_run_measures_every_family(shapes_run):
    results = load_results(shapes_run / "results.json")
    shapes = results["shapes"]
    assert shapes["copy_roof"]["gb_per_s"] > 0 and shapes["config"]["device_memory_bytes"] is None
    pts = shapes["points"]
    assert {p["family"] for p in pts} == {"decode", "prefill", "gqa_decode", "gqa_prefill", "sliding"}
    n_decode = len(SHAPES_CPU["decode_runs"]) * len(SHAPES_CPU["decode_kv_lens"])
    assert len([p for p in pts if p["family"] == "decode" and p["variant"] == "auto"]) == n_decode
    good = [p for p in pts if p["status"] == "ok"]
    assert all(p["rel_error"] < 1e-5 for p in good), [(p["family"], p["variant"], p["rel_error"]) for p in good]
    by = {(p["family"], p["variant"], p["q_len"], p["kv_len"], p["batch"], p["kv_heads"]): p for p in pts}
    assert by[("decode", "efficient", 1, 64, 1, 4)]["status"] == "unsupported"  # the CPU has no efficient
    assert by[("decode", "auto", 4, 256, 1, 4)]["status"] == "ok"
    assert {p["variant"] for p in pts if p["family"] == "sliding"} == {"flex_sliding", "flex_causal", "auto"}
    host = [p for p in good if p.get("host_time_us")]
    assert host and all(p["family"] == "decode" and p["batch"] == 1 for p in host)
    assert all(p["backend_ran"] is None and p["kernel_sum_us"] is None for p in good)  # no GPU here


def test_cpu_shapes_run_writes_every_file(shapes_run):
    tables = {p.name for p in (shapes_run / "tables").iterdir()}
    for name in (*shape_tables.TABLE_FILES, *SHAPE_FINDING_FILES):
        for lang in LANGS:
            assert f"{name}.{lang}.md" in tables
    figures = {p.name for p in (shapes_run / "figures").iterdir()}
    assert {f"shapes-{n}.{lang}.svg" for n in shape_figures.FIGURES for lang in LANGS} <= figures
    refusals = (shapes_run / "tables" / "shapes-refusals.nb.md").read_text("utf-8")
    assert "SDPA efficient" in refusals and "ikke støttet" in refusals


def test_a_run_without_shapes_does_not_replace_one_with_them(shapes_run, tmp_path, capsys):
    import shutil

    shutil.copytree(shapes_run, tmp_path / "cpu")
    code = build_tables.main([a for a in SMALL_SHAPES if a != "--shapes"] + ["--out", str(tmp_path)])
    assert code == 2 and "--shapes" in capsys.readouterr().err


def test_the_cap_skips_points_on_a_small_device(monkeypatch, tmp_path):
    """A pretend device of 1 MiB: every point whose K and V pass 256 KiB is skipped, not run."""
    monkeypatch.setattr(shape_runs, "device_memory_bytes", lambda torch, device: 2**20)
    calls = []
    real = shape_runs.measure_variant
    monkeypatch.setattr(shape_runs, "measure_variant", lambda *a: calls.append(a[1:3]) or real(*a))
    monkeypatch.setattr(shape_runs, "plan", lambda cfg: [
        ("decode", {"batch": 1, "q_heads": 4, "kv_heads": 4, "q_len": 1, "kv_len": kv, "head_dim": 32,
                    "window": None}, ("auto", "math")) for kv in (64, 1024)])
    assert build_tables.main(SMALL_SHAPES + ["--out", str(tmp_path)]) == 0
    pts = load_results(tmp_path / "cpu" / "results.json")["shapes"]["points"]
    status = {(p["kv_len"], p["variant"]): p["status"] for p in pts}
    assert status == {(64, "auto"): "ok", (64, "math"): "ok", (1024, "auto"): "skipped", (1024, "math"): "skipped"}
    assert len(calls) == 2
    text = (tmp_path / "cpu" / "tables" / "shapes-refusals.en.md").read_text("utf-8")
    assert "skipped (memory)" in text and "more than 25%" in text


def test_an_unexpected_error_is_a_row_and_the_section_goes_on(monkeypatch, tmp_path):
    real = shape_runs.make_call

    def broken(name, shape, device):
        if name == "math":
            raise ZeroDivisionError("pretend bug")
        return real(name, shape, device)

    monkeypatch.setattr(shape_runs, "make_call", broken)
    monkeypatch.setattr(shape_runs, "plan", lambda cfg: [
        ("prefill", {"batch": 1, "q_heads": 2, "kv_heads": 2, "q_len": 16, "kv_len": 16, "head_dim": 8,
                     "window": None}, ("auto", "math"))])
    assert build_tables.main(SMALL_SHAPES + ["--out", str(tmp_path)]) == 0
    pts = {p["variant"]: p for p in load_results(tmp_path / "cpu" / "results.json")["shapes"]["points"]}
    assert pts["math"] == pts["math"] | {"status": "error", "reason": "ZeroDivisionError: pretend bug"}
    assert pts["auto"]["status"] == "ok"


# --- rendering made-up GPU results -----------------------------------------------------

def test_made_up_results_render_in_both_languages(tmp_path):
    results = shape_results()
    written = render_all(results, load_reference(), tmp_path / "tables", tmp_path / "figures")
    names = {p.name for p in written}
    assert {f"shapes-decode.{lang}.svg" for lang in LANGS} <= names
    en = {n: (tmp_path / "tables" / f"{n}.en.md").read_text("utf-8")
          for n in (*shape_tables.TABLE_FILES, *SHAPE_FINDING_FILES)}
    nb = {n: (tmp_path / "tables" / f"{n}.nb.md").read_text("utf-8")
          for n in (*shape_tables.TABLE_FILES, *SHAPE_FINDING_FILES)}
    for text in list(en.values()) + list(nb.values()):
        assert t("finding.missing", "en") not in text and t("finding.missing", "nb") not in text
    # unpinned ran flash's own kernels at every made-up decode point: one entry with flash
    assert "**Leave SDPA unpinned** for decode" in en["shapes-findings-decode"]
    assert "It ran flash ×11" in en["shapes-findings-decode"]
    assert "The CPU sets the pace" in en["shapes-findings-decode"]
    assert "Fewer blocks than SMs" in en["shapes-findings-decode"]
    assert "**Use `enable_gqa=True`**" in en["shapes-findings-gqa"]
    assert "by hand took 4.0× as long" in en["shapes-findings-gqa"]
    assert "Ran out of memory: SDPA math (a prompt of 32,768: out of memory)" in en["shapes-findings-prefill"]
    assert "skips 85% of the blocks" in en["shapes-findings-sliding"]
    assert "cuDNN attention does not support this mask." in en["shapes-refusals"]
    assert "Triggered internally" not in en["shapes-refusals"]
    skip_rows = [row for row in en["shapes-refusals"].splitlines() if "skipped (memory)" in row]
    assert len(skip_rows) == 1 and "SDPA math, SDPA flash" in skip_rows[0]  # one row for one reason
    assert "GQA, decode ×2; GQA, prefill ×2" in en["shapes-refusals"]
    assert "hoppet over (minne)" in nb["shapes-decode-time"] and "(flash)" in nb["shapes-decode-time"]
    assert "4\u00a0295\u00a0GB/s" in nb["shapes-method"]
    from nbterms import check_nb

    problems = [p for name, text in nb.items() for p in check_nb(text, name, markdown=True)]
    assert problems == []


def test_a_host_overhead_above_the_wall_time_is_flagged_and_explained():
    run = site_run()
    text = shape_tables.family_table(run, "en", ("decode",), shape_tables.SHAPE_COLUMNS["decode"], "col.shapes_gbs")
    flagged = [p for p in shape_tables.points(run, "decode") if shape_tables.host_above_wall(p)]
    assert flagged  # the site's run has such rows (flash at batch 1, KV 1,024 among them)
    assert text.count(" † |") == len(flagged) and "† Host overhead above the wall time" in text
    for p in flagged:
        p["host_time_us"]["median"] = 0.5 * p["wall_time_us"]["median"]
    text = shape_tables.family_table(run, "en", ("decode",), shape_tables.SHAPE_COLUMNS["decode"], "col.shapes_gbs")
    assert "†" not in text


def test_without_shapes_every_file_says_not_measured(tmp_path):
    results = site_run()
    results.pop("shapes", None)
    render_all(results, load_reference(), tmp_path / "tables", tmp_path / "figures")
    for lang in LANGS:
        for name in (*shape_tables.TABLE_FILES, *SHAPE_FINDING_FILES):
            assert t("finding.missing", lang) in (tmp_path / "tables" / f"{name}.{lang}.md").read_text("utf-8")
        for name in shape_figures.FIGURES:
            svg = (tmp_path / "figures" / f"shapes-{name}.{lang}.svg").read_text("utf-8")
            assert t("finding.missing", lang) in svg


# --- findings as prose: the pattern once, the exceptions by name ---------------------------

def test_refusals_are_summarised_in_the_page_language_with_the_raw_line_collapsed():
    en = shape_tables.refusals(shape_results(), "en")
    nb = shape_tables.refusals(shape_results(), "nb")
    assert shape_tables.refusal_summary("CUDA out of memory. Tried to allocate 128.00 GiB. GPU 0", "nb") == (
        "GPU-minnet ble for lite: kallet prøvde å allokere 128,0\u00a0GiB")
    assert shape_tables.refusal_summary("something PyTorch never said", "en").startswith("another reason")
    table, _, raw = en.partition("\n\n??? note")
    assert "cuDNN attention does not support this mask." not in table  # the raw line is under it
    assert "cuDNN attention does not support this mask." in raw and "~~~text" in raw
    assert "the backend does not take this mask" in table
    assert "backenden tar ikke denne masken" in nb and "Linjene fra PyTorch" in nb


def test_what_unpinned_sdpa_ran_is_said_once_with_the_exceptions_named():
    results = shape_results()
    ran = found(decode_findings.shapes_decode_auto, results)
    assert [b for b, _ in ran.steady] == ["flash"] and ran.mixed == ()
    mixed = copy.deepcopy(results)
    autos = [p for p in mixed["shapes"]["points"] if p["family"] == "decode" and p["variant"] == "auto"
             and p["q_len"] == 1 and p["batch"] == 1 and p["status"] == "ok"]
    autos[-1]["backend_ran"] = "efficient"
    ((q_len, batch, by_kv),) = found(decode_findings.shapes_decode_auto, mixed).mixed
    assert (q_len, batch) == (1, 1) and by_kv[-1] == (autos[-1]["kv_len"], "efficient")
    # the site's run: one kernel and grid at every KV length, one sentence
    (grid,) = found(decode_findings.shapes_decode_grid, site_run())
    assert grid.every and len(grid.kv_lens) == 4
    # grids that differ: one sentence for each, with its KV lengths
    grids = found(decode_findings.shapes_decode_grid, shape_results())
    assert len(grids) == 2 and not any(g.every for g in grids)
