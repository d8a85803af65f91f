"""Issue 50, item 7: a damaged report/doctor/rules/asked.json, the doctor's recorded
eligibility tables (package data the render writes; rules/asked_table.py loads it). Nested
200,000 deep it ended every --explain in RecursionError, 96 MB of it cost 14 s on every run,
and a malformed one was blamed on the user's good trace. Now the file is checked on load
(size before it is read, depth, the shape compact() writes); a refused file is named in one
warning line on stderr, and the trace is read as where there is no table: the same result.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import time

import pytest
from pagecode import ROOT

from report.doctor.explain import explain_file
from report.doctor.rules import asked_table
from report.output.asked_file import write_asked
from report.results import UsageError

# a trace the committed table answers: flash pinned where PyTorch's pick was another
TRACE = ROOT / "docs" / "generated" / "h100-80gb-hbm3" / "traces" / "ask-baseline_pinned_flash.json.gz"
GOOD = json.loads(asked_table.FILE.read_text(encoding="utf-8"))


def first_condition(**changed):
    data = json.loads(json.dumps(GOOD))
    data["runs"][0]["conditions"][0].update(changed)
    return data


DAMAGED = {
    "nested-200000-deep": "[" * 200_000 + "]" * 200_000,
    "nested-20-deep": json.dumps({"runs": [{"conditions": [], "shapes": {"a": {"b": [[[[[[[[[[[[[[1]]]]]]]]]]]]]]}}}]}),
    "not-json": '{"runs": [',
    "not-utf-8": b'{"runs": [{"gpu": "\xff\xfe"}]}',
    "a-list": "[1, 2, 3]",
    "runs-not-a-list": json.dumps({"runs": {"gpu": "h100"}}),
    "conditions-a-number": json.dumps({"runs": [{"conditions": 5}]}),
    "setting-a-string": json.dumps(first_condition(setting="flash")),
    "head-dim-a-string": json.dumps(first_condition(setting={"head_dim": "64"})),
    "head-dim-true": json.dumps(first_condition(setting={"head_dim": True})),
    "reasons-a-string": json.dumps(first_condition(can_use={"flash": {"ok": False, "reasons": "no"}})),
    "answer-without-ok": json.dumps(first_condition(can_use={"flash": {"reasons": []}})),
    "condition-without-id": json.dumps({"runs": [{"conditions": [{"ran": "flash"}]}]}),
    "versions-null": json.dumps({"runs": [{"conditions": [], "versions": None}]}),
}


def damaged(tmp_path, name):
    path = tmp_path / "asked.json"
    text = DAMAGED[name]
    path.write_bytes(text if isinstance(text, bytes) else text.encode("utf-8"))
    return path


@pytest.fixture()
def without_table(tmp_path, monkeypatch):
    """The doctor's reading of TRACE with no table at all, its text and JSON."""
    monkeypatch.setattr(asked_table, "FILE", tmp_path / "none" / "asked.json")
    return explain_file(TRACE), explain_file(TRACE, "json")


def test_the_trace_is_one_the_table_answers(capsys):
    """What the tests below rest on: with the committed table, this trace's calls get
    PyTorch's recorded answer, so a refused table changes the reading."""
    found = json.loads(explain_file(TRACE, "json"))
    assert "table" in json.dumps(found) and capsys.readouterr().err == ""


@pytest.mark.parametrize("name", DAMAGED)
def test_a_damaged_table_is_named_once_and_the_trace_read_as_without_one(name, tmp_path, monkeypatch, capsys,
                                                                          without_table):
    path = damaged(tmp_path, name)
    monkeypatch.setattr(asked_table, "FILE", path)
    text, as_json = explain_file(TRACE), explain_file(TRACE, "json")
    assert (text, as_json) == without_table  # the trace is not blamed: its reading is the table-less one
    err = capsys.readouterr().err
    lines = err.splitlines()
    assert len(lines) == 2 and lines[0] == lines[1]  # one line for each of the two readings
    assert lines[0].startswith(f"warning: {path}: ") and "Traceback" not in err


def test_a_table_of_96_mb_is_refused_before_it_is_read(tmp_path, monkeypatch, capsys):
    path = tmp_path / "asked.json"
    with open(path, "wb") as f:
        f.truncate(96 * 1024 * 1024)  # sparse: 96 MB of size, no time to write it
    started = time.perf_counter()
    assert asked_table.load(path) is None
    assert time.perf_counter() - started < 0.5  # it was 14 s
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"{96 * 1024 * 1024:,} bytes" in err


def test_a_fifo_in_place_of_the_table_is_refused_without_waiting(tmp_path, capsys):
    path = tmp_path / "asked.json"
    os.mkfifo(path)
    assert asked_table.load(path) is None  # opening it would wait for a writer forever
    assert "not a regular file" in capsys.readouterr().err


def test_the_caps_hold_the_committed_file_with_room_to_grow():
    """The size cap is near the real file's, with room for about twenty GPUs' runs; the depth
    cap a few levels over what the file nests."""
    size = asked_table.FILE.stat().st_size
    runs = len(GOOD["runs"])
    assert 10 * size / runs <= asked_table.MAX_BYTES <= 50 * size / runs
    assert not asked_table.too_deep(GOOD, asked_table.MAX_DEPTH - 2)
    assert asked_table.too_deep(GOOD, asked_table.MAX_DEPTH - 8)


def test_the_render_never_writes_a_table_the_doctor_would_refuse(tmp_path, monkeypatch):
    from factory import results
    from madeup import condition, eligibility_results

    folder = tmp_path / "out" / "h200"
    folder.mkdir(parents=True)
    data = eligibility_results([condition("seed", "cudnn")], **results())
    (folder / "results.json").write_text(json.dumps(data), encoding="utf-8")
    target = tmp_path / "asked.json"
    target.write_text("the last good one", encoding="utf-8")
    monkeypatch.setattr(asked_table, "MAX_BYTES", 100)
    with pytest.raises(UsageError, match="over the 100"):
        write_asked(tmp_path / "out", target)
    assert target.read_text(encoding="utf-8") == "the last good one"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["asked.json", "out"]  # no temporary file left


def test_trace_doctor_with_a_table_nested_200000_deep_warns_in_one_line_and_reads(tmp_path):
    """As a user runs it: the command, in a child process; exit 0, the reading on stdout, one
    warning line on stderr naming the file."""
    path = damaged(tmp_path, "nested-200000-deep")
    code = ("import sys; from report.doctor.rules import asked_table; from pathlib import Path; "
            f"asked_table.FILE = Path({str(path)!r}); from report.doctor import cli; sys.exit(cli.main(sys.argv[1:]))")
    proc = subprocess.run([sys.executable, "-c", code, str(TRACE)], cwd=ROOT, capture_output=True, text=True,
                          stdin=subprocess.DEVNULL, timeout=60)
    assert proc.returncode == 0 and proc.stdout and "Traceback" not in proc.stderr
    assert proc.stderr.count("\n") == 1 and proc.stderr.startswith(f"warning: {path}: ")
