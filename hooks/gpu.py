"""MkDocs hook: the GPU the pages show comes from one setting.

The pages name the folder of the run they show as `generated/GPU/` (upper case: never the
name of a real folder, since build_tables.py makes folder names of lower-case letters,
digits and '-'). This hook puts the chosen run in its place, in includes
(`--8<-- "generated/GPU/tables/…"`) and in links (figures, traces) alike, also in the links
of the files the pages include.

The setting, first found wins:
1. the environment variable SDPA_GPU (what `bash scripts/site.sh --gpu X` sets);
2. `extra.gpu` in mkdocs.yml (the committed run).

It is the name of a folder under docs/generated/ that holds a results.json
(`h100-80gb-hbm3`), or the path of any other results folder (`build-out/cpu`, a CPU run):
such a run is shown as a preview, its files taken from where they are and published under
generated/_preview/ (a name no run can have). A CPU run gets a note at the top of every
page saying so. The notebook page, executed by the build, gets the folder in SDPA_GPU_DIR.

A setting that names no results folder stops the build with one line that lists the
folders there are; so does a run's folder that is a symbolic link or holds one, a FIFO or
a device (the pages would include what lies outside it, or wait on it forever), and one
whose results.json has no tables/ or figures/ beside it (a render that was cut short: the
pages would say "not in this run" everywhere). `python hooks/gpu.py SETTING` makes the
same check without building (scripts/site.sh runs it before installing anything).
"""

from __future__ import annotations

import json
import os
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # `mkdocs` and `python hooks/gpu.py` have not the repository on it
    sys.path.insert(0, str(ROOT))

from report.limits import foreign_entry  # noqa: E402  (standard library only: runs before any install)
from report.paths import COMPARE, SLUG  # noqa: E402
from report.text.display import LANGS  # noqa: E402

GENERATED = ROOT / "docs" / "generated"
PLACEHOLDER = "generated/GPU/"
PREVIEW = "_preview"  # never a slug: build_tables.py's slugs have no '_'
ENV = "SDPA_GPU"
RENDERED = ("tables", "figures")  # what build_tables.py renders beside every results.json


class SettingError(Exception):
    """The setting names no results folder; the message is one line."""


def gpu_folders(generated=GENERATED):
    """The folder names under docs/generated/ that a page can show (a results.json in each)."""
    if not generated.is_dir():
        return []
    return sorted(d.name for d in generated.iterdir()  # a slug: never staging (.h200-x) or h200.old
                  if d.is_dir() and not d.is_symlink() and d.name != COMPARE and SLUG.fullmatch(d.name)
                  and (d / "results.json").is_file())


def check_run(setting, folder):
    """SettingError where the run's folder holds anything but its own folders and regular
    files, or holds a results.json without the tables rendered from it."""
    found = foreign_entry(folder)
    if found:
        path, what = found
        raise SettingError(f"{setting}: {str(path)!r} is {what}: a results folder the site shows holds "
                           "only folders and regular files of its own (copy what a link points to in "
                           "its place)")
    missing = [part for part in RENDERED if not (folder / part).is_dir()]
    if (folder / "results.json").is_file() and missing:
        raise SettingError(f"{setting}: {folder} has a results.json but no {'/, '.join(missing)}/ (a "
                           "render was cut short, or never ran): run python build_tables.py "
                           "--render-only first")


def resolve(setting, generated=GENERATED, cwd=None):
    """(name the pages use after generated/, the run's folder, True when it is a preview from
    outside docs/generated/). A setting with no '/' is a folder name under docs/generated/."""
    setting = (setting or "").strip()
    there = ", ".join(gpu_folders(generated)) or "none"
    if not setting:
        raise SettingError(f"no GPU folder is set (extra.gpu in mkdocs.yml or {ENV}); "
                           f"folders with results: {there}")
    if "/" not in setting and setting not in (".", ".."):
        folder = generated / setting
        if setting == COMPARE:
            raise SettingError(f"docs/generated/{COMPARE} holds every GPU side by side, not one "
                               f"run; folders with results: {there}")
        if not setting.startswith(".") and (folder.is_symlink() or folder.is_dir()):
            check_run(setting, folder)
        if setting.startswith(".") or not (folder / "results.json").is_file():
            raise SettingError(f"GPU folder {setting!r}: no docs/generated/{setting}/results.json; "
                               f"folders with results: {there} (or give the path of a results "
                               "folder, e.g. build-out/cpu)")
        return setting, folder, False
    folder = Path(cwd or os.getcwd(), setting).resolve()
    if folder.is_dir():
        check_run(setting, folder)
    if not (folder / "results.json").is_file():
        raise SettingError(f"{setting}: no results.json there (a folder build_tables.py wrote, "
                           f"e.g. build-out/cpu); folders under docs/generated: {there}")
    if folder.parent == generated.resolve():  # a path to a folder that has a name already
        return resolve(folder.name, generated)
    return PREVIEW, folder, True


_TARGET = re.compile(r"generated/GPU/([^\")\s]+)")
_IMAGE = re.compile(r"^\s*!\[[^\]]*\]\(generated/GPU/")


def rewrite(markdown, name, folder, preview, missing=None):
    """The text with generated/GPU/ replaced: includes read the run's folder on disk (its
    absolute path for a preview), links point where its files are published. With
    `missing` (a line of text), an include or an image of a file the run did not write
    (a section it did not measure) becomes that line, indented as it was."""
    include_to = f"{folder.as_posix()}/" if preview else f"generated/{name}/"
    lines = []
    for line in markdown.split("\n"):
        if PLACEHOLDER in line:
            target = _TARGET.search(line)
            whole = "--8<--" in line or _IMAGE.match(line)
            if missing is not None and whole and target and not (folder / target.group(1)).exists():
                line = line[: len(line) - len(line.lstrip())] + missing
            else:
                line = line.replace(PLACEHOLDER, include_to if "--8<--" in line else f"generated/{name}/")
        lines.append(line)
    return "\n".join(lines)


def _links_extension(name, folder, preview):
    """A Markdown extension whose preprocessor rewrites generated/GPU/ after pymdownx.snippets
    has included the generated files: their links (a table of trace downloads) too."""
    from markdown import Extension
    from markdown.preprocessors import Preprocessor

    class Links(Preprocessor):
        def run(self, lines):
            return rewrite("\n".join(lines), name, folder, preview).split("\n")

    class GpuLinks(Extension):
        def extendMarkdown(self, md):
            md.preprocessors.register(Links(md), "sdpa_gpu_links", 31)  # snippets: 32

    return GpuLinks()


def is_cpu_run(folder):
    """True when the run's provenance has no CUDA version: build_tables.py --device cpu."""
    try:
        provenance = json.loads((folder / "results.json").read_text(encoding="utf-8"))["provenance"]
    except (OSError, ValueError, KeyError, TypeError):
        return False
    return isinstance(provenance, dict) and "cuda" not in provenance


# --------------------------------------------------------------------------- MkDocs events

_RUN = {}


def on_config(config):
    from mkdocs.exceptions import PluginError

    setting = os.environ.get(ENV) or config.extra.get("gpu")
    try:
        name, folder, preview = resolve(setting, Path(config.docs_dir) / "generated")
    except SettingError as err:
        raise PluginError(str(err)) from None
    _RUN.update(name=name, folder=folder, preview=preview, cpu=is_cpu_run(folder))
    os.environ["SDPA_GPU_DIR"] = str(folder)  # the notebook page reads the same run
    if preview:  # includes read it from where it is: pymdownx.snippets must allow that folder
        snippets = config.mdx_configs.setdefault("pymdownx.snippets", {})
        bases = list(snippets.get("base_path", ["."]))
        if str(folder) not in bases:
            snippets["base_path"] = bases + [str(folder)]
    config.markdown_extensions.append(_links_extension(name, folder, preview))
    return config


def _language(config):
    i18n = config.plugins.get("i18n")
    current = getattr(i18n, "current_language", None) or LANGS[0]
    default = getattr(i18n, "default_language", None) or LANGS[0]
    return current, default


def _dest(rel, lang, default):
    """Where mkdocs-static-i18n would publish generated/_preview/REL in the build of `lang`
    (None: a file of the other language): x.en.svg -> en/…/x.svg; a file of no language
    (a trace) once, at the site's root, as the committed runs' are."""
    parts = rel.split("/")
    match = re.fullmatch(r"(.+)\.(nb|en)(\.[^.]+)", parts[-1])
    if not match:
        return "/".join(["generated", PREVIEW, *parts])
    if match.group(2) != lang:
        return None
    parts[-1] = match.group(1) + match.group(3)
    dest = "/".join(["generated", PREVIEW, *parts])
    return dest if lang == default else f"{lang}/{dest}"


def on_files(files, config):
    """A preview's figures and traces, as files of the site (its tables are only included)."""
    if not _RUN.get("preview"):
        return files
    from mkdocs.structure.files import File

    lang, default = _language(config)
    for path in sorted(_RUN["folder"].rglob("*")):
        rel = path.relative_to(_RUN["folder"]).as_posix()
        if not path.is_file() or rel.startswith("tables/") or rel == "results.json" \
                or any(part.startswith(".") for part in rel.split("/")):  # marker, staging
            continue
        dest = _dest(rel, lang, default)
        if dest is None:
            continue
        file = File.generated(config, f"generated/{PREVIEW}/{rel}", abs_src_path=str(path))
        file.dest_uri = dest
        files.append(file)
    return files


on_files.mkdocs_priority = -200  # after mkdocs-static-i18n's on_files (-100)


def _catalog(key, config):
    """A string of report/text/catalog.toml in the language being built."""
    from report.text.catalog import t  # tomllib: imported where a page is built

    return t(key, _language(config)[0])


def on_page_markdown(markdown, page, config, files):
    text = rewrite(markdown, _RUN["name"], _RUN["folder"], _RUN["preview"],
                   missing=_catalog("page.not_in_run", config))
    if _RUN.get("cpu") and page.file.src_uri.endswith(".md"):
        text = _catalog("page.cpu_preview", config) + "\n\n" + text
    return text


if __name__ == "__main__":
    try:
        print(resolve(sys.argv[1] if len(sys.argv) > 1 else "")[1])
    except SettingError as err:
        print(f"site.sh: {err}", file=sys.stderr)
        sys.exit(2)
