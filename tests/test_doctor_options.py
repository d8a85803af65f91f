"""One command, one set of options: trace-doctor and `build_tables.py --explain` take the
reading's options from one table (cli.OPTIONS), and a bad one is one line on stderr."""
import os
import subprocess
import sys
import xml.etree.ElementTree as ET

import pytest

import build_tables
from report.doctor import cli
from report.paths import ROOT

TRACE = ROOT / "tests" / "fixtures" / "h200" / "auto.json.gz"


def options(parser):
    """{option string: its action's settings} of a parser's optional arguments, help left out."""
    return {s: (a.dest, a.nargs, a.const, a.default, a.type, a.choices, a.metavar)
            for a in parser._actions if a.option_strings and a.dest != "help" for s in a.option_strings}


def test_both_commands_accept_the_same_reading_options():
    doctor = options(cli.parser())
    explain = options(build_tables._parser())
    assert {d for d, *_ in doctor.values()} == cli.OPTION_DESTS == {"format", "svg", "ask_torch", "lang"}
    assert {s: explain[s] for s in doctor} == doctor  # the same strings, types, choices, defaults


def test_every_option_of_the_doctor_goes_with_explain_and_nothing_else(tmp_path):
    given = ["--format", "json", "--svg", str(tmp_path / "new.svg"), "--ask-torch", "--lang", "nb"]
    doctor = cli.parser().parse_args([str(TRACE), *given])
    explain = build_tables.parse_args(["--explain", str(TRACE), *given])
    assert {d: getattr(explain, d) for d in cli.OPTION_DESTS} == {d: getattr(doctor, d)
                                                                          for d in cli.OPTION_DESTS}
    with pytest.raises(SystemExit):  # a measuring option is no option of the reading
        build_tables.parse_args(["--explain", str(TRACE), "--rounds", "2"])


def test_trace_doctor_svg_writes_the_drawing_explain_writes(tmp_path, capsys):
    ours, theirs = tmp_path / "doctor.svg", tmp_path / "explain.svg"
    assert cli.main(["--svg", str(ours), str(TRACE)]) == 0
    text = capsys.readouterr().out
    assert build_tables.main(["--explain", str(TRACE), "--svg", str(theirs)]) == 0
    assert capsys.readouterr().out == text  # the same reading beside the drawing
    drawn = ours.read_text(encoding="utf-8")
    assert ET.fromstring(drawn).tag == "{http://www.w3.org/2000/svg}svg"
    assert drawn == theirs.read_text(encoding="utf-8")


@pytest.mark.parametrize("how", ["file", "hard link"])
def test_trace_doctor_svg_never_replaces_a_file(how, tmp_path):
    mine = tmp_path / "mine.svg"
    mine.write_text("mine", encoding="utf-8")
    target = mine
    if how == "hard link":
        target = tmp_path / "other.svg"
        os.link(mine, target)
    done = subprocess.run([sys.executable, "-m", "report.doctor.cli", "--svg", str(target), str(TRACE)],
                          capture_output=True, text=True, cwd=ROOT, check=False)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.count("\n") == 1 and done.stderr.startswith("trace-doctor: error: argument --svg: ")
    assert "exists" in done.stderr
    assert mine.read_text(encoding="utf-8") == "mine"
