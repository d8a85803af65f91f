"""MkDocs hook: the in-browser trace reader on "Read your own trace".

The page holds a drop zone (<div data-trace-reader>, written in each language's Markdown).
A reader's trace is read by Pyodide (CPython compiled to WebAssembly) in a Web Worker,
with the very function `build_tables.py --explain` calls: report.doctor.explain.explain_file.
Nothing of it is loaded before the reader picks a file, and no page but this one loads any
of it (docs/javascripts/trace-reader.js and trace-worker.js do the browser's part).

The build puts into the site, under trace-reader/:
- pyodide/: the five files of node_modules/pyodide that loading Pyodide needs (package.json
  pins the version; `npm ci` installs it; nothing of it is committed);
- report.zip: the Python files explain_file imports, found by following the imports of
  report/doctor/explain.py (and the snippets it loads by name), read from the repository at
  build time, so there is no second copy of them anywhere.

Without node_modules/pyodide the build still works: it says so in one line, and the page
says that the reader is not part of this build. A node_modules/pyodide of another version
than package.json pins stops the build with one line.
"""

from __future__ import annotations

import ast
import io
import json
import logging
import re
import shutil
import zipfile
from pathlib import Path

from mkdocs.exceptions import PluginError
from mkdocs.utils import get_relative_url

ROOT = Path(__file__).resolve().parent.parent
PYODIDE = ROOT / "node_modules" / "pyodide"
# what the worker's loadPyodide fetches: pyodide.mjs imports pyodide.asm.mjs, which loads the rest
PYODIDE_FILES = ("pyodide.mjs", "pyodide.asm.mjs", "pyodide.asm.wasm", "python_stdlib.zip",
                 "pyodide-lock.json")
ENTRY = "report/doctor/explain.py"
# and what the worker draws the reader's trace with (trace-timeline.js imports it)
ENTRIES = (ENTRY, "report/doctor/output/svg.py")
OUT = "trace-reader"
MARK = "data-trace-reader"
SCRIPT = "javascripts/trace-reader.js"
TIMELINE = "javascripts/trace-timeline-view.js"  # shows the worker's drawing of the trace
STYLE = "stylesheets/trace-reader.css"
# 1980-01-01: the zip's dates, so the same files give the same bytes
ZIP_DATE = (1980, 1, 1, 0, 0, 0)

log = logging.getLogger("mkdocs.hooks.trace_reader")
_present = False
_said = False  # the i18n plugin builds each language with its own config: say it once


def pinned():
    """The version of pyodide that package.json pins (an exact version)."""
    return json.loads((ROOT / "package.json").read_text(encoding="utf-8"))["dependencies"]["pyodide"]


def pyodide_state(folder=PYODIDE):
    """True when folder holds the pinned Pyodide, False when it is missing;
    PluginError (one line) for another version or missing files."""
    if not (folder / "package.json").is_file():
        return False
    version = json.loads((folder / "package.json").read_text(encoding="utf-8")).get("version")
    if version != pinned():
        raise PluginError(f"node_modules/pyodide is {version}, but package.json pins {pinned()}: "
                          "run npm ci")
    missing = [name for name in PYODIDE_FILES if not (folder / name).is_file()]
    if missing:
        raise PluginError(f"node_modules/pyodide lacks {', '.join(missing)}: run npm ci")
    return True


# --------------------------------------------------------------------------- the Python files

def _module_file(name):
    """The file of module `name` (dotted) in the repository, or None when it is not ours."""
    base = ROOT.joinpath(*name.split("."))
    for path in (base.with_suffix(".py"), base / "__init__.py"):
        if path.is_file():
            return path
    return None


def _imports(path, package):
    """Dotted names the file imports (at any depth), and the snippets it loads by name
    (`snippets.load("occupancy")`)."""
    names, snippet_names = set(), set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                parts = package.split(".") if package else []
                parts = parts[: len(parts) - node.level + 1]
                target = ".".join(parts + ([node.module] if node.module else []))
            else:
                target = node.module
            names.add(target)
            names |= {f"{target}.{a.name}" for a in node.names}  # `from .. import snippets`
        elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
              and node.func.attr == "load" and isinstance(node.func.value, ast.Name)
              and node.func.value.id == "snippets" and node.args
              and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str)):
            snippet_names.add(node.args[0].value)
    return names, snippet_names


# module -> a data file it reads beside itself (pyproject.toml's package-data): the recorded
# eligibility tables the trace doctor answers from (report/output/asked_file.py writes it)
PACKAGE_DATA = {"report/doctor/rules/asked_table.py": "report/doctor/rules/asked.json"}


def python_files(entries=ENTRIES):
    """The repository's files that importing the `entries` needs, as paths relative to ROOT:
    the modules it imports (and theirs), the __init__.py of each package on the way, the
    files of snippets/ loaded by name (which import their siblings as top-level modules), and
    the package data of PACKAGE_DATA."""
    found, todo = set(), [(ROOT / entry, False) for entry in entries]
    while todo:
        path, is_snippet = todo.pop()
        rel = path.relative_to(ROOT)
        if rel in found:
            continue
        found.add(rel)
        if is_snippet:
            package = ""
        else:
            package = ".".join(rel.parent.parts)  # for explain.py and trace/__init__.py alike
            for i in range(1, len(rel.parent.parts) + 1):  # report/__init__.py, report/doctor/__init__.py, ...
                init = ROOT.joinpath(*rel.parent.parts[:i], "__init__.py")
                if init.is_file():
                    todo.append((init, False))
        names, snippet_names = _imports(path, package)
        for name in names:
            if is_snippet:
                sibling = ROOT / "snippets" / f"{name.split('.')[0]}.py"
                if sibling.is_file():
                    todo.append((sibling, True))
                continue
            module = _module_file(name) if name.split(".")[0] == "report" else None
            if module is not None:
                todo.append((module, False))
        todo += [(ROOT / "snippets" / f"{n}.py", True) for n in snippet_names
                 if (ROOT / "snippets" / f"{n}.py").is_file()]
    # package data a shipped module reads beside itself, where the build wrote it
    found |= {Path(d) for m, d in PACKAGE_DATA.items() if Path(m) in found and (ROOT / d).is_file()}
    return sorted(p.as_posix() for p in found)


def python_zip(files):
    """The files in a zip, paths as in the repository, the same bytes for the same files."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        for rel in files:
            info = zipfile.ZipInfo(rel, ZIP_DATE)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            z.writestr(info, (ROOT / rel).read_bytes())
    return buf.getvalue()


# --------------------------------------------------------------------------- the hooks

def on_config(config):
    global _present, _said
    _present = pyodide_state()
    if not _present and not _said:
        _said = True
        log.info("trace_reader: node_modules/pyodide is missing (npm ci installs it): the "
                 "in-browser trace reader is not part of this build")
    return config


_MISSING = re.compile(r'(<p class="trace-reader__missing")\s+hidden')
_FORM = re.compile(r'(<div class="trace-reader__form")')


def on_page_content(html, page, config, files):
    if MARK not in html:
        return html
    if not _present:  # the page says so; the form and the script are left out
        html = _MISSING.sub(r"\1", html)
        return _FORM.sub(r"\1 hidden", html)
    return html


def on_post_page(output, page, config):
    if not _present or MARK not in output:
        return output
    style, script, timeline = (get_relative_url(p, page.url) for p in (STYLE, SCRIPT, TIMELINE))
    output = output.replace("</head>", f'<link rel="stylesheet" href="{style}">\n</head>', 1)
    return output.replace("</body>", f'<script src="{script}" defer></script>\n'
                          f'<script src="{timeline}" defer></script>\n</body>', 1)


def on_post_build(config):
    if not _present:
        return
    out = Path(config["site_dir"]) / OUT
    shutil.rmtree(out, ignore_errors=True)
    (out / "pyodide").mkdir(parents=True)
    for name in PYODIDE_FILES:
        shutil.copyfile(PYODIDE / name, out / "pyodide" / name)
    (out / "report.zip").write_bytes(python_zip(python_files()))
