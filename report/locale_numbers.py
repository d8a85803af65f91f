"""Numbers as each language writes them, for the pages (report/text/format.py) and the trace
doctor (report/doctor/shown/numbers.py, the SVG timeline's labels): standard library only, so
the installed and in-browser reader has it too.

    number(x, lang, decimals)   1,234.5 (en), 1 234,5 (nb: a no-break space between thousands
                                and a decimal comma, glossary.md); a minus sign (U+2212) unless
                                minus="-" (the doctor's text and drawings keep the hyphen)
    round_sig(x, sig)           x rounded to `sig` significant figures where its whole part
                                has more
    sig_decimals(x, digits)     the decimals that show x with `digits` significant figures

SIG and MAX_WHOLE_SIG are the precision rule's (issue 19): three significant figures, a
whole number's figures at most four.
"""
from __future__ import annotations

import math

NBSP = "\u00a0"
MINUS = "\u2212"  # a real minus sign, not a hyphen
SIG = 3  # significant figures a measured number is shown with
MAX_WHOLE_SIG = 4  # a whole number's figures shown at most (the precision scan's limit)


def number(x, lang, decimals=1, minus=MINUS):
    s = f"{x:,.{decimals}f}"
    if minus != "-":
        s = s.replace("-", minus)
    if lang == "nb":
        s = s.replace(",", NBSP).replace(".", ",")
    return s


def _finite(x):
    return isinstance(x, (int, float)) and math.isfinite(x)


def round_sig(x, sig):
    """x rounded to `sig` significant figures where its whole part has more (46,104 -> 46,100
    at 4); smaller x unchanged."""
    if not _finite(x) or x == 0 or abs(x) < 10 ** sig:
        return x
    return round(x, sig - 1 - int(math.floor(math.log10(abs(x)))))


def sig_decimals(x, digits=SIG):
    """Decimals that show x with `digits` significant figures; 0 where the integer part
    has that many digits or more (an integer part is never rounded away)."""
    x = abs(float(x))
    if x == 0 or not math.isfinite(x):
        return 0
    decimals = max(0, digits - 1 - math.floor(math.log10(x)))
    if decimals and abs(round(x, decimals)) >= 10 ** (digits - decimals):  # 9.996 -> 10.0
        decimals -= 1
    return decimals
