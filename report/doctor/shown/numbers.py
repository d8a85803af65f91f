"""How --explain writes a number: times in µs, shares in percent, never "-0.0".

    us(value)       one decimal: the detail's tables, whose columns line up
    sig_us(value)   three significant figures, a whole number at most four, to the ns (the first
                    screen: report/text/format.py's fmt_sig, the pages' precision rule, in
                    English)
The separators and the rounding are report/locale_numbers.py's, the pages' own (standard
library only, so the in-browser reader has them); the doctor writes a minus as a hyphen.
"""
import math

from ...locale_numbers import MAX_WHOLE_SIG, SIG, number, round_sig, sig_decimals

NS_DECIMALS = 3  # of µs: whole nanoseconds


def us(value):
    return f"{number(0.0 if abs(value) < 0.05 else value, 'en', 1, minus='-')} µs"


def sig(value, digits=SIG, most_decimals=None):
    """value with `digits` significant figures, no exponent, its whole part rounded to at
    most MAX_WHOLE_SIG figures: 172,296.4 -> 172,300; 16.16 -> 16.2; 0.012345 -> 0.0123
    (with most_decimals 3: 0.012, and 5e-324 -> 0)."""
    x = float(value)
    if x == 0 or not math.isfinite(x):
        return "0" if x == 0 else str(x)
    x = round_sig(x, MAX_WHOLE_SIG)
    decimals = sig_decimals(x, digits)
    if most_decimals is not None:
        decimals = min(decimals, most_decimals)
    text = number(x, "en", decimals, minus="-")
    return "0" if float(text.replace(",", "")) == 0 else text


def sig_us(value):
    """sig of a time, to the nanosecond at most, the finest a trace holds (events.MIN_DUR_US):
    a figure derived from its times (a difference, a median) has no finer digit to show."""
    return f"{sig(value, most_decimals=NS_DECIMALS)} µs"


def pct(value, digits=1):
    return f"{0.0 if abs(value) < 0.5 * 10 ** -digits else value:.{digits}f}%"
