"""The nb/en string catalog (catalog.toml beside this file), looked up by dotted key."""
from __future__ import annotations

import string
import tomllib
from functools import cache
from pathlib import Path

from .display import LANGS

CATALOG_FILE = Path(__file__).with_name("catalog.toml")


def _flatten(table, prefix=""):
    for key, value in table.items():
        if set(value) == set(LANGS) and all(isinstance(value[lang], str) for lang in LANGS):
            yield prefix + key, value
        else:
            yield from _flatten(value, prefix + key + ".")


@cache
def catalog():
    """{"group.key": {"nb": ..., "en": ...}} for every string."""
    with CATALOG_FILE.open("rb") as fh:
        return dict(_flatten(tomllib.load(fh)))


def t(key, lang, **values):
    """The string `key` in `lang`, with its {placeholders} filled from `values` if given."""
    text = catalog()[key][lang]
    return text.format(**values) if values else text


def placeholders(text):
    return {name for _, name, _, _ in string.Formatter().parse(text) if name}
