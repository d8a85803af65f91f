"""scripts/: site.sh's arguments, the local server, and which Python the scripts use.

Fast: nothing is installed or built. The shell scripts run from a copy of scripts/ in a
temporary folder, so no .venv or site/ appears in the checkout.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import tarfile
import threading
import time
import venv
from http.client import HTTPConnection
from pathlib import Path

import pytest
from pagecode import load_script

ROOT = Path(__file__).resolve().parent.parent
SCRIPTS = ROOT / "scripts"
# seconds: a bound on what could hang (a server that never hangs up, a shell that waits on its
# child), never a figure asserted: a loaded machine is slow, and a benchmark prints times.
# The fake builds sleep 300 s, so ending within HANG is ending before them.
HANG = 60


serve = load_script("serve")
pick_python = load_script("pick_python")


def base_python() -> str:
    """A Python 3.11+ outside any virtualenv: the one pytest's Python was made from."""
    for candidate in (getattr(sys, "_base_executable", ""), os.path.join(sys.base_prefix, "bin", "python3")):
        if candidate and os.access(candidate, os.X_OK):
            return candidate
    pytest.skip("no base Python found")


@pytest.fixture(scope="module")
def repo_copy(tmp_path_factory) -> Path:
    """scripts/ alone in a fresh folder: the shell scripts cd to its parent."""
    root = tmp_path_factory.mktemp("repo")
    shutil.copytree(SCRIPTS, root / "scripts", ignore=shutil.ignore_patterns("__pycache__"))
    return root


def run_script(repo: Path, script: str, *args: str, python: str | None = None) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "CONDA_PREFIX", "PYTHONHOME")}
    env["PYTHON"] = python or base_python()
    return subprocess.run(
        ["bash", str(repo / "scripts" / script), *args],
        capture_output=True, text=True, env=env, stdin=subprocess.DEVNULL, timeout=60,
    )


def one_line(text: str) -> str:
    lines = text.strip().splitlines()
    assert len(lines) == 1, f"expected one line, got:\n{text}"
    return lines[0]


# --------------------------------------------------------------------------- site.sh arguments


@pytest.mark.parametrize("args", [["--help"], ["-h"], ["--build-only", "--help"], ["--bogus", "--help"]])
def test_site_help_prints_only_the_help(repo_copy, args):
    # a Python that does not exist: the help must not need one, nor install or build anything
    proc = run_script(repo_copy, "site.sh", *args, python="/nonexistent/python3")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("usage: bash scripts/site.sh"), proc.stdout
    assert "--port N" in proc.stdout and "--sub-path" in proc.stdout
    assert "==" not in proc.stdout and proc.stderr == ""
    assert not (repo_copy / ".venv").exists() and not (repo_copy / "site").exists()


def test_test_sh_help_prints_only_the_help(repo_copy):
    proc = run_script(repo_copy, "test.sh", "--help", python="/nonexistent/python3")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("usage: bash scripts/test.sh") and proc.stderr == ""


@pytest.mark.parametrize(
    ("args", "url"),
    [
        ([], "http://127.0.0.1:8000/"),
        (["--port", "8765"], "http://127.0.0.1:8765/"),
        (["--port=8765"], "http://127.0.0.1:8765/"),
        (["--port", "8765", "--sub-path", "/sdpa/"], "http://127.0.0.1:8765/sdpa/"),
        (["--sub-path=sdpa", "--port=8765"], "http://127.0.0.1:8765/sdpa/"),
        (["--sub-path", "/a/b"], "http://127.0.0.1:8000/a/b/"),
    ],
)
def test_site_port_and_sub_path_forms(repo_copy, args, url):
    proc = run_script(repo_copy, "site.sh", "--dry-run", *args)
    assert proc.returncode == 0, proc.stderr
    assert f"serve: {url}\n" in proc.stdout, proc.stdout
    assert not (repo_copy / ".venv").exists(), "--dry-run made .venv"


def test_site_dry_run_build_only_does_not_serve(repo_copy):
    proc = run_script(repo_copy, "site.sh", "--dry-run", "--build-only")
    assert proc.returncode == 0, proc.stderr
    assert "build: mkdocs build --strict" in proc.stdout and "serve:" not in proc.stdout
    assert "open: python3 scripts/serve.py, then http://127.0.0.1:8000/" in proc.stdout


@pytest.mark.parametrize(
    "args",
    [
        ["--bogus"],
        ["extra"],
        ["--port"],
        ["--sub-path"],
        ["--port=abc"],
        ["--port", "70000"],
        ["--port=-1"],
        ["--port="],
        ["--sub-path", "a b"],
        ["--sub-path=/../"],
        ["--sub-path=/a//b/"],
    ],
)
def test_site_bad_arguments_get_one_line_and_exit_2(repo_copy, args):
    proc = run_script(repo_copy, "site.sh", "--dry-run", *args)
    assert proc.returncode == 2, (proc.returncode, proc.stdout, proc.stderr)
    assert proc.stdout == ""
    line = one_line(proc.stderr)
    assert "see --help" in line


@pytest.fixture(scope="module")
def repo_with_runs(tmp_path_factory) -> Path:
    """scripts/, hooks/, report/ and one run folder: what site.sh --gpu checks against."""
    root = tmp_path_factory.mktemp("repo-runs")
    for part in ("scripts", "hooks", "report"):
        shutil.copytree(ROOT / part, root / part, ignore=shutil.ignore_patterns("__pycache__"))
    (root / "docs" / "generated" / "h200").mkdir(parents=True)
    for part in ("tables", "figures"):
        (root / "docs" / "generated" / "h200" / part).mkdir()
    (root / "docs" / "generated" / "h200" / "results.json").write_text("{}", encoding="utf-8")
    return root


@pytest.mark.parametrize("args, shown", [(["--gpu", "h200"], "h200"), (["--gpu=h200"], "h200")])
def test_site_gpu_names_the_run_it_builds(repo_with_runs, args, shown):
    proc = run_script(repo_with_runs, "site.sh", "--dry-run", *args)
    assert proc.returncode == 0, proc.stderr
    assert f"build: mkdocs build --strict --site-dir site (showing {shown})\n" in proc.stdout
    assert f"site/: replaced by the pages of {shown}" in proc.stdout  # a preview says what it overwrites


@pytest.mark.parametrize("args, needle", [
    (["--gpu", "a100"], "folders with results: h200"),
    (["--gpu", "compare"], "every GPU side by side"),
    (["--gpu", "build-out/cpu"], "no results.json there"),
    (["--gpu"], "--gpu needs a value"),
    (["--gpu="], "--gpu needs a value"),
])
def test_site_gpu_without_a_run_is_refused_before_anything(repo_with_runs, args, needle):
    proc = run_script(repo_with_runs, "site.sh", "--dry-run", *args)
    assert proc.returncode == 2 and proc.stdout == ""
    assert needle in one_line(proc.stderr)
    assert not (repo_with_runs / ".venv").exists() and not (repo_with_runs / "site").exists()


def test_site_gpu_that_is_a_link_is_refused_before_anything(repo_with_runs, tmp_path):
    link = repo_with_runs / "docs" / "generated" / "linked"
    link.symlink_to(repo_with_runs / "docs" / "generated" / "h200", target_is_directory=True)
    try:
        proc = run_script(repo_with_runs, "site.sh", "--dry-run", "--gpu", "linked")
    finally:
        link.unlink()
    assert proc.returncode == 2 and proc.stdout == ""
    assert "linked' is a symbolic link to" in one_line(proc.stderr)


def test_site_needs_a_python(repo_copy):
    proc = run_script(repo_copy, "site.sh", "--dry-run", python="/nonexistent/python3")
    assert proc.returncode == 1
    assert "install Python 3.11 or newer" in one_line(proc.stderr)


# --------------------------------------------------------------------------- which Python


def test_outside_a_virtualenv_the_scripts_use_dot_venv(repo_copy):
    proc = run_script(repo_copy, "site.sh", "--dry-run")
    assert proc.returncode == 0, proc.stderr
    python_line = proc.stdout.splitlines()[0]
    assert python_line.startswith("python: .venv/bin/python, made first by "), python_line


def test_no_install_without_a_venv_stops(repo_copy):
    proc = run_script(repo_copy, "site.sh", "--dry-run", "--no-install")
    assert proc.returncode == 1
    assert "run once without --no-install" in one_line(proc.stderr)


def test_inside_a_virtualenv_the_scripts_use_it(tmp_path, repo_copy):
    env_dir = tmp_path / "env"
    venv.create(env_dir, with_pip=False)  # no pip: instant, and enough for the decision
    proc = run_script(repo_copy, "site.sh", "--dry-run", python=str(env_dir / "bin" / "python"))
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines()[0] == f"python: {env_dir / 'bin' / 'python'}, used as is (it runs inside a virtualenv)"


def test_pick_python_cli_on_this_python():
    proc = subprocess.run([sys.executable, str(SCRIPTS / "pick_python.py")], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    line = one_line(proc.stdout)
    if sys.prefix != sys.base_prefix:
        assert line == "here"
    else:
        assert line in ("venv", "venv-none") or line.startswith("venv-apt python3."), line


@pytest.mark.parametrize(
    ("prefix", "base", "real", "conda", "inside"),
    [
        ("/usr", "/usr", None, False, False),
        ("/work/.venv", "/usr", None, False, True),
        ("/old/env", "/old/env", "/usr", False, True),  # virtualenv < 20
        ("/opt/conda/envs/x", "/opt/conda/envs/x", None, True, True),
    ],
)
def test_in_environment(prefix, base, real, conda, inside):
    assert pick_python.in_environment(prefix, base, real, conda) is inside


@pytest.mark.parametrize(
    ("version", "inside", "has_venv", "executable", "expected"),
    [
        ((3, 11, 2), True, False, "/usr/bin/python3.11", "here"),
        ((3, 11, 2), False, True, "/usr/bin/python3.11", "venv"),
        ((3, 11, 2), False, False, "/usr/bin/python3.11", "venv-apt python3.11-venv"),  # Debian 12
        ((3, 12, 3), False, False, "/usr/bin/python3.12", "venv-apt python3.12-venv"),  # Ubuntu 24.04
        ((3, 12, 3), False, False, "/usr/local/bin/python3.12", "venv-none"),
        ((3, 13, 0), False, True, "/root/.pyenv/versions/3.13.0/bin/python3.13", "venv"),
    ],
)
def test_pick_python_plan(version, inside, has_venv, executable, expected):
    assert pick_python.plan(version, inside, has_venv, executable) == expected


@pytest.mark.parametrize("version", [(3, 10, 13), (3, 6, 15), (2, 7, 18)])
def test_pick_python_refuses_an_old_python(version):
    with pytest.raises(ValueError, match=r"too old: the project needs 3\.11 or newer"):
        pick_python.plan(version, True, True, "/usr/bin/python3")


def old_pythons() -> list[str]:
    """Pythons older than 3.11 that pyenv has here, if any (python2.7 too)."""
    found = []
    for python in Path("~/.pyenv/versions").expanduser().glob("*/bin/python"):
        try:
            version = tuple(int(x) for x in python.parent.parent.name.split(".")[:2])
        except ValueError:
            continue
        if version < (3, 11):
            found.append(str(python))
    return sorted(found)


OLD_PYTHONS = old_pythons()


@pytest.mark.skipif(not OLD_PYTHONS, reason="no Python older than 3.11 on this machine")
@pytest.mark.parametrize("python", OLD_PYTHONS)
def test_an_old_python_gets_one_line(repo_copy, python):
    proc = run_script(repo_copy, "site.sh", "--dry-run", python=python)
    assert proc.returncode == 1
    assert "too old" in one_line(proc.stderr)


@pytest.mark.parametrize("name", [".venv", "node_modules"])
def test_dot_venv_is_git_ignored(name):
    # as a folder or as a link to one elsewhere: a committed link replaced a shared virtualenv once
    if not (ROOT / ".git").exists():
        pytest.skip("not a git checkout")
    proc = subprocess.run(["git", "check-ignore", "-q", "--no-index", name], cwd=ROOT)
    assert proc.returncode == 0, f"{name} is not in .gitignore"


# --------------------------------------------------------------------------- test.sh's pytest step


@pytest.mark.parametrize(("pytest_rc", "expected"), [(0, 0), (1, 1), (2, 2), (5, 1)])
def test_no_tests_collected_is_a_failure(tmp_path, pytest_rc, expected):
    fake = tmp_path / "python"
    fake.write_text(f"#!/bin/sh\nexit {pytest_rc}\n")
    fake.chmod(0o755)
    script = f'set -euo pipefail; SCRIPT=test.sh; source scripts/common.sh; PY="{fake}"; run_pytest -q tests'
    proc = subprocess.run(["bash", "-c", script], cwd=ROOT, capture_output=True, text=True, stdin=subprocess.DEVNULL)
    assert proc.returncode == expected, proc.stderr
    assert ("collected no tests" in proc.stderr) == (pytest_rc == 5)


# --------------------------------------------------------------------------- the server

NOT_FOUND = b"<!doctype html><title>404 - the site's own</title>"


@pytest.fixture(scope="module")
def fake_site(tmp_path_factory) -> Path:
    site = tmp_path_factory.mktemp("site")
    (site / "index.html").write_bytes(b"<title>nb</title>")
    (site / "en").mkdir()
    (site / "en" / "index.html").write_bytes(b"<title>en</title>")
    (site / "assets").mkdir()
    (site / "assets" / "app.js").write_bytes(b"let x = 1;")
    (site / "404.html").write_bytes(NOT_FOUND)
    return site


def start(site: Path, sub_path: str):
    httpd = serve.make_server(site, port=0, sub_path=sub_path, quiet=True)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    return httpd


@pytest.fixture(scope="module", params=["/", "/sdpa/"], ids=["root", "sub-path"])
def server(request, fake_site):
    httpd = start(fake_site, request.param)
    try:
        yield httpd, request.param
    finally:
        httpd.shutdown()
        httpd.server_close()


def fetch(httpd, path: str, method: str = "GET"):
    conn = HTTPConnection("127.0.0.1", httpd.server_port, timeout=10)
    try:
        conn.request(method, path)
        response = conn.getresponse()
        return response.status, dict(response.getheaders()), response.read()
    finally:
        conn.close()


def test_server_binds_loopback_only(server):
    httpd, _ = server
    assert httpd.server_address[0] == "127.0.0.1"


def test_server_serves_pages(server):
    httpd, sub = server
    assert fetch(httpd, sub)[::2] == (200, b"<title>nb</title>")
    assert fetch(httpd, f"{sub}en/")[::2] == (200, b"<title>en</title>")
    assert fetch(httpd, f"{sub}assets/app.js")[::2] == (200, b"let x = 1;")


@pytest.mark.parametrize("missing", ["missing", "missing/", "en/missing/deep/page/", "assets/", "assets/nope.js", "index.html/"])
def test_server_answers_a_missing_page_with_404_html(server, missing):
    httpd, sub = server
    status, headers, body = fetch(httpd, sub + missing)
    assert status == 404
    assert body == NOT_FOUND  # the site's own page, not http.server's, and no folder listing
    assert headers["Content-Type"] == "text/html; charset=utf-8"


def test_server_head_of_a_missing_page(server):
    httpd, sub = server
    status, headers, body = fetch(httpd, sub + "missing", method="HEAD")
    assert (status, body) == (404, b"")
    assert headers["Content-Length"] == str(len(NOT_FOUND))


def test_server_redirects_a_folder_to_its_slash(server):
    httpd, sub = server
    status, headers, _ = fetch(httpd, f"{sub}en")
    assert status == 301 and headers["Location"] == f"{sub}en/"


def test_server_keeps_to_the_site_folder(server):
    httpd, sub = server
    status, _, body = fetch(httpd, sub + "../../../../../../etc/hostname")
    assert (status, body) == (404, NOT_FOUND)


def test_server_under_a_sub_path_nothing_outside_it(fake_site):
    httpd = start(fake_site, "sdpa")  # normalized to /sdpa/
    try:
        for path in ("/", "/index.html", "/en/", "/sdpax/", "/other/sdpa/"):
            assert fetch(httpd, path)[::2] == (404, NOT_FOUND), path
        status, headers, _ = fetch(httpd, "/sdpa")
        assert status == 301 and headers["Location"] == "/sdpa/"
    finally:
        httpd.shutdown()
        httpd.server_close()


def test_server_without_404_html_still_says_404(tmp_path):
    (tmp_path / "index.html").write_bytes(b"x")
    httpd = start(tmp_path, "/")
    try:
        status, _, body = fetch(httpd, "/missing")
        assert status == 404 and body != NOT_FOUND
    finally:
        httpd.shutdown()
        httpd.server_close()


@pytest.mark.parametrize(
    ("text", "expected"),
    [("", "/"), ("/", "/"), ("sdpa", "/sdpa/"), ("/sdpa", "/sdpa/"), ("/sdpa/", "/sdpa/"), ("a/b.c/", "/a/b.c/")],
)
def test_normalize_sub_path(text, expected):
    assert serve.normalize_sub_path(text) == expected


@pytest.mark.parametrize("text", ["a b", "/../", "/./", "a//b", "//", "/a?b/", "/a#b/", "/ø/"])
def test_normalize_sub_path_refuses(text):
    with pytest.raises(ValueError, match="bad sub-path"):
        serve.normalize_sub_path(text)


@pytest.mark.parametrize("text", ["", "x", "-1", "65536", "80.0", "٣"])
def test_parse_port_refuses(text):
    with pytest.raises(ValueError, match="bad port"):
        serve.parse_port(text)


def test_serve_cli_without_a_built_site(tmp_path):
    proc = subprocess.run(
        [sys.executable, str(SCRIPTS / "serve.py"), "--port", "0", "--directory", str(tmp_path / "nothing")],
        capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=30,
    )
    assert proc.returncode == 1
    assert "no built site" in one_line(proc.stderr)


def test_serve_cli_port_in_use(fake_site):
    httpd = serve.make_server(fake_site, port=0, quiet=True)  # holds the port, not serving
    try:
        proc = subprocess.run(
            [sys.executable, str(SCRIPTS / "serve.py"), "--port", str(httpd.server_port), "--directory", str(fake_site)],
            capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=30,
        )
    finally:
        httpd.server_close()
    assert proc.returncode == 1
    assert "cannot listen on 127.0.0.1" in one_line(proc.stderr)


def test_serve_cli_serves_until_stopped(fake_site):
    proc = subprocess.Popen(
        [sys.executable, str(SCRIPTS / "serve.py"), "--port", "0", "--sub-path", "/sdpa/", "--directory", str(fake_site), "--quiet"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, stdin=subprocess.DEVNULL,
    )
    try:
        first = proc.stdout.readline()
        assert first.startswith("Serving ") and "/sdpa/ (nb)" in first, first
        port = int(first.split("http://127.0.0.1:")[1].split("/")[0])
        conn = HTTPConnection("127.0.0.1", port, timeout=10)
        conn.request("GET", "/sdpa/no-such-page/")
        response = conn.getresponse()
        assert (response.status, response.read()) == (404, NOT_FOUND)
        conn.close()
    finally:
        proc.terminate()
        proc.wait(timeout=10)


# --------------------------------------------------------------------------- hostile requests

@pytest.fixture()
def linked_site(tmp_path):
    site = tmp_path / "site"
    site.mkdir()
    (site / "index.html").write_bytes(b"<title>nb</title>")
    (site / "404.html").write_bytes(NOT_FOUND)
    secret = tmp_path / "secret.txt"
    secret.write_bytes(b"not for the web")
    (site / "passwd").symlink_to(secret)
    (site / "outside").symlink_to(tmp_path, target_is_directory=True)
    (site / "inside.html").symlink_to(site / "index.html")
    return site


def test_server_never_follows_a_symlink_out_of_the_site(linked_site):
    httpd = start(linked_site, "/")
    try:
        for path in ("/passwd", "/outside/secret.txt", "/outside/", "/outside"):
            status, _, body = fetch(httpd, path)
            assert status == 404 and b"not for the web" not in body, path
        assert fetch(httpd, "/inside.html")[0] == 200  # a link that stays inside is fine
    finally:
        httpd.shutdown()
        httpd.server_close()


@pytest.mark.parametrize("path", ["/%00", "/index.html%00.png", "/%ff%fe", "/en/%00/", "/%2e%2e/%00"])
def test_server_answers_a_malformed_path_without_a_traceback(path, fake_site, capfd):
    httpd = start(fake_site, "/")
    try:
        status, _, _ = fetch(httpd, path)
    finally:
        httpd.shutdown()
        httpd.server_close()
    assert status in (400, 404)
    assert "Traceback" not in capfd.readouterr().err


def test_server_closes_an_idle_connection(fake_site):
    assert serve.SiteHandler.timeout == serve.IDLE_SECONDS and 0 < serve.IDLE_SECONDS <= 60
    handler = type("Quick", (serve.SiteHandler,), {"timeout": 0.5})
    httpd = serve.make_server(fake_site, port=0, quiet=True, handler=handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    try:
        with socket.create_connection(("127.0.0.1", httpd.server_port), timeout=HANG) as idle:
            assert idle.recv(1) == b""  # the server hung up on a client that sent nothing
    finally:
        httpd.shutdown()
        httpd.server_close()


def test_server_serves_while_many_connections_hang_and_then_drops_them(fake_site):
    handler = type("Quick", (serve.SiteHandler,), {"timeout": 1})
    httpd = serve.make_server(fake_site, port=0, quiet=True, handler=handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    idle = []
    try:
        for _ in range(200):
            idle.append(socket.create_connection(("127.0.0.1", httpd.server_port), timeout=5))
            idle[-1].sendall(b"GET / HTTP/1.1\r\n")  # a request that never ends
        assert fetch(httpd, "/en/")[0] == 200  # served beside them (fetch gives up after 10 s)
        assert all(sock.recv(1) == b"" for sock in idle)  # each hung up on after its timeout
    finally:
        for sock in idle:
            sock.close()
        httpd.shutdown()
        httpd.server_close()


def test_site_sh_refuses_a_taken_port_before_building(repo_copy):
    holder = serve.make_server(repo_copy, port=0, quiet=True)  # holds the port
    try:
        proc = run_script(repo_copy, "site.sh", "--port", str(holder.server_port))
    finally:
        holder.server_close()
    assert proc.returncode == 1 and "is in use" in one_line(proc.stderr)
    assert "mkdocs" not in proc.stdout and "pip" not in proc.stdout  # nothing built or installed


FAKE_MKDOCS = """#!/usr/bin/env bash
# stands in for python -m mkdocs build --strict --site-dir DIR: writes DIR/index.html slowly
while [ "$#" -gt 0 ]; do [ "$1" = --site-dir ] && dir=$2; shift; done
for i in 1 2 3 4 5; do echo "$BUILD part $i" >> "$dir/index.html"; sleep 0.1; done
[ "$BUILD" != fail ]
"""


def build_site(repo: Path, label: str):
    fake = repo / "fake-python"
    fake.write_text(FAKE_MKDOCS)
    fake.chmod(0o755)
    script = f'cd "{repo}" && source scripts/common.sh && PY="{fake}" && build_site'
    return subprocess.Popen(["bash", "-c", script], env={**os.environ, "BUILD": label},
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def test_two_builds_at_once_never_mix_and_a_failed_one_keeps_the_site(tmp_path):
    shutil.copytree(SCRIPTS, tmp_path / "scripts", ignore=shutil.ignore_patterns("__pycache__"))
    builds = [build_site(tmp_path, "a"), build_site(tmp_path, "b")]
    assert [b.wait(timeout=30) for b in builds] == [0, 0]
    lines = (tmp_path / "site" / "index.html").read_text().splitlines()
    assert len(lines) == 5 and len({line.split()[0] for line in lines}) == 1  # one build's, whole
    before = (tmp_path / "site" / "index.html").read_bytes()
    assert build_site(tmp_path, "fail").wait(timeout=30) != 0
    assert (tmp_path / "site" / "index.html").read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["fake-python", "scripts", "site"]


def test_a_dot_venv_of_an_old_python_gets_one_line(tmp_path):
    """A .venv made by hand with Python 3.10 is refused in one line before pip runs."""
    root = tmp_path / "repo"
    shutil.copytree(SCRIPTS, root / "scripts", ignore=shutil.ignore_patterns("__pycache__"))
    fake = root / ".venv" / "bin" / "python"
    fake.parent.mkdir(parents=True)
    # answers pip's version check as a working venv does, and runs pick_python.py as 3.10 would
    fake.write_text('#!/bin/sh\nif [ "$1" = -m ]; then exit 0; fi\n'
                    'echo "pick_python.py: Python 3.10 is too old" >&2; exit 1\n', encoding="utf-8")
    fake.chmod(0o755)
    proc = run_script(root, "site.sh", "--dry-run")
    assert proc.returncode == 1
    assert "made by a Python older than 3.11" in one_line(proc.stderr)


def fetch_gzip(httpd, path: str):
    conn = HTTPConnection("127.0.0.1", httpd.server_port, timeout=10)
    try:
        conn.request("GET", path, headers={"Accept-Encoding": "br, gzip;q=0.9"})
        response = conn.getresponse()
        return response.status, dict(response.getheaders()), response.read()
    finally:
        conn.close()


def test_server_sends_text_gzipped_to_a_client_that_accepts_it(server):
    import gzip

    httpd, sub = server
    for path, body in ((sub, b"<title>nb</title>"), (f"{sub}en/", b"<title>en</title>"),
                       (f"{sub}assets/app.js", b"let x = 1;")):
        status, headers, raw = fetch_gzip(httpd, path)
        assert status == 200 and headers["Content-Encoding"] == "gzip" and headers["Vary"] == "Accept-Encoding"
        assert gzip.decompress(raw) == body and headers["Content-Length"] == str(len(raw))
    # without Accept-Encoding: as before, plain
    status, headers, raw = fetch(httpd, sub)
    assert (status, raw) == (200, b"<title>nb</title>") and "Content-Encoding" not in headers
    # what is no page stays a 404 or a redirect, gzip accepted or not
    assert fetch_gzip(httpd, f"{sub}index.html/")[::2] == (404, NOT_FOUND)
    assert fetch_gzip(httpd, f"{sub}missing/")[0] == 404
    assert fetch_gzip(httpd, f"{sub}en")[0] == 301


# --------------------------------------------------------------------------- a build that is killed

SLOW_MKDOCS = """#!/usr/bin/env bash
# stands in for python scripts/child.py -m mkdocs build ... --site-dir DIR: writes, then waits
while [ "$#" -gt 0 ]; do [ "$1" = --site-dir ] && dir=$2; shift; done
echo $$ > "$PID_FILE"
echo "half" > "$dir/index.html"
sleep 300
"""


def wait_for(path: Path, seconds: float = 20) -> str:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if path.exists() and path.read_text().strip():
            return path.read_text().strip()
        time.sleep(0.05)
    raise AssertionError(f"{path} never appeared")


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    state = Path(f"/proc/{pid}/stat")
    return not (state.exists() and state.read_text().split(")")[-1].split()[0] == "Z")


def ended(pid: int) -> bool:
    """True once the process is gone, waiting at most HANG seconds (its 300 s sleep is longer)."""
    deadline = time.monotonic() + HANG
    while alive(pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    return not alive(pid)


def end(pid: int) -> None:
    """Kill the test's own fake build should it still run (a failed test leaves none behind)."""
    if alive(pid):
        os.kill(pid, signal.SIGKILL)


STOPPING = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP)


def signals_at(ignored):
    """A preexec_fn: the child starts with SIGTERM, SIGINT and SIGHUP at their defaults but
    those in `ignored`, which it starts ignoring. A test
    that sends one of them says what the build starts with, not what pytest inherited: under
    `nohup` SIGHUP is ignored, and `cmd &` in a shell without job control ignores SIGINT, and
    a shell cannot trap a signal that was ignored when it started (POSIX; bash keeps to it)."""
    def preexec():
        for signum in STOPPING:
            signal.signal(signum, signal.SIG_IGN if signum in ignored else signal.SIG_DFL)
    return preexec


def slow_build(tmp_path, ignored=()):
    """build_site of a copy of scripts/ with a fake mkdocs that writes, then sleeps 300 s,
    started with the signals `ignored` ignored, the others at their defaults; (its shell,
    the fake mkdocs's PID)."""
    shutil.copytree(SCRIPTS, tmp_path / "scripts", ignore=shutil.ignore_patterns("__pycache__"))
    (tmp_path / "site").mkdir()
    (tmp_path / "site" / "index.html").write_text("the last good site")
    fake = tmp_path / "fake-python"
    fake.write_text(SLOW_MKDOCS)
    fake.chmod(0o755)
    script = f'cd "{tmp_path}" && source scripts/common.sh && PY="{fake}" && build_site'
    shell = subprocess.Popen(["bash", "-c", script], env={**os.environ, "PID_FILE": str(tmp_path / "pid")},
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                             preexec_fn=signals_at(ignored))
    return shell, int(wait_for(tmp_path / "pid"))


@pytest.mark.parametrize("signame, code", [("SIGTERM", 143), ("SIGINT", 130), ("SIGHUP", 129)])
def test_a_killed_build_ends_its_mkdocs_and_removes_its_folder(tmp_path, signame, code):
    """A build started from a terminal (every signal at its default) ends on each; this
    holds whatever pytest was started under (`nohup`, `&`, CI)."""
    shell, child = slow_build(tmp_path)
    try:
        shell.send_signal(getattr(signal, signame))
        assert shell.wait(timeout=HANG) == code  # before the fake mkdocs's 300 s sleep ends: not after it
        assert ended(child)
    finally:
        end(child)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["fake-python", "pid", "scripts", "site"]
    assert (tmp_path / "site" / "index.html").read_text() == "the last good site"


def test_a_build_started_under_nohup_keeps_running_on_sighup_and_still_cleans_up_on_sigterm(tmp_path):
    """`nohup bash scripts/site.sh &` asks the build to outlive the terminal: SIGHUP (nohup)
    and SIGINT (`&`), ignored when it started, leave it running (bash cannot trap them, and
    should not); SIGTERM still ends it and removes its folder."""
    shell, child = slow_build(tmp_path, ignored=(signal.SIGHUP, signal.SIGINT))
    try:
        for signum in (signal.SIGHUP, signal.SIGINT):
            shell.send_signal(signum)
        time.sleep(1)
        assert shell.poll() is None and alive(child)
        shell.send_signal(signal.SIGTERM)
        assert shell.wait(timeout=HANG) == 143
        assert ended(child)
    finally:
        end(child)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["fake-python", "pid", "scripts", "site"]


def test_a_build_whose_shell_is_killed_outright_ends_too(tmp_path):
    """kill -9 reaches no trap: scripts/child.py has Linux end the build with its shell."""
    if not sys.platform.startswith("linux"):
        pytest.skip("PR_SET_PDEATHSIG is Linux's")
    sleeper = 'import os, time; print(os.getpid(), flush=True); time.sleep(300)'
    script = f'"{sys.executable}" "{SCRIPTS / "child.py"}" -c "{sleeper}" > "{tmp_path / "pid"}" & wait'
    shell = subprocess.Popen(["bash", "-c", script])
    child = int(wait_for(tmp_path / "pid"))
    try:
        shell.kill()
        shell.wait(timeout=HANG)
        assert ended(child)
    finally:
        end(child)


def dead_pid() -> int:
    proc = subprocess.Popen(["true"])
    proc.wait()
    return proc.pid


def test_the_next_build_removes_what_killed_builds_left(tmp_path):
    shutil.copytree(SCRIPTS, tmp_path / "scripts", ignore=shutil.ignore_patterns("__pycache__"))
    gone = dead_pid()
    stale = [f".site-build-{gone}-abc123", f".site-old-{gone}-abc123", ".site-build-Xy12Ab"]
    live = f".site-build-{os.getpid()}-abc123"  # a build that still runs: its shell is alive
    for name in stale + [live]:
        (tmp_path / name).mkdir()
        (tmp_path / name / "index.html").write_text("20 MB of a site")
    assert build_site(tmp_path, "a").wait(timeout=30) == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([live, "fake-python", "scripts", "site"])


# --------------------------------------------------------------------------- gzip once per file


def test_server_compresses_each_file_once_at_a_moderate_level(tmp_path, monkeypatch):
    import gzip

    calls = []
    real = gzip.compress

    def counted(data, compresslevel=9, **kwargs):
        calls.append(compresslevel)
        return real(data, compresslevel=compresslevel, **kwargs)

    monkeypatch.setattr(serve.gzip, "compress", counted)
    monkeypatch.setattr(serve, "GZIPPED", serve.GzipCache())
    (tmp_path / "index.html").write_text("<title>one</title>" * 1000)
    (tmp_path / "404.html").write_bytes(NOT_FOUND)
    httpd = start(tmp_path, "/")
    try:
        for _ in range(20):
            status, _, raw = fetch_gzip(httpd, "/")
            assert status == 200 and gzip.decompress(raw) == b"<title>one</title>" * 1000
        assert calls == [serve.GZIP_LEVEL] and serve.GZIP_LEVEL < 9
        (tmp_path / "index.html").write_text("<title>two</title>")  # a rebuilt site: compressed again
        assert gzip.decompress(fetch_gzip(httpd, "/")[2]) == b"<title>two</title>" and len(calls) == 2
    finally:
        httpd.shutdown()
        httpd.server_close()


def test_the_gzip_cache_keeps_to_its_limit(tmp_path):
    cache = serve.GzipCache(limit=3000)
    for i in range(10):
        (tmp_path / f"{i}.txt").write_bytes(os.urandom(1000))  # incompressible: about 1 kB each
        cache.get(tmp_path / f"{i}.txt")
    assert sum(len(body) for _, body in cache.entries.values()) <= 3000
    assert list(cache.entries)[-1] == str(tmp_path / "9.txt")  # the newest stays


# --------------------------------------------------------------------------- gpu_remeasure.sh

FAKE_BUILD = """#!/bin/sh
# build_tables.py writes <out>/h200/results.json; anything else goes to the real Python
if [ "$1" = build_tables.py ]; then
  while [ "$#" -gt 0 ]; do [ "$1" = --out ] && out=$2; shift; done
  mkdir -p "$out/h200"
  printf '%s' '{"provenance": {"gpu_name": "NVIDIA H200", "torch": "2.11.0", "cuda": "13.0", "cudnn": "9.19.0", "driver": "580"}}' > "$out/h200/results.json"
  echo measured
  exit 0
fi
exec REAL "$@"
"""


def test_gpu_remeasure_packs_a_rerun_into_one_tar_with_its_readme(repo_copy, tmp_path):
    fake = tmp_path / "python3"
    fake.write_text(FAKE_BUILD.replace("REAL", base_python()))
    fake.chmod(0o755)
    out = tmp_path / "out"
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYTHONHOME")}
    env.update(PYTHON=str(fake), OUT=str(out))
    proc = subprocess.run(["bash", str(repo_copy / "scripts" / "gpu_remeasure.sh"), "b"], capture_output=True,
                          text=True, env=env, stdin=subprocess.DEVNULL, timeout=60)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert [p.name for p in out.iterdir()] == ["run-b.tar.gz"]
    with tarfile.open(out / "run-b.tar.gz") as tar:
        names = set(tar.getnames())
        readme = tar.extractfile("data/reruns/h200/b/README.md").read().decode()
    assert {"data/reruns/h200/b/results.json", "remeasure-logs/run-b.log", "remeasure-logs/status-b.txt"} <= names
    assert "python build_tables.py --all --ncu" in readme and "NVIDIA H200 | torch 2.11.0" in readme
    assert "run-b: exit 0" in proc.stdout


def test_gpu_remeasure_refuses_an_unknown_run(repo_copy):
    proc = run_script(repo_copy, "gpu_remeasure.sh", "k")
    assert proc.returncode == 2 and proc.stderr.startswith("usage: bash scripts/gpu_remeasure.sh")
