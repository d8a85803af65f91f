"""The marker of a folder build_tables.py wrote (`.build_tables`): who wrote it, and what it
wrote there, each file by its path in the folder and its sha256. A run or a render replaces
only files its folder's marker lists, unchanged; a copied marker lists files the copy does
not hold, so it makes no one's own files replaceable.

The marker of format 1 (before issue 36) was a constant that listed nothing; a folder that
holds one is taken as build_tables.py's only where every file a write would replace is one
it writes again by name (`unlisted` with `new`), and the write upgrades the marker.

A swap that sets a results folder aside as `X.old` first writes that name into its marker
(`mark_aside`): the one sign that an `X.old` is build_tables.py's to remove or put back
(`set_aside_by_us`), where a user's backup or copy is left alone (folders.clean_leftovers).
"""
from __future__ import annotations

import hashlib
import json
import os
import re
from pathlib import Path

from ..paths import SLUG
from ..results import SCHEMA_VERSION

MARKER = ".build_tables"  # in every folder build_tables.py writes: results, comparison, staging
MARKER_FORMAT = 2
LEGACY_FORMAT = 1  # the constant marker: no list of files
WRITER = "build_tables.py"
MAX_MARKER = 2**20  # bytes: the H200's folder lists about 200 files in about 30 KB
DATA = ("results.json", "traces")  # what a run writes beside what a render replaces
STAGING = re.compile(rf"\.(render|{SLUG.pattern})-[a-z0-9_]{{8}}")  # tempfile.mkdtemp's names


def sha256(path):
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(2**20), b""):
            digest.update(block)
    return digest.hexdigest()


def files_of(folder, under=None):
    """{path relative to folder: sha256} of every regular file at or under folder/under
    (links are never followed), the marker and staging folders left out."""
    folder = Path(folder)
    start = folder / under if under else folder
    found = {}
    if start.is_file() and not start.is_symlink():
        return {start.relative_to(folder).as_posix(): sha256(start)}
    for dirpath, dirnames, filenames in os.walk(start):
        here = Path(dirpath)
        dirnames[:] = sorted(d for d in dirnames if not (here == folder and STAGING.fullmatch(d))
                             and not os.path.islink(here / d))
        for name in sorted(filenames):
            path = here / name
            if (here == folder and name == MARKER) or path.is_symlink() or not path.is_file():
                continue
            found[path.relative_to(folder).as_posix()] = sha256(path)
    return found


def read_marker(folder):
    """The folder's marker as a dict, or None where it has none that build_tables.py wrote."""
    path = Path(folder) / MARKER
    try:
        if path.is_symlink() or not path.is_file() or path.stat().st_size > MAX_MARKER:
            return None
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or data.get("written_by") != WRITER:
        return None
    if data.get("marker_format") == LEGACY_FORMAT:
        return data
    listed = [data.get("files"), data.get("swapping", {})]
    ok = data.get("marker_format") == MARKER_FORMAT and all(
        isinstance(d, dict) and all(isinstance(k, str) and isinstance(v, str) for k, v in d.items())
        for d in listed)
    return data if ok else None


def _write(folder, files, swapping=None):
    text = json.dumps({"written_by": WRITER, "marker_format": MARKER_FORMAT, "schema_version": SCHEMA_VERSION,
                       "files": dict(sorted(files.items())),
                       **({"swapping": dict(sorted(swapping.items()))} if swapping else {})}, indent=0)
    # in place, never renamed over: a live run holds the staging folder's marker open, locked
    (Path(folder) / MARKER).write_text(text + "\n", encoding="utf-8")


def mark(folder, parts=None):
    """Write the marker of `folder`: with parts=None, every file it holds (a staging folder,
    written by this run alone); with `parts` (the folders a render replaced), the files now
    in them, and beside them what the old marker listed (a marker of format 1, or none:
    results.json and traces/, the run's data the render read)."""
    folder = Path(folder)
    if parts is None:
        _write(folder, files_of(folder))
        return
    _write(folder, {**_kept(folder, parts), **_parts(folder, parts)})


def mark_swapping(folder, parts, staging):
    """The marker while `parts` of folder are swapped for staging's: the files there now and
    the incoming ones both listed, so a swap cut short leaves no file the marker does not."""
    swapping = {k: v for part in parts for k, v in files_of(staging, part).items()}
    _write(folder, {**_kept(folder, parts), **_parts(folder, parts)}, swapping)


def _parts(folder, parts):
    return {k: v for part in parts for k, v in files_of(folder, part).items()}


def _kept(folder, parts):
    """What the marker lists outside `parts` and the folder still holds unchanged."""
    old = read_marker(folder)
    if old is None or old["marker_format"] == LEGACY_FORMAT:
        return {k: v for part in DATA for k, v in files_of(folder, part).items()}
    now = {k: v for k, v in files_of(folder).items() if k.split("/")[0] not in parts}
    return {k: v for k, v in now.items() if v in (old["files"].get(k), old.get("swapping", {}).get(k))}


def unlisted(marked, under, new=None):
    """(path, why) for the first file under `under` (marked itself, or a folder in it) that
    marked's marker does not list with its sha256, or None where it lists every one. A
    folder `X.old` (a swap cut short) is looked up as X. With a marker of format 1, a file
    counts as listed where `new` (what replaces `under`) holds one of its path, or, with
    new=None, always (the write checks again once it knows its files)."""
    marked, under = Path(marked), Path(under)
    data = read_marker(marked)
    prefix = under.relative_to(marked).parts
    for rel, digest in files_of(under).items():
        first, *rest = (*prefix, *rel.split("/"))
        key = "/".join((first.removesuffix(".old"), *rest))
        if data["marker_format"] == LEGACY_FORMAT:
            if new is not None and not (Path(new) / rel).is_file() \
                    and not (not prefix and rel.split("/")[0] in DATA):
                return under / rel, "its name is none build_tables.py writes there"
            continue
        if digest in (data["files"].get(key), data.get("swapping", {}).get(key)):
            continue
        listed = key in data["files"] or key in data.get("swapping", {})
        return under / rel, ("it changed since build_tables.py wrote it" if listed
                             else f"the folder's {MARKER} does not list it")
    return None


ASIDE = "aside"  # the marker's field while a swap sets the folder aside as X.old: that name


def mark_aside(folder, name):
    """Record in folder's marker (in place) that a swap is about to rename it to `name`: the
    one sign that a folder `X.old` is what build_tables.py set aside, not a user's copy."""
    data = read_marker(folder)
    if data is None or data["marker_format"] != MARKER_FORMAT:
        return
    text = json.dumps({**data, ASIDE: name}, indent=0)
    (Path(folder) / MARKER).write_text(text + "\n", encoding="utf-8")


def not_complete(folder):
    """Why `folder` is not wholly build_tables.py's own, or None where it is: its marker is of
    the current format and lists every file the folder holds, each unchanged (sha256)."""
    data = read_marker(folder)
    if data is None:
        return f"its {MARKER} is not one build_tables.py wrote"
    if data["marker_format"] != MARKER_FORMAT:
        return f"its {MARKER} is of the old format, which lists no files"
    found = unlisted(folder, folder)
    if found:
        path, why = found
        return f"it holds {Path(path).relative_to(folder).as_posix()}, and {why}"
    return None


def set_aside_by_us(old):
    """Why the folder `X.old` is not one a swap of build_tables.py set aside (its marker
    names it so, and lists every file it holds, unchanged), or None where it is."""
    why = not_complete(old)
    if why:
        return why
    if read_marker(old).get(ASIDE) != Path(old).name:
        return f"its {MARKER} was not written by a swap that set it aside (a copy)"
    return None
