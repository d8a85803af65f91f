"""Issue 50, item 6: a command with no stdout. `trace-doctor T >&-`, `build_tables.py
--explain T >&-` ended in AttributeError, `> /dev/full` in OSError. Every command that
prints (the reading, --render-only, --help) now says so in one line on stderr and exits 2,
before any work where the start can tell (closed, /dev/full), else when a write fails (a
reader that went away); never a traceback, never Python's "Exception ignored" at exit.
Each runs as a child process, with its descriptor 1 as the shell leaves it.
"""
from __future__ import annotations

import errno
import io
import os
import subprocess
import sys

import pytest
from pagecode import ROOT
from runfolders import TIMEOUT, fresh_run, listing

from report import one_line

TRACE = ROOT / "tests" / "fixtures" / "corpus" / "decode.json.gz"
COMMANDS = {
    "explain": ["build_tables.py", "--explain", str(TRACE)],
    "explain-json": ["build_tables.py", "--explain", str(TRACE), "--format", "json"],
    "trace-doctor": ["-m", "report.doctor.cli", str(TRACE)],
    "trace-doctor-help": ["-m", "report.doctor.cli", "--help"],
    "build-tables-help": ["build_tables.py", "--help"],
}


def run_with_stdout(argv, how):
    """argv under this Python, its stdout closed (`>&-`) or /dev/full, stderr captured."""
    if how == "closed":
        return subprocess.run([sys.executable, *argv], cwd=ROOT, stdin=subprocess.DEVNULL, stderr=subprocess.PIPE,
                              text=True, timeout=TIMEOUT, preexec_fn=lambda: os.close(1))
    with open("/dev/full", "w") as full:
        return subprocess.run([sys.executable, *argv], cwd=ROOT, stdin=subprocess.DEVNULL, stdout=full,
                              stderr=subprocess.PIPE, text=True, timeout=TIMEOUT)


def one_line_on_stderr(proc, prog):
    assert proc.returncode == 2, proc.stderr[-2000:]
    assert proc.stderr.count("\n") == 1 and proc.stderr.startswith(f"{prog}: error: stdout ")
    assert "Traceback" not in proc.stderr and "Exception ignored" not in proc.stderr
    return proc.stderr


needs_dev_full = pytest.mark.skipif(not os.path.exists("/dev/full"), reason="no /dev/full here")


@pytest.mark.parametrize("how", ["closed", pytest.param("full", marks=needs_dev_full)])
@pytest.mark.parametrize("name", COMMANDS)
def test_a_command_without_stdout_is_one_line_and_exit_2(name, how):
    prog = "trace-doctor" if "report.doctor.cli" in COMMANDS[name] else "build_tables.py"
    line = one_line_on_stderr(run_with_stdout(COMMANDS[name], how), prog)
    assert ("closed" if how == "closed" else "/dev/full") in line


@pytest.mark.parametrize("how", ["closed", pytest.param("full", marks=needs_dev_full)])
@pytest.mark.parametrize("command", [["--render-only"], ["--device", "cpu", "--steps", "3", "--variants", "naive"]],
                         ids=["render-only", "cpu-run"])
def test_a_render_or_a_run_without_stdout_is_refused_before_it_writes(tmp_path, command, how):
    run = fresh_run(tmp_path)
    before = listing(tmp_path)
    proc = run_with_stdout(["build_tables.py", *command, "--out", str(tmp_path)], how)
    one_line_on_stderr(proc, "build_tables.py")
    assert listing(tmp_path) == before and not any((run / "tables").iterdir())


def test_a_reader_that_went_away_is_one_line_and_exit_2():
    """A pipe whose reader closed it before the reading was printed (stdout's EPIPE, which
    the start cannot see): the write fails, and that is the one line."""
    proc = subprocess.Popen([sys.executable, *COMMANDS["trace-doctor"]], cwd=ROOT, stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    proc.stdout.close()  # long before the trace is read
    err = proc.stderr.read()
    proc.wait(timeout=TIMEOUT)
    line = one_line_on_stderr(subprocess.CompletedProcess(proc.args, proc.returncode, None, err), "trace-doctor")
    assert "could not be written" in line


class FullStream(io.StringIO):
    """A stdout in memory that takes no byte, as a full disk."""

    def write(self, text):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))


def test_a_write_that_fails_mid_command_is_one_line(monkeypatch, capsys):
    monkeypatch.setattr(sys, "stdout", FullStream())

    def command(x):
        print("the reading of", x)
        return 0

    assert one_line.with_stdout("prog", command, "T") == 2
    err = capsys.readouterr().err
    assert err == f"prog: error: stdout could not be written ({os.strerror(errno.ENOSPC)}): the output is incomplete\n"
    assert isinstance(sys.stdout, FullStream)  # given back as it was


def test_a_command_s_own_file_errors_stay_its_own(capsys):
    """An OSError of the command's own files is not stdout's: it passes through unchanged."""
    def command():
        raise FileNotFoundError(errno.ENOENT, "no such file", "results.json")

    with pytest.raises(FileNotFoundError):
        one_line.with_stdout("prog", command)
    assert capsys.readouterr().err == ""


def test_a_good_stdout_gets_the_output_and_the_command_s_status(capsys):
    def command():
        print("all of it")
        return 3

    assert one_line.with_stdout("prog", command) == 3
    assert capsys.readouterr() == ("all of it\n", "")


def test_help_s_exit_passes_through_and_its_lost_output_is_one_line(monkeypatch, capsys):
    """--help and a bad argument end in SystemExit, as before (a caller's test catches it);
    where the help could not be written, the one line and 2 instead."""
    def helps():
        print("usage: prog")
        raise SystemExit(0)

    with pytest.raises(SystemExit) as done:
        one_line.with_stdout("prog", helps)
    assert done.value.code == 0 and capsys.readouterr().out == "usage: prog\n"
    monkeypatch.setattr(sys, "stdout", FullStream())
    assert one_line.with_stdout("prog", helps) == 2
    assert capsys.readouterr().err.startswith("prog: error: stdout could not be written")
