"""Checking a loaded results.json against its types (report/schema.py): `check(results)`
raises SchemaError naming the dotted path of the first bad field, e.g.
"results.variants.flash.cuda_time_us.median: expected a number, got 'x'". Every number must
be finite and non-negative (none of the file's figures can be below zero) and never subnormal
(5e-324 is no measured figure); a time (Time) and a size or rate that renderers divide by
(Positive) at least MIN_DIVISOR (0 and -0.0 are refused: a division by them fails, and one by
a smaller number overflows); a whole number (int: a count or a size, which renderers divide
by too) at least 1, unless it is a Whole; a time or a spread of times at most MAX_TIME, any
other number at most MAX_NUMBER.

`check_leaves(results)`, before that: no string (value or key) holds a control character but
the tab and the line break, a bidi control or a lone surrogate (the ESC of a terminal
sequence would reach the terminal through matplotlib's warnings and the SVGs, which XML
refuses), and no whole number has more than MAX_DIGITS digits (`whole`, json's parse_int,
reads one as `Digits` instead of failing at Python's 4,300-digit limit with no path).
"""
import math
import re
import sys
import types
from functools import cache
from typing import (
    Annotated,
    Any,
    NotRequired,
    Required,
    Union,
    get_args,
    get_origin,
    get_type_hints,
    is_typeddict,
)

from .schema import MAX_NUMBER, MAX_TIME, MIN_DIVISOR, Results, Whole


class SchemaError(ValueError):
    """A field of results.json that does not have its type; the message names its path."""


SHOWN = 40  # characters of a bad value shown in the message

# what no string of results.json holds: C0 controls but \t and \n (an error's lines, the
# profiler's table), DEL and C1 controls, the bidi controls (U+061C, U+200E/F, U+202A-U+202E,
# U+2066-U+2069) and lone surrogates (no UTF-8 file can hold one)
UNSAFE = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\ud800-\udfff]")
MAX_DIGITS = 30  # of a whole number: MAX_NUMBER has 19


class Digits:
    """What `whole` reads for a whole number of more than MAX_DIGITS digits: no figure."""

    def __init__(self, digits):
        self.digits = digits

    def __repr__(self):
        return f"a whole number of {self.digits:,} digits"


def whole(text):
    """json's parse_int: an int, or Digits where the number is too long to be a figure."""
    return int(text) if len(text) <= MAX_DIGITS else Digits(len(text))


def escaped(text):
    """text with every UNSAFE character written out (\\x1b, \\u202e)."""
    return UNSAFE.sub(lambda m: ascii(m.group())[1:-1], text)


def _unsafe(text, where):
    found = UNSAFE.search(text)
    if found:
        code = ord(found.group())
        what = ("a bidi control" if code > 0xFF and not 0xD800 <= code <= 0xDFFF
                else "a lone surrogate" if code > 0xFF else "a control character")
        raise SchemaError(f"{where} holds {what} (U+{code:04X}) at character {found.start() + 1}: "
                          "a string of results.json holds none")


def check_leaves(value, where="results"):
    """Raise SchemaError at the first string (value or key) holding an UNSAFE character, or
    the first whole number of more than MAX_DIGITS digits."""
    if isinstance(value, str):
        _unsafe(value, where)
    elif isinstance(value, Digits):
        raise SchemaError(f"{where} is {value!r}: not a real figure")
    elif isinstance(value, dict):
        for key, item in value.items():
            _unsafe(key, f"{where}: the key '{escaped(key)[:SHOWN]}'")
            check_leaves(item, f"{where}.{key}")
    elif isinstance(value, list):
        for i, item in enumerate(value):
            check_leaves(item, f"{where}.{i}")


def _bad(where, expected, value):
    shown = repr(value)
    shown = shown if len(shown) <= SHOWN else shown[:SHOWN] + "…"
    raise SchemaError(f"{where}: expected {expected}, got {shown}")


def _number(value, where, limit, what, least=0.0, noun="figure"):
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        _bad(where, what, value)
    if not math.isfinite(value):
        raise SchemaError(f"{where}: {value!r} is not a finite number")
    if value < 0:
        raise SchemaError(f"{where}: {value!r} is negative")
    if value > limit:
        raise SchemaError(f"{where}: {value!r} is larger than {limit:g}, not a real figure")
    if value < least:
        raise SchemaError(f"{where}: {value!r} is below {least:g}, no real {noun} (renderers divide by it)")
    if 0 < value < sys.float_info.min:
        raise SchemaError(f"{where}: {value!r} is subnormal, not a real figure")


# Annotated kinds of schema.py: (the most, the least, what the least is for)
KINDS = {"time": (MAX_TIME, MIN_DIVISOR, "duration"), "spread": (MAX_TIME, 0.0, "figure"),
         "positive": (MAX_NUMBER, MIN_DIVISOR, "size or rate"), "number": (MAX_NUMBER, 0.0, "figure")}


@cache
def _fields(kind):
    return {key: (get_args(sub)[0] if get_origin(sub) in (Required, NotRequired) else sub)
            for key, sub in get_type_hints(kind, include_extras=True).items()}


def check(value, kind=Results, where="results"):
    """Raise SchemaError at the first field of value that is not of type kind."""
    origin = get_origin(kind)
    if kind is Any:
        return
    if origin is Annotated and kind != Whole:
        _, meta = get_args(kind)
        most, least, noun = KINDS[meta]
        _number(value, where, most, "a number", least, noun)
    elif origin in (Union, types.UnionType):
        options = get_args(kind)
        if value is None and type(None) in options:
            return
        check(value, next(o for o in options if o is not type(None)), where)
    elif is_typeddict(kind):
        if not isinstance(value, dict):
            _bad(where, "an object", value)
        missing = [k for k in sorted(kind.__required_keys__) if k not in value]
        if missing:
            raise SchemaError(f"{where}: missing {', '.join(missing)}")
        for key, sub in _fields(kind).items():
            if key in value:
                check(value[key], sub, f"{where}.{key}")
    elif origin is dict:
        if not isinstance(value, dict):
            _bad(where, "an object", value)
        _, sub = get_args(kind)
        for key, item in value.items():
            check(item, sub, f"{where}.{key}")
    elif origin is list:
        if not isinstance(value, list):
            _bad(where, "a list", value)
        (sub,) = get_args(kind)
        for i, item in enumerate(value):
            check(item, sub, f"{where}.{i}")
    elif kind is int or kind == Whole:
        if isinstance(value, bool) or not isinstance(value, int):
            _bad(where, "a whole number", value)
        _number(value, where, MAX_NUMBER, "a whole number", *((1, "count or size") if kind is int else ()))
    elif kind is str:
        if not isinstance(value, str):
            _bad(where, "a string", value)
    elif kind is bool:
        if not isinstance(value, bool):
            _bad(where, "true or false", value)
    else:
        raise TypeError(f"no check for {kind!r}")
