"""The precision rule (report/text/format.py): three significant figures unless a
difference needs more, one unit per table column; and a scan of every generated table
for numbers shown with more than four significant figures."""
import re
from pathlib import Path

import pytest

from report.paths import DEFAULT_OUT
from report.text.format import (
    NBSP,
    distinct_digits,
    fmt_distinct,
    fmt_pct_sig,
    fmt_ratio_sig,
    fmt_sig,
    fmt_us_column,
    fmt_us_range,
    fmt_us_sig,
    sig_decimals,
    time_unit,
)

MAX_SIG = 4  # the scan's limit: three figures, one more where two values needed it

# What the scan leaves out, each with its reason:
SKIPPED = (
    (re.compile(r"^\s*(~~~|```).*?^\s*\1", re.S | re.M), "fenced code: PyTorch's own messages, as written"),
    (re.compile(r"`[^`]*`"), "code: kernel names, API names, command lines"),
    (re.compile(r"<!--.*?-->", re.S), "the generated-file header"),
    (re.compile(r"\]\([^)]*\)"), "link targets"),
    (re.compile(r"\d+(?:\.\d+){2,}\S*"), "versions: driver 580.159.04, torch 2.11.0+cu130"),
    (re.compile(r"\d{4}-\d{2}-\d{2}"), "dates"),
    (re.compile(r"\d[.,]?\d*e[-+]\d+"), "relative errors in scientific notation (two figures)"),
    (re.compile(r"\w*(?:\d[A-Za-z_]|[A-Za-z_]\d)\w*"), "identifiers that hold digits: sm90, bf16, knob_7, 64x128x64"),
)
UNITS = r"(?:µs|ms|s|%|×|TFLOP/s|[GT]B/s|[KMG]iB)(?!\w)"
NUMBER = {  # integer part (with thousands separators), decimals, then a unit if one follows
    "en": re.compile(rf"(?<![\d.,])(\d{{1,3}}(?:,\d{{3}})+|\d+)(\.\d+)?(?![\d])(\s?{UNITS})?"),
    "nb": re.compile(rf"(?<![\d,{NBSP}])(\d{{1,3}}(?:{NBSP}\d{{3}})+|\d+)(,\d+)?(?![\d])([ {NBSP}]?{UNITS})?"),
}


def significant(integer, decimals):
    """Significant figures as shown: leading zeros never count, an integer's trailing
    zeros do not either (2 620 is three figures), a decimal's do (2.620 is four)."""
    digits = re.sub(r"\D", "", integer) + decimals[1:]
    if not decimals:
        digits = digits.rstrip("0")
    return len(digits.lstrip("0"))


def too_precise(text, lang):
    """Every number of the text shown with more than MAX_SIG significant figures: decimals
    always count; integers only with a unit (a bare integer is an exact size or count)."""
    for pattern, _ in SKIPPED:
        text = pattern.sub(" ", text)
    found = []
    for m in NUMBER[lang].finditer(text):
        integer, decimals, unit = m.group(1), m.group(2) or "", m.group(3)
        if (decimals or unit) and significant(integer, decimals) > MAX_SIG:
            found.append(m.group(0).strip())
    return found


def test_three_significant_figures():
    assert [fmt_sig(x, "en") for x in (683.130, 45.894, 4.963, 10.4, 0.19559, 9.996)] == \
        ["683", "45.9", "4.96", "10.4", "0.196", "10.0"]
    # a whole part keeps its digits up to four figures, then rounds: no number shows more than four
    assert fmt_sig(4266.7, "nb") == f"4{NBSP}267" and fmt_sig(683130, "nb") == f"683{NBSP}100"
    assert fmt_sig(4.963, "nb") == "4,96" and sig_decimals(0.001234) == 5


def test_times_ratios_and_shares_in_three_figures():
    assert fmt_us_sig(683130.35, "en") == "683 ms" and fmt_us_sig(45893.7, "en") == "45.9 ms"
    assert fmt_us_sig(4.963, "nb") == f"4,96{NBSP}µs" and fmt_us_sig(1.2e6, "en") == "1.20 s"
    assert [fmt_ratio_sig(r, "en") for r in (1.0, 0.998, 17.24)] == ["1.00×", "0.998×", "17.2×"]
    assert fmt_pct_sig(56.31, "nb") == f"56,3{NBSP}%" and fmt_pct_sig(9.04, "en") == "9.04%"


def test_values_that_differ_get_the_digits_that_tell_them_apart():
    assert fmt_distinct([2.6201, 2.6209, 57.81], "en") == ["2.620", "2.621", "57.8"]
    assert distinct_digits([2.6201, 2.6209, 57.81]) == [4, 4, 3]
    assert fmt_distinct([5.0, 5.0], "en") == ["5.00", "5.00"]  # equal values stay equal
    assert fmt_distinct([1.00001, 1.00002], "en") == ["1.00001", "1.00002"]
    assert fmt_distinct([1.0000001, 1.0000002], "en") == ["1.000000"] * 2  # at most 4 more figures


def test_a_column_has_one_unit_picked_by_its_shortest_time():
    assert time_unit([57.8, 2620.3]) == ("ms", 1e3) and time_unit([57.8, 92.4]) == ("µs", 1.0)
    assert fmt_us_column([57.79, 2620.3, None], "en") == ["57.8 µs", "2,620 µs", None]
    column = fmt_us_column([57.79, 92.4, 176.7], "nb")
    assert all(c.endswith(f"{NBSP}µs") for c in column) and column[0] == f"57,8{NBSP}µs"


def test_a_range_over_rounds_names_its_unit_once():
    assert fmt_us_range((31.8, 46.9), "en") == "31.8\u201346.9 µs"
    assert fmt_us_range((103_000, 1_000_400), "nb") == f"0,103\u20131,00{NBSP}s"
    assert fmt_us_range((57.81, 57.84), "en") == "57.8 µs"  # the same to three figures: one value
    assert fmt_us_range(None, "en") == "–"


@pytest.mark.parametrize("lang, text, found", [
    ("en", "the first call took 683.130 ms, again 191.7 µs", ["683.130 ms"]),
    ("nb", f"første kall 683,130{NBSP}ms, ny form 45,894{NBSP}ms, 2{NBSP}048 tokens", ["683,130\u00a0ms", "45,894\u00a0ms"]),
    ("en", "| 1,284.1 MiB | 6.491 | 16.0 | 45894 µs | 16384 |", ["1,284.1 MiB", "45894 µs"]),
    ("en", "driver 580.159.04 · torch 2.11.0+cu130 · 2026-11-30 · `cudnn_sm90_knob_7 12.34567`", []),
    ("en", "error 3.6e-03, sm90 kernels, 2,620 µs and 2.620 ms", []),
])
def test_the_scan_finds_numbers_with_too_many_figures_and_only_those(lang, text, found):
    assert too_precise(text, lang) == found


GENERATED = sorted(Path(DEFAULT_OUT).glob("**/tables/*.md"))


def test_no_generated_table_shows_more_than_four_significant_figures():
    assert GENERATED
    offenders = {}
    for path in GENERATED:
        lang = "nb" if path.name.endswith(".nb.md") else "en"
        found = too_precise(path.read_text(encoding="utf-8"), lang)
        if found:
            offenders[path.relative_to(DEFAULT_OUT).as_posix()] = found[:5]
    assert not offenders, offenders
