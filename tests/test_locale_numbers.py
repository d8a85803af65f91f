"""One locale for numbers (report/locale_numbers.py): the pages and the trace doctor write
thousands and decimals the same way, as the glossary says (nb: 7 239,5; en: 7,239.5)."""
import pytest

from report.doctor.output.svg import num
from report.doctor.shown.numbers import sig, us
from report.locale_numbers import MINUS, NBSP, number, round_sig, sig_decimals
from report.text.format import fmt_num, fmt_sig, fmt_us


@pytest.mark.parametrize("x, lang, decimals, written", [
    (7239.5, "nb", 1, f"7{NBSP}239,5"),
    (7239.5, "en", 1, "7,239.5"),
    (1955, "nb", 0, f"1{NBSP}955"),
    (1.955, "nb", 3, "1,955"),
    (1234567.25, "en", 2, "1,234,567.25"),
    (-3.5, "en", 1, f"{MINUS}3.5"),
    (-3.5, "nb", 1, f"{MINUS}3,5"),
    (0.0, "nb", 2, "0,00"),
])
def test_number_in_each_language(x, lang, decimals, written):
    assert number(x, lang, decimals) == written


def test_the_doctor_keeps_the_hyphen():
    assert number(-1234.5, "en", 1, minus="-") == "-1,234.5"
    assert number(-1234.5, "nb", 1, minus="-") == f"-1{NBSP}234,5"


@pytest.mark.parametrize("x", [0.0123456, 9.996, 45.894, 4266.7, 46104.0, 172296.4, 1234567.0])
def test_pages_and_doctor_write_the_same_number(x):
    """The doctor's English numbers are the pages' English numbers: one rule, one locale."""
    assert sig(x) == fmt_sig(x, "en")
    assert us(x) == fmt_num(x, "en") + " µs"
    for lang in ("en", "nb"):
        assert num(x, lang, 2) == fmt_num(x, lang, 2)
    assert fmt_us(7239.0, "nb") == f"7,239{NBSP}ms" and fmt_us(7239.0, "en") == "7.239 ms"


def test_round_sig_and_sig_decimals():
    assert round_sig(46104, 4) == 46100 and round_sig(4610, 4) == 4610 and round_sig(0, 4) == 0
    assert sig_decimals(0.012345) == 4 and sig_decimals(9.996) == 1 and sig_decimals(126.43) == 0
    assert sig_decimals(0) == 0 and sig_decimals(float("inf")) == 0
