"""Ctrl-C and SIGTERM as exceptions that every clean-up path sees, and a way to hold them
back while a C extension is imported."""
from __future__ import annotations

import signal
import sys
from contextlib import contextmanager

EXIT_CODES = {signal.SIGINT: 130, signal.SIGTERM: 143}


class Terminated(KeyboardInterrupt):
    """SIGTERM, raised like Ctrl-C so that every `finally` and staging clean-up runs."""


class _State:
    received = None  # the first signal of this run, kept even where a caller swallowed it
    holding = 0
    pending = None


def _raise(signum):
    raise Terminated() if signum == signal.SIGTERM else KeyboardInterrupt()


def _handler(signum, frame):
    _State.received = _State.received or signum
    if _State.holding:
        _State.pending = signum
        return
    _raise(signum)


def install():
    """Turn SIGINT and SIGTERM into exceptions; the handlers they replace, by signal."""
    _State.received = _State.pending = None
    previous = {signum: signal.getsignal(signum) for signum in EXIT_CODES}
    for signum in EXIT_CODES:
        signal.signal(signum, _handler)
    return previous


@contextmanager
def installed():
    """`install()` for the block, then the handlers that were there before: a caller that
    runs `build_tables.main` in its own process (a test, a notebook) gets its own back."""
    previous = install()
    try:
        yield
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler if handler is not None else signal.SIG_DFL)


def received():
    """The signal that arrived during this run (even if some code swallowed its
    exception, as a profiler that fails to start does), or None."""
    return _State.received


@contextmanager
def deferred():
    """Hold Ctrl-C and SIGTERM back until the block is done, then raise them."""
    _State.holding += 1
    try:
        yield
    finally:
        _State.holding -= 1
        pending, _State.pending = _State.pending, None
        if pending is not None and not _State.holding:
            _raise(pending)


def check():
    """Raise the interrupt that arrived even where the code it hit swallowed it (a guarded
    measurement records it as an error row): a run that was interrupted writes nothing."""
    if _State.received is not None:
        _raise(_State.received)


def interrupted():
    """Print the one line for Ctrl-C or SIGTERM; the exit status (130 or 143). Staging and
    temporary folders are already gone, each removed by the code that made it."""
    signum = _State.received or signal.SIGINT
    what = "terminated" if signum == signal.SIGTERM else "interrupted"
    print(f"build_tables.py: {what}; the existing results were left as they were", file=sys.stderr)
    return EXIT_CODES[signum]
