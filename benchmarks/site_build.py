#!/usr/bin/env python3
"""How long does `mkdocs build --strict` of the site take? Prints figures; asserts nothing.

    python benchmarks/site_build.py            # three builds
    python benchmarks/site_build.py --runs 5

Each build runs in a fresh interpreter into a temporary folder (site/ is not touched), as
tests/conftest.py's site_build does (matplotlib's font cache is built first, once). Prints
each build's wall time and its CPU time (the children's, from resource.getrusage: the
steadier figure on a shared machine), with the load average before it and the machine's
CPU count. On a quiet machine the build took under 20 s; under the load of a CI run on two
cores, 43 s: a time limit is this benchmark's figure, not a test's assertion.
"""
from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def build(site_dir):
    """(wall seconds, CPU seconds) of one strict build into site_dir; exits on a failed one."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(site_dir)],
                          cwd=ROOT, capture_output=True, text=True, stdin=subprocess.DEVNULL)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        sys.exit(f"site_build.py: the build failed ({proc.returncode}):\n{(proc.stdout + proc.stderr)[-3000:]}")
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3, help="builds to time (default 3)")
    args = parser.parse_args(argv)
    if args.runs < 1:
        parser.error("--runs: at least 1")
    subprocess.run([sys.executable, "-c", "import matplotlib.font_manager"], check=True)  # the font cache
    walls, cpus = [], []
    print(f"mkdocs build --strict of {ROOT}, {args.runs} builds, {os.cpu_count()} CPUs")
    for i in range(args.runs):
        load = os.getloadavg()[0]
        with tempfile.TemporaryDirectory(prefix="site-build-bench-") as tmp:
            wall, cpu = build(Path(tmp) / "site")
        walls.append(wall)
        cpus.append(cpu)
        print(f"  build {i + 1}: {wall:6.1f} s wall, {cpu:6.1f} s CPU (load average before: {load:.2f})")
    print(f"median: {statistics.median(walls):.1f} s wall, {statistics.median(cpus):.1f} s CPU")


if __name__ == "__main__":
    main()
