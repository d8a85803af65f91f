"""A contributed results.json is data, never markup: every string of the site's run
replaced by a payload, rendered into a GPU folder, and the site built strictly with it has
no element or attribute that the site built from the committed results lacks."""
from __future__ import annotations

import shutil
import subprocess
import sys
from collections import Counter
from html.parser import HTMLParser

import pytest
from factory import SITE_RUN, site_run

from report.output.folders import mark
from report.output.write import render_comparison, render_folder
from report.paths import ROOT
from report.render.markdown import code_safe, fenced, markdown_safe, strings_safe
from report.results import load_reference, write_results

PAYLOADS = (
    "\n\n<img src=x onerror=alert(1)>\n\n",
    "{: onmouseover=alert(1) }",
    "\n```\n<b>fence</b>\n```\n",
    '\n--8<-- "README.md"\n',
    "]]>",
    "<script>alert(1)</script>",
    "`code` ``x``",
    "[link](javascript:alert(1))",
    "![img](x.png)",
    "| cell | cell |",
    "<!--",
    "&lt;b&gt;",
    "*em* _em_ **strong**",
    "\\",
    "--8<-- [start:x]",
    "<div markdown>*x*</div>",
    "\n!!! note\n    admonition\n",
    "\n# heading\n",
    "{#id .class}",
    "\u2028<i>\u2029",
)
# values that select code paths (a status, a kind, a variant's id): a payload there takes
# the renderer down an error path and leaves the rest untried; they get a payload of their own below
CONTROL = {"status", "kind", "cause", "family", "variant", "dtype", "our_optin_limited_by",
           "generated_by", "backend_ran", "label"}
# elements the data never decides the number of on a page: one more of them is injected
COUNTED = ("script", "style", "link", "meta", "base", "img", "iframe", "object", "embed", "form",
           "input", "svg", "a", "h1", "h2", "h3", "h4", "table", "details", "div")
README_LINE = "Add your GPU's results"  # a heading of README.md, which no page includes


# --- the escaping, one context at a time ---------------------------------------------------

def test_text_is_one_escaped_line():
    assert markdown_safe("a\n\n<img src=x>{: on=1 }\u2028*b*") == "a  &lt;img src=x&gt;\\{: on=1 \\} \\*b\\*"


def test_a_code_span_cannot_be_closed_or_broken_and_includes_nothing():
    assert code_safe('k`x`\n--8<-- "README.md"') == 'k\'x\' ;--8<-- "README.md"'
    assert code_safe(";--8<--") == ";--8<--"  # escaped once, not twice


def test_a_fence_is_longer_than_any_backtick_run_in_it():
    block = fenced("a\n````\n--8<-- \"README.md\"\n")
    lines = block.splitlines()
    assert lines[0] == "`````text" and lines[-1] == "`````" and lines[2] == "````"
    assert lines[3] == ';--8<-- "README.md"'
    assert fenced("plain\n") == "```text\nplain\n```"


def test_keys_are_made_safe_too():
    assert strings_safe({"op`\nx": ["a\nb"], "profiler_table": "l1\nl2"}) == \
        {"op' x": ["a b"], "profiler_table": "l1\nl2"}


# --- the site built with a hostile GPU folder ------------------------------------------------

def hostile(value, key=None, count=None):
    count = count if count is not None else [0]
    if isinstance(value, dict):
        return {k: hostile(v, k, count) for k, v in value.items()}
    if isinstance(value, list):
        return [hostile(v, key, count) for v in value]
    if isinstance(value, str) and key not in CONTROL:
        count[0] += 1
        return value + PAYLOADS[count[0] % len(PAYLOADS)] + PAYLOADS[(count[0] * 7 + 3) % len(PAYLOADS)]
    return value


def hostile_results():
    results = hostile(site_run())
    results["sweep_error"] = "RuntimeError: " + "".join(PAYLOADS)  # a section that broke
    return results


# attributes whose value the browser follows, loads or applies as an address
URL_ATTRIBUTES = {"href", "src", "srcset", "action", "formaction", "data", "poster", "background", "xlink:href",
                  "style", "content"}


class Tags(HTMLParser):
    """Every (tag, attribute names) of a page, counted; every attribute value that runs script."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.tags, self.scripted = Counter(), []

    def handle_starttag(self, tag, attrs):
        self.tags[(tag, tuple(sorted(name for name, _ in attrs)))] += 1
        for name, value in attrs:
            # a handler, or a javascript: address where the browser follows or loads one; in
            # a title (a kernel name's tooltip) the data's text is shown, never run
            if name.startswith("on") or (name in URL_ATTRIBUTES and "javascript:" in (value or "").lower()):
                self.scripted.append((tag, name, value))


    def count(self, tag):
        return sum(n for (name, _), n in self.tags.items() if name == tag)


def page_tags(site):
    found = {}
    for path in sorted(site.rglob("*.html")):
        parser = Tags()
        parser.feed(path.read_text(encoding="utf-8"))
        found[path.relative_to(site).as_posix()] = parser
    return found


def size(folder):
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())


@pytest.fixture(scope="module")
def hostile_site(tmp_path_factory):
    """The repository's site sources in a temporary folder, the site's run's folder replaced by
    the hostile run (tables, figures and the comparison rendered from it), built strictly."""
    copy = tmp_path_factory.mktemp("hostile")
    for part in ("docs", "snippets", "hooks", "overrides", "report", "data"):
        shutil.copytree(ROOT / part, copy / part, ignore=shutil.ignore_patterns("__pycache__"))
    for part in ("mkdocs.yml", "README.md", "package.json", "package-lock.json"):
        shutil.copy(ROOT / part, copy / part)
    if (ROOT / "node_modules").is_dir():  # the trace reader's Pyodide: both builds have it, or neither
        (copy / "node_modules").symlink_to(ROOT / "node_modules", target_is_directory=True)
    generated = copy / "docs" / "generated"
    folder = generated / SITE_RUN.name
    for part in ("tables", "figures"):
        shutil.rmtree(folder / part)
    write_results(hostile_results(), folder / "results.json")
    mark(folder)
    ref = load_reference()
    render_folder(folder, ref)
    render_comparison(generated, ref)
    site = copy / "site"
    proc = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(site)],
                          cwd=copy, capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=300)
    assert proc.returncode == 0, (proc.stdout + proc.stderr)[-4000:]
    return site


def test_the_hostile_run_reaches_the_pages(hostile_site):
    text = (hostile_site / "en" / "reproduce" / "index.html").read_text(encoding="utf-8")
    assert "onerror=alert(1)" in text  # shown as text: the payload is on the page ...
    assert "&lt;img src=x onerror=alert(1)&gt;" in text  # ... escaped


def test_no_element_or_attribute_that_the_committed_build_lacks(hostile_site, site_dir):
    normal, bad = page_tags(site_dir), page_tags(hostile_site)
    assert sorted(bad) == sorted(normal)
    for page, parser in bad.items():
        assert not parser.scripted, (page, parser.scripted[:3])
        new = set(parser.tags) - set(normal[page].tags)  # the data may choose another sentence,
        assert not new, (page, sorted(new)[:5])           # never another kind of element
        for tag in COUNTED:  # never more: a section the hostile run lacks may show fewer
            assert parser.count(tag) <= normal[page].count(tag), (page, tag)


def test_no_file_is_included_and_the_site_stays_its_size(hostile_site, site_dir):
    for path in hostile_site.rglob("*.html"):
        assert README_LINE not in path.read_text(encoding="utf-8"), path
    assert size(hostile_site) < 1.5 * size(site_dir)


def test_far_blocks_are_marked_where_a_string_holds_a_line_separator_of_unicode():
    """hooks/a11y.py finds the blocks with HTMLParser, which counts lines at "\\n" alone: a
    stranger's GPU or kernel name with U+2028, U+0085 or a form feed in a table must not move
    the offsets it edits at (it ended the build with an AssertionError)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("a11y_hook", ROOT / "hooks" / "a11y.py")
    a11y = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(a11y)
    odd = "".join(f"<p>{i} \u2028 \x85 \x0c \x1c</p>\n" for i in range(a11y.FAR))
    code = '<div class="highlight"><pre><code>a\nb</code></pre></div>\n'
    table = "<table><tr><td>x</td></tr></table>\n"
    out = a11y.mark_far_blocks(odd + code + table + "<p>end</p>\n" * a11y.LAST)
    assert '<pre data-cv="far" style="--sdpa-lines: 2">' in out
    assert '<div class="sdpa-block" data-cv="far" style="--sdpa-rows: 1"><table>' in out
