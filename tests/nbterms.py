"""The Norwegian term checker: one term per concept, en-forms, no "X sin" genitive, no
calques from the English, and a non-breaking space between a number and its unit
("146,8 µs", "13 %"). The rules are data: tests/data/terms_nb.yml. A library for the tests
(tests/test_terms.py checks the site with it, test_catalog.py the catalog):

    from nbterms import check_nb, nb_strings              # tests/ on sys.path
    check_nb("Pinnet til math tok 2,672 ms")              # -> list of problems
    for lineno, text in nb_strings(Path("build_tables.py").read_text()):
        check_nb(text, name=f"build_tables.py:{lineno}", markdown=True)

and runnable on files: python tests/nbterms.py docs/index.nb.md build_tables.py
(.md and .ipynb: Norwegian prose; .py: the "nb" values of its {"nb": ..., "en": ...} dicts).
"""

from __future__ import annotations

import ast
import functools
import json
import re
import sys
from dataclasses import dataclass
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
TERMS = Path(__file__).resolve().parent / "data" / "terms_nb.yml"
NBSP = "\u00a0\u202f"  # no-break space, narrow no-break space


# --------------------------------------------------------------------------- rules


@dataclass(frozen=True)
class Rule:
    concept: str
    pattern: re.Pattern
    why: str


@functools.cache
def load_rules(path: Path = TERMS) -> tuple[tuple[Rule, ...], tuple[str, ...]]:
    """The forbidden forms of the term list as compiled rules, and the list of units."""
    data = yaml.safe_load(Path(path).read_text(encoding="utf-8"))
    rules = []
    for term in data["terms"]:
        why = term.get("why") or f"use {term['use']}"
        for word in term.get("words") or []:
            body = r"\s+".join(re.escape(part) for part in str(word).split())
            pattern = re.compile(rf"(?<![\w-]){body}(?![\w-])", re.IGNORECASE)
            rules.append(Rule(term["concept"], pattern, why))
        for regex in term.get("regex") or []:
            rules.append(Rule(term["concept"], re.compile(regex, re.IGNORECASE), why))
    return tuple(rules), tuple(data["units"])


@functools.cache
def unit_patterns(units: tuple[str, ...]):
    alternation = "|".join(re.escape(u) for u in sorted(units, key=len, reverse=True))
    after_number = re.compile(rf"(?<![\w.,])(\d+(?:[.,]\d+)*)([ \t{NBSP}]?)({alternation})(?![\w/])")
    decimal_point = re.compile(rf"(?<![\w.])\d+\.\d+[ \t{NBSP}]?(?:{alternation})(?![\w/])")
    return after_number, decimal_point


THOUSANDS_WITH_SPACE = re.compile(r"(?<![\d,.])\d{1,3}(?: \d{3})+(?![\d,])")
LONG_NUMBER = re.compile(r"(?<![\w.,-])\d{5,}(?![\w.,])")


# --------------------------------------------------------------------------- prose


FENCE = re.compile(r"^\s*(`{3,}|~{3,})")
INCLUDE = re.compile(r"^\s*;?--8<--")
INLINE_CODE = re.compile(r"(`+)(.+?)\1")
HTML_COMMENT = re.compile(r"<!--.*?-->")
IMAGE_OR_LINK = re.compile(r"!?\[([^\]]*)\]\([^)]*\)")
LINK_DEFINITION = re.compile(r"^\s*\[[^\]]+\]:\s*\S+.*$")
AUTOLINK = re.compile(r"<(?:https?|mailto):[^>]*>")
URL = re.compile(r"\b(?:https?://|www\.)\S+")
ATTR_LIST = re.compile(r"\{[^{}]*\}")
HTML_TAG = re.compile(r"</?[A-Za-z][^>]*>")
CODE_PLACEHOLDER = "KODE"  # a name in code: keeps "`SDPA` sitt valg" detectable


def prose_lines(text: str, markdown: bool = True) -> list[tuple[int, str]]:
    """The prose of a Markdown text, line by line (1-based line numbers of `text`).

    Left out: fenced code blocks, --8<-- include lines (single-line and block form), HTML
    comments (the pytest markers), link and image targets (their text stays), URLs,
    attribute lists ({ #id }, { loading=lazy }) and HTML tags. Inline code becomes the
    word KODE. With markdown=False only inline code and URLs are taken out.
    """
    out = []
    fence = None
    in_include_block = False
    for n, line in enumerate(text.split("\n"), start=1):
        if markdown:
            m = FENCE.match(line)
            if fence is None and m:
                fence = m.group(1)
                continue
            if fence is not None:
                if re.match(r"^\s*" + re.escape(fence[0]) + "{" + str(len(fence)) + r",}\s*$", line):
                    fence = None
                continue
            if INCLUDE.match(line):
                if not line.strip().lstrip(";")[len("--8<--"):].strip():
                    in_include_block = not in_include_block
                continue
            if in_include_block:
                continue
            if LINK_DEFINITION.match(line):
                continue
            line = HTML_COMMENT.sub(" ", line)
        line = INLINE_CODE.sub(CODE_PLACEHOLDER, line)
        if markdown:
            line = IMAGE_OR_LINK.sub(r"\1", line)
            line = AUTOLINK.sub(" ", line)
        line = URL.sub(" ", line)
        if markdown:
            line = ATTR_LIST.sub(" ", line)
            line = HTML_TAG.sub(" ", line)
        if line.strip():
            out.append((n, line))
    return out


def check_nb(text: str, name: str = "<text>", markdown: bool = True, terms: Path = TERMS) -> list[str]:
    """Problems in a Norwegian text: forbidden terms, forms, genitives and calques from the
    term list, and numbers written wrongly before a unit. One line per problem:
    'name:line: «what was found»: what to do'. An empty list: the text passes."""
    rules, units = load_rules(terms)
    after_number, decimal_point = unit_patterns(units)
    problems = []
    for n, line in prose_lines(text, markdown=markdown):
        where = f"{name}:{n}"
        for rule in rules:
            for m in rule.pattern.finditer(line):
                problems.append(f"{where}: «{m.group(0)}»: {rule.why}")
        for m in after_number.finditer(line):
            if not m.group(2) or m.group(2) not in NBSP:
                problems.append(
                    f"{where}: «{m.group(0)}»: a non-breaking space between number and unit "
                    f"(«{m.group(1)}\\u00a0{m.group(3)}»)"
                )
        for m in decimal_point.finditer(line):
            problems.append(f"{where}: «{m.group(0)}»: decimal comma in Norwegian")
        for m in THOUSANDS_WITH_SPACE.finditer(line):
            problems.append(f"{where}: «{m.group(0)}»: a non-breaking space as thousands separator")
        for m in LONG_NUMBER.finditer(line):
            problems.append(f"{where}: «{m.group(0)}»: group the digits with non-breaking spaces")
    return problems


def notebook_markdown(path: Path) -> str:
    """The markdown cells of a notebook as one text; code cells as blank lines, so that
    line numbers count through the whole notebook."""
    nb = json.loads(path.read_text(encoding="utf-8"))
    parts = []
    for cell in nb["cells"]:
        source = "".join(cell["source"])
        parts.append(source if cell["cell_type"] == "markdown" else "\n" * source.count("\n"))
    return "\n\n".join(parts)


def notebook_code(path: Path) -> list[str]:
    nb = json.loads(path.read_text(encoding="utf-8"))
    return ["".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "code"]


def nb_strings(source: str) -> list[tuple[int, str]]:
    """The Norwegian strings of Python source: every string inside the "nb" value of a dict
    literal ({"nb": "...", "en": "..."}, also nested), with its line number."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Dict):
            continue
        for key, value in zip(node.keys, node.values, strict=True):
            if isinstance(key, ast.Constant) and key.value == "nb":
                found += _strings(value)
    return sorted(found)


def _strings(node) -> list[tuple[int, str]]:
    """String constants in an expression, not counting the keys of dicts in it."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [(node.lineno, node.value)]
    if isinstance(node, ast.Dict):
        return [s for value in node.values for s in _strings(value)]
    return [s for child in ast.iter_child_nodes(node) for s in _strings(child)]


def check_file(path: Path) -> list[str]:
    name = path.relative_to(ROOT).as_posix() if path.is_relative_to(ROOT) else str(path)
    if path.suffix == ".ipynb":
        return check_nb(notebook_markdown(path), name=name)
    if path.suffix == ".py":
        return [
            problem
            for lineno, text in nb_strings(path.read_text(encoding="utf-8"))
            for problem in check_nb(text, name=f"{name}:{lineno}")
        ]
    return check_nb(path.read_text(encoding="utf-8"), name=name)


def main(argv: list[str]) -> int:
    problems = [p for arg in argv for p in check_file(Path(arg).resolve())]
    print("\n".join(problems) if problems else "no problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
