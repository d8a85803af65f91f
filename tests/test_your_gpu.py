"""The whole guide for another GPU: one setting (hooks/gpu.py) picks the run every page shows.

A made-up second GPU that differs from the site's run (a Hopper GPU) the way real GPUs differ
(auto picks flash, cuDNN is not supported, sm80 kernel names without wgmma, another SM count and
shared-memory limit, a variant out of memory) and a CPU run are each built into the whole
site, strictly; every page renders, every caption names that run, and no hand-written
line speaks of the H200 or Hopper except by name.
"""
from __future__ import annotations

import copy
import os
import re
import subprocess
import sys

import pytest
from factory import SITE_RUN, site_run
from pagecode import DOCS, GENERATED, ROOT, committed_gpu, gpu_hook, markdown_pages

import build_tables
from report.output.folders import result_folders
from report.results import load_results, write_results

NAME = "Made-up A100-like 40GB"


def _sm80(value):
    """Every kernel name of the run as an Ampere build would name it."""
    if isinstance(value, str):
        return value.replace("sm90", "sm80").replace("_wgmma", "")
    if isinstance(value, list):
        return [_sm80(v) for v in value]
    if isinstance(value, dict):
        return {k: _sm80(v) if k in ("name", "short_name", "kernels", "kernel") or isinstance(v, (dict, list))
                else v for k, v in value.items()}
    return value


def made_up_results():
    """The site's run, turned into a GPU of another generation."""
    r = site_run()
    r["provenance"].update(gpu_name=NAME, compute_capability="8.0", sm_count=108,
                           smem_per_block_optin=166912, gpu_memory_gib=39.4)
    for key in ("variants", "sweep", "shapes", "backward", "ncu"):
        if r.get(key):
            r[key] = _sm80(r[key])
    variants = r["variants"]
    refused = {"status": "unsupported", "reason": "cuDNN attention needs a newer GPU (made up)"}
    variants["cudnn"] = {**refused, "label": variants["cudnn"].get("label", "cudnn")}
    auto = copy.deepcopy(variants["flash"])
    auto["label"] = variants["auto"].get("label", "auto")
    variants["auto"] = auto
    variants["naive"] = {"status": "oom", "reason": "CUDA out of memory. Tried to allocate 2.00 GiB",
                         "label": variants["naive"].get("label", "naive")}
    for point in (r.get("sweep") or {}).get("points", []):
        if point["variant"] == "cudnn":
            point.update(status="unsupported", backend_ran=None)
        elif point.get("backend_ran") == "cudnn":
            point["backend_ran"] = "flash"
    for point in (r.get("shapes") or {}).get("points", []):
        if point["variant"] == "cudnn":
            point.update(refused)
        elif point.get("backend_ran") == "cudnn":
            point["backend_ran"] = "flash"
    for section in ("first_calls", "backward"):
        rows = (r.get(section) or {}).get("rows", {})
        if "cudnn" in rows:
            rows["cudnn"] = dict(refused)
    ((r.get("ncu") or {}).get("rows") or {}).pop("cudnn", None)  # ncu profiles what ran
    return r


def build_site(setting, site_dir):
    """mkdocs build --strict of the whole site showing `setting`; its output on failure."""
    env = {**os.environ, "SDPA_GPU": str(setting)}
    env.pop("SDPA_GPU_DIR", None)
    proc = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(site_dir)],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    return site_dir


def page_html(site, lang):
    """{page stem: its built HTML} for every Markdown page in one language."""
    out = {}
    for path in markdown_pages():
        stem = path.name.split(".")[0]
        if not path.name.endswith(f".{lang}.md"):
            continue
        sub = "" if stem == "index" else f"{stem}/"
        out[stem] = (site / ("" if lang == "nb" else "en/") / sub / "index.html").read_text(encoding="utf-8")
    return out


CAPTION = re.compile(r"(?:Measured on|Målt på) <strong>([^<]+)</strong>")
# pages that also show every GPU side by side (docs/generated/compare/), whatever the site shows
COMPARES = {"compare-gpus", "occupancy"}
# the GPUs of the committed runs, which those pages name whatever run the site shows
COMMITTED_GPUS = {load_results(folder / "results.json")["provenance"]["gpu_name"] for folder in result_folders(GENERATED)}


@pytest.fixture(scope="module")
def made_up_site(tmp_path_factory):
    out = tmp_path_factory.mktemp("your-gpu")
    folder = out / "generated" / "made-up-a100"
    folder.mkdir(parents=True)
    write_results(made_up_results(), folder / "results.json")
    assert build_tables.main(["--render-only", "--out", str(out / "generated"), "--slug", "made-up-a100"]) == 0
    return folder, build_site(folder, out / "site")


@pytest.fixture(scope="module")
def cpu_site(cpu_run, tmp_path_factory):
    """The session's CPU run (conftest.cpu_run), built into the whole site; the build only reads it."""
    return cpu_run, build_site(cpu_run, tmp_path_factory.mktemp("cpu-preview") / "site")


@pytest.mark.parametrize("lang", ["nb", "en"])
def test_every_caption_names_the_made_up_gpu(made_up_site, lang):
    _, site = made_up_site
    for stem, html in page_html(site, lang).items():
        names = set(CAPTION.findall(html))
        if stem in COMPARES:
            names -= COMMITTED_GPUS
        assert names <= {NAME}, (stem, names)
    assert all(NAME in html for stem, html in page_html(site, lang).items()
               if stem not in ("index", "compare-gpus") and CAPTION.search(html)), lang


def test_findings_read_right_for_the_made_up_gpu(made_up_site):
    folder, site = made_up_site
    tables = folder / "tables"
    names = (tables / "kernel-names.en.md").read_text(encoding="utf-8")
    assert "wgmma" not in names and "`sm_90`" not in names
    assert "compiled for `sm_80`, compute capability 8.0, the architecture of the GPU it ran on" in names
    assert "Run by: SDPA flash, SDPA auto (unpinned)." in names and "cudnn_generated" not in names
    kernels = (tables / "kernels-fused.en.md").read_text(encoding="utf-8")
    assert "| SDPA cuDNN | not supported |" in kernels
    assert "out of memory" in (tables / "headline.en.md").read_text(encoding="utf-8")
    fused = page_html(site, "en")["fused-backends"]
    assert NAME in fused and "cudnn_generated" not in fused.split('id="cpu-vs-cuda"')[0]
    assert not (tables / "explain-cudnn.en.md").exists()
    trace = page_html(site, "en")["read-your-trace"]
    assert "Not in this run" in trace  # the cuDNN example the run does not have


def test_no_hand_written_line_speaks_of_the_h100_h200_or_hopper_except_by_name():
    """Every mention of the H100, the H200 or Hopper in a page must be about them by name:
    a compute capability they have, the Hopper architecture's instructions, or a rule or
    release note of PyTorch's that names them; it must never describe the reader's GPU, or
    the committed run's, as if it were one (the page's header names the run's GPU)."""
    by_name = re.compile(
        r"NVIDIA H200|Hopper-? (?:og|and)\b|Hopper[- ]arkitekturens|Hopper architecture|"
        r"på Hopper|on Hopper|[Oo]n a Hopper GPU|[Pp]å en Hopper-GPU|Hopper's|Hoppers\b|for Hopper\b|"
        r"Hopper SDPA engine|Hopper-motoren|Hopper and Blackwell|Hopper- og Blackwell|"
        r"\(the H100 and the H200\)|\(H100 og H200\)|on H100s or newer GPUs|by default on H100 and 2nd|"
        # the GPUs of a compute capability, named as examples of it (PyTorch's order on sm90/sm100)
        r"an H100, H200 or B200|en H100, H200 eller B200|\(H100, H200, B200|an H100 or B200|en H100 eller B200")
    offenders = []
    for path in markdown_pages():
        for paragraph in path.read_text(encoding="utf-8").split("\n\n"):
            text = " ".join(line for line in paragraph.split("\n") if "--8<--" not in line)
            text = re.sub(r"\s+", " ", text)
            if re.search(r"H100|H200|Hopper", by_name.sub("", text)):
                offenders.append(f"{path.name}: {text[:200]}")
    assert not offenders, "\n".join(offenders)


@pytest.mark.parametrize("lang", ["nb", "en"])
def test_a_cpu_run_builds_as_a_preview_that_says_so(cpu_site, lang):
    folder, site = cpu_site
    pages = page_html(site, lang)
    note = "Preview of a CPU run" if lang == "en" else "Forhåndsvisning av en CPU-kjøring"
    assert all(note in html for html in pages.values()), [s for s, h in pages.items() if note not in h]
    assert "generated/_preview/figures/" in pages["shapes"] or "Not in this run" in pages["shapes"] \
        or "Ikke med i denne kjøringen" in pages["shapes"]
    for stem, html in pages.items():
        assert set(CAPTION.findall(html)) - COMMITTED_GPUS <= {load_results(folder / "results.json")["provenance"]["gpu_name"]}, stem


def test_every_page_names_its_run_once_at_its_end():
    for path in markdown_pages():
        text = path.read_text(encoding="utf-8")
        if "generated/GPU/" not in text:
            continue
        lang = path.name.split(".")[-2]
        include = f'--8<-- "generated/GPU/tables/measured-on.{lang}.md"'
        assert text.count(include) == 1 and text.rstrip().endswith(include), path.name


@pytest.mark.parametrize("lang", ["nb", "en"])
def test_one_provenance_block_per_built_page(made_up_site, lang):
    _, site = made_up_site
    for stem, html in page_html(site, lang).items():
        found = CAPTION.findall(html)
        assert len(found) == (0 if stem == "compare-gpus" else 1), (stem, found)


def test_the_setting_is_refused_in_one_line_listing_the_folders(tmp_path):
    hook = gpu_hook()
    for part in ("tables", "figures"):
        (tmp_path / "h200" / part).mkdir(parents=True)
    (tmp_path / "h200" / "results.json").write_text("{}", encoding="utf-8")
    (tmp_path / "compare").mkdir()
    for setting, needle in [("a100", "folders with results: h200"), ("compare", "every GPU side by side"),
                            ("", "no GPU folder is set"), (".h200-x", "folders with results: h200"),
                            ("no/such/folder", "no results.json there")]:
        with pytest.raises(hook.SettingError, match=re.escape(needle)):
            hook.resolve(setting, tmp_path, cwd=tmp_path)
    assert hook.resolve("h200", tmp_path) == ("h200", tmp_path / "h200", False)
    assert hook.resolve(str(tmp_path / "h200"), tmp_path)[:2] == ("h200", tmp_path / "h200")
    proc = subprocess.run([sys.executable, "hooks/gpu.py", "a100"], cwd=ROOT, capture_output=True, text=True)
    assert proc.returncode == 2 and proc.stdout == "" and len(proc.stderr.strip().splitlines()) == 1
    assert f"folders with results: {', '.join(hook.gpu_folders())} (" in proc.stderr


def test_the_default_setting_is_the_committed_run_and_pages_name_no_folder():
    setting = committed_gpu()
    assert setting in gpu_hook().gpu_folders(GENERATED)  # a committed run's folder, no path
    assert gpu_hook().resolve(setting, GENERATED) == (setting, GENERATED / setting, False)
    for path in markdown_pages():
        text = path.read_text(encoding="utf-8")
        assert not re.search(r"generated/(?!GPU/|compare/)[a-z0-9-]+/", text), path.name
    assert (DOCS / "explore.en.ipynb").read_text(encoding="utf-8").count("SDPA_GPU_DIR") >= 2


def test_a_missing_file_becomes_a_line_only_where_asked():
    hook = gpu_hook()
    page = '--8<-- "generated/GPU/tables/nope.en.md"\n    ![x](generated/GPU/figures/nope.svg)\nsee [t](generated/GPU/traces/a.json.gz)'
    name = SITE_RUN.name
    out = hook.rewrite(page, name, SITE_RUN, False, missing="MISSING")
    assert out.split("\n") == ["MISSING", "    MISSING", f"see [t](generated/{name}/traces/a.json.gz)"]
    assert f"generated/{name}/tables/nope.en.md" in hook.rewrite(page, name, SITE_RUN, False)


def test_a_staging_or_old_folder_is_never_a_gpu_to_show(tmp_path):
    hook = gpu_hook()
    for name in ("h200", "h200.old", ".h200-abcd1234", ".render-abcd1234"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "results.json").write_text("{}", encoding="utf-8")
    assert hook.gpu_folders(tmp_path) == ["h200"]
