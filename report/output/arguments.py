"""build_tables.py's command line: the type of each value (report/one_line.py's Parser says a wrong
value or option in one line, exit 2, instead of argparse's usage block)."""
from __future__ import annotations

import argparse
import math
from pathlib import Path

from ..paths import MAX_SLUG, SLUG
from ..variants import EXTRA_VARIANTS, VARIANTS

SHOWN = 40  # characters of a bad argument repeated in its error line


def _shown(text):
    return repr(text if len(text) <= SHOWN else text[:SHOWN] + "…")


def whole_number(most):
    """A type: a whole number from 1 to `most` (checked before any work: a run of 10^23
    steps would only end by being killed)."""
    def parse(text):
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{_shown(text)} is not a whole number") from None
        if value < 1:
            raise argparse.ArgumentTypeError(f"{value} must be at least 1")
        if value > most:
            raise argparse.ArgumentTypeError(f"{value:,} is more than {most:,}, the most it takes")
        return value

    return parse


def seconds(most):
    """A type: a positive, finite number of seconds, at most `most`."""
    def parse(text):
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{_shown(text)} is not a number of seconds") from None
        if not math.isfinite(value) or value <= 0:
            raise argparse.ArgumentTypeError(f"{_shown(text)} must be a positive, finite number of seconds")
        if value > most:
            raise argparse.ArgumentTypeError(f"{value:g} s is more than {most:g} s, the most it takes")
        return value

    return parse


def slug_name(text):
    if len(text) > MAX_SLUG:
        raise argparse.ArgumentTypeError(f"is {len(text):,} characters long; a folder name has at "
                                         f"most {MAX_SLUG}")
    if not SLUG.fullmatch(text):
        raise argparse.ArgumentTypeError(
            f"{_shown(text)} is not a folder name of lower-case letters, digits and '-' (e.g. h200)")
    return text


def variant_list(text):
    names = [n.strip() for n in text.split(",") if n.strip()]
    known = VARIANTS + EXTRA_VARIANTS
    unknown = [n for n in names if n not in known]
    if unknown or not names:
        raise argparse.ArgumentTypeError(
            f"unknown variant(s) {', '.join(unknown) or '(none given)'}; choose from {', '.join(known)}")
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:
        raise argparse.ArgumentTypeError(f"{', '.join(twice)} given more than once")
    return names


def out_folder(text):
    if not text.strip():
        raise argparse.ArgumentTypeError("is empty: name a folder, e.g. build-out")
    if not text.isprintable():
        raise argparse.ArgumentTypeError(f"{text!r} holds a line break or a control character")
    return Path(text)


def given_options(parser, argv):
    """The dests of the options the command line names (defaults left out)."""
    names = set()
    for token in argv:
        if token.startswith("--"):
            opt = token.split("=", 1)[0]
            action = parser._option_string_actions.get(opt)
            if action is not None:
                names.add(action.dest)
    return names
