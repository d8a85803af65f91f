"""benchmarks/lighthouse.py: which pages it visits, what it refuses before any run, and what
it prints, with a stand-in for Lighthouse that fetches the page from the benchmark's server."""
import json
import os
import sys
import textwrap

import pytest

from benchmarks import lighthouse
from report.text.display import LANGS
from tests.pagecode import nav_pages, page_url


def test_every_page_of_the_nav_in_each_language():
    expected = [f"{lang}:{p['slug'] or 'index'}" for lang in LANGS for p in nav_pages()]
    assert lighthouse.nav_pages() == expected
    for page in expected:
        lang, slug = page.split(":")
        assert lighthouse.page_path(page) == page_url("" if slug == "index" else slug, lang)


@pytest.fixture
def tiny_site(tmp_path):
    """A built site with two pages of the nav, nb:index and en:shapes."""
    site = tmp_path / "site"
    for path in ("", "en/shapes/"):
        (site / path).mkdir(parents=True, exist_ok=True)
        (site / path / "index.html").write_text(f"<html><body>{path or 'home'}</body></html>")
    return site


@pytest.fixture
def fake_lighthouse(tmp_path):
    """An executable that fetches its URL (asking for gzip) and writes a report whose
    performance score is the page's path length, so each page gets a score of its own."""
    exe = tmp_path / "lighthouse"
    exe.write_text(textwrap.dedent(f"""\
        #!{sys.executable}
        import gzip, json, sys, urllib.request
        url = sys.argv[1]
        out = next(a for a in sys.argv if a.startswith("--output-path=")).split("=", 1)[1]
        req = urllib.request.Request(url, headers={{"Accept-Encoding": "gzip"}})
        with urllib.request.urlopen(req) as resp:
            body = resp.read()
            if resp.headers.get("Content-Encoding") == "gzip":
                body = gzip.decompress(body)
        assert b"<html>" in body
        score = (50 + len(url.split("/", 3)[3])) / 100
        cats = {{c: {{"score": score if c == "performance" else 1}}
                for c in ("performance", "accessibility", "best-practices", "seo")}}
        audits = {{a: {{"numericValue": 100.0}} for a in ("first-contentful-paint",
                  "largest-contentful-paint", "total-blocking-time", "cumulative-layout-shift",
                  "speed-index")}}
        json.dump({{"categories": cats, "audits": audits,
                   "environment": {{"benchmarkIndex": 2000}}}}, open(out, "w"))
        """))
    exe.chmod(0o755)
    return exe


def test_scores_from_the_served_site(tiny_site, fake_lighthouse, tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("CHROME_PATH", sys.executable)  # any file: the stand-in starts no browser
    out = tmp_path / "runs.json"
    status = lighthouse.main(["--site", str(tiny_site), "--runs", "3", "--pages", "nb:index,en:shapes",
                              "--lighthouse", str(fake_lighthouse), "--json", str(out)])
    assert status == 0
    printed = capsys.readouterr().out
    # nb:index is at "/", en:shapes at "/en/shapes/" (10 characters): 50 and 60
    assert "nb:index               performance  50.0 (lowest 50; runs 50/50/50)" in printed
    assert "en:shapes              performance  60.0 (lowest 60; runs 60/60/60)" in printed
    assert "median performance below 90: nb:index, en:shapes; " \
           "accessibility, best practices or SEO below 100: none" in printed
    runs = json.loads(out.read_text())
    assert [len(runs[p]) for p in ("nb:index", "en:shapes")] == [3, 3]
    assert runs["en:shapes"][0]["benchmark_index"] == 2000


def test_a_failed_run_is_counted_not_scored():
    ok = {"performance": 91, "accessibility": 100, "best-practices": 100, "seo": 100,
          "tbt": 200.0, "load": 1.0, "benchmark_index": 1800}
    line = lighthouse.summary_line("nb:shapes", [ok, {"error": "exit 1: boom", "load": 2.0}])
    assert "performance  91.0 (lowest 91; runs 91)" in line and "(1 run(s) failed)" in line
    assert "no run finished (exit 1: boom)" in lighthouse.summary_line("nb:shapes", [{"error": "exit 1: boom", "load": 0}])


@pytest.mark.parametrize("args, says", [
    (["--runs", "0"], "--runs 0: at least 1"),
    (["--pages", "nb:nope"], "unknown page 'nb:nope'"),
    (["--pages", "nb:occupancy"], "has no page nb:occupancy: build it first"),
    (["--lighthouse", os.devnull], "not an executable file"),
    (["--json", "/no/such/folder/x.json"], "no folder /no/such/folder"),
    (["--json", __file__], "it exists; name a new file"),  # a finished file is never overwritten
])
def test_bad_input_is_one_line_before_any_run(args, says, tiny_site, fake_lighthouse, capsys,
                                               monkeypatch):
    monkeypatch.setenv("CHROME_PATH", sys.executable)
    monkeypatch.setattr(lighthouse, "run_once", lambda *a: pytest.fail("a run started"))
    base = ["--site", str(tiny_site), "--pages", "nb:index", "--lighthouse", str(fake_lighthouse)]
    assert lighthouse.main(base + args) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and says in err


def test_no_browser_is_refused(tiny_site, fake_lighthouse, capsys, monkeypatch):
    monkeypatch.setenv("CHROME_PATH", "/no/such/chromium")
    assert lighthouse.main(["--site", str(tiny_site), "--pages", "nb:index",
                            "--lighthouse", str(fake_lighthouse)]) == 2
    assert "no chromium" in capsys.readouterr().err
