"""Reading the docs as the site does: mkdocs.yml's nav, snippet expansion, code fences.

mkdocs.yml is the one source of truth: the page list comes from its nav, and pages are
expanded with the pymdownx.snippets config read from it. A library for the tests
(conftest.py keeps pytest's fixtures and hooks).
"""

from __future__ import annotations

import contextlib
import difflib
import functools
import io
import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from nbterms import prose_lines

from report.results import load_results
from report.text.catalog import catalog, t
from report.text.display import LANGS

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
DEFAULT_LANG = "nb"
GENERATED = DOCS / "generated"  # written by build_tables.py only; never by these tests


# --------------------------------------------------------------------------- config


def _plain_config():
    """mkdocs.yml read as plain YAML, shaped like MkDocs' config for what the page tests need.

    For the GPU test pass on a machine that has pytest and pymdown-extensions but not MkDocs
    and its plugins; everywhere else MkDocs itself loads and validates the file.
    """
    import yaml

    raw = yaml.safe_load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"))
    names, configs = [], {}
    for entry in raw.get("markdown_extensions", []):
        name, options = next(iter(entry.items())) if isinstance(entry, dict) else (entry, None)
        names.append(name)
        configs[name] = options or {}
    return {"markdown_extensions": names, "mdx_configs": configs, "nav": raw["nav"],
            "extra": raw.get("extra", {})}


@functools.cache
def mkdocs_config():
    """mkdocs.yml, validated by MkDocs itself (plugins and hooks loaded, nothing built)."""
    try:
        from mkdocs.config import load_config
    except ImportError:
        return _plain_config()

    cwd = os.getcwd()
    try:
        os.chdir(ROOT)  # hooks and relative paths resolve as they do for `mkdocs build`
        return load_config(str(ROOT / "mkdocs.yml"))
    finally:
        os.chdir(cwd)


def snippet_config(base_path=None) -> dict:
    """The pymdownx.snippets config of mkdocs.yml, with base_path made absolute."""
    cfg = dict(mkdocs_config()["mdx_configs"]["pymdownx.snippets"])
    paths = cfg.get("base_path", ["."]) if base_path is None else base_path
    if isinstance(paths, (str, Path)):
        paths = [paths]
    cfg["base_path"] = [str((ROOT / p).resolve()) for p in paths]
    return cfg


def markdown_extensions(base_path=None) -> tuple[list, dict]:
    """All markdown extensions of mkdocs.yml, for rendering a page outside MkDocs."""
    cfg = mkdocs_config()
    configs = {name: dict(options) for name, options in cfg["mdx_configs"].items()}
    configs["pymdownx.snippets"] = snippet_config(base_path)
    return list(cfg["markdown_extensions"]), configs


def nav_pages() -> list[dict]:
    """Pages in nav order: slug, source stem and extension, and the nb nav title."""
    pages = []
    for entry in mkdocs_config()["nav"]:
        ((title, src),) = entry.items()
        stem, ext = os.path.splitext(src)
        pages.append({"slug": "" if stem == "index" else stem, "stem": stem, "ext": ext, "title": title})
    return pages


def nav_title(title: str, lang: str) -> str:
    if lang == DEFAULT_LANG:
        return title
    for plugin_lang in mkdocs_config()["plugins"]["i18n"].config.languages:
        if plugin_lang.locale == lang:
            return (plugin_lang.nav_translations or {}).get(title, title)
    return title


def page_url(slug: str, lang: str) -> str:
    """URL path of a page relative to the site root, e.g. 'en/occupancy/'."""
    prefix = "" if lang == DEFAULT_LANG else f"{lang}/"
    return prefix + (f"{slug}/" if slug else "")


def markdown_pages() -> list[Path]:
    """Every Markdown page a reader can see (docs/**/*.md, not docs/generated/)."""
    return sorted(
        p for p in DOCS.rglob("*.md") if GENERATED not in p.parents and p.is_file()
    )


def rel(path: Path) -> str:
    return path.relative_to(DOCS).as_posix()


def page_lang(path: Path) -> str:
    """The language of a page (x.nb.md: nb)."""
    return path.name.split(".")[-2]


# --------------------------------------------------------------------------- snippets


@functools.cache
def gpu_hook():
    """hooks/gpu.py, the MkDocs hook that puts the chosen run in place of generated/GPU/."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("sdpa_gpu_hook", ROOT / "hooks" / "gpu.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def committed_gpu():
    """mkdocs.yml's extra.gpu: the setting that picks the site's run (a folder name under
    docs/generated/), where SDPA_GPU picks no other."""
    return mkdocs_config()["extra"]["gpu"]


def shown_run(setting=None):
    """(name, folder, preview) of the run the pages show: `setting`, else SDPA_GPU, else
    mkdocs.yml's extra.gpu, resolved as hooks/gpu.py does for the build."""
    hook = gpu_hook()
    chosen = setting or os.environ.get(hook.ENV) or committed_gpu()
    return hook.resolve(chosen, GENERATED, cwd=ROOT)


def not_in_run(lang: str) -> str:
    """The line the build puts where a page includes a file its run did not write (hooks/gpu.py)."""
    return t("page.not_in_run", lang)


def expand_snippets(text: str, base_path=None, run=None, lang=None) -> str:
    """Run pymdownx.snippets' own preprocessor on a page, with mkdocs.yml's config, after
    hooks/gpu.py's rewrite of generated/GPU/ for `run` (default: the run the site shows);
    with `lang`, as the build does: a file of the run that it did not write becomes the
    line not_in_run(lang).

    Raises pymdownx.snippets.SnippetMissingError for a missing file or section
    (check_paths: true in mkdocs.yml).
    """
    import markdown

    name, folder, preview = run or shown_run()
    text = gpu_hook().rewrite(text, name, folder, preview, missing=not_in_run(lang) if lang else None)
    if preview:
        base_path = list(base_path or mkdocs_config()["mdx_configs"]["pymdownx.snippets"]["base_path"])
        base_path.append(str(folder))
    md = markdown.Markdown(
        extensions=["pymdownx.snippets"],
        extension_configs={"pymdownx.snippets": snippet_config(base_path)},
    )
    return "\n".join(md.preprocessors["snippet"].run(text.split("\n")))


def expanded_to_source_lines(source: str, expanded: str) -> list[int]:
    """For each line of the expanded page, the 1-based line of the page source it came
    from (an included line maps to its `--8<--` line)."""
    src, out = source.split("\n"), expanded.split("\n")
    mapping = [1] * len(out)
    matcher = difflib.SequenceMatcher(a=src, b=out, autojunk=False)
    for tag, i1, _i2, j1, j2 in matcher.get_opcodes():
        for k, j in enumerate(range(j1, j2)):
            mapping[j] = (i1 + k + 1) if tag == "equal" else min(i1 + 1, len(src))
    return mapping


# --------------------------------------------------------------------------- fences


@dataclass
class Fence:
    lineno: int  # 1-based line of the opening fence
    marker: str  # ``` or ~~~ (or longer)
    info: str  # the info string after the marker, stripped
    code: str


def find_fences(text: str) -> list[Fence]:
    """Fenced code blocks as Markdown/superfences see them (any indentation, ``` or ~~~)."""
    fences = []
    lines = text.split("\n")
    i = 0
    opening = re.compile(r"^(\s*)(`{3,}|~{3,})(.*)$")
    while i < len(lines):
        m = opening.match(lines[i])
        if not m or (m.group(2)[0] == "`" and "`" in m.group(3)):
            i += 1
            continue
        indent, marker, info = m.groups()
        body = []
        j = i + 1
        closing = re.compile(r"^\s*" + re.escape(marker[0]) + "{" + str(len(marker)) + r",}\s*$")
        while j < len(lines) and not closing.match(lines[j]):
            body.append(lines[j][len(indent):] if lines[j].startswith(indent) else lines[j].lstrip())
            j += 1
        fences.append(Fence(i + 1, marker, info.strip(), "\n".join(body) + "\n"))
        i = j + 1
    return fences


PYTHON_LANGS = {"py", "py3", "python", "python3", "pycon", "ipython", "ipython3", "pyi", "sage"}


def fence_language(info: str) -> str:
    """The highlight language of a fence's info string: `python`, `py title="x"`,
    `{.python .annotate}`, `{ .py }` and `python3` all name one."""
    info = info.strip()
    if info.startswith("{"):
        m = re.search(r"\.([\w+-]+)", info)
        return m.group(1).lower() if m else ""
    return re.split(r"[\s{]", info, maxsplit=1)[0].lower() if info else ""


def looks_like_python(info: str) -> bool:
    return fence_language(info) in PYTHON_LANGS


# --------------------------------------------------------------------------- code blocks


@dataclass
class ShownBlock:
    """A Python block as a reader sees it on a page, with pytest-codeblocks' markers."""

    page: str
    index: int
    lineno: int  # line in the page source (an included block: its --8<-- line)
    code: str
    marks: list[str]
    expected_output: str | None = None
    expected_output_ignore_whitespace: bool = False
    importorskip: str | None = None
    also_on: list[str] = field(default_factory=list)

    @property
    def id(self) -> str:
        return f"{self.page}#{self.index}:L{self.lineno}"


def extract_python_blocks(page: str, source: str, expanded: str) -> list[ShownBlock]:
    """The blocks pytest-codeblocks collects as Python (fence info exactly `python`)."""
    from pytest_codeblocks import extract_from_buffer

    line_map = expanded_to_source_lines(source, expanded)
    blocks = []
    for block in extract_from_buffer(io.StringIO(expanded)):
        if block.syntax != "python":
            continue
        blocks.append(
            ShownBlock(
                page=page,
                index=len(blocks),
                lineno=line_map[block.lineno - 1] if block.lineno - 1 < len(line_map) else block.lineno,
                code=block.code,
                marks=list(block.marks),
                expected_output=block.expected_output,
                expected_output_ignore_whitespace=block.expected_output_ignore_whitespace,
                importorskip=block.importorskip,
            )
        )
    return blocks


def collect_page_blocks() -> tuple[list[ShownBlock], dict[str, str]]:
    """Python blocks of all pages, identical blocks (nb and en) once.

    Returns the blocks and, per page that could not be expanded, the error: such a page
    fails tests/test_pages.py::test_includes_resolve.
    """
    blocks: dict[tuple, ShownBlock] = {}
    errors = {}
    for path in markdown_pages():
        source = path.read_text(encoding="utf-8")
        try:
            expanded = expand_snippets(source, lang=page_lang(path))
            page_blocks = extract_python_blocks(rel(path), source, expanded)
        except Exception as exc:  # reported by test_includes_resolve / test_blocks_parse
            errors[rel(path)] = f"{type(exc).__name__}: {exc}"
            continue
        for block in page_blocks:
            key = (block.code, block.expected_output, tuple(block.marks), block.importorskip)
            if key in blocks:
                blocks[key].also_on.append(block.id)
            else:
                blocks[key] = block
    return list(blocks.values()), errors


class _ModulesOnDemand(dict):
    """Names in a marker expression that are modules (torch, importlib) import on use."""

    def __missing__(self, name):
        import importlib

        try:
            return importlib.import_module(name)
        except ImportError:
            raise KeyError(name) from None


def eval_mark(expression: str):
    return eval(expression, {"sys": sys, "pytest": pytest, "os": os}, _ModulesOnDemand())


# --------------------------------------------------------------------------- notebook


def notebooks() -> dict[str, Path]:
    """The notebook page in each language: {'nb': docs/explore.nb.ipynb, ...}."""
    stems = [p["stem"] for p in nav_pages() if p["ext"] == ".ipynb"]
    return {lang: DOCS / f"{stem}.{lang}.ipynb" for stem in stems for lang in LANGS}


# --------------------------------------------------------------------------- figures


def pinned_version(package: str) -> str | None:
    """The version requirements.txt pins `package` to (None where it pins none)."""
    for line in (ROOT / "requirements.txt").read_text(encoding="utf-8").splitlines():
        match = re.match(rf"{re.escape(package)}==([^\s;#]+)", line.strip(), re.IGNORECASE)
        if match:
            return match.group(1)
    return None


def matplotlib_differs() -> str | None:
    """A one-line reason when this matplotlib is not the pinned one (a reader's GPU machine),
    so that SVG bytes cannot match; None where it is the pin."""
    import matplotlib

    pin = pinned_version("matplotlib")
    if pin is None or matplotlib.__version__ == pin:
        return None
    return (f"matplotlib {matplotlib.__version__} is not the pinned {pin}: figures are compared "
            "by what they show (their text, element counts), not byte for byte")


def figure_view(svg: bytes) -> tuple:
    """What an SVG figure shows, not how one matplotlib version laid it out: every text in
    document order, and how many elements of each kind are drawn."""
    import xml.etree.ElementTree as ET
    from collections import Counter

    root = ET.fromstring(svg)
    texts = [" ".join("".join(el.itertext()).split()) for el in root.iter() if el.tag.rsplit("}", 1)[-1] == "text"]
    kinds = Counter(el.tag.rsplit("}", 1)[-1] for el in root.iter())
    return tuple(texts), tuple(sorted(kinds.items()))


def comparable(path: Path, data: bytes):
    """The bytes of a generated file, or for an SVG figure under another matplotlib than the
    pin, what it shows (figure_view): tables are always compared byte for byte."""
    if Path(path).suffix == ".svg" and matplotlib_differs():
        return figure_view(data)
    return data


# --------------------------------------------------------------------------- generated files


def committed_result_dirs():
    """Folders of GPU results tracked by git (a stray CPU or local run does not count)."""
    tracked = subprocess.run(["git", "ls-files", "--", "*/results.json"], cwd=GENERATED,
                             capture_output=True, text=True, check=True).stdout.split()
    return sorted((GENERATED / p).parent for p in tracked
                  if "cuda" in load_results(GENERATED / p)["provenance"])


def generated_by(line, lang):
    """[(module path, [function names])] that a generated file's header line names (a
    template that wrote its prose: (its path, [])), or None where the line is not the header."""
    before, _, after = catalog()["page.header"][lang].partition("{writer}")
    if not (line.startswith(before) and line.endswith(after)):
        return None
    writer = line[len(before):len(line) - len(after)]
    return [(module, names.split(", ") if names else []) for module, _, names in
            (part.partition(": ") for part in writer.split("; "))]


HUGGING_FACE = re.compile(r"Hugging Face|\(HF\)")  # how a figure of theirs is labelled


def table_header(path):
    """The cells of the first table row of a Markdown file."""
    line = next(line for line in path.read_text(encoding="utf-8").splitlines() if line.startswith("| "))
    return [cell.strip() for cell in line.strip("|").split("|")]


def markdown_places(text):
    """The prose of a Markdown text as places: each table cell, and each paragraph."""
    places, paragraph, last = [], [], None
    for n, line in prose_lines(text):
        if last is not None and n != last + 1 and paragraph:
            places.append(" ".join(paragraph))
            paragraph = []
        last = n
        if line.lstrip().startswith("|"):
            places += [cell for cell in line.split("|") if cell.strip()]
        else:
            paragraph.append(line)
    if paragraph:
        places.append(" ".join(paragraph))
    return places


# --------------------------------------------------------------------------- pages and scripts

INCLUDE_LINE = re.compile(r"^\s*(;?)--8<--\s*(.*)$")


def includes(text: str) -> list[str]:
    """The targets of --8<-- includes, single-line (`--8<-- "x.py:sec"`) and block form
    (a `--8<--` line, one target a line, a closing `--8<--` line)."""
    targets = []
    lines = text.split("\n")
    in_block = False
    for line in lines:
        m = INCLUDE_LINE.match(line)
        if m and m.group(1) == ";":  # escaped: shown literally, not an include
            continue
        if m and not in_block:
            arg = m.group(2).strip()
            if arg:
                targets.append(arg.strip("\"'"))
            else:
                in_block = True
            continue
        if in_block:
            if m:
                in_block = False
            elif line.strip() and not line.strip().startswith(";"):
                targets.append(line.strip().strip("\"'"))
    return targets


def load_script(name: str):
    """scripts/<name>.py as a module (scripts/ is no package)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location(f"scripts_{name}", ROOT / "scripts" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# --------------------------------------------------------------------------- serving a built site


def counting(handler):
    """A subclass of scripts/serve.py's handler (or of one built on it) that serves files
    plain, not gzipped, and adds the body bytes of every file it sends to `body_bytes`:
    what the browser receives, for the page-weight budgets."""
    import threading

    class Counting(handler):
        gzip = False
        body_bytes = 0
        _lock = threading.Lock()

        def copyfile(self, source, outputfile):
            size = os.fstat(source.fileno()).st_size
            super().copyfile(source, outputfile)
            with Counting._lock:
                Counting.body_bytes += size

    return Counting


@contextlib.contextmanager
def serving(serve, site_dir, sub_path, handler):
    """The built site served by scripts/serve.py (the module `serve`) on a free port of
    127.0.0.1 under `sub_path`, in a thread; yields the site's URL."""
    import threading

    httpd = serve.make_server(site_dir, port=0, sub_path=sub_path, quiet=True, handler=handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}{sub_path}"
    finally:
        httpd.shutdown()
        httpd.server_close()



# --------------------------------------------------------------------------- a browser

CHROMIUM = shutil.which("chromium")  # Debian's, driven by Playwright without `playwright install`
CHROMIUM_ARGS = ["--disable-gpu", "--disable-quic", "--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1"]


@contextlib.contextmanager
def chromium():
    """CHROMIUM launched headless by Playwright, no host name resolved but 127.0.0.1; yields
    the browser and closes it after."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        try:
            yield browser
        finally:
            browser.close()


# --------------------------------------------------------------------------- visible prose

# What a reader sees of a page without opening anything (tests/test_page_length.py): the
# page rendered with mkdocs.yml's Markdown extensions, less what is not prose (code blocks,
# tables, figures, scripts) and less what is collapsed (a <details> not marked open).
HIDDEN_TAGS = {"pre", "table", "svg", "script", "style", "figure", "img"}
NUMBER = re.compile(r"(?<![\w.])[-−+]?\d+(?:[.,\u00a0\u202f]\d+)*")  # 1 024, 2,639, 8.34; not sm90
# a version (580.159.04, 2.11.0+cu130) or a date (2026-12-01) names a thing; it is no figure
NOT_A_FIGURE = re.compile(r"\d+(?:\.\d+){2,}\S*|\b\d{4}-\d{2}-\d{2}\b")


def page_html(path: Path, run=None) -> str:
    """The page as MkDocs renders its Markdown (includes expanded), for the run the site shows."""
    import markdown

    name, folder, preview = run or shown_run()
    text = gpu_hook().rewrite(path.read_text(encoding="utf-8"), name, folder, preview,
                              missing=not_in_run(page_lang(path)))
    base_path = None
    if preview:
        base_path = [*mkdocs_config()["mdx_configs"]["pymdownx.snippets"]["base_path"], str(folder)]
    extensions, configs = markdown_extensions(base_path)
    return markdown.markdown(text, extensions=extensions, extension_configs=configs)


def visible_prose(html: str) -> str:
    """The text of `html` outside HIDDEN_TAGS and outside closed <details> blocks."""
    from html.parser import HTMLParser

    class Visible(HTMLParser):
        def __init__(self):
            super().__init__(convert_charrefs=True)
            self.hidden, self.parts = [], []

        def handle_starttag(self, tag, attrs):
            if self.hidden or tag in HIDDEN_TAGS or (tag == "details" and "open" not in dict(attrs)):
                self.hidden.append(tag)

        def handle_endtag(self, tag):
            if self.hidden and self.hidden[-1] == tag:
                self.hidden.pop()

        def handle_startendtag(self, tag, attrs):
            pass

        def handle_data(self, data):
            if not self.hidden:
                self.parts.append(data)

    parser = Visible()
    parser.feed(html)
    return " ".join(parser.parts)


def prose_counts(text: str) -> tuple[int, int]:
    """(words, numbers) of visible prose: a word is a whitespace-separated token with a
    letter or digit in it; a number is NUMBER (grouped digits count once), less versions
    and dates (NOT_A_FIGURE)."""
    words = [w for w in re.split(r"[ \t\r\n]+", text) if any(c.isalnum() for c in w)]  # 1 024 (nbsp): one
    figures = NOT_A_FIGURE.sub(" ", text.replace("\u202f", "\u00a0"))
    return len(words), len(NUMBER.findall(figures))
