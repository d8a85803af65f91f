"""The nb and en version of each page show the same things.

Same --8<-- includes in the same order (a generated table's .nb.md and .en.md count as the
same include, and each language includes its own), the same heading ids (explicit
`{ #id }` on every heading), the same number of code blocks and tables.
The notebook page: the same code cells and the same outline of headings; the code differs
only in the line `LANG = "nb"` / `LANG = "en"` that picks the language of its output.
"""

from __future__ import annotations

import json
import re

import markdown
import pytest
from pagecode import (
    DOCS,
    LANGS,
    expand_snippets,
    find_fences,
    includes,
    markdown_extensions,
    markdown_pages,
    notebooks,
    rel,
)

LANG_SUFFIX = re.compile(r"\.(nb|en)(?=\.[A-Za-z0-9]+(?::|$))")


def twins():
    stems = sorted({rel(p).rsplit(".", 2)[0] for p in markdown_pages()})
    return stems


STEMS = twins()


def page(stem: str, lang: str):
    return DOCS / f"{stem}.{lang}.md"


def without_lang(target: str) -> str:
    return LANG_SUFFIX.sub(".LANG", target)


def outside_fences(text: str) -> list[tuple[int, str]]:
    fenced = set()
    lines = text.split("\n")
    for fence in find_fences(text):
        n = fence.code.count("\n")
        fenced.update(range(fence.lineno, fence.lineno + n + 2))
    return [(i + 1, line) for i, line in enumerate(lines) if i + 1 not in fenced]


def render(text: str) -> str:
    extensions, configs = markdown_extensions()
    return markdown.Markdown(extensions=extensions, extension_configs=configs).convert(text)


def heading_ids(html: str) -> list[str]:
    return re.findall(r"<h[1-6][^>]*\bid=\"([^\"]+)\"", html)


def test_every_page_has_a_twin():
    names = {rel(p) for p in markdown_pages()}
    missing = [
        f"{stem}.{lang}.md" for stem in STEMS for lang in LANGS if f"{stem}.{lang}.md" not in names
    ]
    assert not missing, f"pages without their other-language twin: {missing}"
    strays = [n for n in names if not re.search(r"\.(nb|en)\.md$", n)]
    assert not strays, f"pages without a language suffix (.nb.md / .en.md): {strays}"
    assert len(STEMS) >= 6


@pytest.mark.parametrize("stem", STEMS)
def test_same_includes(stem):
    found = {lang: includes(page(stem, lang).read_text(encoding="utf-8")) for lang in LANGS}
    assert [without_lang(t) for t in found["nb"]] == [without_lang(t) for t in found["en"]], found
    for lang in LANGS:
        other = [t for t in found[lang] if LANG_SUFFIX.search(t) and f".{lang}." not in t]
        assert not other, f"{stem}.{lang}.md includes another language's file: {other}"


@pytest.mark.parametrize("stem", STEMS)
def test_explicit_heading_ids(stem):
    for lang in LANGS:
        text = page(stem, lang).read_text(encoding="utf-8")
        bare = [
            f"line {n}: {line}"
            for n, line in outside_fences(text)
            if re.match(r"^#{1,6}\s", line) and not re.search(r"\{[^}]*#[\w-]+[^}]*\}\s*$", line)
        ]
        assert not bare, f"{stem}.{lang}.md: headings need an explicit id, e.g. '## Tittel {{ #title }}':\n" + "\n".join(bare)


@pytest.mark.parametrize("stem", STEMS)
def test_same_heading_ids_code_blocks_and_tables(stem):
    seen = {}
    for lang in LANGS:
        expanded = expand_snippets(page(stem, lang).read_text(encoding="utf-8"), lang=lang)
        html = render(expanded)
        seen[lang] = {
            "heading ids": heading_ids(html),
            "code blocks": len(find_fences(expanded)),
            "tables": html.count("<table"),
        }
    assert seen["nb"]["heading ids"], f"{stem}: no heading"
    for what in ("heading ids", "code blocks", "tables"):
        assert seen["nb"][what] == seen["en"][what], f"{stem}: {what} differ: nb {seen['nb'][what]} / en {seen['en'][what]}"


def test_include_parser():
    text = "\n".join(
        [
            '--8<-- "naive_attention.py:naive"',
            "    --8<-- 'generated/h200/tables/headline.nb.md'",
            ';--8<-- "escaped.md"',
            "--8<--",
            "a.md",
            "generated/cpu/tables/b.nb.md",
            "--8<--",
        ]
    )
    assert includes(text) == [
        "naive_attention.py:naive",
        "generated/h200/tables/headline.nb.md",
        "a.md",
        "generated/cpu/tables/b.nb.md",
    ]
    assert without_lang("generated/h200/tables/headline.nb.md") == "generated/h200/tables/headline.LANG.md"
    assert without_lang("naive_attention.py:naive") == "naive_attention.py:naive"


# --------------------------------------------------------------------------- notebook


NOTEBOOK_LANG = re.compile(r'^LANG = "(\w+)"', flags=re.M)


def notebook_outline(path):
    nb = json.loads(path.read_text(encoding="utf-8"))
    kinds, levels, code = [], [], []
    for cell in nb["cells"]:
        source = "".join(cell["source"])
        kinds.append(cell["cell_type"])
        if cell["cell_type"] == "markdown":
            levels += [len(m) for m in re.findall(r"^(#{1,6})\s", source, flags=re.M)]
        elif cell["cell_type"] == "code":
            code.append(NOTEBOOK_LANG.sub('LANG = "…"', source))
    return {"cells": kinds, "heading levels": levels, "code": code}


def notebook_lang(path) -> list[str]:
    nb = json.loads(path.read_text(encoding="utf-8"))
    return [lang for cell in nb["cells"] if cell["cell_type"] == "code"
            for lang in NOTEBOOK_LANG.findall("".join(cell["source"]))]


def test_notebook_parity():
    paths = notebooks()
    assert set(paths) == set(LANGS) and all(p.is_file() for p in paths.values()), paths
    nb, en = (notebook_outline(paths[lang]) for lang in LANGS)
    assert nb["heading levels"] and nb["heading levels"][0] == 1
    assert nb == en
    for lang, path in paths.items():
        assert notebook_lang(path) == [lang], f"{path.name} must set LANG = {lang!r} once"
