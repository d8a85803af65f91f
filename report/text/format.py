"""Numbers in each locale's format: nb uses a decimal comma, a no-break space as thousands
separator and before %, en uses a point and no space before %."""
from __future__ import annotations

import functools
import math

from .catalog import t

NBSP = "\u00a0"


def finite_or_dash(fmt):
    """A number that is NaN or infinite shows as "–" with the reason, never as "nan µs"."""
    @functools.wraps(fmt)
    def wrapper(x, lang, *args, **kwargs):
        if isinstance(x, float) and not math.isfinite(x):
            return t("value.not_a_number", lang)
        return fmt(x, lang, *args, **kwargs)
    return wrapper


@finite_or_dash
def fmt_num(x, lang, decimals=1):
    s = f"{x:,.{decimals}f}".replace("-", "\u2212")  # a real minus sign, not a hyphen
    if lang == "nb":
        s = s.replace(",", NBSP).replace(".", ",")
    return s


def unit(value, name, lang):
    """A number and its unit: a no-break space between them in nb, a plain one in en."""
    return f"{value}{NBSP if lang == 'nb' else ' '}{name}"


@finite_or_dash
def fmt_us(us, lang):
    """A time in µs, in ms from 1 ms, in s (one decimal) from 1 s; "–" if not measured."""
    if us is None:
        return t("value.none", lang)
    if us >= 1e6:
        return unit(fmt_num(us / 1e6, lang, 1), "s", lang)
    if us >= 1000:
        return unit(fmt_num(us / 1000, lang, 3), "ms", lang)
    return unit(fmt_num(us, lang, 1), "µs", lang)


@finite_or_dash
def fmt_sig(x, lang, sig=3):
    """x with at least `sig` significant figures and no exponent: 0.012345 -> 0.0123,
    126.43 -> 126, 4266.7 -> 4,267 (a whole number keeps all its digits)."""
    if x == 0:
        return fmt_num(0, lang, 0)
    return fmt_num(x, lang, max(0, sig - 1 - math.floor(math.log10(abs(x)))))


@finite_or_dash
def fmt_pct(p, lang, decimals=1):
    if p is None:
        return t("value.none", lang)
    return f"{fmt_num(p, lang, decimals)}{NBSP}%" if lang == "nb" else f"{fmt_num(p, lang, decimals)}%"


@finite_or_dash
def fmt_tflops(x, lang):
    return fmt_num(x, lang, 1 if x >= 10 else 3)


@finite_or_dash
def fmt_ratio(r, lang):
    return f"{fmt_num(r, lang, 1 if r >= 1 else 2)}×"


@finite_or_dash
def fmt_bytes(n, lang):
    if n is None:
        return t("value.none", lang)
    if n >= 2**30:
        return unit(fmt_num(n / 2**30, lang, 1), "GiB", lang)
    if n < 2**20:
        return unit(fmt_num(n / 1024, lang, 1), "KiB", lang)
    return unit(fmt_num(n / 2**20, lang, 1), "MiB", lang)


@finite_or_dash
def fmt_mib(mib, lang, decimals=1):
    return unit(fmt_num(mib, lang, decimals), "MiB", lang) if mib is not None else t("value.none", lang)


@finite_or_dash
def fmt_error(x, lang):
    """A relative error in scientific notation: 1,2e-03 / 1.2e-03."""
    return f"{x:.1e}".replace(".", "," if lang == "nb" else ".")


def blocks_text(n, lang):
    return f"{fmt_num(n, lang, 0)} {t('word.blocks' if n != 1 else 'word.block', lang)}"


def column_time_unit(values_us):
    """The one unit a column of times is written in: µs when its shortest time is under
    1 ms, ms when it is under 1 s, s otherwise (None and NaN cells are left out)."""
    known = [v for v in values_us if v is not None and math.isfinite(v)]
    shortest = min(known, default=0)
    return "µs" if shortest < 1000 else "ms" if shortest < 1e6 else "s"


def fmt_us_column(values_us, lang):
    """Times in µs as one column: every cell in the unit column_time_unit picks, with three
    significant figures (a whole number keeps its digits: 1,440 ms); a None cell stays None
    for the caller to fill."""
    name = column_time_unit(values_us)
    scale = {"µs": 1, "ms": 1e3, "s": 1e6}[name]
    return [None if v is None else fmt_num(v, lang) if not math.isfinite(v)
            else unit(fmt_sig(v / scale, lang), name, lang) for v in values_us]
