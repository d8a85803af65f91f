"""MkDocs hook: make the notebook page (docs/explore.{nb,en}.ipynb) work in this site.

1. mkdocs-static-i18n rebuilds every File of the docs dir as a plain
   `mkdocs.structure.files.File`, which drops mkdocs-jupyter's `NotebookFile` wrapper:
   the notebook is then copied as an asset and its raw JSON is served as the page, while
   `--strict` still passes (ultrabug/mkdocs-static-i18n#198). Making `.ipynb` count as a
   documentation page on the File class itself survives that rebuild.

2. mkdocs-jupyter's HTML template puts things into the page this site must not have:
   - a MathJax <script> whose src is a CDN URL, or "" when no URL is configured (the
     browser then fetches the page itself as a script), plus its config script;
   - JupyterLab's whole stylesheet (about 575 KB, inlined into each language's page), a
     light-only pygments theme that also restyles every <pre>, and a Python list repr of
     that theme. docs/stylesheets/notebook.css replaces all of them with a few rules.
   They are removed from the notebook's HTML here. The build fails if the notebook still
   loads a script from anywhere, so a template change cannot slip an external request in.

3. matplotlib's inline backend is what turns `plt.show()` into an image in the page. An
   MPLBACKEND in the environment (pytest set-ups often export Agg) is inherited by the
   kernel and silently replaces it: the page then has no plot. It is dropped here.

4. ipykernel warns "Kernel is running over TCP without encryption" on every executed
   notebook, which would be the build's only WARNING line. hooks/jupyter/ holds an nbconvert
   config that lets jupyter_client provision CurveZMQ keys (the python3 kernelspec declares
   support), so the kernel connection is encrypted and the warning is gone.

5. nbconvert gives every plot the alt text "No description has been provided for this
   image", in English on the Norwegian page too, and no width or height. A plot without
   an alt of its own (nbconvert takes one from the cell's metadata "alt") is described
   here in the page's language by the heading it stands under ("Figur: CUDA-tid mot
   CPU-tid"), and gets the PNG's width and height and the class `sdpa-figure`, which
   keeps it readable on a phone (docs/stylesheets/a11y.css). The notebooks' code and
   text stay as they are.
"""

from __future__ import annotations

import base64
import html as html_lib
import os
import re
import struct
from pathlib import Path

from mkdocs.exceptions import PluginError
from mkdocs.structure.files import File

_is_documentation_page = File.is_documentation_page


def _is_documentation_page_or_notebook(self: File) -> bool:
    return self.src_uri.endswith(".ipynb") or _is_documentation_page(self)


File.is_documentation_page = _is_documentation_page_or_notebook

_JUPYTER_CONFIG = str(Path(__file__).resolve().parent / "jupyter")

_SCRIPT_WITH_SRC = re.compile(r"<script\b[^>]*\bsrc=[^>]*>\s*</script>", re.IGNORECASE)
_NON_JS_SCRIPT = re.compile(
    r"<script type=\"text/x-mathjax-config\">.*?</script>", re.IGNORECASE | re.DOTALL
)
_MERMAID_MODULE = re.compile(
    r"<script type=\"module\">(?:(?!</script>).)*?mermaid(?:(?!</script>).)*</script>",
    re.IGNORECASE | re.DOTALL,
)
_STYLE = re.compile(r"<style\b[^>]*>.*?</style>", re.IGNORECASE | re.DOTALL)

_NBCONVERT_ALT = 'alt="No description has been provided for this image"'
_FIGURE_WORD = {"nb": "Figur", "en": "Figure"}
_HEADING = re.compile(r"<h([1-6])\b[^>]*>(.*?)</h\1>", re.IGNORECASE | re.DOTALL)
_ANCHOR_LINK = re.compile(r'<a class="anchor-link"[^>]*>.*?</a>', re.DOTALL)
_PLOT = re.compile(
    r'(<div class="jp-RenderedImage[^"]*)("[^>]*>\s*)(<img\b[^>]*\bsrc="data:image/png;base64,([A-Za-z0-9+/=]{32})[^"]*"[^>]*>)'
)


def on_config(config):
    os.environ.pop("MPLBACKEND", None)
    paths = [p for p in os.environ.get("JUPYTER_CONFIG_PATH", "").split(os.pathsep) if p]
    if _JUPYTER_CONFIG not in paths:
        os.environ["JUPYTER_CONFIG_PATH"] = os.pathsep.join([_JUPYTER_CONFIG, *paths])
    return config


def on_page_content(html: str, page, config, files) -> str:
    if not page.file.src_uri.endswith(".ipynb"):
        return html
    html = _SCRIPT_WITH_SRC.sub("", html)
    html = _NON_JS_SCRIPT.sub("", html)
    html = _MERMAID_MODULE.sub("", html)
    html = _STYLE.sub("", html)
    if re.search(r"<script\b[^>]*\bsrc=", html, re.IGNORECASE):
        raise PluginError(f"{page.file.src_uri}: the notebook HTML still loads a script")
    return describe_plots(html, config.theme["language"], page.title or "")


def _plain(fragment: str) -> str:
    text = re.sub(r"<[^>]+>", "", _ANCHOR_LINK.sub("", fragment))
    return re.sub(r"\s+", " ", html_lib.unescape(text)).strip()


def describe_plots(html: str, language: str, page_title: str) -> str:
    """Alt text in the page's language, width, height and a class for each PNG plot."""
    word = _FIGURE_WORD.get(language, _FIGURE_WORD["en"])

    def plot(m: re.Match) -> str:
        div_class, div_rest, img, head = m.groups()
        if _NBCONVERT_ALT in img:
            headings = _HEADING.findall(html, 0, m.start())
            about = _plain(headings[-1][1]) if headings else page_title
            alt = html_lib.escape(f"{word}: {about}" if about else word)
            img = img.replace(_NBCONVERT_ALT, f'alt="{alt}"')
        if not re.search(r"\bwidth=", img):
            width, height = struct.unpack(">II", base64.b64decode(head)[16:24])
            img = img.replace("<img ", f'<img width="{width}" height="{height}" ', 1)
        return f"{div_class} sdpa-figure{div_rest}{img}"

    return _PLOT.sub(plot, html)
