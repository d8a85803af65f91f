"""Bounds on what the build reads from a file it did not write (a contributed results.json,
a reader's trace): size before parsing, nesting depth after; and, in a folder it did not
write, only plain folders and regular files of its own (foreign_entry): no link, soft or hard."""
from __future__ import annotations

import os
import stat
from pathlib import Path

MAX_DEPTH = 64  # a results.json nests about 8 deep, a torch.profiler trace about 5


def too_deep(value, limit=MAX_DEPTH):
    """True where lists and dicts nest deeper than `limit` (checked without recursion)."""
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict):
            children = item.values()
        elif isinstance(item, list):
            children = item
        else:
            continue
        if depth > limit:
            return True
        stack.extend((child, depth + 1) for child in children if isinstance(child, (dict, list)))
    return False


def parse_json(text, loads):
    """loads(text), with JSON nested too deep for the parser (RecursionError) or for
    MAX_DEPTH raised as ValueError with one line."""
    try:
        data = loads(text)
    except RecursionError:
        raise ValueError(f"nested deeper than {MAX_DEPTH} levels") from None
    if too_deep(data):
        raise ValueError(f"nested deeper than {MAX_DEPTH} levels")
    return data


def foreign_entry(folder, hard_links=True):
    """(path, what) for the first entry at or under `folder` that is not a plain folder or a
    regular file of it: a symbolic link (what = "a symbolic link to TARGET"), a FIFO, a device
    or a socket, and with `hard_links` a regular file with other names too (st_nlink > 1:
    `ln /etc/passwd folder/notes.txt` makes one the site would publish; no git checkout or
    `git worktree` makes one, `cp -al` does); None where there is none. Nothing is followed
    or opened, so a link to another folder is never entered and a FIFO never read (where a
    read would wait forever)."""
    folder = Path(folder)
    if folder.is_symlink():
        return folder, what_is(folder)
    if not folder.is_dir():
        return None
    stack = [folder]
    while stack:
        with os.scandir(stack.pop()) as entries:
            for entry in sorted(entries, key=lambda e: e.name):
                if entry.is_symlink() or not (entry.is_dir(follow_symlinks=False)
                                              or entry.is_file(follow_symlinks=False)):
                    return Path(entry.path), what_is(Path(entry.path), entry)
                if entry.is_dir(follow_symlinks=False):
                    stack.append(entry.path)
                elif hard_links and entry.stat(follow_symlinks=False).st_nlink > 1:
                    return Path(entry.path), hard_link(entry.stat(follow_symlinks=False))
    return None


def hard_link(st):
    """What a regular file with more names than one is, in a few words."""
    return f"a hard link (one file under {st.st_nlink} names)"


def what_is(path, entry=None):
    """What a foreign entry is, in a few words."""
    if path.is_symlink():
        try:
            target = os.readlink(path)
            return f"a symbolic link to {target if len(target) <= 80 else target[:80] + '…'!r}"
        except OSError:
            return "a symbolic link"
    mode = (entry.stat(follow_symlinks=False) if entry else path.lstat()).st_mode
    for test, what in ((stat.S_ISFIFO, "a FIFO"), (stat.S_ISCHR, "a character device"),
                       (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket")):
        if test(mode):
            return what
    return "neither a folder nor a regular file"
