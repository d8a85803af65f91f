"""Every Python code block a reader sees runs, exactly as the page shows it.

Each page (docs/**/*.md, not docs/generated/) is expanded by pymdownx.snippets' own
preprocessor with mkdocs.yml's config, so a block included from snippets/ is the section
the reader sees, not the whole file. Blocks are extracted with pytest-codeblocks'
extractor, so its markers apply:

    <!--pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA GPU")-->
    <!--pytest-codeblocks:cont-->             (continue the previous block)
    <!--pytest-codeblocks:expected-output-->  (the next block is the exact printed output)
    <!--pytest-codeblocks:importorskip(module)-->

A block identical on the nb and en page runs once (its id names the first page).
Blocks run with snippets/ importable (pyproject.toml puts it on pytest's path, as for a
reader who runs them beside the snippet files) and a fresh temporary folder as the working
directory (files they write stay out of the repo). The notebook page's code cells run in test_notebook_cells_run.
"""

from __future__ import annotations

import contextlib
import io
import json
import re
import shutil
import warnings

import pytest
from pagecode import (
    DOCS,
    ShownBlock,
    collect_page_blocks,
    expand_snippets,
    expanded_to_source_lines,
    extract_python_blocks,
    find_fences,
    includes,
    looks_like_python,
    markdown_pages,
    notebooks,
    page_lang,
    rel,
    shown_run,
)
from pymdownx.snippets import SnippetMissingError

SNIPPETS = DOCS.parent / "snippets"
PAGES = markdown_pages()
PAGE_IDS = [rel(p) for p in PAGES]
# Markers a page may carry: conditional skips only. An unconditional skip or an xfail
# would show the reader a block that nothing checks.
ALLOWED_MARK = re.compile(r"^pytest\.mark\.skipif\(")


def run_block(block: ShownBlock, cwd) -> str:
    """Execute a block as a script: fresh globals, snippets/ importable, `cwd` (an empty
    temporary folder) as the working directory. Returns what it printed."""
    if block.importorskip:
        pytest.importorskip(block.importorskip)
    out = io.StringIO()
    with contextlib.chdir(cwd), contextlib.redirect_stdout(out):
        exec(compile(block.code, f"<{block.id}>", "exec"), {"__name__": "__main__"})
    printed = out.getvalue()
    if block.expected_output is not None:
        want, got = block.expected_output, printed
        if block.expected_output_ignore_whitespace:
            want, got = re.sub(r"\s+", "", want), re.sub(r"\s+", "", got)
        assert got == want, (
            f"{block.id}: the page shows output that the code does not print.\n"
            f"shown:\n{block.expected_output}\nprinted:\n{printed}"
        )
    return printed


def test_code_block_runs(shown_block: ShownBlock, tmp_path):
    run_block(shown_block, tmp_path)


def test_pages_exist():
    assert len(PAGES) >= 2 * 6, f"expected the six Markdown pages in nb and en, found {PAGE_IDS}"
    for lang in ("nb", "en"):
        assert any(p.name.endswith(f".{lang}.md") for p in PAGES)


@pytest.mark.parametrize("page", PAGES, ids=PAGE_IDS)
def test_includes_resolve(page):
    """Every --8<-- names an existing file and section (check_paths: true), each file of the
    run the site shows among them: the real model's explanation too, which the render writes
    on every GPU (report/render/site.py: model_explained)."""
    source, lang = page.read_text(encoding="utf-8"), page_lang(page)
    _, folder, _ = shown_run()
    lacking = {target for target in includes(source) if target.startswith("generated/GPU/")
               and not (folder / target.removeprefix("generated/GPU/")).exists()}
    assert not lacking, f"{rel(page)}: the run the site shows has no {sorted(lacking)}"
    try:
        expanded = expand_snippets(source, lang=lang)
    except SnippetMissingError as exc:
        pytest.fail(f"{rel(page)}: {exc}", pytrace=False)
    left = [line for line in expanded.split("\n") if line.lstrip().startswith("--8<--")]
    assert not left, f"{rel(page)}: include lines left unexpanded: {left}"


@pytest.mark.parametrize("page", PAGES, ids=PAGE_IDS)
def test_every_python_block_is_executed(page):
    """A fence that highlights as Python but is not one pytest-codeblocks collects
    (```py, ```python title="x", ```{.python}, ```pycon, ~~~python ...) is a block nothing
    runs: show runnable code as ```python, output as ```text."""
    source = page.read_text(encoding="utf-8")
    expanded = expand_snippets(source, lang=page_lang(page))
    problems = unexecuted_python_fences(expanded)
    assert not problems, f"{rel(page)} shows Python that no test runs:\n" + "\n".join(problems)
    blocks = extract_python_blocks(rel(page), source, expanded)
    bad_marks = [f"{b.id}: {m}" for b in blocks for m in b.marks if not ALLOWED_MARK.match(m)]
    assert not bad_marks, "only pytest.mark.skipif(...) may keep a block from running:\n" + "\n".join(bad_marks)


def unexecuted_python_fences(expanded: str) -> list[str]:
    problems = []
    for fence in find_fences(expanded):
        if not looks_like_python(fence.info):
            continue
        if fence.marker != "```" or fence.info != "python":
            problems.append(f"line {fence.lineno} (expanded): {fence.marker}{fence.info}")
    return problems


MARKER = re.compile(r"^\s*<!--[-\s]*(pytest\.mark\.[^>]*|pytest-codeblocks:[^>]*?)[-\s]*-->\s*$")


def misplaced_markers(expanded: str, source: str | None = None) -> list[str]:
    """Markers that stand before a block nothing runs: only ```python blocks are executed
    here (shell blocks are commands for the reader: installs, GPU runs, servers)."""
    fences = {f.lineno: f for f in find_fences(expanded)}
    lines = expanded.split("\n")
    line_map = expanded_to_source_lines(source, expanded) if source is not None else None
    problems = []
    for n, line in enumerate(lines, start=1):
        m = MARKER.match(line)
        if not m or "expected-output" in m.group(1):
            continue
        following = next((fences[k] for k in range(n + 1, len(lines) + 1) if k in fences), None)
        if following is None or following.marker != "```" or following.info != "python":
            shown = f"{following.marker}{following.info}" if following else "nothing"
            where = f"line {line_map[n - 1]}" if line_map else f"line {n} (expanded)"
            problems.append(f"{where}: <!--{m.group(1)}--> is followed by {shown}")
    return problems


@pytest.mark.parametrize("page", PAGES, ids=PAGE_IDS)
def test_markers_stand_before_python_blocks(page):
    """A marker before a ```sh block does nothing: no test runs shell blocks."""
    source = page.read_text(encoding="utf-8")
    problems = misplaced_markers(expand_snippets(source, lang=page_lang(page)), source)
    assert not problems, f"{rel(page)}: markers that apply to nothing:\n" + "\n".join(problems)


def test_blocks_collect():
    """Every page expands and its blocks parse; the blocks of a page that does not would
    silently not run."""
    blocks, errors = collect_page_blocks()
    assert not errors, errors
    for block in blocks:
        compile(block.code, block.id, "exec")  # a syntax error names the page and line


# --------------------------------------------------------------------------- the checks check


def test_meta_check_flags_hidden_python():
    page = "\n".join(
        [
            "```python",
            "print(1)",
            "```",
            "```py",
            "x = 1",
            "```",
            '```python title="attention.py"',
            "x = 2",
            "```",
            "``` { .python .annotate }",
            "x = 3",
            "```",
            "```pycon",
            ">>> 1",
            "```",
            "```python3",
            "x = 4",
            "```",
            "~~~python",
            "x = 5",
            "~~~",
            "=== \"Tab\"",
            "",
            "    ```py",
            "    x = 6",
            "    ```",
            "```text",
            "x = 7",
            "```",
        ]
    )
    problems = unexecuted_python_fences(page)
    flagged = [p.split(": ", 1)[1] for p in problems]
    assert flagged == [
        "```py",
        '```python title="attention.py"',
        "```{ .python .annotate }",
        "```pycon",
        "```python3",
        "~~~python",
        "```py",
    ]


def test_meta_runner_runs_what_the_page_shows(tmp_path):
    (tmp_path / "demo.py").write_text(
        "import math\n"
        "# --8<-- [start:shown]\n"
        "def area(r):\n"
        "    return math.pi * r * r\n"
        "print(round(area(1), 2))\n"
        "# --8<-- [end:shown]\n",
        encoding="utf-8",
    )
    source = "\n".join(
        [
            "# Demo { #demo }",
            "",
            "```python",
            '--8<-- "demo.py:shown"',
            "```",
            "",
            "```python",
            "print(2 + 2)",
            "```",
            "<!--pytest-codeblocks:expected-output-->",
            "```text",
            "4",
            "```",
            "<!--pytest.mark.skipif(not torch.cuda.is_available(), reason='needs CUDA')-->",
            "```python",
            "import torch",
            "```",
        ]
    )
    expanded = expand_snippets(source, base_path=[tmp_path])
    blocks = extract_python_blocks("demo.nb.md", source, expanded)
    assert [b.lineno for b in blocks] == [3, 7, 15]  # lines of the opening fences in the page
    assert blocks[0].code == "def area(r):\n    return math.pi * r * r\nprint(round(area(1), 2))\n"
    # the section alone does not import math: it is not runnable on its own
    with pytest.raises(NameError):
        run_block(blocks[0], tmp_path)
    assert run_block(blocks[1], tmp_path) == "4\n"
    blocks[1].expected_output = "5\n"
    with pytest.raises(AssertionError, match="does not print"):
        run_block(blocks[1], tmp_path)
    assert blocks[2].marks == ["pytest.mark.skipif(not torch.cuda.is_available(), reason='needs CUDA')"]


def test_meta_misplaced_markers():
    page = "\n".join(
        [
            "<!--pytest.mark.skipif(True, reason='x')-->",
            "```python",
            "x = 1",
            "```",
            "<!--pytest-codeblocks:expected-output-->",
            "```text",
            "1",
            "```",
            "<!--pytest.mark.skipif(True, reason='x')-->",
            "```sh",
            "python build_tables.py",
            "```",
        ]
    )
    assert misplaced_markers(page) == [
        "line 9 (expanded): <!--pytest.mark.skipif(True, reason='x')--> is followed by ```sh"
    ]


def test_meta_missing_include_fails(tmp_path):
    (tmp_path / "demo.py").write_text("# --8<-- [start:a]\nx = 1\n# --8<-- [end:a]\n", encoding="utf-8")
    assert "x = 1" in expand_snippets('--8<-- "demo.py:a"', base_path=[tmp_path])
    with pytest.raises(SnippetMissingError):
        expand_snippets('--8<-- "missing.py"', base_path=[tmp_path])
    with pytest.raises(SnippetMissingError):
        expand_snippets('--8<-- "demo.py:no-such-section"', base_path=[tmp_path])


# --------------------------------------------------------------------------- notebook

RESULTS = {
    "schema_version": 1,
    "provenance": {"gpu_name": "Test GPU 80GB"},
    "config": {},
    "variants": {
        "naive": {"status": "ok", "reason": None, "label": "naive", "cuda_time_us": 7239.0,
                  "kernel_sum_us": 7000.0, "cpu_time_us": 1955.5, "event_time_us": 7300.0},
        "math": {"status": "ok", "reason": None, "label": "SDPA math", "cuda_time_us": 5000.25,
                 "cpu_time_us": 812.0, "event_time_us": 5100.0},
        # a time may also be a summary of several steps: the notebook plots its median,
        # fastest and slowest; a variant may lack one of the times (math: the kernel time)
        "flash": {"status": "ok", "reason": None, "label": "SDPA flash",
                  "cuda_time_us": {"median": 146.8, "min": 140.0, "max": 160.0, "mean": 148.0, "n": 5},
                  "kernel_sum_us": {"median": 140.5, "min": 139.0, "max": 150.0, "mean": 141.0, "n": 5},
                  "cpu_time_us": {"median": 60.2, "min": 55.0, "max": 70.0, "mean": 61.0, "n": 5},
                  "event_time_us": 150.0},
        "cudnn": {"status": "unsupported", "reason": "no cuDNN attention here", "label": "SDPA cuDNN",
                  "cuda_time_us": None, "cpu_time_us": None, "event_time_us": None},
    },
}


def notebook_code(lang: str) -> list[str]:
    nb = json.loads(notebooks()[lang].read_text(encoding="utf-8"))
    return ["".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "code"]


def run_notebook(lang: str, docs_dir) -> dict:
    """Run the notebook's code cells in order, in docs_dir, as Jupyter would."""
    import matplotlib.pyplot as plt

    plt.close("all")
    # the notebook reads the display names from ../report/text/catalog.toml, as in the repo
    docs_dir.mkdir(parents=True, exist_ok=True)
    catalog = docs_dir.parent / "report" / "text" / "catalog.toml"
    if docs_dir.resolve() != DOCS.resolve():
        catalog.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(DOCS.parent / "report" / "text" / "catalog.toml", catalog)
    namespace = {"__name__": "__main__"}
    with contextlib.chdir(docs_dir), warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=".*non-interactive.*")  # plt.show() on Agg
        for i, code in enumerate(notebook_code(lang)):
            exec(compile(code, f"<explore.{lang}.ipynb cell {i}>", "exec"), namespace)
    return namespace


def write_results(docs_dir, gpu, results=RESULTS):
    folder = docs_dir / "generated" / gpu
    folder.mkdir(parents=True)
    (folder / "results.json").write_text(json.dumps(results), encoding="utf-8")


# What the notebook shows, in the page's language: display names, never internal ids, and
# the guide's words for time (report/text/catalog.toml), the same as in every table
SHOWN = {
    "nb": {"ticks": ["naiv (masked_fill)", "SDPA math", "SDPA flash"],
           "xlabel": "µs per forward-pass (logaritmisk skala)", "title": "Raskeste til tregeste profilerte steg"},
    "en": {"ticks": ["naive (masked_fill)", "SDPA math", "SDPA flash"],
           "xlabel": "µs per forward pass (log scale)", "title": "Fastest to slowest profiled step"},
}
TIME_WORDS = ("col.kernel_sum", "col.cuda_time", "col.cpu_time")


@pytest.mark.parametrize("lang", ["nb", "en"])
def test_notebook_cells_run(lang, tmp_path, capsys):
    import matplotlib.pyplot as plt

    assert notebook_code(lang), "the notebook has no code cells"
    write_results(tmp_path / "docs", "cpu")
    ns = run_notebook(lang, tmp_path / "docs")
    assert ns["results_path"].as_posix() == "generated/cpu/results.json"
    from report.text.catalog import t as catalog_text

    fig = plt.gcf()
    (ax,) = fig.axes
    assert ax.get_xscale() == "log"
    assert "Test GPU 80GB" in ax.get_title()
    # one error bar series per time: the dots are the medians, the lines fastest to slowest
    medians = [[round(x, 2) for x in c.lines[0].get_xdata()] for c in ax.containers]
    assert medians == [[7000.0, 140.5], [7239.0, 5000.25, 146.8], [1955.5, 812.0, 60.2]]
    flash_span = ax.containers[1].lines[2][0].get_segments()[2]
    assert [round(x, 2) for x, _ in flash_span] == [140.0, 160.0]
    shown = SHOWN[lang]
    assert [t.get_text() for t in ax.get_yticklabels()] == shown["ticks"]
    assert [t.get_text() for t in fig.legends[0].get_texts()] == [catalog_text(k, lang) for k in TIME_WORDS]
    assert ax.get_xlabel() == shown["xlabel"]
    assert ax.get_title().startswith(shown["title"])
    printed = capsys.readouterr().out
    nbsp = "\u00a0"
    if lang == "nb":
        assert f"7,24{nbsp}ms" in printed and f"147{nbsp}µs" in printed and "ikke støttet" in printed
    else:
        assert f"7.24{nbsp}ms" in printed and f"147{nbsp}µs" in printed and "not supported" in printed
    plt.close("all")


@pytest.mark.parametrize("lang", ["nb", "en"])
def test_notebook_names_every_measured_variant(lang):
    """Every variant of the committed results.json has a display name in the notebook: the
    figure never falls back to an internal id such as naive_inplace."""
    import matplotlib.pyplot as plt

    ns = run_notebook(lang, DOCS)
    ids = set(ns["results"]["variants"])
    assert ids <= set(ns["VARIANT_NAMES"]), f"no display name for {sorted(ids - set(ns['VARIANT_NAMES']))}"
    (ax,) = plt.gcf().axes
    shown = [t.get_text() for t in ax.get_yticklabels()]
    assert shown and not set(shown) & {i for i in ids if "_" in i}, shown
    plt.close("all")


def test_notebook_reads_the_run_the_site_build_names(tmp_path, monkeypatch):
    import matplotlib.pyplot as plt

    write_results(tmp_path / "docs", "h200")
    other = json.loads(json.dumps(RESULTS))
    other["provenance"]["gpu_name"] = "Another GPU"
    write_results(tmp_path / "elsewhere", "cpu", other)
    monkeypatch.setenv("SDPA_GPU_DIR", str(tmp_path / "elsewhere" / "generated" / "cpu"))
    ns = run_notebook("en", tmp_path / "docs")
    assert ns["gpu_name"] == "Another GPU"
    plt.close("all")


def test_notebook_by_hand_prefers_the_run_mkdocs_yml_names(tmp_path, monkeypatch):
    import matplotlib.pyplot as plt

    monkeypatch.delenv("SDPA_GPU_DIR", raising=False)

    other = json.loads(json.dumps(RESULTS))
    other["provenance"]["gpu_name"] = "Another GPU"
    write_results(tmp_path / "docs", "a100-80gb", other)
    write_results(tmp_path / "docs", "cpu", other)
    write_results(tmp_path / "docs", "the-shown-gpu")
    ns = run_notebook("en", tmp_path / "docs")  # no mkdocs.yml: the first folder with results
    assert ns["results_path"].as_posix() == "generated/a100-80gb/results.json"
    (tmp_path / "mkdocs.yml").write_text("site_name: x\nextra:\n  gpu: the-shown-gpu\n", encoding="utf-8")
    ns = run_notebook("en", tmp_path / "docs")
    assert ns["results_path"].as_posix() == "generated/the-shown-gpu/results.json"
    assert ns["gpu_name"] == "Test GPU 80GB"
    plt.close("all")


def test_notebook_never_reads_a_staging_leftover(tmp_path):
    import matplotlib.pyplot as plt

    leftover = json.loads(json.dumps(RESULTS))
    leftover["provenance"]["gpu_name"] = "Half-written GPU"
    write_results(tmp_path / "docs", ".h200-x1y2z3w4", leftover)  # what SIGTERM once left
    write_results(tmp_path / "docs", "a100-80gb")
    ns = run_notebook("en", tmp_path / "docs")
    assert ns["results_path"].as_posix() == "generated/a100-80gb/results.json"
    plt.close("all")


def test_notebook_without_results_says_what_to_run(tmp_path):
    with pytest.raises(FileNotFoundError, match="build_tables.py"):
        run_notebook("nb", tmp_path / "docs")


def test_notebook_code_cells_identical_in_both_languages():
    """Only the line that sets the output language differs."""
    lang_line = re.compile(r'^LANG = "(\w+)"', flags=re.M)
    for lang in ("nb", "en"):
        assert [m for code in notebook_code(lang) for m in lang_line.findall(code)] == [lang]
    assert [lang_line.sub("LANG = …", c) for c in notebook_code("nb")] == [
        lang_line.sub("LANG = …", c) for c in notebook_code("en")]


def test_notebook_is_committed_without_outputs():
    """The site executes the notebook at build time; stored outputs would be old numbers."""
    for _lang, path in notebooks().items():
        nb = json.loads(path.read_text(encoding="utf-8"))
        for cell in nb["cells"]:
            if cell["cell_type"] == "code":
                assert not cell.get("outputs") and cell.get("execution_count") is None, (
                    f"{path.relative_to(DOCS)} has stored outputs: clear them"
                )
