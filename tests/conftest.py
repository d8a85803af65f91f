"""pytest's fixtures and hooks for the whole suite: page blocks as parameters, the built
site and a CPU run once a session, a summary section. The library they use is pagecode.py.
"""

from __future__ import annotations

import fcntl
import json
import os
import shutil
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


# Under pytest-xdist (benchmarks/test_suite.py, so scripts/test.sh: -n CORES --dist
# loadgroup) the tests that share a module- or class-scoped fixture run on one worker, so
# that the fixture (a site build, a browser's visit of every page, a CPU run of a module)
# is made once, not once a worker; every other test goes to whichever worker is free. A browser and its server are cheap
# (a second or so): they do not tie tests together. Session fixtures that cost (the site
# build, the CPU run) are made once for all workers by once_per_run below.
#
# xdist's own loadgroup cannot do it with pytest 9.2: it passes the group by appending it
# to the test's node ID, which pytest 9.2 no longer lets it change (pytest-xdist#1386). So
# each worker writes its groups to a file at collection, and the controller's scheduler
# (loadgroup's, grouping by that file instead of the node ID) reads them.
UNGROUPED_FIXTURES = {"browser", "server", "screenshot_dir", "reader_site"}


def xdist_group(item):
    """The name of the group the item runs in: its xdist_group mark's, else that of the
    first module- or class-scoped fixture it uses ("test_x.py::name"); None when neither."""
    mark = item.get_closest_marker("xdist_group")
    if mark:
        return str(mark.args[0] if mark.args else mark.kwargs.get("name", "default"))
    info = getattr(item, "_fixtureinfo", None)
    if info is None:
        return None
    shared = []
    for name in info.names_closure:
        defs = info.name2fixturedefs.get(name)
        if not defs or name in UNGROUPED_FIXTURES:
            continue
        fixturedef = defs[-1]
        if fixturedef.scope in ("module", "class", "package"):
            where = Path(fixturedef.baseid.split("::")[0] or "tests").name
            shared.append(f"{where}::{name}")
    return min(shared) if shared else None


# first: before `-m` selects by these markers
@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config, items):
    groups = {}
    for item in items:
        used = set(getattr(item, "fixturenames", ()))
        if BROWSER_FIXTURES & used:
            item.add_marker(pytest.mark.browser)
        if SITE_FIXTURES & used:
            item.add_marker(pytest.mark.site)
        group = xdist_group(item)
        if group:
            groups[item.nodeid] = group
    worker = os.environ.get("PYTEST_XDIST_WORKER")
    if worker:  # into the controller's temporary folder: each worker's is a folder in it
        controller = Path(config._tmp_path_factory.getbasetemp()).parent
        (controller / f"xdist-groups-{worker}.json").write_text(json.dumps(groups), encoding="utf-8")


@pytest.hookimpl(tryfirst=True, optionalhook=True)
def pytest_xdist_make_scheduler(config, log):
    """--dist loadgroup: xdist's loadgroup scheduler, its groups read from the workers' files."""
    if config.getvalue("dist") != "loadgroup":
        return None
    from xdist.scheduler import LoadGroupScheduling

    class FixtureGroups(LoadGroupScheduling):
        groups = None

        def _split_scope(self, nodeid):
            # first called once every worker has collected (and written its file)
            if self.groups is None:
                self.groups = {}
                for path in Path(config._tmp_path_factory.getbasetemp()).glob("xdist-groups-*.json"):
                    self.groups.update(json.loads(path.read_text(encoding="utf-8")))
            return self.groups.get(nodeid) or super()._split_scope(nodeid)

    return FixtureGroups(config, log)


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


def pytest_sessionfinish(session):
    """An xdist worker hands its report lines to the controller, which prints them."""
    workeroutput = getattr(session.config, "workeroutput", None)
    if workeroutput is not None:
        workeroutput["sdpa_report"] = list(_REPORT)


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node, error):
    _REPORT.extend(getattr(node, "workeroutput", {}).get("sdpa_report", ()))


def pytest_terminal_summary(terminalreporter):
    if _REPORT:
        terminalreporter.section("site")
        for line in _REPORT:
            terminalreporter.write_line(line)


# --------------------------------------------------------------------------- once a run


def once_per_run(tmp_path_factory, name, make):
    """make(folder) -> a JSON-able value, called once for the whole run, whatever the number
    of xdist workers: the first worker to ask makes it under a lock in the run's temporary
    folder, the others wait for it and get the same folder and value (and the same failure,
    an exception's message, without making it again). Returns (folder, value)."""
    base = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        base = base.parent  # the controller's: popen-gw0, popen-gw1, ... are in it
    folder, done = base / name, base / f"{name}.json"
    with open(base / f"{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes, by a crash too
        if not done.exists():
            shutil.rmtree(folder, ignore_errors=True)  # a worker killed half-way left it
            folder.mkdir()
            try:
                outcome = {"value": make(folder)}
            except Exception as e:
                outcome = {"error": f"{type(e).__name__}: {e}"}
            done.write_text(json.dumps(outcome), encoding="utf-8")
        outcome = json.loads(done.read_text(encoding="utf-8"))
    if "error" in outcome:
        pytest.fail(f"{name}, made once for the run, failed: {outcome['error']}", pytrace=False)
    return folder, outcome["value"]


# --------------------------------------------------------------------------- built site


@dataclass
class SiteBuild:
    site_dir: Path
    output: str
    seconds: float


def _link_tree(src: Path, dst: Path):
    """src's files hard-linked into dst (copied where links cannot be made): a build that
    swaps a new site/ in later never changes these files (it writes a new folder)."""
    def link(a, b):
        try:
            os.link(a, b)
        except OSError:
            shutil.copy2(a, b)

    shutil.copytree(src, dst, copy_function=link, dirs_exist_ok=True)


def _build_site(folder: Path) -> dict:
    """The site into folder/site: the build scripts/test.sh has just made (SDPA_TEST_SITE,
    its output in SDPA_TEST_SITE_LOG, its seconds in SDPA_TEST_SITE_SECONDS), or a build of
    its own. {"output", "seconds", "returncode"}."""
    site_dir = folder / "site"
    given = os.environ.get("SDPA_TEST_SITE")
    if given:
        log = Path(os.environ.get("SDPA_TEST_SITE_LOG", ""))
        if not (Path(given) / "index.html").is_file() or not log.is_file():
            raise RuntimeError(f"SDPA_TEST_SITE={given}: no built site with its build log (SDPA_TEST_SITE_LOG)")
        _link_tree(Path(given), site_dir)
        seconds = float(os.environ.get("SDPA_TEST_SITE_SECONDS") or "nan")
        return {"output": log.read_text(encoding="utf-8", errors="replace"), "seconds": seconds, "returncode": 0}
    # matplotlib builds its font cache on first import (seconds, once per machine);
    # do it before the clock starts so the build time measures the build.
    import matplotlib.font_manager  # noqa: F401

    cmd = [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(site_dir)]
    start = time.perf_counter()
    proc = subprocess.run(
        cmd, cwd=ROOT, capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=300
    )
    return {"output": proc.stdout + proc.stderr, "seconds": time.perf_counter() - start,
            "returncode": proc.returncode}


@pytest.fixture(scope="session")
def site_build(tmp_path_factory) -> SiteBuild:
    """`mkdocs build --strict` of the real docs/ into a temporary folder, once a run (shared by
    xdist's workers); under scripts/test.sh, the build it made just before pytest."""
    folder, built = once_per_run(tmp_path_factory, "site", _build_site)
    if built["returncode"] != 0:
        pytest.fail(f"mkdocs build --strict failed ({built['returncode']}):\n{built['output'][-6000:]}", pytrace=False)
    return SiteBuild(site_dir=folder / "site", output=built["output"], seconds=built["seconds"])


@pytest.fixture(scope="session")
def site_dir(site_build) -> Path:
    return site_build.site_dir


# --------------------------------------------------------------------------- CPU run


@pytest.fixture(scope="session")
def cpu_run(tmp_path_factory) -> Path:
    """The session's CPU run of build_tables.py (factory.CPU_RUN), once a run (shared by
    xdist's workers): its folder (results.json, tables, figures, traces). Tests read it; one
    that changes files copies it."""
    from factory import CPU_RUN

    import build_tables

    folder, code = once_per_run(tmp_path_factory, "cpu-run", lambda out: build_tables.main(CPU_RUN + ["--out", str(out)]))
    assert code == 0
    return folder / "cpu"
