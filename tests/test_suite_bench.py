"""benchmarks/test_suite.py: the README's figure of the suite (tests, seconds, the machine)
comes from it. Here it runs on a made-up suite of one passing, one failing and one skipped
test, and its line is checked against what pytest ran."""
import re

from benchmarks import test_suite

MADE_UP = '''
import pytest

def test_passes():
    assert 1 + 1 == 2

def test_fails():
    assert 1 + 1 == 3

@pytest.mark.skip(reason="made up")
def test_skipped():
    pass
'''
LINE = re.compile(r"^(\d{4}-\d\d-\d\d): ([\d,]+) tests? \(([^)]*)\) in ([\d,]+) s on (.+), (\d+) cores?$")


def test_it_runs_pytest_and_prints_one_line_of_what_ran_and_where(tmp_path, capsys):
    (tmp_path / "test_made_up.py").write_text(MADE_UP, encoding="utf-8")
    assert test_suite.main(["-p", "no:cacheprovider"], tests=tmp_path, cwd=tmp_path) == 1  # pytest's status: a failure
    out = capsys.readouterr().out.splitlines()
    assert "1 failed, 1 passed, 1 skipped" in "\n".join(out[:-1])  # pytest's own output, shown as it came
    got = LINE.match(out[-1])
    assert got, out[-1]
    assert got.group(2) == "3" and got.group(3) == "1 passed, 1 failed, 1 skipped"
    assert got.group(5) == test_suite.cpu_model() and int(got.group(6)) == test_suite.cores() >= 1


def test_arguments_go_to_pytest(tmp_path, capsys):
    (tmp_path / "test_made_up.py").write_text(MADE_UP, encoding="utf-8")
    assert test_suite.main(["-p", "no:cacheprovider", "-k", "passes"], tests=tmp_path, cwd=tmp_path) == 0
    assert "1 test (1 passed, 0 failed, 0 skipped)" in capsys.readouterr().out.splitlines()[-1]


def test_counts_read_pytest_s_summary():
    found = test_suite.counts("4 failed, 2556 passed, 8 skipped, 2 errors, 1 xfailed, 3 warnings in 2261.12s (0:37:41)")
    assert found == {"passed": 2556, "failed": 4, "errors": 2, "skipped": 8, "xfailed": 1, "xpassed": 0}
    assert test_suite.line(found, 2261.12, "AMD EPYC 7B13", 2, "2026-12-07") == (
        "2026-12-07: 2,571 tests (2,556 passed, 4 failed, 2 errors, 8 skipped, 1 xfailed) in 2,261 s on "
        "AMD EPYC 7B13, 2 cores")


def test_the_cpu_model_is_read_from_cpuinfo(tmp_path):
    (tmp_path / "cpuinfo").write_text("processor\t: 0\nmodel name\t: AMD EPYC   7B13 64-Core Processor\n")
    assert test_suite.cpu_model(tmp_path / "cpuinfo") == "AMD EPYC 7B13 64-Core Processor"
    assert test_suite.cpu_model(tmp_path / "missing")  # elsewhere: the platform's name for it
