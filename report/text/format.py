"""Numbers in each locale's format: nb uses a decimal comma, a no-break space as thousands
separator and before %, en uses a point and no space before %. The separators and the
significant-figure rounding are report/locale_numbers.py's, which the trace doctor shares."""
from __future__ import annotations

import functools
import math

from .. import locale_numbers
from ..locale_numbers import MAX_WHOLE_SIG, NBSP, SIG, number, sig_decimals
from .catalog import t


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
    return number(x, lang, decimals)


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
    if us >= 1000:  # at most four significant figures: 2.620 ms, 15.26 ms, 175.5 ms
        ms = us / 1000
        return unit(fmt_num(ms, lang, 3 if ms < 10 else 2 if ms < 100 else 1), "ms", lang)
    return unit(fmt_num(us, lang, 1), "µs", lang)


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
    """MiB with `decimals`; from 1,000 MiB whole, at most four significant figures (131,600 MiB)."""
    if mib is None:
        return t("value.none", lang)
    if abs(mib) >= 1000:
        return unit(fmt_num(round_sig(mib, 4), lang, 0), "MiB", lang)
    return unit(fmt_num(mib, lang, decimals), "MiB", lang)


@finite_or_dash
def fmt_error(x, lang):
    """A relative error in scientific notation: 1,2e-03 / 1.2e-03."""
    return f"{x:.1e}".replace(".", "," if lang == "nb" else ".")


def blocks_text(n, lang):
    return f"{fmt_num(n, lang, 0)} {t('word.blocks' if n != 1 else 'word.block', lang)}"


# The precision rule (issue 19): three significant figures, unless telling two values
# apart needs more; one unit for a whole table column. fmt_sig, fmt_distinct, fmt_us_sig
# and fmt_us_column implement it; a number never shows digits its measurement lacks.
MAX_EXTRA_SIG = 4  # at most this many more, to tell apart two values that differ
TIME_UNITS = (("s", 1e6), ("ms", 1e3), ("µs", 1.0))  # larger first: µs per unit


round_sig = finite_or_dash(locale_numbers.round_sig)


def fmt_sig(x, lang, sig=SIG):
    """x with at least `sig` significant figures and no exponent: 0.012345 -> 0.0123,
    45.894 -> 45.9, 126.43 -> 126, 4266.7 -> 4,267 (a whole number keeps its digits up to
    four figures; 46,104 -> 46,100), 9.996 -> 10.0; "–" for None."""
    if x is None:
        return t("value.none", lang)
    return fmt_num(round_sig(x, MAX_WHOLE_SIG), lang, sig_decimals(x, sig))


def _finite(x):
    return isinstance(x, (int, float)) and math.isfinite(x)


def distinct_digits(values, digits=SIG):
    """Significant figures per value: `digits` each, more (up to MAX_EXTRA_SIG more) for
    values that differ but would be shown the same, until they are told apart."""
    sig = [digits] * len(values)
    for _ in range(MAX_EXTRA_SIG):
        shown = {}
        for i, v in enumerate(values):
            if _finite(v):
                shown.setdefault(round(v, sig_decimals(v, sig[i])), set()).add(float(v))
        clash = {text for text, originals in shown.items() if len(originals) > 1}
        if not clash:
            break
        for i, v in enumerate(values):
            if _finite(v) and round(v, sig_decimals(v, sig[i])) in clash:
                sig[i] += 1
    return sig


def fmt_distinct(values, lang, digits=SIG):
    """Values shown side by side (a pair in a sentence, a column): each with `digits`
    significant figures, more where two that differ would read the same."""
    return [fmt_sig(v, lang, d) for v, d in zip(values, distinct_digits(values, digits), strict=True)]


def time_unit(values_us):
    """(name, µs per unit) for a column of times: the unit fmt_us would give the
    column's largest value, so no value shows more than three integer digits."""
    finite = [abs(v) for v in values_us if _finite(v)]
    top = max(finite) if finite else 0
    return next(((name, size) for name, size in TIME_UNITS if top >= size), TIME_UNITS[-1])


@finite_or_dash
def fmt_us_sig(us, lang, digits=SIG):
    """A time with three significant figures in fmt_us's unit: 683 ms, 45.9 ms, 4.96 µs."""
    if us is None:
        return t("value.none", lang)
    name, size = time_unit([us])
    return unit(fmt_sig(us / size, lang, digits), name, lang)


@finite_or_dash
def fmt_ratio_sig(r, lang, digits=SIG):
    """A ratio with three significant figures: 1.00×, 0.998×, 17.2×."""
    return f"{fmt_sig(r, lang, digits)}×"


@finite_or_dash
def fmt_pct_sig(p, lang, digits=SIG):
    """A percentage with three significant figures: 56.3 %, 9.04 %, 102 % (nb: 56,3 %)."""
    if p is None:
        return t("value.none", lang)
    return fmt_pct(p, lang, sig_decimals(p, digits))


def fmt_us_range(low_high, lang, digits=SIG):
    """A range of times over rounds in one unit, the unit written once: 31.8–46.9 µs
    (nb: 31,8–46,9 µs); each end with three significant figures, and one value where
    both ends read the same (steady to three figures); "–" for None."""
    if low_high is None:
        return t("value.none", lang)
    low, high = low_high
    name, size = time_unit([low, high])
    a, b = fmt_sig(low / size, lang, digits), fmt_sig(high / size, lang, digits)
    return unit(a if a == b else f"{a}\u2013{b}", name, lang)


def fmt_pct_range(shares, lang):
    """"55–81%" (nb "55–81 %"): shares (0.55, not 55) over rounds, None for a round
    without the figure, the unit written once; one value where both ends read the same."""
    values = [s for s in shares if s is not None]
    low, high = round(100 * min(values)), round(100 * max(values))
    return fmt_pct(high, lang, 0) if low == high else f"{fmt_num(low, lang, 0)}\u2013{fmt_pct(high, lang, 0)}"


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
