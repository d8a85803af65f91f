"""scripts/: the local server.

Fast: nothing is installed or built.
"""

from __future__ import annotations

import importlib.util
import subprocess
import sys
import threading
from http.client import HTTPConnection
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SCRIPTS = ROOT / "scripts"


def load(name: str):
    spec = importlib.util.spec_from_file_location(f"scripts_{name}", SCRIPTS / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


serve = load("serve")


def one_line(text: str) -> str:
    lines = text.strip().splitlines()
    assert len(lines) == 1, f"expected one line, got:\n{text}"
    return lines[0]


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
