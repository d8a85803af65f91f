"""MkDocs hook: the site publishes only docs/'s own folders and regular files.

MkDocs walks docs/ following symbolic links and copies every file it finds, and
pymdownx.snippets includes whatever a page names: a link docs/generated/x -> /etc would put
/etc into site/, a link to a file outside would publish that file or include it into a page,
and a FIFO or a device would stop the build with a traceback or make it wait forever.

- on_config: a symbolic link, a FIFO or a device anywhere under docs/, or a hard link (a
  file with other names: `ln /etc/passwd docs/generated/x/notes.txt`) under docs/generated/,
  stops the build with one line, before MkDocs walks into it (report/limits.py:
  foreign_entry, the same rule `build_tables.py --render-only` applies to a results folder);
- on_files: should one appear after that, a file of docs/ that is a link, lies under one, or
  is no regular file (or, under generated/, a hard link) is left out of the site with a
  warning (which fails a strict build).
  Files that other hooks add from elsewhere (a preview run, the trace reader) are theirs.
"""

from __future__ import annotations

import logging
import os
import stat
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
log = logging.getLogger("mkdocs.hooks.docs_files")
GENERATED = "generated"  # build_tables.py's results folders: no file there has a second name


def _limits():
    if str(ROOT) not in sys.path:  # `mkdocs` run as a script has not the repository on it
        sys.path.insert(0, str(ROOT))
    from report import limits

    return limits


def on_config(config):
    from mkdocs.exceptions import PluginError

    generated = Path(config.docs_dir) / GENERATED
    found = _limits().foreign_entry(config.docs_dir, hard_links=False) or _limits().foreign_entry(generated)
    if found:
        path, what = found
        rel = os.path.relpath(path, Path(config.docs_dir).parent)
        raise PluginError(f"{rel!r} is {what}: the site holds only docs/'s own folders and regular "
                          "files; remove it, or replace a link with a real copy of what it points to")
    return config


def foreign_file(path, docs_dir):
    """(the path under docs_dir, what it is) for what makes `path`, a file under docs_dir,
    unfit to publish: a link on the way to it or at its end, a file that is no regular one,
    or under generated/ a hard link; None where it is fit."""
    docs_dir = Path(docs_dir)
    here = docs_dir
    parts = Path(path).relative_to(docs_dir).parts
    for part in parts:
        here = here / part
        try:
            st = os.lstat(here)
        except OSError as err:
            return here.relative_to(docs_dir), f"unreadable ({err.strerror})"
        if stat.S_ISLNK(st.st_mode):
            return here.relative_to(docs_dir), _limits().what_is(here)
    if not stat.S_ISREG(st.st_mode):
        return here.relative_to(docs_dir), _limits().what_is(here)
    if parts[0] == GENERATED and st.st_nlink > 1:
        return here.relative_to(docs_dir), _limits().hard_link(st)
    return None


def on_files(files, config):
    docs_dir = os.path.abspath(config.docs_dir)
    for file in list(files):
        src = file.abs_src_path
        if not src or os.path.commonpath([docs_dir, os.path.abspath(src)]) != docs_dir:
            continue  # generated content, or another hook's file from outside docs/
        found = foreign_file(os.path.abspath(src), docs_dir)
        if found:
            where, what = found
            log.warning(f"{file.src_uri!r} is left out of the site: {where.as_posix()!r} is {what}, "
                        "and the site holds only docs/'s own regular files")
            files.remove(file)
    return files


on_files.mkdocs_priority = 100  # before every other plugin's on_files: none sees such a file
