"""results.json: the schema version, loading with validation, and atomic writes."""
from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

from .paths import REFERENCE, SNIPPETS
from .variants import SNIPPET_FILES

SCHEMA_VERSION = 1


class UsageError(Exception):
    """A problem with the input that the user must fix; printed as one line, exit 2."""


def snippet_hashes():
    return {name: hashlib.sha256((SNIPPETS / name).read_bytes()).hexdigest()[:16]
            for name in SNIPPET_FILES}


def load_results(path):
    path = Path(path)
    if not path.exists():
        raise UsageError(f"{path} does not exist: run build_tables.py on a GPU first")
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as err:
        raise UsageError(f"{path} is not valid JSON ({err}); restore it with "
                         "`git checkout -- {path}` or measure again") from None
    if not isinstance(data, dict) or "schema_version" not in data:
        raise UsageError(f"{path} has no schema_version: not a results file of build_tables.py")
    if data["schema_version"] != SCHEMA_VERSION:
        raise UsageError(f"{path} has schema version {data['schema_version']}, this build_tables.py "
                         f"reads version {SCHEMA_VERSION}: measure again to upgrade it")
    missing = [k for k in ("provenance", "config", "roof", "variants") if k not in data]
    if missing:
        raise UsageError(f"{path} is missing {', '.join(missing)}: the file is damaged")
    return data


def load_reference():
    """Hugging Face's A100 figures, cited beside ours."""
    return json.loads(REFERENCE.read_text(encoding="utf-8"))


def write_results(results, path):
    Path(path).write_text(json.dumps(results, indent=1, ensure_ascii=False) + "\n",
                          encoding="utf-8")


def replace_dir(staging, final):
    """Swap a fully written staging folder into place; the old one survives until then."""
    final = Path(final)
    old = final.with_name(final.name + ".old")
    if old.exists():
        shutil.rmtree(old)
    if final.exists():
        final.rename(old)
    Path(staging).rename(final)
    if old.exists():
        shutil.rmtree(old)
