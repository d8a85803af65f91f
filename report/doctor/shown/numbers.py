"""How --explain writes a number: times in µs, shares in percent, never "-0.0", in the
language asked for (en by default).

    us(value)       one decimal: the detail's tables, whose columns line up
    sig_us(value)   three significant figures, a whole number at most four, to the ns (the first
                    screen: report/text/format.py's fmt_sig, the pages' precision rule)
    pct(value)      a percentage (value already times 100), one decimal unless told
    count(n)        a count with separators: whole ones as they are, a median between two 2.5
The separators and the rounding are report/locale_numbers.py's, the pages' own (standard
library only, so the in-browser reader has them); in nb a decimal comma, a no-break space
between thousands and before µs and % (glossary.md); the doctor writes a minus as a hyphen.
"""
import math

from ...locale_numbers import MAX_WHOLE_SIG, NBSP, SIG, number, round_sig, sig_decimals

NS_DECIMALS = 3  # of µs: whole nanoseconds
UNIT_SPACE = {"en": " ", "nb": NBSP}  # before µs
PERCENT = {"en": "%", "nb": NBSP + "%"}


def local(text, lang):
    """An en-formatted number (1,234.5) as `lang` writes it."""
    return text.replace(",", NBSP).replace(".", ",") if lang == "nb" else text


def us(value, lang="en"):
    return f"{number(0.0 if abs(value) < 0.05 else value, lang, 1, minus='-')}{UNIT_SPACE[lang]}µs"


def sig(value, digits=SIG, most_decimals=None, lang="en"):
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
    return "0" if float(text.replace(",", "")) == 0 else local(text, lang)


def sig_us(value, lang="en"):
    """sig of a time, to the nanosecond at most, the finest a trace holds (events.MIN_DUR_US):
    a figure derived from its times (a difference, a median) has no finer digit to show."""
    return f"{sig(value, most_decimals=NS_DECIMALS, lang=lang)}{UNIT_SPACE[lang]}µs"


def pct(value, digits=1, lang="en"):
    return local(f"{0.0 if abs(value) < 0.5 * 10 ** -digits else value:.{digits}f}", lang) + PERCENT[lang]


def count(n, lang="en"):
    """A count in words' place: whole ones with separators (1,048,470), a median between two 2.5."""
    return local(f"{int(n):,}" if n == int(n) else f"{n:,.1f}", lang)
