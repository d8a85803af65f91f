"""The command line's parser of build_tables.py and trace-doctor: a bad argument is one line,
`PROG: error: WHY (see --help)`, and exit status 2, instead of argparse's usage block; and a
stdout that can take nothing, the same way (with_stdout). Standard library only: the
installed reader uses it too."""
from __future__ import annotations

import argparse
import io
import os
import stat
import sys


class Parser(argparse.ArgumentParser):
    def error(self, message):
        """One line and exit 2, instead of argparse's usage block."""
        self.exit(2, f"{self.prog}: error: {message} (see --help)\n")


# --------------------------------------------------------------------------- stdout
# A command whose stdout is closed (`>&-`) or cannot take a byte (`> /dev/full`, a full
# disk, a reader that went away) says so in one line on stderr and exits 2: refused before
# any work where that can be seen at the start, else when a write fails; never a traceback,
# never Python's "Exception ignored" at exit.

class StdoutLost(Exception):
    """A write to stdout failed; its OSError is the cause. Not an OSError itself, so that no
    handler of the command's own file errors takes it for one of them."""


class _Guarded:
    """sys.stdout as it was, its failed writes raised as StdoutLost."""

    def __init__(self, stream):
        self._stream = stream

    def write(self, text):
        try:
            return self._stream.write(text)
        except OSError as err:
            raise StdoutLost(err) from err

    def flush(self):
        try:
            self._stream.flush()
        except OSError as err:
            raise StdoutLost(err) from err

    def __getattr__(self, name):
        return getattr(self._stream, name)


def stdout_refusal():
    """Why stdout can take nothing, as far as the start can tell: closed, or /dev/full; None
    where it can (a file, a pipe, a terminal, a test's capture)."""
    out = sys.stdout
    if out is None:  # Python started with descriptor 1 closed
        return "stdout is closed: the output has nowhere to go (give it a file, or > /dev/null)"
    try:
        st = os.fstat(out.fileno())
    except io.UnsupportedOperation:  # a stream in memory (a test's capture): it takes anything
        return None
    except (OSError, ValueError):
        return "stdout is closed: the output has nowhere to go (give it a file, or > /dev/null)"
    try:
        full = os.stat("/dev/full")
    except OSError:
        return None
    if stat.S_ISCHR(st.st_mode) and st.st_rdev == full.st_rdev:
        return "stdout is /dev/full: no byte of the output can be written (give it a file, or > /dev/null)"
    return None


def _quiet(stream):
    """Point the lost stdout's descriptor at /dev/null, so that what its buffer still holds
    is flushed there at exit, not reported as another error."""
    try:
        fd = stream.fileno()
        null = os.open(os.devnull, os.O_WRONLY)
    except (OSError, ValueError):
        return
    os.dup2(null, fd)
    os.close(null)


def with_stdout(prog, command, *args):
    """command(*args)'s exit status, its stdout checked first and its writes guarded: where
    stdout can take nothing, one line `PROG: error: WHY` on stderr and 2."""
    why = stdout_refusal()
    if why:
        print(f"{prog}: error: {why}", file=sys.stderr)
        return 2
    real = sys.stdout
    sys.stdout = _Guarded(real)
    try:
        try:
            code = command(*args)
        except SystemExit:  # --help, a bad argument: flushed here too, then on its way
            sys.stdout.flush()
            raise
        sys.stdout.flush()
        return code
    except StdoutLost as lost:
        _quiet(real)
        err = lost.__cause__
        print(f"{prog}: error: stdout could not be written ({err.strerror or err}): the output is incomplete",
              file=sys.stderr)
        return 2
    finally:
        sys.stdout = real
