"""pytest's fixtures and hooks for the whole suite: page blocks as parameters, the built
site and a CPU run once a session, a summary section. The library they use is pagecode.py.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import pytest
from pagecode import ROOT, collect_page_blocks, eval_mark, matplotlib_differs

# Code under test never opens a plot window; hooks/notebooks.py drops this again for the
# notebook kernel of the site build, where the inline backend must make the plot image.
os.environ.setdefault("MPLBACKEND", "Agg")


def pytest_generate_tests(metafunc):
    if "shown_block" not in metafunc.fixturenames:
        return
    blocks, _ = collect_page_blocks()
    params = [
        pytest.param(block, id=block.id, marks=[eval_mark(m) for m in block.marks])
        for block in blocks
    ]
    if not params:
        params = [
            pytest.param(
                None,
                id="no-python-blocks",
                marks=pytest.mark.skip(reason="no page shows a Python code block yet"),
            )
        ]
    metafunc.parametrize("shown_block", params)


# --------------------------------------------------------------------------- markers

# `pytest -m "not browser and not site"` runs the logic tests alone (pyproject.toml registers
# the markers), by the fixtures a test uses, at any depth: browser, every test that drives
# Chromium (test_browser.py's and test_trace_reader.py's `browser` fixture); site, every test
# that needs a `mkdocs build --strict` (each fixture named here builds one).
BROWSER_FIXTURES = {"browser"}
SITE_FIXTURES = {"site_build", "hostile_site", "made_up_site", "cpu_site"}


def pytest_collection_modifyitems(items):
    for item in items:
        used = set(getattr(item, "fixturenames", ()))
        if BROWSER_FIXTURES & used:
            item.add_marker(pytest.mark.browser)
        if SITE_FIXTURES & used:
            item.add_marker(pytest.mark.site)


# --------------------------------------------------------------------------- report

_REPORT: list[str] = []


@pytest.fixture(scope="session")
def report():
    """report(line): printed in pytest's terminal summary, also under -q and without -s."""
    return _REPORT.append


def pytest_report_header(config):
    """Said once, at the top: where figures cannot be compared byte for byte, and why."""
    return matplotlib_differs()


def pytest_runtest_logreport(report):
    """With SDPA_FAILURES_AT_ONCE=1 (scripts/gpu_remeasure.sh tests), a failure's traceback is
    printed when it happens, not in the summary at the end: a lent GPU's time limit can kill
    the run before the summary, and the failure would be lost."""
    if report.failed and os.environ.get("SDPA_FAILURES_AT_ONCE") == "1":
        sys.stdout.write(f"\nFAILED {report.nodeid} ({report.when}):\n{report.longreprtext}\n")
        sys.stdout.flush()


def pytest_terminal_summary(terminalreporter):
    if _REPORT:
        terminalreporter.section("site")
        for line in _REPORT:
            terminalreporter.write_line(line)


# --------------------------------------------------------------------------- built site


@dataclass
class SiteBuild:
    site_dir: Path
    output: str
    seconds: float


@pytest.fixture(scope="session")
def site_build(tmp_path_factory) -> SiteBuild:
    """`mkdocs build --strict` of the real docs/ into a temporary folder, once a session."""
    # matplotlib builds its font cache on first import (seconds, once per machine);
    # do it before the clock starts so the build time measures the build.
    import matplotlib.font_manager  # noqa: F401

    site_dir = tmp_path_factory.mktemp("site")
    cmd = [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(site_dir)]
    start = time.perf_counter()
    proc = subprocess.run(
        cmd, cwd=ROOT, capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=300
    )
    seconds = time.perf_counter() - start
    output = proc.stdout + proc.stderr
    if proc.returncode != 0:
        pytest.fail(f"mkdocs build --strict failed ({proc.returncode}):\n{output[-6000:]}", pytrace=False)
    return SiteBuild(site_dir=site_dir, output=output, seconds=seconds)


@pytest.fixture(scope="session")
def site_dir(site_build) -> Path:
    return site_build.site_dir


# --------------------------------------------------------------------------- CPU run


@pytest.fixture(scope="session")
def cpu_run(tmp_path_factory) -> Path:
    """The session's CPU run of build_tables.py (factory.CPU_RUN), once a session: its folder
    (results.json, tables, figures, traces). Tests read it; one that changes files copies it."""
    from factory import CPU_RUN

    import build_tables

    out = tmp_path_factory.mktemp("cpu-run")
    code = build_tables.main(CPU_RUN + ["--out", str(out)])
    assert code == 0
    return out / "cpu"
