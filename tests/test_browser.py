"""The built site in a real headless Chromium, served from a sub-path on 127.0.0.1.

Debian's chromium (/usr/bin/chromium), driven by Playwright without `playwright install`.
Every request the browser makes is recorded; none may leave 127.0.0.1.
Screenshots of every page in both languages go to $SCREENSHOT_DIR (default: a temp dir).
"""

from __future__ import annotations

import functools
import os
import shutil
import threading
from dataclasses import dataclass, field
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from pagecode import LANGS, nav_pages, nav_title, page_url

# A kernel name the fused-backends page shows; the search must find it.
SEARCH_TERM = "flash_fwd"
SEARCH_TERM_PAGE = "fused-backends"
SUB_PATH = "/sdpa/"
MAX_PAGE_BYTES = 650_000  # the search index (~190 KB, loaded on every page) grows with the pages
CHROMIUM = shutil.which("chromium")
CHROMIUM_ARGS = [
    "--disable-gpu",
    "--disable-quic",
    "--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1",
]

PAGES = nav_pages()
PAGE_CASES = [(p, lang) for p in PAGES for lang in LANGS]
PAGE_IDS = [f"{lang}:{p['slug'] or 'index'}" for p, lang in PAGE_CASES]
NOTEBOOK_SLUGS = [p["slug"] for p in PAGES if p["ext"] == ".ipynb"]

if CHROMIUM is None:
    if os.environ.get("CI"):
        raise RuntimeError("CI must run the browser tests: chromium is not installed (scripts/test.sh installs it)")
    pytest.skip(
        "Debian's chromium is not installed (apt-get install chromium; scripts/test.sh does it)",
        allow_module_level=True,
    )

from playwright.sync_api import sync_playwright  # noqa: E402


class _SubPathHandler(SimpleHTTPRequestHandler):
    """Serves the site folder under SUB_PATH only; everything else is a 404.
    Counts the response body bytes it sends (no compression: what the browser receives)."""

    body_bytes = 0
    _lock = threading.Lock()

    def copyfile(self, source, outputfile):
        size = os.fstat(source.fileno()).st_size
        super().copyfile(source, outputfile)
        with _SubPathHandler._lock:
            _SubPathHandler.body_bytes += size

    def translate_path(self, path):
        path = urlsplit(path).path
        if not path.startswith(SUB_PATH):
            return os.path.join(self.directory, "\0no-such-file")
        return super().translate_path("/" + path[len(SUB_PATH):])

    def log_message(self, format, *args):
        pass


@pytest.fixture(scope="module")
def server(site_dir):
    handler = functools.partial(_SubPathHandler, directory=str(site_dir))
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}{SUB_PATH}"
    finally:
        httpd.shutdown()
        httpd.server_close()


@pytest.fixture(scope="module")
def browser():
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        try:
            yield browser
        finally:
            browser.close()


@pytest.fixture(scope="module")
def screenshot_dir(tmp_path_factory) -> Path:
    path = Path(os.environ.get("SCREENSHOT_DIR") or tmp_path_factory.mktemp("screenshots"))
    path.mkdir(parents=True, exist_ok=True)
    return path


@dataclass
class Visit:
    url: str
    title: str = ""
    h1: str = ""
    lang: str = ""
    active_nav: list[str] = field(default_factory=list)
    console_errors: list[str] = field(default_factory=list)
    requests: list[str] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)
    bytes: int = 0
    plot_widths: list[int] = field(default_factory=list)
    hidden_source_shown: bool = False


class Session:
    """A fresh browser context (cold cache) that records what a page does."""

    def __init__(self, browser):
        self.context = browser.new_context(viewport={"width": 1280, "height": 900})
        self.page = self.context.new_page()
        self.console_errors: list[str] = []
        self.requests = []
        self.failed: list[str] = []
        self.context.on("request", lambda r: self.requests.append(r))
        self.context.on("requestfailed", lambda r: self.failed.append(f"{r.url} ({r.failure})"))
        self.page.on("console", lambda m: m.type == "error" and self.console_errors.append(m.text))
        self.page.on("pageerror", lambda e: self.console_errors.append(f"uncaught: {e}"))

    def goto(self, url):
        response = self.page.goto(url, wait_until="networkidle")
        assert response is not None and response.ok, f"{url}: {response and response.status}"

    def close(self):
        self.context.close()


def is_local(url: str, base: str) -> bool:
    scheme = urlsplit(url).scheme
    if scheme in ("data", "blob", "about"):
        return True
    return urlsplit(url).netloc == urlsplit(base).netloc


@pytest.fixture(scope="module")
def visits(browser, server, screenshot_dir, report) -> dict[str, Visit]:
    """Every page in both languages, each loaded in a fresh context, screenshotted."""
    found = {}
    for page_info, lang in PAGE_CASES:
        url = server + page_url(page_info["slug"], lang)
        session = Session(browser)
        try:
            served_before = _SubPathHandler.body_bytes
            session.goto(url)  # fresh context: a cold cache; returns at network idle
            served = _SubPathHandler.body_bytes - served_before
            page = session.page
            visit = Visit(url=url)
            visit.title = page.title()
            visit.h1 = page.locator("article h1").first.inner_text().strip()
            visit.lang = page.locator("html").get_attribute("lang") or ""
            visit.active_nav = [
                t.strip() for t in page.locator("nav.md-nav--primary .md-nav__link--active").all_inner_texts()
            ]
            visit.plot_widths = page.eval_on_selector_all(
                ".jupyter-wrapper .jp-RenderedImage img", "imgs => imgs.map(i => i.complete ? i.naturalWidth : 0)"
            )
            # mkdocs-jupyter keeps each cell's source a second time, for its copy button
            visit.hidden_source_shown = any(
                el.is_visible() for el in page.locator(".jupyter-wrapper .clipboard-copy-txt").all()
            )
            name = f"{lang}-{page_info['slug'] or 'index'}.png"
            page.screenshot(path=str(screenshot_dir / name), full_page=True)
            visit.console_errors = list(session.console_errors)
            visit.requests = [r.url for r in session.requests]
            visit.failed = list(session.failed)
            visit.bytes = served
            found[f"{lang}:{page_info['slug']}"] = visit
        finally:
            session.close()
    report(f"screenshots of every page in both languages: {screenshot_dir}")
    return found


@pytest.mark.parametrize(("page_info", "lang"), PAGE_CASES, ids=PAGE_IDS)
def test_page_renders(visits, server, page_info, lang):
    visit = visits[f"{lang}:{page_info['slug']}"]
    assert visit.title, f"{visit.url}: empty <title>"
    assert visit.h1, f"{visit.url}: no visible <h1>"
    assert visit.lang == lang, f"{visit.url}: <html lang={visit.lang!r}>"
    assert nav_title(page_info["title"], lang) in visit.active_nav, (
        f"{visit.url}: the navigation does not mark {nav_title(page_info['title'], lang)!r} (marked: {visit.active_nav})"
    )
    assert not visit.console_errors, f"{visit.url}: console errors: {visit.console_errors}"
    assert not visit.failed, f"{visit.url}: failed requests: {visit.failed}"
    outside = [u for u in visit.requests if not is_local(u, server)]
    assert not outside, f"{visit.url}: requests that leave 127.0.0.1: {outside}"


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("slug", NOTEBOOK_SLUGS)
def test_notebook_plot_is_an_image(visits, slug, lang):
    visit = visits[f"{lang}:{slug}"]
    assert visit.plot_widths, f"{visit.url}: no plot image"
    assert all(width > 0 for width in visit.plot_widths), f"{visit.url}: plot image did not load: {visit.plot_widths}"
    assert not visit.hidden_source_shown, f"{visit.url}: the code cells' hidden copies are visible"


def test_heaviest_page(visits, report):
    sizes = sorted(((v.bytes, key) for key, v in visits.items()), reverse=True)
    print("\ntransferred bytes per page (cold cache): " + ", ".join(f"{k} {b / 1000:.0f} KB" for b, k in sizes))
    heaviest, key = sizes[0]
    report(f"heaviest page: {key} transfers {heaviest / 1000:.1f} KB (limit {MAX_PAGE_BYTES / 1000:.0f} KB)")
    assert heaviest > 0
    assert heaviest <= MAX_PAGE_BYTES, f"{key} transfers {heaviest} bytes (limit {MAX_PAGE_BYTES})"


SWITCHES = [(slug, src, dst) for slug in ("", "occupancy", *NOTEBOOK_SLUGS) for src, dst in (("nb", "en"), ("en", "nb"))]


@pytest.mark.parametrize(("slug", "src", "dst"), SWITCHES, ids=[f"{s or 'index'}:{a}->{b}" for s, a, b in SWITCHES])
def test_language_switcher_keeps_the_page(browser, server, slug, src, dst):
    session = Session(browser)
    try:
        session.goto(server + page_url(slug, src))
        page = session.page
        page.locator(".md-header .md-select").hover()
        link = page.locator(f'.md-header .md-select a[hreflang="{dst}"]')
        with page.expect_navigation(wait_until="networkidle"):
            link.click()
        assert page.url == server + page_url(slug, dst)
        assert page.locator("html").get_attribute("lang") == dst
        outside = [r.url for r in session.requests if not is_local(r.url, server)]
        assert not outside, outside
        assert not session.console_errors, session.console_errors
    finally:
        session.close()


def search(browser, server, lang, term) -> list[str]:
    """Type a term into the site search on the home page; the result links, resolved."""
    session = Session(browser)
    try:
        session.goto(server + page_url("", lang))
        page = session.page
        box = page.locator("input.md-search__input")
        box.click()
        box.press_sequentially(term, delay=20)
        page.locator(".md-search-result__item").first.wait_for(timeout=10_000)
        links = page.eval_on_selector_all(".md-search-result__item > a", "as => as.map(a => a.href)")
        # search.highlight adds ?h=term; compare pages, not queries or anchors
        links = [urlsplit(link)._replace(query="", fragment="").geturl() for link in links]
        outside = [r.url for r in session.requests if not is_local(r.url, server)]
        assert not outside, outside
        assert not session.console_errors, session.console_errors
        return links
    finally:
        session.close()


@pytest.mark.parametrize("lang", LANGS)
def test_search_finds_a_page_title(browser, server, lang):
    occupancy = next(p for p in PAGES if p["slug"] == "occupancy")
    links = search(browser, server, lang, nav_title(occupancy["title"], lang))
    assert server + page_url("occupancy", lang) in links, links


@pytest.mark.parametrize("lang", LANGS)
def test_search_finds_the_kernel_name(browser, server, site_dir, lang):
    built = (site_dir / page_url(SEARCH_TERM_PAGE, lang) / "index.html").read_text(encoding="utf-8")
    if SEARCH_TERM not in built:
        pytest.skip(f"the {lang} {SEARCH_TERM_PAGE} page does not show {SEARCH_TERM} yet")
    links = search(browser, server, lang, SEARCH_TERM)
    wanted = server + page_url(SEARCH_TERM_PAGE, lang)
    assert wanted in links, links
