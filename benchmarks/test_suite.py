#!/usr/bin/env python3
"""How long the test suite takes, and on what: runs `pytest -q tests` on every core this
process may run on (pytest-xdist: -n CORES --dist loadgroup, tests/conftest.py groups the
tests that share a costly fixture; any arguments given are passed on to pytest after those,
so -n 0 runs it in one process), shows its output as it comes, then prints one line fit to
paste into the README:

    python benchmarks/test_suite.py             # the whole suite
    python benchmarks/test_suite.py -x -k cli   # arguments after it go to pytest

    2026-12-07: 2,568 tests (2,560 passed, 0 failed, 8 skipped) in 489 s on AMD EPYC 7B13, 2 cores

The tests counted are pytest's own summary (passed, failed, errors, skipped, xfailed,
xpassed); the seconds are the wall time of the whole command, collection included; the CPU
is /proc/cpuinfo's model (the machine's processor name elsewhere), the cores those this
process may run on. Its exit status is pytest's. Run it on a quiet machine: the suite's time
moves with the load.
"""
from __future__ import annotations

import datetime
import os
import platform
import re
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TESTS = ROOT / "tests"
KINDS = ("passed", "failed", "errors", "skipped", "xfailed", "xpassed")
COUNT = re.compile(r"(\d+) (passed|failed|errors?|skipped|xfailed|xpassed)\b")
SUMMARY = re.compile(r"\b\d+ (?:passed|failed|errors?|skipped|xfailed|xpassed|deselected)\b.* in [\d.]+s")


def counts(summary):
    """{kind: n} from pytest's last line ("4 failed, 2556 passed, 8 skipped in 2261.12s")."""
    found = dict.fromkeys(KINDS, 0)
    for n, kind in COUNT.findall(summary):
        found["errors" if kind.startswith("error") else kind] += int(n)
    return found


def cpu_model(cpuinfo=Path("/proc/cpuinfo")):
    """The CPU's model name ("AMD EPYC 7B13"), as /proc/cpuinfo gives it, else what the
    platform module says, else the machine's architecture."""
    try:
        for line in cpuinfo.read_text(encoding="utf-8", errors="replace").splitlines():
            key, _, value = line.partition(":")
            if key.strip() in ("model name", "Hardware", "Model") and value.strip():
                return " ".join(value.split())
    except OSError:
        pass
    return platform.processor() or platform.machine() or "an unknown CPU"


def cores():
    """The cores this process may run on (its affinity), else the machine's."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def line(found, seconds, cpu, n_cores, day):
    total = sum(found.values())
    parts = [f"{found['passed']:,} passed", f"{found['failed']:,} failed"]
    parts += [f"{found[k]:,} {k}" for k in ("errors", "skipped", "xfailed", "xpassed") if found[k] or k == "skipped"]
    return (f"{day}: {total:,} test{'s' if total != 1 else ''} ({', '.join(parts)}) in {seconds:,.0f} s on {cpu}, "
            f"{n_cores} core{'s' if n_cores != 1 else ''}")


# pytest-xdist, one worker per core this process may run on (the cores the line names), at
# most MAX_WORKERS (each worker collects the suite and imports torch: about 0.5 GB); before
# the caller's arguments, which may override them (-n 0); left out where the caller turns
# xdist off (-p no:xdist)
MAX_WORKERS = 8


def parallel(args):
    if "no:xdist" in args:
        return []
    return ["-n", str(min(cores(), MAX_WORKERS)), "--dist", "loadgroup"]


def run(args, tests=TESTS, cwd=ROOT):
    """pytest -q tests ARGS, its output shown as it comes; (exit status, its summary line, wall s)."""
    started = time.monotonic()
    proc = subprocess.Popen([sys.executable, "-m", "pytest", "-q", str(tests), *parallel(args), *args], cwd=cwd,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, errors="replace")
    summary = ""
    for out in proc.stdout:
        sys.stdout.write(out)
        sys.stdout.flush()
        if SUMMARY.search(out):
            summary = out
    code = proc.wait()
    return code, summary, time.monotonic() - started


def main(argv=None, tests=TESTS, cwd=ROOT):
    code, summary, seconds = run(sys.argv[1:] if argv is None else argv, tests, cwd)
    if not summary:
        print(f"test_suite.py: error: pytest ended (exit status {code}) without its summary line", file=sys.stderr)
        return code or 1
    print(line(counts(summary), seconds, cpu_model(), cores(), datetime.date.today().isoformat()))
    return code


if __name__ == "__main__":
    sys.exit(main())
