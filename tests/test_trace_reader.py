"""The in-browser trace reader of "Read your own trace" (hooks/trace_reader.py,
docs/javascripts/trace-reader.js and trace-worker.js).

In Debian's chromium, driven by Playwright as tests/test_browser.py does, with the built
site served from /sdpa/ by scripts/serve.py: every committed trace gives the page the text
`build_tables.py --explain` prints, line for line; a file that is no trace gives the line
the command prints after "build_tables.py: error: "; a file over the page's limit is
refused before Python is loaded; the page stays responsive while a large trace is read;
the first load stays under FIRST_LOAD_BYTES; no request leaves 127.0.0.1.

Without a browser: the Python files the build ships (report.zip) explain a trace on
their own, and the hook's one-line answers about node_modules/pyodide.
"""

from __future__ import annotations

import gzip
import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from factory import FIXTURES, SITE_RUN
from mkdocs.exceptions import PluginError
from pagecode import CHROMIUM, LANGS, chromium, counting, page_url, serving

from benchmarks import explain_stress

ROOT = Path(__file__).resolve().parent.parent
CLI_PREFIX = "build_tables.py: error: "
SUB_PATH = "/sdpa/"
SLUG = "read-your-trace"
# what issue 22 asks; the reader's own script and stylesheet are READER_BYTES of it
FIRST_LOAD_BYTES = 700_000  # the search index holds collapsed notes' prose too (issue 37): 643-657 KB
READER_BYTES = 10_000
COMMITTED = sorted(FIXTURES.glob("*.json.gz")) + sorted((SITE_RUN / "traces").glob("*.json.gz"))
BUSY = "() => document.querySelector('[data-trace-reader]').dataset.filesRead === '{n}'"


def load(path, name):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


hook = load(ROOT / "hooks" / "trace_reader.py", "hook_trace_reader")
serve = load(ROOT / "scripts" / "serve.py", "scripts_serve_for_trace_reader")


def cli(path, cwd):
    """What `python build_tables.py --explain PATH` prints, run in cwd: (stdout, stderr's line)."""
    done = subprocess.run([sys.executable, str(ROOT / "build_tables.py"), "--explain", str(path)],
                          cwd=cwd, capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=300)
    return done.stdout, done.stderr


def error_line(path, cwd):
    out, err = cli(path, cwd)
    assert out == "" and err.startswith(CLI_PREFIX) and err.count("\n") == 1, err
    return err[len(CLI_PREFIX):].rstrip("\n")


def page_markup(lang):
    text = (ROOT / "docs" / f"{SLUG}.{lang}.md").read_text(encoding="utf-8")
    return text[text.index("<div class=\"trace-reader\""):]


def message(lang, key):
    """A data-msg-KEY template of the page's drop zone (the page's own words)."""
    found = re.search(rf'data-msg-{key}="([^"]*)"', page_markup(lang))
    assert found, key
    return found.group(1)


def limit_mb(lang):
    return int(re.search(r'data-limit-mb="(\d+)"', page_markup(lang)).group(1))


def long_trace(path, copies):
    """A trace of `copies` math traces one after the other (tens of MB of JSON): the same
    kernels and ranges, later, with correlation ids of their own."""
    trace = json.loads(gzip.decompress((SITE_RUN / "traces" / "math.json.gz").read_bytes()))
    events = trace.pop("traceEvents")
    timed = [e for e in events if isinstance(e.get("ts"), (int, float))]
    span = max(e["ts"] + e.get("dur", 0) for e in timed) - min(e["ts"] for e in timed) + 1000
    ids = max((e.get("args") or {}).get("correlation") or 0 for e in events) + 1
    with path.open("w", encoding="utf-8") as f:
        f.write(json.dumps(trace)[:-1] + ', "traceEvents": [')
        for i in range(copies):
            for j, e in enumerate(events):
                e = dict(e)
                if isinstance(e.get("ts"), (int, float)):
                    e["ts"] += i * span
                if isinstance(e.get("args"), dict):
                    e["args"] = {k: v + i * ids if k in ("correlation", "External id") and isinstance(v, int)
                                 else v for k, v in e["args"].items()}
                f.write(("" if i == j == 0 else ", ") + json.dumps(e))
        f.write("]}")
    return path


# --------------------------------------------------------------------------- without a browser

def test_the_shipped_python_explains_a_trace_on_its_own(tmp_path):
    """report.zip holds every file explain_file needs: unpacked alone, an isolated Python
    prints what the command prints, and the command's error line."""
    files = hook.python_files()
    assert {"report/doctor/explain.py", "report/__init__.py", "snippets/occupancy.py"} <= set(files)
    assert not any(f.startswith(("report/measure/", "report/render/")) for f in files)
    assert hook.python_zip(files) == hook.python_zip(files)  # the same bytes every build
    with zipfile.ZipFile(__import__("io").BytesIO(hook.python_zip(files))) as z:
        z.extractall(tmp_path / "app")
    shutil.copy(COMMITTED[0], tmp_path / "t.json.gz")
    (tmp_path / "bad.json").write_text("[]", encoding="utf-8")
    code = ("import sys; sys.path.insert(0, sys.argv[1]); from report.doctor.explain import TraceError, explain_file\n"
            "try: sys.stdout.write(explain_file(sys.argv[2]))\n"
            "except TraceError as err: sys.stdout.write(str(err))")
    for name, expected in (("t.json.gz", cli("t.json.gz", tmp_path)[0]), ("bad.json", error_line("bad.json", tmp_path))):
        done = subprocess.run([sys.executable, "-I", "-c", code, str(tmp_path / "app"), name], cwd=tmp_path,
                              capture_output=True, text=True, timeout=120)
        assert done.returncode == 0 and done.stdout == expected, done.stderr


def test_the_hook_knows_a_missing_or_a_stale_pyodide(tmp_path):
    assert hook.pyodide_state(tmp_path / "none") is False
    folder = tmp_path / "pyodide"
    folder.mkdir()
    (folder / "package.json").write_text('{"version": "0.1.0"}', encoding="utf-8")
    with pytest.raises(PluginError) as err:
        hook.pyodide_state(folder)
    assert str(err.value) == f"node_modules/pyodide is 0.1.0, but package.json pins {hook.pinned()}: run npm ci"
    (folder / "package.json").write_text(json.dumps({"version": hook.pinned()}), encoding="utf-8")
    with pytest.raises(PluginError, match="lacks pyodide.mjs, .*: run npm ci"):
        hook.pyodide_state(folder)


def test_pyodide_is_pinned_exactly_in_package_json_and_the_lock():
    pin = hook.pinned()
    assert re.fullmatch(r"\d+\.\d+\.\d+", pin), pin
    lock = json.loads((ROOT / "package-lock.json").read_text(encoding="utf-8"))
    assert lock["packages"][""]["dependencies"]["pyodide"] == pin
    assert lock["packages"]["node_modules/pyodide"]["version"] == pin


def test_without_pyodide_the_page_says_the_reader_is_not_in_this_build(monkeypatch):
    html = "<div " + hook.MARK + '><p class="trace-reader__missing" hidden>x</p><div class="trace-reader__form">'
    monkeypatch.setattr(hook, "_present", False)
    out = hook.on_page_content(html, None, None, None)
    assert '<p class="trace-reader__missing">' in out and '<div class="trace-reader__form" hidden>' in out
    assert hook.on_post_page("<html><head></head><body></body></html>" + html, None, None).count("trace-reader.js") == 0


@pytest.mark.parametrize("npm", [True, False], ids=["npm", "no-npm"])
def test_the_scripts_say_in_one_line_what_npm_does(tmp_path, npm):
    """scripts/common.sh's npm_install: `npm ci` where npm is, one line where it is not."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    if npm:  # an npm that only says how it was called
        (bin_dir / "npm").write_text('#!/bin/sh\necho "npm $*"\n', encoding="utf-8")
        (bin_dir / "npm").chmod(0o755)
    done = subprocess.run(["bash", "-c", f'source scripts/common.sh; PATH={bin_dir}; npm_install'],
                          cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and done.stderr == "", done.stderr
    if npm:
        assert done.stdout.splitlines() == [
            "== npm ci (Pyodide, pinned in package-lock.json, for the in-browser trace reader)",
            "npm ci --no-audit --no-fund --loglevel=error"]
    else:
        assert done.stdout == ("== no npm here: the site is built without the in-browser trace reader "
                               "(install Node.js and npm for it)\n")


@pytest.mark.parametrize("lang", LANGS)
def test_the_page_states_the_limit_it_applies(lang):
    limit = limit_mb(lang)
    page = (ROOT / "docs" / f"{SLUG}.{lang}.md").read_text(encoding="utf-8")
    mb = re.compile(rf"\b{limit}(\u00a0|&nbsp;| )MB\b")
    prose = page[page.index("{ #in-browser }"):page.index("<div class=\"trace-reader\"")]
    assert mb.search(prose), "the prose states the limit"
    label = re.search(r'<label class="trace-reader__drop">(.*?)<input', page_markup(lang), re.S).group(1)
    assert mb.search(label), "the drop zone states the limit"


def test_only_the_trace_page_links_the_reader(site_dir):
    linking = sorted(p.relative_to(site_dir).as_posix() for p in site_dir.rglob("*.html")
                     if "javascripts/trace-reader.js" in p.read_text(encoding="utf-8"))
    if not (site_dir / hook.OUT).is_dir():
        assert linking == []
        return
    assert linking == sorted(f"{page_url(SLUG, lang)}index.html" for lang in LANGS)
    assert sorted(p.name for p in (site_dir / hook.OUT / "pyodide").iterdir()) == sorted(hook.PYODIDE_FILES)
    assert not any("trace-reader/pyodide" in p.read_text(encoding="utf-8") for p in site_dir.rglob("*.html"))


def test_each_language_loads_only_its_own_search_index(site_dir):
    """hooks/search_index.py: one index per language (which halves what every page loads),
    and every page's Material config points at its own language's folder."""
    config = re.compile(r'<script id="__config" type="application/json">(.*?)</script>', re.S)
    for lang in LANGS:
        folder = page_url("", lang)
        index = json.loads((site_dir / folder / "search" / "search_index.json").read_text(encoding="utf-8"))
        assert len(index["config"]["lang"]) == 1
        locations = {d["location"].split("#")[0] for d in index["docs"]}
        assert f"{SLUG}/" in locations and not any(loc.startswith(tuple(f"{x}/" for x in LANGS)) for loc in locations)
        for page in (site_dir / folder).rglob("index.html"):
            rel = page.relative_to(site_dir).as_posix()
            if lang == LANGS[0] and any(rel.startswith(f"{x}/") for x in LANGS[1:]):
                continue
            base = json.loads(config.search(page.read_text(encoding="utf-8")).group(1))["base"]
            assert (page.parent / base / "search" / "search_index.json").resolve() == \
                (site_dir / folder / "search" / "search_index.json").resolve(), rel


# --------------------------------------------------------------------------- in the browser

@pytest.fixture(scope="module")
def reader_site(site_dir):
    if CHROMIUM is None:
        if os.environ.get("CI"):
            pytest.fail("CI must run the browser tests: chromium is not installed (scripts/test.sh installs it)")
        pytest.skip("Debian's chromium is not installed (apt-get install chromium; scripts/test.sh does it)")
    if not (site_dir / hook.OUT / "pyodide").is_dir():
        if os.environ.get("CI"):
            pytest.fail("CI must build the in-browser trace reader: node_modules/pyodide is missing (npm ci)")
        pytest.skip("node_modules/pyodide is missing (npm ci installs it): the site has no in-browser reader")
    return site_dir


# scripts/serve.py's handler, counting the body bytes it sends (what the browser receives)
_Counting = counting(serve.SiteHandler)


@pytest.fixture(scope="module")
def server(reader_site):
    with serving(serve, reader_site, SUB_PATH, _Counting) as url:
        yield url


@pytest.fixture(scope="module")
def browser(reader_site):
    with chromium() as browser:
        yield browser


class Reader:
    """The trace page in a fresh browser context (cold cache), every request recorded."""

    def __init__(self, browser, server, lang):
        self.server = server
        self.context = browser.new_context()
        self.requests: list[str] = []
        self.errors: list[str] = []
        self.context.on("request", lambda r: self.requests.append(r.url))
        self.page = self.context.new_page()
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))
        self.page.on("console", lambda m: m.type == "error" and self.errors.append(m.text))
        before = _Counting.body_bytes
        response = self.page.goto(server + page_url(SLUG, lang), wait_until="networkidle")
        assert response.status == 200
        self.first_load_bytes = _Counting.body_bytes - before
        self.page.wait_for_selector("[data-trace-reader][data-ready]", state="attached")
        self.read_count = 0

    def pick(self, path, timeout=300_000):
        """Pick the file in the drop zone's file field; (output shown, error line shown, status)."""
        self.page.set_input_files(".trace-reader__input", str(path))
        self.read_count += 1
        self.page.wait_for_function(BUSY.format(n=self.read_count), timeout=timeout)
        return self.shown()

    def shown(self):
        result = self.page.locator(".trace-reader__result")
        error = self.page.locator(".trace-reader__error")
        return (self.page.locator(".trace-reader__output code").text_content() if result.is_visible() else None,
                error.text_content() if error.is_visible() else None,
                self.page.locator(".trace-reader__status").text_content())

    def dataset(self, key):
        return self.page.get_attribute("[data-trace-reader]", f"data-{key}")

    def assert_local(self):
        away = [u for u in self.requests
                if urlsplit(u).scheme not in ("data", "blob", "about")
                and urlsplit(u).netloc != urlsplit(self.server).netloc]
        assert away == [], f"requests that left 127.0.0.1: {away}"
        assert all(urlsplit(u).path.startswith(SUB_PATH) for u in self.requests if u.startswith("http")), \
            "every request stays under the sub-path"
        assert self.errors == [], self.errors

    def close(self):
        self.context.close()


@pytest.fixture(scope="module")
def reader(browser, server):
    """One page for the committed traces: Pyodide loads once and reads one file after another."""
    r = Reader(browser, server, "en")
    yield r
    r.assert_local()
    r.close()


@pytest.mark.parametrize("lang", LANGS)
def test_the_first_load_is_light_and_loads_no_python(browser, server, reader_site, lang, report):
    r = Reader(browser, server, lang)
    try:
        report(f"trace page ({lang}), first load: {r.first_load_bytes / 1000:.0f} KB "
               f"(limit {FIRST_LOAD_BYTES / 1000:.0f} KB)")
        assert 0 < r.first_load_bytes < FIRST_LOAD_BYTES
        own = [u for u in r.requests if "trace-reader." in u]
        assert sorted(urlsplit(u).path.rsplit("/", 1)[1] for u in own) == ["trace-reader.css", "trace-reader.js"]
        assert sum((reader_site / f).stat().st_size for f in (hook.SCRIPT, hook.STYLE)) <= READER_BYTES
        assert not [u for u in r.requests if f"/{hook.OUT}/" in u or "trace-worker" in u]
        r.assert_local()
    finally:
        r.close()


@pytest.mark.parametrize("trace", COMMITTED, ids=[f"{p.parent.name}/{p.name}" for p in COMMITTED])
def test_a_committed_trace_reads_as_the_command_prints(reader, trace, tmp_path, report):
    expected, err = cli(trace, ROOT)
    assert err == "" and expected
    first = reader.read_count == 0
    shown, error, status = reader.pick(trace)
    assert error is None, error
    assert shown.splitlines() == expected.splitlines()
    assert shown == expected
    assert trace.name in status
    if first:
        assert any(u.endswith("pyodide.asm.wasm") for u in reader.requests), "the worker's requests are seen"
        report(f"in-browser reader, {trace.parent.name}/{trace.name}: Python loaded in "
               f"{int(reader.dataset('load-ms')) / 1000:.1f} s, read in {int(reader.dataset('read-ms')) / 1000:.2f} s")
    reader.assert_local()


def truncated_gzip(path):
    path.write_bytes((SITE_RUN / "traces" / "flash.json.gz").read_bytes()[:300])


def cpu_only(path):
    trace = json.loads(gzip.decompress(COMMITTED[-1].read_bytes()))
    trace["traceEvents"] = [e for e in trace["traceEvents"]
                            if e.get("cat") not in ("kernel", "gpu_memcpy", "gpu_memset")]
    path.write_text(json.dumps(trace), encoding="utf-8")


@pytest.mark.parametrize("name, make", [
    ("flash.json.gz", truncated_gzip),
    ("garbage.json.gz", lambda p: p.write_bytes(b"\x1f\x8b\x08\x00" + bytes(range(200)))),
    ("notes.txt", lambda p: p.write_text("this is no trace\n", encoding="utf-8")),
    ("list.json", lambda p: p.write_text("[1, 2, 3]", encoding="utf-8")),
    ("cpu only.json", cpu_only),
], ids=["truncated-gzip", "gzip-garbage", "text", "json-list", "no-gpu-activity"])
def test_a_file_that_is_no_trace_gets_the_command_lines_message(reader, tmp_path, name, make):
    path = tmp_path / name
    make(path)
    expected = error_line(name, tmp_path)  # the command, given the name the page is given
    shown, error, _ = reader.pick(path)
    assert shown is None and error == expected
    reader.assert_local()


def test_the_page_shows_the_texts_first_screen_in_its_order_and_words_and_the_text_one_click_away(reader):
    """The card is the JSON result's "screen": the text's first screen section by section, the
    same sentences in the same order (headings, then lines; a finding's title in bold), readable
    at 390 px; the command's text in a closed <details>, equal to what the command prints."""
    from report.doctor.explain import explain_file

    trace = ROOT / "tests" / "fixtures" / "corpus" / "eager_infer.json.gz"
    doc = json.loads(explain_file(trace, "json"))
    reader.page.set_viewport_size({"width": 390, "height": 844})
    shown, error, _ = reader.pick(trace)
    assert error is None and shown == explain_file(trace)
    reader.page.wait_for_selector(".trace-doctor__heading")
    card = reader.page.locator(".trace-reader__diagnosis h3, .trace-reader__diagnosis p").all_text_contents()
    said = [x for s in doc["screen"] for x in ([s["heading"]] if s["heading"] else []) + [t["text"] for t in s["lines"]]]
    assert card == said and " ".join(shown.split()).startswith(card[0])  # the pace first, as the text says it
    titles = reader.page.locator(".trace-reader__diagnosis p strong").all_text_contents()
    assert titles == [t["text"] for s in doc["screen"] for t in s["lines"] if t["kind"] == "finding"] and titles
    assert reader.page.locator(".trace-reader__raw").get_attribute("open") is None
    wide = reader.page.evaluate("() => { const d = document.querySelector('.trace-reader__diagnosis');"
                                " return [d.scrollWidth, d.clientWidth]; }")
    assert wide[0] <= wide[1], "the diagnosis fits the phone's width"
    reader.page.set_viewport_size({"width": 1280, "height": 720})


def test_a_dropped_file_is_read_too(reader, tmp_path):
    (tmp_path / "dropped.json").write_text('{"traceEvents": 3}', encoding="utf-8")
    expected = error_line("dropped.json", tmp_path)
    reader.read_count += 1
    reader.page.evaluate("""() => {
      const dt = new DataTransfer();
      dt.items.add(new File(['{"traceEvents": 3}'], 'dropped.json', {type: 'application/json'}));
      document.querySelector('.trace-reader__drop').dispatchEvent(
        new DragEvent('drop', {dataTransfer: dt, bubbles: true, cancelable: true}));
    }""")
    reader.page.wait_for_function(BUSY.format(n=reader.read_count))
    assert reader.shown()[:2] == (None, expected)


def test_the_page_stays_responsive_while_a_large_trace_is_read(reader, tmp_path, report):
    path = long_trace(tmp_path / "long.json", copies=15)  # ~30 MB of JSON
    expected, _ = cli(path, tmp_path)
    reader.page.evaluate("""() => {
      window.__gaps = []; let last = performance.now();
      window.__ticker = setInterval(() => { const now = performance.now(); window.__gaps.push(now - last); last = now; }, 50);
    }""")
    shown, error, _ = reader.pick(path)
    gaps = reader.page.evaluate("() => { clearInterval(window.__ticker); return window.__gaps; }")
    assert error is None and shown == expected
    report(f"in-browser reader, {path.stat().st_size / 1e6:.0f} MB trace: read in "
           f"{int(reader.dataset('read-ms')) / 1000:.1f} s, longest pause of the page {max(gaps):.0f} ms, "
           f"WebAssembly memory {int(reader.dataset('heap-bytes')) / 1e6:.0f} MB")
    assert len(gaps) > 10 and max(gaps) < 1000, "the page froze while the worker read the trace"
    reader.assert_local()


def test_a_file_over_the_limit_is_refused_before_python_loads(browser, server, tmp_path):
    limit = limit_mb("nb")
    plain = tmp_path / "stor.json"
    with plain.open("wb") as f:  # sparse: no disk used
        f.truncate(limit * 10**6 + 1)
    packed = tmp_path / "stor.json.gz"
    chunk = b" " * 10**6
    with gzip.open(packed, "wb", compresslevel=1) as f:
        for _ in range(limit + 1):
            f.write(chunk)
    assert packed.stat().st_size < 10 * 10**6
    r = Reader(browser, server, "nb")
    try:
        for path, key in ((plain, "too-large"), (packed, "too-large-gzip")):
            shown, error, _ = r.pick(path, timeout=120_000)
            assert shown is None
            assert error == message("nb", key).format(name=path.name, limit=limit)
        assert not [u for u in r.requests if f"/{hook.OUT}/" in u], "nothing of Python was loaded"
        r.assert_local()
    finally:
        r.close()


# --------------------------------------------------------------------------- the trace drawn

def drop_bytes(reader, name, data: bytes):
    """Drop a file of these bytes on the drop zone, as a reader does; wait until it is read."""
    import base64

    reader.read_count += 1
    reader.page.evaluate("""([name, b64]) => {
      const bytes = Uint8Array.from(atob(b64), c => c.charCodeAt(0));
      const dt = new DataTransfer();
      dt.items.add(new File([bytes], name));
      document.querySelector('.trace-reader__drop').dispatchEvent(
        new DragEvent('drop', {dataTransfer: dt, bubbles: true, cancelable: true}));
    }""", [name, base64.b64encode(data).decode("ascii")])
    reader.page.wait_for_function(BUSY.format(n=reader.read_count), timeout=300_000)


def drawn_titles(reader, drawn_before):
    """The titles of the GPU activities the page shows, once its drawing number drawn_before + 1 came."""
    reader.page.wait_for_function(
        f"() => Number(document.querySelector('[data-trace-reader]').dataset.timelineDrawn || 0) > {drawn_before}",
        timeout=120_000)
    assert reader.page.locator(".trace-timeline").is_visible()
    return reader.page.eval_on_selector_all(".trace-timeline svg g[tabindex='0'] > title", "els => els.map(e => e.textContent)")


def expected_titles(trace, name, index=None):
    """What report/doctor/output/svg.py draws for the page's reader, read here in Python."""
    from report.doctor.output.svg import pieces, reader_view
    from report.trace.reading.stream import from_dict

    svg = reader_view(pieces(from_dict(trace)), index, "en", name)[0]
    return [html_unescape(t) for t in re.findall(r'<g tabindex="0"><title>([^<]*)</title>', svg)]


def html_unescape(text):
    import html

    return html.unescape(text)


def test_a_dropped_trace_is_drawn_beside_its_text(reader, report):
    """A committed trace: its median ProfilerStep, each GPU activity as Python draws it. A
    trace without ProfilerStep: a window of its GPU activities, which the control moves."""
    path = SITE_RUN / "traces" / "cudnn.json.gz"
    before = int(reader.dataset("timeline-drawn") or 0)
    drop_bytes(reader, path.name, path.read_bytes())
    titles = drawn_titles(reader, before)
    trace = json.loads(gzip.decompress(path.read_bytes()))
    assert titles and titles == expected_titles(trace, path.name)
    assert not reader.page.locator(".trace-timeline__move").is_visible()  # the median step, no windows

    no_steps = json.loads(gzip.decompress((SITE_RUN / "traces" / "math.json.gz").read_bytes()))
    no_steps["traceEvents"] = [e for e in no_steps["traceEvents"] if not str(e.get("name", "")).startswith("ProfilerStep#")]
    before = int(reader.dataset("timeline-drawn"))
    drop_bytes(reader, "no steps.json.gz", gzip.compress(json.dumps(no_steps).encode()))
    first = drawn_titles(reader, before)
    assert first == expected_titles(no_steps, "no steps.json.gz")
    move = reader.page.locator(".trace-timeline__move")
    assert move.is_visible()
    count = int(reader.page.get_attribute(".trace-timeline__range", "max"))
    assert count > 1 and reader.page.locator(".trace-timeline__at").text_content() == f"Window 1 of {count}"
    reader.page.click(".trace-timeline__next")
    second = drawn_titles(reader, before + 1)
    assert second == expected_titles(no_steps, "no steps.json.gz", 1) and second != first
    assert reader.page.locator(".trace-timeline__at").text_content() == f"Window 2 of {count}"
    report(f"in-browser timeline: {len(titles)} GPU activities of cudnn.json.gz's median step; "
           f"a trace without steps in {count} windows")
    reader.assert_local()


# --------------------------------------------------------------------------- hostile files (issue 27)

def drop(reader, files):
    """Drop File objects made in the page ([name, text] pairs) on the drop zone; the status
    line right after (before the worker answers)."""
    return reader.page.evaluate("""(files) => {
      const dt = new DataTransfer();
      for (const [name, text] of files) dt.items.add(new File([text], name, {type: 'application/json'}));
      document.querySelector('.trace-reader__drop').dispatchEvent(
        new DragEvent('drop', {dataTransfer: dt, bubbles: true, cancelable: true}));
      return document.querySelector('.trace-reader__status').textContent;
    }""", files)


def members(path, *parts):
    """A .json.gz of several gzip members, as `cat a.gz b.gz` makes: Python's gzip reads them all."""
    path.write_bytes(b"".join(gzip.compress(p, compresslevel=1) for p in parts))
    return path


def test_every_gzip_member_counts_toward_the_limit(browser, server, tmp_path):
    """Chromium's DecompressionStream throws at a second member: the page counted the first
    alone and read 420 MB of JSON. Each member counts; a trace split in members reads as the
    command prints it."""
    limit = limit_mb("en")
    text = gzip.decompress(COMMITTED[0].read_bytes())
    split = members(tmp_path / "split.json.gz", text[:1000], text[1000:])
    expected, _ = cli(split, tmp_path)
    bomb = members(tmp_path / "bomb.json.gz", b'{"traceEvents": [', b" " * (limit * 10**6), b"]}")
    assert bomb.stat().st_size < 2 * 10**6
    r = Reader(browser, server, "en")
    try:
        shown, error, _ = r.pick(bomb, timeout=120_000)
        assert shown is None and error == message("en", "too-large-gzip").format(name=bomb.name, limit=limit)
        assert not [u for u in r.requests if f"/{hook.OUT}/" in u], "refused before Python loads"
        shown, error, _ = r.pick(split)
        assert error is None and shown == expected
        r.assert_local()
    finally:
        r.close()


def test_a_file_no_file_system_can_name_is_read_under_its_own_name(reader, tmp_path):
    """A file named ".." (a File the page is given can be): the command's line for it, not
    "[object Object]"."""
    (tmp_path / "trace").write_text('{"traceEvents": 3}', encoding="utf-8")
    expected = error_line("trace", tmp_path)
    reader.read_count += 1
    drop(reader, [["..", '{"traceEvents": 3}']])
    reader.page.wait_for_function(BUSY.format(n=reader.read_count))
    assert reader.shown()[:2] == (None, ".." + expected[len("trace"):])


def test_several_files_in_one_drop_read_the_first_and_say_so(reader, tmp_path):
    (tmp_path / "first.json").write_text('{"traceEvents": 3}', encoding="utf-8")
    expected = error_line("first.json", tmp_path)
    reader.read_count += 1
    drop(reader, [["first.json", '{"traceEvents": 3}'], ["second.json", "[]"]])
    reader.page.wait_for_function(BUSY.format(n=reader.read_count))
    _, error, status = reader.shown()
    assert error == expected
    assert status == message("en", "several").format(count=2, name="first.json")


def test_a_drop_while_reading_is_refused_with_a_word_and_a_read_can_be_cancelled(reader, tmp_path):
    big = long_trace(tmp_path / "long.json", copies=15).read_text(encoding="utf-8")
    reader.page.evaluate("(text) => { window.__big = text; }", big)
    status = reader.page.evaluate("""() => {
      const zone = document.querySelector('.trace-reader__drop');
      for (const name of ['long.json', 'next.json']) {
        const dt = new DataTransfer();
        dt.items.add(new File([name === 'long.json' ? window.__big : '{}'], name));
        zone.dispatchEvent(new DragEvent('drop', {dataTransfer: dt, bubbles: true, cancelable: true}));
      }
      return document.querySelector('.trace-reader__status').textContent;
    }""")
    assert status == message("en", "busy").format(name="long.json", next="next.json")
    assert reader.page.locator(".trace-reader__cancel").is_visible()
    reader.read_count += 1
    reader.page.click(".trace-reader__cancel")
    reader.page.wait_for_function(BUSY.format(n=reader.read_count))
    shown, error, status = reader.shown()
    assert (shown, error) == (None, None) and status == message("en", "cancelled").format(name="long.json")
    assert not reader.page.locator(".trace-reader__cancel").is_visible()
    expected, _ = cli(COMMITTED[0], ROOT)  # a fresh worker reads the next file
    shown, error, _ = reader.pick(COMMITTED[0])
    assert error is None and shown == expected


def test_a_hostile_trace_shows_as_the_command_writes_it_out_and_as_text(reader, tmp_path):
    """Names with markup, an escape sequence, a bidi override and a lone surrogate: the page
    shows what the command prints (each written out: \\x1b, \\u202e, \\ud800), as text."""
    trace = json.loads(gzip.decompress(COMMITTED[0].read_bytes()))
    hostile = '<img src=x onerror="window.__owned=1"></pre><script>window.__owned=2</script>\x1b[2J\u202e\ud800'
    for e in trace["traceEvents"]:
        if e.get("cat") in ("kernel", "user_annotation"):
            e["name"] += hostile
    path = tmp_path / "hostile.json"
    path.write_text(json.dumps(trace), encoding="utf-8")
    expected, err = cli(path, tmp_path)
    assert err == "" and "\\x1b[2J\\u202e\\ud800" in expected and "\x1b" not in expected
    shown, error, _ = reader.pick(path)
    assert error is None and shown == expected
    assert reader.page.evaluate("() => window.__owned") is None
    assert reader.page.locator(".trace-reader__output img, .trace-reader__output script").count() == 0


def test_ten_thousand_streams_read_in_the_browser_as_the_command_prints(reader, tmp_path, report):
    """Each stream held a merged copy of all the others: 10,000 streams (3.3 MB) ran 91 s in
    the browser and ended in MemoryError. One sweep now."""
    w = explain_stress.Writer()
    explain_stress.streams(w, 10_000)
    path = tmp_path / "streams.json"
    w.write(path)
    expected, _ = cli(path, tmp_path)
    shown, error, _ = reader.pick(path, timeout=120_000)
    assert error is None and shown == expected
    report(f"in-browser reader, 10,000 streams ({path.stat().st_size / 1e6:.1f} MB): read in "
           f"{int(reader.dataset('read-ms')) / 1000:.1f} s, WebAssembly memory "
           f"{int(reader.dataset('heap-bytes')) / 1e6:.0f} MB")
