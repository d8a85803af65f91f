"""Staging folders, the swap of a finished folder into place, which folders hold results,
and the one rule for what a run may replace: only a folder it wrote itself, marked so."""
from __future__ import annotations

import fcntl
import os
import shutil
import sys
import tempfile
from contextlib import contextmanager
from pathlib import Path

from ..limits import foreign_entry
from ..paths import COMPARE, DEFAULT_OUT, ROOT, SLUG
from ..results import UsageError
from .marker import MARKER, STAGING, mark, mark_aside, not_complete, read_marker, set_aside_by_us, unlisted

__all__ = ["MARKER", "mark", "owned", "refuse_replacing", "refuse_foreign", "replace_dir", "staged",
           "clean_leftovers", "result_folders", "protected", "refuse_set_aside"]

_said = set()  # the folders clean_leftovers named in this process: each named once


def _leave(path, why):
    """One line on stderr: a folder that looks like build_tables.py's leftover is left as it is."""
    if str(path) not in _said:
        _said.add(str(path))
        print(f"build_tables.py: left {path} as it is: {why}", file=sys.stderr)

def _hold(folder):
    """An open, shared-locked marker: while it is held, the folder is a live run's staging."""
    fd = os.open(Path(folder) / MARKER, os.O_RDONLY)
    fcntl.flock(fd, fcntl.LOCK_SH)
    return fd


def _in_use(folder):
    """True while another process holds the folder's marker (see _hold)."""
    try:
        fd = os.open(Path(folder) / MARKER, os.O_RDONLY)
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        return False
    except OSError:
        return True
    finally:
        os.close(fd)


def owned(folder):
    """True where `folder` is a real folder (no symlink) that build_tables.py wrote."""
    folder = Path(folder)
    return folder.is_dir() and not folder.is_symlink() and read_marker(folder) is not None


def protected(path):
    """A folder no run replaces, marker or not: the file system's root, $HOME, the
    repository and its top-level folders, docs/generated itself, or any folder above them."""
    path = Path(os.path.abspath(path))
    fixed = [ROOT, DEFAULT_OUT] + ([Path(os.environ["HOME"])] if os.environ.get("HOME") else [])
    return (path == path.parent or path.parent == ROOT
            or any(path == p or path in p.parents for p in fixed))


def refuse_replacing(final, owner=None, new=None):
    """UsageError unless `final` may be replaced: absent, or a folder build_tables.py wrote
    (or a part of `owner`, a results folder it wrote) holding only files its marker lists,
    unchanged (marker.unlisted; `new`, what replaces it, for a marker of format 1)."""
    final = Path(final)
    if not final.exists() and not final.is_symlink():
        return
    if protected(final):
        raise UsageError(f"{final} is a folder build_tables.py never replaces (the repository, "
                         "a source folder, docs/generated itself or $HOME): choose another "
                         "--out or --slug (nothing was measured or changed)")
    if final.is_symlink() or not final.is_dir():
        raise UsageError(f"{final} is a file or a symbolic link, not a results folder: "
                         "choose another --out or --slug (nothing was measured or changed)")
    marked = final if owned(final) else owner if owner is not None and owned(owner) else None
    if marked is None:
        raise UsageError(f"{final} was not written by build_tables.py (it has no {MARKER} "
                         "marker): move it away or choose another --out or --slug "
                         "(nothing was measured or changed)")
    found = unlisted(marked, final, new)
    if found:
        path, why = found
        raise UsageError(f"{path} is not a file build_tables.py wrote ({why}), and writing "
                         f"{final} would remove it: move it away or choose another --out or "
                         "--slug (nothing was measured or changed)")


def refuse_foreign(folder):
    """UsageError where a results folder is a symbolic link or holds one, a FIFO or a device:
    rendering would read (or wait on) what lies outside it, and write through the link."""
    found = foreign_entry(folder)
    if found:
        path, what = found
        raise UsageError(f"{str(path)!r} is {what}: a results folder holds only folders and regular "
                         "files of its own (copy what a link points to in its place); nothing was "
                         "rendered or changed")


def refuse_foreign_results(out, folders=()):
    """refuse_foreign for `folders`, every results folder of `out` and its comparison: what
    a render reads, checked before it writes anything."""
    for folder in dict.fromkeys([*folders, *result_folders(out), Path(out) / COMPARE]):
        refuse_foreign(folder)


def _mkdir(path):
    """A folder readable by everyone (mkdtemp's are private), within the umask."""
    mask = os.umask(0)
    os.umask(mask)
    os.chmod(path, 0o777 & ~mask)


@contextmanager
def staged(parent, prefix, damaged=None):
    """A fresh, marked folder under `parent` to build into; whatever of it the body did not
    move away is removed, on success or failure. With damaged=(what, consequence), an error
    that results of another version raise while rendering becomes one UsageError line."""
    clean_leftovers(parent, prefix)
    staging = Path(tempfile.mkdtemp(prefix=prefix, dir=parent))
    held = None
    try:
        _mkdir(staging)
        mark(staging)
        held = _hold(staging)
        yield staging
    except (KeyError, TypeError, ValueError, AttributeError) as err:
        if damaged is None:
            raise
        what, consequence = damaged
        raise UsageError(f"{what} is damaged or was written by another version of build_tables.py "
                         f"({type(err).__name__}: {err}); {consequence}") from None
    finally:
        shutil.rmtree(staging, ignore_errors=True)
        if held is not None:
            os.close(held)


def refuse_set_aside(old, owner=None, new=None):
    """UsageError where `old` (X.old) is there and is not what a swap of build_tables.py set
    aside and left: a user's backup is never replaced. With `owner` (X is a part of a results
    folder), a part set aside is ours while owner's marker records a swap (its "swapping"),
    and only where it lists every file of it (refuse_replacing, with `new`)."""
    old = Path(old)
    if not old.exists() and not old.is_symlink():
        return
    if owner is None:
        why = "it is a file or a link" if old.is_symlink() or not old.is_dir() else set_aside_by_us(old)
    else:
        marker = read_marker(owner)
        why = None if marker is not None and marker.get("swapping") else \
            f"{Path(owner) / MARKER} records no swap that set it aside (a copy)"
    if why:
        raise UsageError(f"{old} is not a folder build_tables.py set aside ({why}), and writing "
                         f"{old.with_name(old.name.removesuffix('.old'))} would replace it: move or "
                         "rename it (nothing was changed)")
    if owner is not None:
        refuse_replacing(old, owner, new)


def replace_dir(staging, final, owner=None):
    """Swap a fully written staging folder into place; the old one survives until then, set
    aside as `final.old` with its marker saying so (marker.mark_aside). Refused (UsageError)
    where `final` is not build_tables.py's to replace, or a `final.old` it did not set aside
    is there."""
    final = Path(final)
    refuse_replacing(final, owner, staging)
    old = final.with_name(final.name + ".old")
    if old.exists() or old.is_symlink():
        if owner is None:
            refuse_set_aside(old)
        else:
            refuse_replacing(old, owner, staging)
        shutil.rmtree(old)
    if final.exists():
        if owner is None:
            mark_aside(final, old.name)
        final.rename(old)
    Path(staging).rename(final)
    if old.exists():
        shutil.rmtree(old)


def clean_leftovers(parent, prefix):
    """Remove what an interrupted run of build_tables.py left in `parent`, and only that: a
    staging folder of this write's kind (its name starts with `prefix`: ".render-", or a
    run's ".<slug>-") that no live run holds, whose marker is of the current format and lists
    every file it holds, unchanged; a folder `X.old` that a swap set aside (marker.set_aside_by_us),
    removed beside X, or renamed back to X where X is missing (a swap cut between its two
    renames). Anything else of those names that holds a marker is left as it is and named
    in one line on stderr; a folder without a marker is not build_tables.py's and is passed over."""
    parent = Path(parent)
    if not parent.is_dir():
        return
    for d in sorted(parent.iterdir()):
        if d.is_symlink() or not d.is_dir() or not (d / MARKER).exists():
            continue
        if STAGING.fullmatch(d.name):
            if _in_use(d):
                continue  # a live run's
            kind = "render" if prefix == ".render-" else "run"
            why = not_complete(d) if d.name.startswith(prefix) else \
                f"its name is not one this {kind} gives its staging folders ({prefix}…)"
            if why:
                _leave(d, why)
            else:
                shutil.rmtree(d, ignore_errors=True)
        elif d.name.endswith(".old") and d.name != ".old":
            base = d.with_name(d.name[: -len(".old")])
            why = set_aside_by_us(d)
            if why:
                _leave(d, why + ("" if base.exists() or base.is_symlink() else
                                 f"; no {base.name} is beside it: rename it to {base.name} to render it"))
            elif base.exists() or base.is_symlink():
                shutil.rmtree(d, ignore_errors=True)
            else:
                d.rename(base)
                print(f"build_tables.py: put {d} back as {base}: a run set it aside and was cut "
                      "short before its new folder took its place", file=sys.stderr)


def result_folders(out):
    """Every GPU or CPU results folder of `out` (a name of a slug, holding a results.json:
    also a link, a FIFO or a device there, which rendering refuses), by name; staging
    folders, .old folders and the comparison are never among them."""
    out = Path(out)
    if not out.is_dir():
        return []
    return sorted(d for d in out.iterdir() if SLUG.fullmatch(d.name) and d.name != COMPARE
                  and ((d / "results.json").exists() or (d / "results.json").is_symlink()))
