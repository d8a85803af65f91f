"""The built site in a real headless Chromium, served from a sub-path on 127.0.0.1.

Debian's chromium (/usr/bin/chromium), driven by Playwright without `playwright install`.
Every request the browser makes is recorded; none may leave 127.0.0.1.
Screenshots of every page in both languages go to $SCREENSHOT_DIR (default: a temp dir).
axe-core (axe-playwright-python) checks every page in both languages, in light and dark
mode, at desktop (1280 px) and phone (390 px) width, on the page load the other checks use.
An address that does not exist gets site/404.html with status 404, as a static host sends it.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, field
from http.server import SimpleHTTPRequestHandler
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from pagecode import (
    CHROMIUM,
    LANGS,
    chromium,
    counting,
    load_script,
    mkdocs_config,
    nav_pages,
    nav_title,
    page_url,
    serving,
)

from report.render.figures import MIN_TEXT_PX

# A kernel name the fused-backends page shows; the search must find it.
SEARCH_TERM = "flash_fwd"
SEARCH_TERM_PAGE = "fused-backends"
SUB_PATH = "/sdpa/"
MAX_PAGE_BYTES = 850_000  # the search index (~140 KB, the page's language only, loaded on every page) grows with the pages
DESKTOP = {"width": 1280, "height": 900}
PHONE = {"width": 390, "height": 844}
SCHEMES = ("light", "dark")
# axe-core impacts that fail a page; "moderate" and "minor" are reported, not failed
AXE_FAILS = ("serious", "critical")

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

from axe_playwright_python.sync_playwright import Axe  # noqa: E402

serve = load_script("serve")


class _SubPath(serve.SiteHandler):
    """scripts/serve.py's handler (the site under SUB_PATH, its 404.html for a missing
    page), with a bare 404 outside SUB_PATH, where a host serving the site from a
    sub-path has no site."""

    def send_error(self, code, message=None, explain=None):
        if not urlsplit(self.path).path.startswith(self.sub_path):
            SimpleHTTPRequestHandler.send_error(self, code, message, explain)
            return
        super().send_error(code, message, explain)


# counts the body bytes of the files it sends, plain (the page-weight budget)
_SubPathHandler = counting(_SubPath)


@pytest.fixture(scope="module")
def server(site_dir):
    with serving(serve, site_dir, SUB_PATH, _SubPathHandler) as url:
        yield url


@pytest.fixture(scope="module")
def browser():
    with chromium() as browser:
        yield browser


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
    # (scheme, width) -> axe-core violations: [{"id", "impact", "targets"}, ...]
    axe: dict[tuple[str, int], list[dict]] = field(default_factory=dict)
    code_nav_labels: list[str | None] = field(default_factory=list)
    phone: dict = field(default_factory=dict)  # what the page looks like at 390 px, see PHONE_JS
    stray_tab_stops: list[str] = field(default_factory=list)
    desktop: dict = field(default_factory=dict)  # tables and code bars at 1280 px, see DESKTOP_JS


class Session:
    """A fresh browser context (cold cache) that records what a page does."""

    def __init__(self, browser, **options):
        self.context = browser.new_context(**{"viewport": DESKTOP, **options})
        self.page = self.context.new_page()
        self.console_errors: list[str] = []
        self.requests = []
        self.failed: list[str] = []
        self.context.on("request", lambda r: self.requests.append(r))
        self.context.on("requestfailed", lambda r: self.failed.append(f"{r.url} ({r.failure})"))
        self.page.on("console", lambda m: m.type == "error" and self.console_errors.append(m.text))
        self.page.on("pageerror", lambda e: self.console_errors.append(f"uncaught: {e}"))

    def goto(self, url, status=200):
        response = self.page.goto(url, wait_until="networkidle")
        assert response is not None and response.status == status, f"{url}: {response and response.status}"
        return response

    def close(self):
        self.context.close()


def is_local(url: str, base: str) -> bool:
    scheme = urlsplit(url).scheme
    if scheme in ("data", "blob", "about"):
        return True
    return urlsplit(url).netloc == urlsplit(base).netloc


_AXE = Axe()


def settle(page):
    """Wait until resize and colour-scheme changes have been laid out and handled
    (ResizeObserver callbacks run before the next frame)."""
    page.wait_for_function("() => !document.body.hasAttribute('data-md-color-switching')")
    page.evaluate("() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")


def axe_violations(page) -> list[dict]:
    """axe-core's violations on the page as it is now (every rule axe runs by default)."""
    result = _AXE.run(page)
    return [
        {"id": v["id"], "impact": v["impact"], "targets": [" ".join(map(str, n["target"])) for n in v["nodes"]]}
        for v in result.response["violations"]
    ]


def switch_to_dark(page):
    """Click the header's colour-scheme toggle, as a reader does."""
    page.locator('form[data-md-component="palette"] label.md-header__button:visible').click()
    page.wait_for_function("() => document.body.getAttribute('data-md-color-scheme') === 'slate'")
    settle(page)


# As a reader who scrolls through the whole page sees it: every block drawn (a11y.css has
# the browser skip blocks far off screen, content-visibility: auto, and axe-core checks
# only what is drawn) and every code block's button bar in place (Material adds it when
# the block first comes on screen, content.lazy). Blocks in a closed <details> stay closed.
READ_THROUGH_JS = """async () => {
  if (!document.getElementById('sdpa-test-drawn')) {
    const style = document.createElement('style');
    style.id = 'sdpa-test-drawn';
    style.textContent = '.md-content__inner * { content-visibility: visible !important; }';
    document.head.append(style);
  }
  const frame = () => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)));
  for (const code of document.querySelectorAll('article pre > code')) {
    if (code.closest('details:not([open])') || code.parentElement.querySelector('.md-code__nav')) continue;
    code.scrollIntoView({block: 'center'});
    await frame();
  }
  window.scrollTo(0, 0);
  await frame();
}"""


def read_through(page):
    page.evaluate(READ_THROUGH_JS)
    settle(page)
    reachable(page)


def reachable(page, seconds=60):
    """Wait until docs/javascripts/a11y.js has made every box that scrolls a Tab stop, as it
    does when the page is idle for a box the browser skipped at load: READ_THROUGH_JS draws
    every block at once, which raises no event it listens to, and a loaded machine has
    little idle time (axe-core ran before a wide table was marked: scrollable-region-
    focusable). `seconds` bounds the wait; what is still unreachable then, the tests say."""
    deadline = time.monotonic() + seconds
    while page.evaluate(UNREACHABLE_JS) and time.monotonic() < deadline:
        page.wait_for_timeout(200)


# Every box that scrolls sideways and is not in a closed <details>, laid out now (asking a
# skipped block's content for its size lays it out): each must be a Tab stop
UNREACHABLE_JS = """() => [...document.querySelectorAll('article .md-typeset__scrollwrap, article pre > code, article .sdpa-figure')]
  .filter(b => !b.closest('details:not([open])'))
  .filter(b => { void (b.firstElementChild || b).offsetWidth; return b.scrollWidth > b.clientWidth; })
  .filter(b => b.getAttribute('tabindex') !== '0')
  .map(b => b.getAttribute('aria-label') || b.className || b.textContent.slice(0, 40))"""

# At desktop width: tables and figures that fit must not be extra stops for the Tab key
STRAY_TAB_STOPS_JS = """() => [...document.querySelectorAll('article .md-typeset__scrollwrap, article .sdpa-figure')]
  .filter(b => b.scrollWidth <= b.clientWidth && b.scrollHeight <= b.clientHeight && b.hasAttribute('tabindex'))
  .map(b => b.getAttribute('aria-label') || b.className)"""

# At desktop width, collapsed blocks open: tables against the content column, and each
# code block's button bar against the code's text
DESKTOP_JS = r"""() => {
  const column = document.querySelector('.md-content__inner').getBoundingClientRect().width;
  const tables = [...document.querySelectorAll('article table')].filter(t => t.checkVisibility())
    .map(t => ({width: t.scrollWidth, head: [...t.querySelectorAll('th')].map(h => h.textContent).join(' | ')}));
  const covered = [];
  for (const nav of document.querySelectorAll('article .md-code__nav')) {
    const code = nav.parentElement.querySelector('code');
    if (!code || !nav.checkVisibility()) continue;
    const bar = nav.getBoundingClientRect(), range = document.createRange();
    range.selectNodeContents(code);
    if ([...range.getClientRects()].some(r => r.width > 0 && r.right > bar.left && r.left < bar.right
                                           && r.bottom > bar.top && r.top < bar.bottom)) {
      covered.push(code.textContent.slice(0, 60));
    }
  }
  return {column, wide: tables.filter(t => t.width > column + 1), covered};
}"""

# At phone width: tables and figures, what a reader and a keyboard get
PHONE_JS = r"""async () => {
  // open the collapsed blocks ("???" in the pages), as a reader would, and let them lay out
  document.querySelectorAll('article details:not([open])').forEach(d => { d.open = true; });
  await new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)));
  const boxes = [...document.querySelectorAll('article .md-typeset__scrollwrap, article .sdpa-figure')];
  const wide = boxes.filter(b => b.checkVisibility() && b.scrollWidth > b.clientWidth);
  // the table that scrolls furthest: the sticky column is checked over a 150 px scroll
  const table = wide.filter(b => b.matches('.md-typeset__scrollwrap'))
    .sort((a, b) => (b.scrollWidth - b.clientWidth) - (a.scrollWidth - a.clientWidth))[0];
  let sticky = null;
  if (table) {
    const cell = table.querySelector('tbody tr td:first-child');
    const second = table.querySelector('tbody tr td:nth-child(2)');
    const before = second.getBoundingClientRect().left;
    table.scrollLeft = 150;
    const box = table.getBoundingClientRect(), first = cell.getBoundingClientRect();
    sticky = {inView: first.left >= box.left - 1 && first.right <= box.right,
              second: second.getBoundingClientRect().left - before,
              room: table.scrollWidth - table.clientWidth};
    table.scrollLeft = 0;
  }
  // a line break inside inline code must fall at a <wbr> (between text nodes) or a space
  const badBreaks = [];
  for (const code of document.querySelectorAll('article :not(pre) > code')) {
    for (const node of code.childNodes) {
      if (node.nodeType !== Node.TEXT_NODE) continue;
      const range = document.createRange();
      let top = null;
      for (let i = 0; i < node.length; i++) {
        range.setStart(node, i);
        range.setEnd(node, i + 1);
        const rect = range.getClientRects()[0];
        if (!rect) continue;
        if (top !== null && Math.abs(rect.top - top) > 2 && !/\s/.test(node.data[i - 1] + node.data[i])) {
          badBreaks.push(code.textContent + ' @ ' + node.data.slice(0, i) + '|' + node.data.slice(i));
        }
        top = rect.top;
      }
    }
  }
  return {
    wide: wide.map(b => ({
      kind: b.matches('.sdpa-figure') ? 'figure' : 'table',
      tabindex: b.getAttribute('tabindex'), role: b.getAttribute('role'), label: b.getAttribute('aria-label'),
      imgWidth: b.querySelector('img') ? b.querySelector('img').getBoundingClientRect().width : null,
    })),
    figureWidths: [...document.querySelectorAll('article .sdpa-figure img')].filter(i => i.checkVisibility())
      .map(i => i.getBoundingClientRect().width),
    column: document.querySelector('.md-content__inner').getBoundingClientRect().width,
    // every figure's smallest text as drawn: its font size in the SVG's units × drawn width / viewBox width
    figureText: await Promise.all([...document.querySelectorAll('article .sdpa-figure img, .jupyter-wrapper .jp-RenderedImage img')]
      .filter(i => i.checkVisibility()).map(async i => {
        const width = i.getBoundingClientRect().width;
        if (!/\.svg(\?|#|$)/.test(i.src)) return {src: i.src.slice(-40), width, smallest: null};
        const svg = await (await fetch(i.src)).text();
        const box = svg.match(/viewBox="[\d.]+ [\d.]+ ([\d.]+) [\d.]+"/);
        const sizes = [...svg.matchAll(/font-size: ?([\d.]+)px/g)].map(m => parseFloat(m[1]));
        return {src: i.src.split('/').pop(), width, smallest: box && sizes.length ? Math.min(...sizes) * width / parseFloat(box[1]) : null};
      })),
    // a timeline (an inline SVG in div.sdpa-timeline) keeps its drawn size and scrolls
    // (docs/stylesheets/timeline.css): its text as drawn, each <text>'s computed size × scale
    timelineText: [...document.querySelectorAll('article .sdpa-timeline > svg')].filter(s => s.checkVisibility())
      .map(s => {
        const scale = s.getBoundingClientRect().width / s.viewBox.baseVal.width;
        const sizes = [...s.querySelectorAll('text')].map(t => parseFloat(getComputedStyle(t).fontSize));
        return {id: s.getAttribute('class'), scale, smallest: sizes.length ? Math.min(...sizes) * scale : null,
                scrolls: s.parentElement.scrollWidth > s.parentElement.clientWidth};
      }),
    sticky, badBreaks,
    pageScrollsSideways: document.documentElement.scrollWidth > document.documentElement.clientWidth,
  };
}"""


@pytest.fixture(scope="module")
def visits(browser, server, screenshot_dir, report) -> dict[str, Visit]:
    """Every page in both languages, each loaded in a fresh context, screenshotted, and
    checked by axe-core in light and dark mode at desktop and phone width."""
    found = {}
    axe_seconds = 0.0
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
            visit.stray_tab_stops = page.evaluate(STRAY_TAB_STOPS_JS)
            read_through(page)
            # after the read-through: a full-page capture draws no block the browser skips
            name = f"{lang}-{page_info['slug'] or 'index'}.png"
            page.screenshot(path=str(screenshot_dir / name), full_page=True)
            visit.code_nav_labels = page.eval_on_selector_all(
                "nav.md-code__nav", "navs => navs.map(n => n.getAttribute('aria-label'))"
            )
            # the same page load: light desktop, light phone, dark phone, dark desktop
            start = time.perf_counter()
            visit.axe[("light", DESKTOP["width"])] = axe_violations(page)
            page.set_viewport_size(PHONE)
            settle(page)
            # the collapsed blocks open for the rest, as a reader opens them, read through
            page.evaluate("() => document.querySelectorAll('article details:not([open])').forEach(d => { d.open = true; })")
            read_through(page)
            visit.phone = page.evaluate(PHONE_JS)
            visit.axe[("light", PHONE["width"])] = axe_violations(page)
            switch_to_dark(page)
            visit.axe[("dark", PHONE["width"])] = axe_violations(page)
            page.set_viewport_size(DESKTOP)
            settle(page)
            visit.desktop = page.evaluate(DESKTOP_JS)  # the collapsed blocks are open by now
            visit.axe[("dark", DESKTOP["width"])] = axe_violations(page)
            axe_seconds += time.perf_counter() - start
            visit.console_errors = list(session.console_errors)
            visit.requests = [r.url for r in session.requests]
            visit.failed = list(session.failed)
            visit.bytes = served
            found[f"{lang}:{page_info['slug']}"] = visit
        finally:
            session.close()
    report(f"screenshots of every page in both languages: {screenshot_dir}")
    runs = [v for visit in found.values() for v in visit.axe.values()]
    others = sum(len(x["targets"]) for v in runs for x in v if x["impact"] not in AXE_FAILS)
    report(
        f"axe-core: {len(runs)} runs ({len(found)} pages x light/dark x {DESKTOP['width']}/{PHONE['width']} px) "
        f"in {axe_seconds:.0f} s; {others} moderate/minor nodes"
    )
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


def axe_failures(violations: list[dict]) -> list[str]:
    return [
        f"{v['id']} ({v['impact']}): {', '.join(v['targets'][:5])}" for v in violations if v["impact"] in AXE_FAILS
    ]


@pytest.mark.parametrize(("page_info", "lang"), PAGE_CASES, ids=PAGE_IDS)
def test_axe_finds_nothing_serious(visits, page_info, lang):
    """axe-core: no serious or critical violation, light and dark, desktop and phone."""
    visit = visits[f"{lang}:{page_info['slug']}"]
    assert set(visit.axe) == {(s, w["width"]) for s in SCHEMES for w in (DESKTOP, PHONE)}
    problems = [
        f"{scheme} {width} px: {line}" for (scheme, width), found in sorted(visit.axe.items()) for line in axe_failures(found)
    ]
    assert not problems, f"{visit.url}: axe-core:\n" + "\n".join(problems)


def test_axe_sees_what_the_site_fixes(browser, server):
    """The axe check can fail: with the site's fixes taken off again in the page (its
    stylesheet docs/stylesheets/a11y.css and the search dialog's name), axe-core reports
    what it reported on the site before them."""
    session = Session(browser)
    try:
        session.goto(server + page_url("occupancy", "en"))  # links in text, code with comments
        page = session.page
        page.evaluate(
            """() => {
              document.querySelector('link[href$="stylesheets/a11y.css"]').disabled = true;
              document.querySelector('.md-search[role=dialog]').removeAttribute('aria-label');
              // the page's code is in a collapsed block: open it, as a reader would
              document.querySelectorAll('article details').forEach(d => { d.open = true; });
            }"""
        )
        settle(page)
        found = {v["id"] for v in axe_violations(page) if v["impact"] in AXE_FAILS}
        assert {"aria-dialog-name", "link-in-text-block", "color-contrast"} <= found, found
    finally:
        session.close()


def test_code_block_bars_have_names_of_their_own(visits):
    """Each code block's button bar is a <nav> landmark: each needs a name, unique on its page."""
    labelled = {key: v.code_nav_labels for key, v in visits.items() if v.code_nav_labels}
    assert labelled, "no page has a code block with a button bar"
    for key, labels in labelled.items():
        assert all(labels), f"{key}: a code block bar without aria-label: {labels}"
        assert len(set(labels)) == len(labels), f"{key}: code block bars share names: {labels}"


@pytest.mark.parametrize(("page_info", "lang"), PAGE_CASES, ids=PAGE_IDS)
def test_at_phone_width(visits, page_info, lang):
    """At 390 px, collapsed blocks opened: the page itself does not scroll sideways; what
    does (a table, a figure) is focusable and named; figures keep a readable size; inline
    code breaks only between the parts of a name; a timeline keeps its drawn size (it
    scrolls) and its text as drawn stays readable. At 1280 px, what fits is no extra stop
    for the Tab key."""
    visit = visits[f"{lang}:{page_info['slug']}"]
    phone = visit.phone
    assert not phone["pageScrollsSideways"], f"{visit.url}: the page is wider than 390 px"
    for box in phone["wide"]:
        assert box["tabindex"] == "0" and box["role"] == "region" and box["label"], f"{visit.url}: {box}"
    # figures are drawn for a phone: they shrink to the column and their text stays readable
    assert all(width <= phone["column"] + 1 for width in phone["figureWidths"]), (
        f"{visit.url}: figures wider than the {phone['column']} px column: {phone['figureWidths']}")
    for figure in phone["figureText"]:
        assert figure["width"] <= phone["column"] + 1, f"{visit.url}: {figure}"
        assert figure["smallest"] is None or figure["smallest"] >= MIN_TEXT_PX, (
            f"{visit.url}: text under {MIN_TEXT_PX} px: {figure}")
    # a timeline is not shrunk: it scrolls in its box, its text at the size it is drawn at
    for timeline in phone["timelineText"]:
        assert timeline["smallest"] is None or timeline["smallest"] >= MIN_TEXT_PX, (
            f"{visit.url}: timeline text under {MIN_TEXT_PX} px: {timeline}")
        assert timeline["scrolls"] or timeline["scale"] >= 1, f"{visit.url}: a timeline shrunk to the column: {timeline}"
    assert not phone["badBreaks"], f"{visit.url}: inline code broken inside a part: {phone['badBreaks'][:5]}"
    assert not visit.stray_tab_stops, f"{visit.url}: focusable at 1280 px but nothing to scroll: {visit.stray_tab_stops}"


@pytest.mark.parametrize(("page_info", "lang"), PAGE_CASES, ids=PAGE_IDS)
def test_at_desktop_width(visits, page_info, lang):
    """At 1280 px, collapsed blocks opened: no table is wider than the content column, and
    no code block's copy button lies over its code."""
    visit = visits[f"{lang}:{page_info['slug']}"]
    desktop = visit.desktop
    assert not desktop["wide"], f"{visit.url}: tables wider than the {desktop['column']} px column: {desktop['wide']}"
    assert not desktop["covered"], f"{visit.url}: the copy button covers code: {desktop['covered']}"


# the longest pages: most of their tables and code lie far below the first screen
LONG_PAGES = ("shapes", "naive-vs-math", "fused-backends")


@pytest.mark.parametrize("slug", LONG_PAGES)
def test_far_down_is_skipped_at_load_and_still_a_tab_stop(browser, server, slug):
    """On a phone, right after the load: the browser has not laid out the tables and code
    far below the screen (content-visibility: auto, docs/stylesheets/a11y.css), and a
    keyboard reaches every one of them that scrolls sideways without scrolling to it first
    (docs/javascripts/a11y.js measures them once the page is idle). "Far" is three screens
    down: Chromium draws such a block while it lies within 150 % of the viewport's height
    past its edge (on Chromium 150 at 390 x 844, fused-backends' ceilings table is drawn
    with its top 2.40 screens down and skipped at 2.63)."""
    session = Session(browser, viewport=PHONE)
    try:
        session.goto(server + page_url(slug, "en"))
        page = session.page
        skipped = page.evaluate("""() => [...document.querySelectorAll(
            '.md-content__inner > [data-cv], .md-content__inner > .highlight > pre[data-cv]')]
            .filter(b => b.getBoundingClientRect().top > 3 * innerHeight)
            .map(b => !b.firstElementChild.checkVisibility({contentVisibilityAuto: true}))""")
        assert skipped and all(skipped), f"{slug}: blocks three screens down, skipped at load: {skipped}"
        deadline = time.monotonic() + 60  # a bound on the wait (a11y.js marks them when idle), no figure
        while (unreachable := page.evaluate(UNREACHABLE_JS)) and time.monotonic() < deadline:
            page.wait_for_timeout(200)
        assert not unreachable, f"{slug}: scroll sideways but are no Tab stop 60 s after the load: {unreachable}"
        assert not session.console_errors, session.console_errors
    finally:
        session.close()


# Lighthouse's phone: its viewport, and what it records of layout shifts
LIGHTHOUSE_PHONE = {"width": 412, "height": 823}
SHIFTS_JS = """window.__shifts = [];
new PerformanceObserver(list => { for (const e of list.getEntries()) if (!e.hadRecentInput) window.__shifts.push(e.value); })
  .observe({type: 'layout-shift', buffered: true});"""


@pytest.mark.parametrize(("page_info", "lang"), PAGE_CASES, ids=PAGE_IDS)
def test_what_lighthouse_sees_at_load(browser, server, page_info, lang):
    """The page as Lighthouse audits it: on its phone, right after the load, nothing read
    through, blocks far down still skipped. axe-core finds nothing serious there either (it
    asks every element for its box, a skipped one too: a block's room held too small would
    put its content over the footer), and the blocks the browser draws when they come
    into view move nothing on the first screen (cumulative layout shift)."""
    session = Session(browser, viewport=LIGHTHOUSE_PHONE, is_mobile=True, has_touch=True)
    try:
        session.page.add_init_script(SHIFTS_JS)
        session.goto(server + page_url(page_info["slug"], lang))
        page = session.page
        page.wait_for_timeout(500)
        problems = axe_failures(axe_violations(page))
        assert not problems, f"{page.url}: axe-core at load:\n" + "\n".join(problems)
        shift = sum(page.evaluate("window.__shifts"))
        assert shift < 0.01, f"{page.url}: layout shift {shift:.3f} while loading"
    finally:
        session.close()


@pytest.mark.parametrize("lang", LANGS)
def test_a_long_kernel_name_opens_by_keyboard_and_tap(browser, server, lang):
    """A long generated kernel name in a table shows its short name; the full name is the
    summary's tooltip and opens under it by keyboard (Tab to it, Enter) and by a tap, in
    the same table cell."""
    session = Session(browser, viewport=PHONE, has_touch=True)
    try:
        session.goto(server + page_url("fused-backends", lang))
        page = session.page
        cell = page.locator("article td details.sdpa-kernel").first
        summary, full = cell.locator("summary"), cell.locator("code")
        assert page.evaluate("s => s.tabIndex", summary.element_handle()) == 0  # a Tab stop
        name = full.text_content()
        assert len(name) > 48 and name not in summary.text_content()
        assert summary.get_attribute("title").endswith(name)
        assert not full.is_visible()
        summary.focus()
        page.keyboard.press("Enter")
        full.wait_for(state="visible")
        box, column = full.bounding_box(), cell.locator("xpath=ancestor::td").bounding_box()
        assert box["x"] >= column["x"] and box["x"] + box["width"] <= column["x"] + column["width"] + 1
        page.keyboard.press("Enter")
        full.wait_for(state="hidden")
        summary.tap()
        full.wait_for(state="visible")
        assert not session.console_errors, session.console_errors
    finally:
        session.close()


def test_tables_keep_their_first_column_in_view(visits):
    """A table wider than a phone scrolls sideways with its first column standing still."""
    measured = {key: v.phone["sticky"] for key, v in visits.items() if v.phone["sticky"]}
    assert measured, "no page has a table wider than 390 px"
    for key, moved in measured.items():
        # the second column moves with the scroll (150 px, or as far as the table can go)
        assert moved["inView"] and moved["second"] < -min(100, 0.8 * moved["room"]), f"{key}: scrolled 150 px: {moved}"


def site_name(lang: str) -> str:
    config = mkdocs_config()
    for plugin_lang in config["plugins"]["i18n"].config.languages:
        if plugin_lang.locale == lang and plugin_lang.site_name:
            return plugin_lang.site_name
    return config["site_name"]


NOT_FOUND_CASES = [
    # (address under the sub-path, the browser's language, the page's expected language)
    ("en/no-such-page/deeper/", "nb-NO", "en"),  # the address is English
    ("occupancy/no-such-page", "en-US", "nb"),  # the address is a Norwegian page's
    ("no-such-page/", "en-US", "en"),  # the address says nothing: the browser's language
    ("no-such-page/", "nb-NO", "nb"),
]


@pytest.mark.parametrize(("path", "locale", "lang"), NOT_FOUND_CASES, ids=[f"{p}:{loc}" for p, loc, _ in NOT_FOUND_CASES])
def test_not_found_page_under_a_sub_path(browser, server, path, locale, lang):
    """site/404.html, sent for a missing address under /sdpa/, is styled, in the reader's
    language, links to pages that exist (both home pages among them), and its search works."""
    session = Session(browser, locale=locale)
    try:
        session.goto(server + path, status=404)
        page = session.page
        assert page.locator("html").get_attribute("lang") == lang
        assert page.title().endswith(site_name(lang)), page.title()
        assert page.locator("article h1").inner_text().strip()
        header = page.eval_on_selector(".md-header", "h => getComputedStyle(h).backgroundColor")
        assert header not in ("", "rgba(0, 0, 0, 0)"), f"unstyled: the header's background is {header!r}"

        links = set(page.eval_on_selector_all("article a[href], .md-nav--primary a[href], .md-select a[href]", "as => as.map(a => a.href)"))
        other = next(x for x in LANGS if x != lang)
        assert {server + page_url("", lang), server + page_url("", other)} <= links, links
        broken = {href: page.request.get(href).status for href in sorted(links)}
        assert all(status == 200 for status in broken.values()), broken

        # 404s: the address itself and, when nothing in it names a page, parent folders
        # outside the site that the page asked for 404.html while it looked for the root
        statuses = [(r.url, r.response().status if r.response() else None) for r in session.requests]
        not_found = [url for url, status in statuses if status == 404]
        expected = [u for u in not_found if u == server + path or (u.endswith("/404.html") and SUB_PATH not in u)]
        assert not_found == expected and not_found[0] == server + path, statuses
        assert all(status is not None and status < 400 for url, status in statuses if url not in not_found), statuses
        assert not session.failed, session.failed
        assert not [u for u in session.requests if not is_local(u.url, server)]
        assert len(session.console_errors) == len(not_found) and all(
            "status of 404" in e for e in session.console_errors
        ), session.console_errors

        problems = axe_failures(axe_violations(page))
        assert not problems, "axe-core:\n" + "\n".join(problems)

        # Material's search, started from the root the page found
        occupancy = next(p for p in PAGES if p["slug"] == "occupancy")
        box = page.locator("input.md-search__input")
        box.click()
        box.press_sequentially(nav_title(occupancy["title"], lang), delay=20)
        page.locator(".md-search-result__item").first.wait_for(timeout=10_000)
        results = page.eval_on_selector_all(".md-search-result__item > a", "as => as.map(a => a.href)")
        results = [urlsplit(r)._replace(query="", fragment="").geturl() for r in results]
        assert server + page_url("occupancy", lang) in results, results
    finally:
        session.close()


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
