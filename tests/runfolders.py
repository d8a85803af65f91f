"""Results folders for the hostile-folder tests: a run's folder as build_tables.py leaves it,
a listing to compare before and after, and --render-only in a child process. A library for
the tests (tests import it; it imports no test module).
"""
from __future__ import annotations

import os
import shutil
import stat
import subprocess
import sys

from factory import SITE_RUN, copy_run
from pagecode import ROOT

from report.output.folders import MARKER

TIMEOUT = 60  # seconds: a command that waits on a FIFO would never end


def listing(folder):
    """Every path under folder (links not followed), with its kind and size."""
    found = {}
    for dirpath, dirnames, filenames in os.walk(folder):
        for name in dirnames + filenames:
            path = os.path.join(dirpath, name)
            st = os.lstat(path)
            found[os.path.relpath(path, folder)] = (stat.S_IFMT(st.st_mode), st.st_size)
    return found


def fresh_run(parent, name=SITE_RUN.name):
    """A results folder build_tables.py wrote: the site's run's results.json and marker,
    and tables/ and figures/ as a render leaves them (empty here)."""
    folder = parent / name
    folder.mkdir(parents=True)
    copy_run(folder)
    shutil.copy(SITE_RUN / MARKER, folder / MARKER)
    for part in ("tables", "figures"):
        (folder / part).mkdir()
    return folder


def render_only_cli(out, *extra):
    """build_tables.py --render-only in a child process: a hang is a failure, not a stuck suite."""
    return subprocess.run([sys.executable, "build_tables.py", "--render-only", "--out", str(out), *extra],
                          cwd=ROOT, capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=TIMEOUT)


def one_error_line(proc):
    assert proc.returncode == 2, (proc.returncode, proc.stdout, proc.stderr[-2000:])
    assert proc.stdout == "" and proc.stderr.count("\n") == 1 and "Traceback" not in proc.stderr
    return proc.stderr
