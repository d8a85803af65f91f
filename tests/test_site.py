"""The built site: `mkdocs build --strict` of the real docs/, checked file by file.

The build runs once per session (conftest.site_build) into a temporary folder.
"""

from __future__ import annotations

import filecmp
import re
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path, PurePosixPath
from urllib.parse import unquote, urljoin, urlsplit

import pytest
from pagecode import LANGS, ROOT, nav_pages, page_url

PAGES = nav_pages()
NOTEBOOK_SLUGS = [p["slug"] for p in PAGES if p["ext"] == ".ipynb"]
PAGE_CASES = [(p, lang) for p in PAGES for lang in LANGS]
PAGE_IDS = [f"{lang}:{p['slug'] or 'index'}" for p, lang in PAGE_CASES]
# <link rel=...> values a browser does not fetch on its own
NOT_FETCHED_RELS = {"alternate", "canonical", "author", "license", "help", "next", "prev", "me", "bookmark"}
EXTERNAL = re.compile(r"^(?:[a-z][a-z0-9+.-]*:)?//", re.IGNORECASE)


class Page(HTMLParser):
    """What one HTML file links to, loads, and offers as anchors."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.ids: set[str] = set()
        self.links: list[tuple[str, str]] = []  # (tag, href) a reader can follow
        self.loads: list[tuple[str, str]] = []  # (tag, url) the browser fetches by itself
        self.styles: list[str] = []
        self.text: list[str] = []
        self.title = ""
        self.h1: list[str] = []
        self.images: list[dict[str, str]] = []
        self.deferred: list[str] = []  # data-href / data-src: loaded by a script (404.html)
        self._in: list[str] = []

    def handle_starttag(self, tag, attrs):
        a = {k: (v or "") for k, v in attrs}
        for key in ("id", "name"):
            if a.get(key):
                self.ids.add(a[key])
        if tag == "a" and "href" in a:
            self.links.append((tag, a["href"]))
        if tag == "link" and "href" in a:
            rels = set(a.get("rel", "").lower().split())
            if rels and rels <= NOT_FETCHED_RELS:
                self.links.append((tag, a["href"]))
            else:
                self.loads.append((f"link rel={a.get('rel')}", a["href"]))
        for key in ("src", "poster", "data"):
            if key in a and tag in {"script", "img", "iframe", "source", "video", "audio", "embed", "track", "object", "input"}:
                self.loads.append((tag, a[key]))
        if "srcset" in a:
            for candidate in a["srcset"].split(","):
                if candidate.strip():
                    self.loads.append((tag, candidate.strip().split()[0]))
        if "style" in a:
            self.styles.append(a["style"])
        if tag == "img":
            self.images.append(a)
        self.deferred += [a[key] for key in ("data-href", "data-src") if key in a]
        self._in.append(tag)

    def handle_endtag(self, tag):
        while self._in:
            if self._in.pop() == tag:
                break

    def handle_data(self, data):
        where = self._in[-1] if self._in else ""
        if where == "style":
            self.styles.append(data)
        elif where == "title":
            self.title += data
        elif where not in ("script",):
            self.text.append(data)
        if "h1" in self._in:
            self.h1.append(data)


def parse(path: Path) -> Page:
    page = Page()
    page.feed(path.read_text(encoding="utf-8"))
    page.close()
    return page


@pytest.fixture(scope="module")
def html_files(site_dir) -> dict[str, Page]:
    """Every built HTML file by its path in the site, e.g. 'en/occupancy/index.html'."""
    return {p.relative_to(site_dir).as_posix(): parse(p) for p in sorted(site_dir.rglob("*.html"))}


def page_file(slug: str, lang: str) -> str:
    return page_url(slug, lang) + "index.html"


def css_urls(css: str) -> list[str]:
    urls = re.findall(r"url\(\s*['\"]?([^'\")]+)", css)
    urls += re.findall(r"@import\s+(?:url\()?\s*['\"]([^'\"]+)", css)
    return urls


def test_build_is_strict_and_clean(site_build, report):
    """The build passes --strict and prints no warning. Its time is reported, not asserted
    (43 s on a loaded 2-core machine, against 20 s on a quiet one): benchmarks/site_build.py
    prints it, with the machine's load."""
    report(f"mkdocs build --strict (nb + en, notebook executed): {site_build.seconds:.1f} s")
    problems = [line for line in site_build.output.splitlines() if re.search(r"\b(WARNING|ERROR)\b", line)]
    assert not problems, "the build printed warnings:\n" + "\n".join(problems)


@pytest.mark.parametrize(("page", "lang"), PAGE_CASES, ids=PAGE_IDS)
def test_page_exists_in_both_languages(html_files, page, lang):
    name = page_file(page["slug"], lang)
    assert name in html_files, f"{name} was not built"
    built = html_files[name]
    assert built.h1 and "".join(built.h1).strip(), f"{name} has no <h1>"
    assert built.title.strip(), f"{name} has no <title>"


@pytest.mark.parametrize("lang", LANGS)
def test_html_lang_attribute(site_dir, lang):
    for page in PAGES:
        head = (site_dir / page_file(page["slug"], lang)).read_text(encoding="utf-8")[:500]
        assert f'<html lang="{lang}"' in head, f"{page_file(page['slug'], lang)}: wrong lang attribute"


def test_nothing_unexpanded_or_leaking(html_files):
    problems = []
    for name, page in html_files.items():
        text = "".join(page.text)
        # an include line left as text: --8<-- "file" (prose may name `--8<--` itself)
        for m in re.finditer(r"--8<--\s*(?:[\"'][^\"'\n]*[\"']|\n|$)", text):
            problems.append(f"{name}: an unexpanded include: {m.group(0).strip()}")
        for leak in ("pytest.mark", "pytest-codeblocks", "<!--"):
            if leak in text:
                problems.append(f"{name}: '{leak}' shows as text (a marker comment that Markdown escaped)")
    assert not problems, "\n".join(problems)


def test_internal_links_and_anchors_resolve(site_dir, html_files):
    """Every href/src inside the site leads to a file, and every #fragment to an id there.
    Links must be relative: site/ is served from a sub-path too."""
    problems = []
    for name, page in html_files.items():
        # 404.html too: its links are relative to the site's root, where it lies (a script
        # sets <base href> to the root when it is served for a missing address elsewhere)
        base = f"http://site/{name}"
        for tag, href in page.links + page.loads:
            if not href or EXTERNAL.match(href) or re.match(r"^(mailto|tel|data|javascript|blob):", href, re.I):
                continue
            if href.startswith("/"):
                problems.append(f"{name}: <{tag}> {href} is root-absolute (breaks under a sub-path)")
                continue
            url = urlsplit(urljoin(base, href))
            target = unquote(url.path).lstrip("/")
            if target == "" or target.endswith("/"):
                target += "index.html"
            path = site_dir / target
            if path.is_dir():
                target, path = target + "/index.html", path / "index.html"
            if not path.is_file():
                problems.append(f"{name}: <{tag}> {href} -> {target} does not exist")
                continue
            if url.fragment and target.endswith(".html"):
                ids = html_files[PurePosixPath(target).as_posix()].ids
                if unquote(url.fragment) not in ids:
                    problems.append(f"{name}: <{tag}> {href} -> no id '{url.fragment}' in {target}")
    assert not problems, "\n".join(problems)


def test_no_external_loads(site_dir, html_files):
    """Nothing the browser would fetch by itself points outside the site (fonts, CDN
    scripts, stylesheets). External <a href> links for citations are fine."""
    problems = []
    for name, page in html_files.items():
        for tag, url in page.loads:
            if EXTERNAL.match(url):
                problems.append(f"{name}: <{tag}> {url}")
        for css in page.styles:
            problems += [f"{name}: inline style url {u}" for u in css_urls(css) if EXTERNAL.match(u)]
    for path in sorted(site_dir.rglob("*.css")):
        for url in css_urls(path.read_text(encoding="utf-8")):
            if EXTERNAL.match(url):
                problems.append(f"{path.relative_to(site_dir)}: url {url}")
    for path in sorted(site_dir.rglob("*.js")):
        js = path.read_text(encoding="utf-8")
        for m in re.finditer(r"(?:importScripts|import)\(\s*['\"](https?:)?//[^'\"]+", js):
            problems.append(f"{path.relative_to(site_dir)}: {m.group(0)}")
    assert not problems, "external requests:\n" + "\n".join(problems)


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("slug", NOTEBOOK_SLUGS)
def test_notebook_page_is_html_with_plot(site_dir, html_files, slug, lang):
    name = page_file(slug, lang)
    raw = (site_dir / name).read_text(encoding="utf-8")
    assert '"cell_type"' not in raw and '"nbformat"' not in raw, f"{name} is raw notebook JSON"
    assert 'class="jupyter-wrapper"' in raw, f"{name} was not rendered by mkdocs-jupyter"
    images = re.findall(r"<img\b[^>]*\bsrc=\"(data:image/(?:png|svg\+xml)[^\"]{200,})\"", raw)
    assert images, f"{name}: no plot (<img> with image data) in the executed notebook"
    assert "Traceback" not in "".join(html_files[name].text), f"{name}: a cell raised an error"
    assert len(raw) < 300_000, f"{name} is {len(raw)} bytes: did JupyterLab's stylesheet come back?"


NBCONVERT_ALT = "No description has been provided for this image"


def test_images_have_size_and_alt(html_files):
    """Every image in a page has a width and height (no jump while it loads) and alt text;
    the notebook's plot is described in its page's language, not by nbconvert's default."""
    problems, seen = [], 0
    for name, page in html_files.items():
        for img in page.images:
            seen += 1
            what = f"{name}: <img src={img.get('src', '')[:60]!r}>"
            if not (img.get("width", "").isdigit() and img.get("height", "").isdigit()):
                problems.append(f"{what} has no width and height in pixels")
            if not img.get("alt", "").strip() or img["alt"] == NBCONVERT_ALT:
                problems.append(f"{what} alt={img.get('alt')!r}")
    assert seen, "no page has an image"
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("slug", NOTEBOOK_SLUGS)
def test_notebook_plot_alt_differs_by_language(html_files, slug):
    alts = {lang: [i.get("alt") for i in html_files[page_file(slug, lang)].images] for lang in LANGS}
    assert all(alts.values()), alts
    for lang, other in zip(LANGS, LANGS[1:], strict=False):
        assert alts[lang] != alts[other], f"the {lang} and {other} notebook pages describe their plot alike: {alts}"


def test_not_found_page_works_from_any_sub_path(site_dir, html_files):
    """404.html has no root-absolute URL; what it loads is relative to the site's root and
    exists; it carries both languages (the other in a <template>), each with its own title."""
    raw = (site_dir / "404.html").read_text(encoding="utf-8")
    page = html_files["404.html"]
    absolute = re.findall(r"""(?:href|src)=["']/(?!/)[^"']*""", raw)
    assert not absolute, f"root-absolute URLs in 404.html: {absolute}"
    assert page.deferred, "404.html loads its stylesheets and scripts by itself (no data-href/data-src)"
    missing = [url for url in page.deferred if not (site_dir / urlsplit(url).path).is_file()]
    assert not missing, f"404.html would load files that do not exist: {missing}"
    assert re.search(r'<html lang="(\w+)"', raw).group(1) == LANGS[0]
    others = re.findall(r'<template id="sdpa-not-found-(\w+)">', raw)
    assert sorted(others) == sorted(LANGS[1:]), others
    headings = [h.strip() for h in re.findall(r"<h1[^>]*>(.*?)</h1>", raw, re.DOTALL)]
    assert len(headings) == len(LANGS) and len(set(headings)) == len(LANGS), headings


class Blocks(HTMLParser):
    """The top-level blocks of a page's article: (tag, attributes, rows, lines)."""

    VOID = {"br", "hr", "img", "input", "wbr", "source", "meta", "link"}

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.depth, self.blocks, self.article, self.in_pre = 0, [], None, False

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "article" and "md-content__inner" in (attrs.get("class") or ""):
            self.article = self.depth + 1 if tag not in self.VOID else None
        elif self.article is not None and self.depth == self.article:
            self.blocks.append({"tag": tag, "attrs": attrs, "rows": 0, "lines": 1, "pre": None})
        elif self.article is not None and self.depth > self.article and self.blocks:
            block = self.blocks[-1]
            block["rows"] += tag == "tr"
            if tag == "pre" and block["pre"] is None:
                block["pre"], self.in_pre = attrs, True
        if tag not in self.VOID:
            self.depth += 1

    def handle_endtag(self, tag):
        self.in_pre = self.in_pre and tag != "pre"
        if tag not in self.VOID:
            self.depth -= 1
            if self.article is not None and self.depth < self.article:
                self.article = None

    def handle_data(self, data):
        if self.in_pre:
            self.blocks[-1]["lines"] += data.count("\n")


@pytest.mark.parametrize("slug", ["shapes", "naive-vs-math", "fused-backends"])
def test_blocks_far_down_are_marked_with_the_room_they_take(site_dir, slug):
    """hooks/a11y.py marks a top-level table (in a box of its own) or code block that is
    neither among a page's first blocks nor its last three: data-cv "near" from the 8th
    block (a phone skips it off screen), "far" from the 13th (every screen does), with its
    rows or lines, from which a11y.css holds its room (content-visibility: auto)."""
    parser = Blocks()
    parser.feed((site_dir / slug / "index.html").read_text(encoding="utf-8"))
    blocks = parser.blocks
    marked = 0
    for i, block in enumerate(blocks):
        table = block["tag"] == "div" and "sdpa-block" in (block["attrs"].get("class") or "")
        code = block["tag"] == "div" and "highlight" in (block["attrs"].get("class") or "").split()
        zone = None if i < 7 or i >= len(blocks) - 3 else "near" if i < 12 else "far"
        if table:
            assert block["attrs"].get("data-cv") == zone and zone, (slug, i, block["attrs"])
            assert block["attrs"]["style"] == f"--sdpa-rows: {block['rows']}", (slug, i)
            marked += 1
        elif block["tag"] == "table":
            assert zone is None, (slug, i, "a table that should be in a box of its own")
        elif code and block["pre"] is not None:
            assert block["pre"].get("data-cv") == zone, (slug, i, block["pre"])
            if zone:
                assert block["pre"]["style"] == f"--sdpa-lines: {block['lines']}", (slug, i, block["lines"])
                marked += 1
    assert marked >= 3, f"{slug}: {marked} blocks marked"


# what a site file may be read as text for a path in it; the rest (gzip, zip, fonts) is not text
TEXT_SUFFIXES = {".html", ".js", ".mjs", ".css", ".json", ".xml", ".svg", ".txt", ".md", ".py", ".map"}


def test_no_path_of_the_building_machine(site_dir):
    """Issue 30, item 7: the published site names no folder of the machine that built it
    (Explore once printed the checkout's absolute path before results.json)."""
    private = {str(ROOT), str(site_dir)} | ({str(Path.home())} if str(Path.home()) not in ("/", "") else set())
    found = []
    for path in site_dir.rglob("*"):
        if path.is_file() and path.suffix in TEXT_SUFFIXES:
            text = path.read_text(encoding="utf-8", errors="replace")
            found += [f"{path.relative_to(site_dir)}: {p}" for p in private if p in text]
    assert not found, "\n".join(found[:20])


def test_two_builds_of_the_same_tree_are_identical(site_dir, tmp_path):
    """Issue 30, item 7: building the same commit again gives the same files, byte for byte."""
    again = tmp_path / "again"
    proc = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(again)],
                          cwd=ROOT, capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    first = sorted(p.relative_to(site_dir).as_posix() for p in site_dir.rglob("*") if p.is_file())
    second = sorted(p.relative_to(again).as_posix() for p in again.rglob("*") if p.is_file())
    assert first == second
    _, differ, errors = filecmp.cmpfiles(site_dir, again, first, shallow=False)
    assert not differ and not errors, f"files that differ between two builds: {differ[:20]} {errors[:5]}"
