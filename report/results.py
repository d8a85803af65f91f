"""results.json: the schema version, loading with validation against schema.py, and
atomic writes."""
from __future__ import annotations

import ast
import functools
import hashlib
import json
import math
import os
import tempfile
from pathlib import Path

from .derive.derivation import KeptError, derive
from .limits import parse_json
from .paths import PACKAGE, REFERENCE, ROOT, SNIPPETS
from .schema import Results
from .schema_check import UNSAFE, SchemaError, check, check_leaves, escaped, whole
from .variants import SNIPPET_FILES

# the build's own code that decides what is measured and how: every file of report/measure/
# and what it imports, at any depth, from these parts of report/ (results.json's schema and
# writing, paths and rendering are not in it; nor is the analysis of what it kept, report/trace/
# and report/derive/, which no measurement imports, nor --explain)
MEASURING_PARTS = ("measure", "snippets", "variants", "stats")

SCHEMA_VERSION = 2  # what a run writes: a collected run (report/derive/ reads its figures off its traces)
COLLECTED = 2
READ_VERSIONS = (1, COLLECTED)  # 1: the figures computed on the GPU machine, stored as they are


class UsageError(Exception):
    """A problem with the input that the user must fix; printed as one line, exit 2."""


def snippet_hashes():
    return {name: hashlib.sha256((SNIPPETS / name).read_bytes()).hexdigest()[:16]
            for name in SNIPPET_FILES}


MAX_STRING = 20_000  # characters; the longest real one (a profiler table) is about 3,000
LONG_STRING_SHOWN = 60


def _too_long(value, where="results"):
    """The path of the first string longer than MAX_STRING, or None."""
    if isinstance(value, str):
        return where if len(value) > MAX_STRING else None
    items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
    for key, item in items:
        found = _too_long(item, f"{where}.{key}")
        if found:
            return found
    return None


def _check_roof(path, roof):
    tflops = roof.get("tflops") if isinstance(roof, dict) else None
    if not isinstance(tflops, (int, float)) or not math.isfinite(tflops) or tflops <= 0:
        raise UsageError(f"{path}: the matmul roof is {tflops!r} TFLOP/s, not a positive number: "
                         "the file is damaged; measure again")


def _imported(path):
    """The files of report/ that one file imports, relative or absolute, at any depth."""
    package = path.parent.relative_to(PACKAGE.parent).parts  # ("report", "measure")
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            base = list(package[: len(package) - node.level + 1]) if node.level else []
            module = base + (node.module.split(".") if node.module else [])
            found += [module + [a.name] for a in node.names] + [module]  # `from . import seed`
        elif isinstance(node, ast.Import):
            found += [a.name.split(".") for a in node.names]
    files = []
    for parts in found:
        if parts[:1] == ["report"]:
            where = PACKAGE.parent.joinpath(*parts)
            files += [f for f in (where.with_suffix(".py"), where / "__init__.py") if f.is_file()]
    return files


def measuring_files():
    """report/measure/'s files and every file of MEASURING_PARTS they import, transitively."""
    todo = sorted((PACKAGE / "measure").rglob("*.py"))
    seen = set(todo)
    while todo:
        for f in _imported(todo.pop()):
            if f not in seen and f.relative_to(PACKAGE).parts[0].removesuffix(".py") in MEASURING_PARTS:
                seen.add(f)
                todo.append(f)
    return sorted(seen)


def collecting_files(part):
    """report/<part>/'s files and every file of report/ they import, transitively: the
    identity of a collecting step (report/collect/), whatever layer its imports are in."""
    todo = sorted((PACKAGE / part).rglob("*.py"))
    seen = set(todo)
    while todo:
        for f in _imported(todo.pop()):
            if f not in seen:
                seen.add(f)
                todo.append(f)
    return sorted(seen)


def collect_hashes(part="collect"):
    """sha256 of every file collecting_files(part) holds, by repo-relative path: what a
    collection names as its identity (with report/collect's PROTOCOL)."""
    return {p.relative_to(ROOT).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()[:16]
            for p in collecting_files(part)}


def code_hashes():
    """sha256 of every file of report/ that takes part in measuring (measuring_files), by
    repo-relative path."""
    return {p.relative_to(ROOT).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()[:16]
            for p in measuring_files()}


MAX_RESULTS_BYTES = 50 * 2**20  # the H200's with every section is under 1 MB


def _read(path):
    """The file's JSON, read only if it is of a sane size and nesting (UsageError if not)."""
    try:
        size = path.stat().st_size
        if size > MAX_RESULTS_BYTES:
            raise UsageError(f"{path} is {size / 2**20:,.0f} MB, more than the "
                             f"{MAX_RESULTS_BYTES // 2**20} MB a results.json may be: not ours")
        return parse_json(path.read_text(encoding="utf-8"), functools.partial(json.loads, parse_int=whole))
    except (json.JSONDecodeError, UnicodeDecodeError) as err:
        raise UsageError(f"{path} is not valid JSON ({err}); restore it with "
                         f"`git checkout -- {path}` or measure again") from None
    except ValueError as err:  # too deep
        raise UsageError(f"{path} is {err}: not a results.json of build_tables.py") from None
    except OSError as err:
        raise UsageError(f"{path} cannot be read ({err.strerror or err})") from None


def load_results(path) -> Results:
    """results.json, checked against schema.py so that rendering it cannot go wrong silently."""
    path = Path(path)
    if not path.exists():
        raise UsageError(f"{path} does not exist: run build_tables.py on a GPU first")
    if not path.is_file():
        raise UsageError(f"{path} is not a file: expected a results.json written by build_tables.py")
    data = _read(path)
    if not isinstance(data, dict) or "schema_version" not in data:
        raise UsageError(f"{path} has no schema_version: not a results file of build_tables.py")
    version = data["schema_version"]
    if not isinstance(version, int) or isinstance(version, bool) or version not in READ_VERSIONS:
        raise UsageError(f"{path} has schema version {version!r}, this build_tables.py "
                         f"reads versions {' and '.join(map(str, READ_VERSIONS))}: measure again to upgrade it")
    missing = [k for k in ("provenance", "config", "roof", "variants") if k not in data]
    if missing:
        raise UsageError(f"{path} is missing {', '.join(missing)}: the file is damaged")
    _refuse(path, check_leaves, data)
    _check_roof(path, data["roof"])
    long = _too_long(data)
    if long:
        raise UsageError(f"{path}: {long[:LONG_STRING_SHOWN]} is longer than {MAX_STRING:,} "
                         "characters: the file is damaged or not ours")
    _refuse(path, check, data)
    if version == COLLECTED:
        try:
            data = derive(data, path.parent)
        except KeptError as err:
            raise UsageError(f"{path} {err}: restore the run's traces/ folder beside it "
                             "(git checkout) or measure again") from None
        _refuse(path, check, data)
    return data


def _refuse(path, checker, data):
    try:
        checker(data)
    except SchemaError as err:
        raise UsageError(f"{path}: {err}: the file is damaged or not ours; measure again") from None


def safe_strings(value):
    """value with every string (value or key) that holds a character results.json may not
    hold (schema_check.UNSAFE: a terminal's escape in an error message) written out."""
    if isinstance(value, str):
        return escaped(value) if UNSAFE.search(value) else value
    if isinstance(value, dict):
        return {safe_strings(k): safe_strings(v) for k, v in value.items()}
    if isinstance(value, list):
        return [safe_strings(v) for v in value]
    return value


def load_reference():
    """Hugging Face's A100 figures, cited beside ours."""
    return json.loads(REFERENCE.read_text(encoding="utf-8"))


def write_results(results: Results, path):
    """Write results.json atomically: a temporary file beside it, synced, then renamed over
    it, so a reader sees the old file or the new one, never half of one. A string holding a
    control or bidi character (an error's text) is written out (safe_strings), so the file loads."""
    path = Path(path)
    text = json.dumps(safe_strings(results), indent=1, ensure_ascii=False) + "\n"
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}-", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, 0o666 & ~_umask())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _umask():
    mask = os.umask(0)
    os.umask(mask)
    return mask
