"""--explain on made-up hostile traces (issue 27): a trace is untrusted input, people share them.

Text from a trace is text: no control character, escape sequence, bidirectional override or
lone surrogate in a name, a stream id or the file's own name reaches the terminal; each is
shown written out, and a name of a million characters is clipped. The reader refuses in one
line, before explaining, a trace with more events than it holds (its cost whatever the
trace's shape: test_hostile_trace_cost.py). The weak ones: a byte order mark, integers of 61
digits, one JSON value larger than any buffer, json's "at at", counts of a million printed
as 1.04847e+06. Round two (issue 36): launch resources of 1e400 or NaN, integers of
thousands of digits, one value of gigabytes, durations under a nanosecond, negative launch
delays, and trace-doctor on a terminal without µ.
"""
import gzip
import json
import re
import subprocess
import sys
import tracemalloc

import pytest
from factory import FIXTURES
from hostile_events import ev, kernel

import build_tables
from benchmarks import explain_stress
from report.doctor import explain as explain_module
from report.doctor.explain import TraceError, explain, explain_file, load_trace, read_trace, report
from report.doctor.reading import trace_file
from report.paths import ROOT
from report.trace.reading import stream as reading_stream

# what a terminal acts on instead of showing: C0 but the line break, DEL, C1, the bidi
# marks, embeddings, overrides and isolates, the line and paragraph separators, surrogates
ACTING = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029"
                    "\ud800-\udfff]")
HOSTILE = {"csi-clear-screen": ("\x1b[2J\x1b[H", "\\x1b[2J"),
           "osc-window-title": ("\x1b]0;owned\x07", "\\x1b]0;owned\\x07"),
           "osc8-hyperlink": ("\x1b]8;;https://example.invalid/\x1b\\click\x1b]8;;\x1b\\", "\\x1b]8;;"),
           "carriage-return": ("\rGPU-bound", "\\x0dGPU-bound"),
           "bidi-override": ("\u202egnp.exe", "\\u202egnp.exe"),
           "bidi-isolate": ("\u2066x\u2069", "\\u2066x\\u2069"),
           "c1-csi": ("\x9b2J", "\\x9b2J"),
           "nul-del": ("\x00\x7f", "\\x00\\x7f"),
           "lone-surrogate": ("\ud800", "\\ud800"),
           "line-separator": ("a\u2028b", "a\\u2028b")}
PROPS = dict(json.loads(json.dumps(load_trace(FIXTURES / "flash.json.gz")["deviceProperties"][0])))


def with_text(text):
    """A small trace with `text` in every string --explain prints: the range, op, kernel and
    device names, a stream id, a copy's name."""
    props = dict(PROPS, name=f"GPU {text}")
    return {"deviceProperties": [props], "traceEvents": [
        ev("user_annotation", f"range {text}", 0.0, 200.0),
        ev("cpu_op", f"op {text}", 1.0, 50.0),
        ev("cuda_runtime", "cudaLaunchKernel", 2.0, 2.0, correlation=1),
        kernel(f"kernel {text}", 10.0, 1, stream=f"stream {text}"),
        ev("cuda_runtime", "cudaMemcpyAsync", 60.0, 2.0, correlation=2),
        ev("gpu_memcpy", f"Memcpy {text}", 90.0, 3.0, tid=7, pid=0, correlation=2, device=0, stream=7)]}


def write(path, trace):
    path.write_text(json.dumps(trace), encoding="utf-8")  # ensure_ascii: a lone surrogate as \ud800
    return path


def command(path, capsys):
    code = build_tables.main(["--explain", str(path)])
    out = capsys.readouterr()
    return code, out.out, out.err


# --- text from a trace is text ----------------------------------------------------------

@pytest.mark.parametrize("fast", [True, False], ids=["msgspec", "pure-python"])
@pytest.mark.parametrize("name", HOSTILE)
def test_no_control_character_of_a_trace_reaches_the_terminal(name, fast, tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(reading_stream, "FAST_DECODER", reading_stream.FAST_DECODER and fast)
    text, written_out = HOSTILE[name]
    code, out, err = command(write(tmp_path / "t.json", with_text(text)), capsys)
    assert code == 0 and err == ""
    assert not ACTING.search(out), repr(ACTING.search(out).group())
    for where in ("GPU ", "range ", "op ", "kernel ", "stream "):
        assert f"{where}{written_out}" in out, where


@pytest.mark.parametrize("name", HOSTILE)
def test_the_json_result_is_ascii_and_gives_the_names_back(name, tmp_path, capsys):
    text, _ = HOSTILE[name]
    code = build_tables.main(["--explain", str(write(tmp_path / "t.json", with_text(text))), "--format", "json"])
    out = capsys.readouterr().out
    assert code == 0 and out.isascii()  # each acting character a JSON escape (\\u001b), nothing raw
    strings = []
    json.loads(out, object_pairs_hook=lambda pairs: strings.extend(v for _, v in pairs if isinstance(v, str)))
    assert any(f"kernel {text}" in v for v in strings)  # the name as the trace has it, once parsed


@pytest.mark.parametrize("command_line", [[str(ROOT / "build_tables.py"), "--explain"],
                                          ["-m", "report.doctor.cli"]], ids=["explain", "trace-doctor"])
def test_the_report_is_written_whatever_the_terminal_can_encode(command_line, tmp_path):
    path = write(tmp_path / "t.json", with_text("\ud800\u202e\x1b[2J"))
    done = subprocess.run([sys.executable, *command_line, str(path)], cwd=ROOT,
                          capture_output=True, env={"PYTHONIOENCODING": "ascii", "PATH": ""}, timeout=120)
    assert done.returncode == 0 and done.stderr == b"", done.stderr[-300:]
    assert b"kernel \\ud800\\u202e\\x1b[2J" in done.stdout and b"\\xb5s" in done.stdout  # µ as \xb5
    assert not re.search(rb"[\x00-\x09\x0b-\x1f\x7f-\xff]", done.stdout)


@pytest.mark.parametrize("name", ["csi-clear-screen", "bidi-override", "osc-window-title"])
def test_the_path_in_an_error_is_written_out(name, tmp_path, capsys):
    text, written_out = HOSTILE[name]
    not_json = tmp_path / f"a{text}b.json"
    not_json.write_text("no trace", encoding="utf-8")
    for path in (not_json, tmp_path / f"missing{text}.json"):
        code, out, err = command(path, capsys)
        assert code == 2 and out == "" and err.count("\n") == 1
        assert not ACTING.search(err) and written_out in err


def test_a_name_of_a_million_characters_is_clipped(tmp_path, capsys):
    long = "x" * 1_000_000
    trace = with_text(long)
    trace["traceEvents"].append(ev("user_annotation", "ProfilerStep#1", 0.0, 300.0))
    code, out, _ = command(write(tmp_path / "t.json", trace), capsys)
    assert code == 0 and len(out) < 20_000
    assert max(map(len, out.splitlines())) < 1500
    assert "x" * 400 in out and "x…" in out  # clipped where it is printed, with a mark
    code, out, err = command(tmp_path / ("y" * 100_000), capsys)  # a path as long as a command line takes
    assert code == 2 and len(err) < 2100 and "…: cannot be read (File name too long)" in err


# --- the weak ones ------------------------------------------------------------------------

@pytest.mark.parametrize("packed", [False, True], ids=["json", "json.gz"])
def test_a_byte_order_mark_is_read_past(packed, tmp_path):
    text = gzip.decompress((FIXTURES / "flash.json.gz").read_bytes())
    path = tmp_path / ("bom.json.gz" if packed else "bom.json")
    data = b"\xef\xbb\xbf" + text
    path.write_bytes(gzip.compress(data) if packed else data)
    expected = report(explain(load_trace(FIXTURES / "flash.json.gz")))
    assert explain_file(path) == expected and report(explain(load_trace(path))) == expected


def test_integers_beyond_a_c_int_are_no_launch_resources(tmp_path, capsys):
    trace = with_text("k")
    trace["traceEvents"][3]["args"].update({"grid": [2**200, 1, 1], "registers per thread": 2**200})
    trace["deviceProperties"][0]["numSms"] = 2**200
    code, out, _ = command(write(tmp_path / "t.json", trace), capsys)
    assert code == 0 and not re.search(r"\d{20}", out)
    assert "occupancy: the trace has no launch resources for it" in out
    assert "GPU: no device properties in the trace" in out


def test_one_value_many_times_the_buffer_is_read_in_linear_time(tmp_path, monkeypatch):
    """A valid trace whose one value (a name here) is 1,000 buffers long is read whole (the
    64 MB cap called a valid 360 MB trace "not JSON"), each try reading twice as much."""
    monkeypatch.setattr(reading_stream, "CHUNK", 1024)
    trace = with_text("k")
    trace["traceEvents"][3]["name"] = "kernel_" + "k" * 1_000_000
    path = write(tmp_path / "t.json", trace)
    tries = []
    real = reading_stream._DECODER.raw_decode
    monkeypatch.setattr(reading_stream._DECODER, "raw_decode", lambda s, i: tries.append(i) or real(s, i))
    found = read_trace(path)
    assert any(e.name.startswith("kernel_kkk") for e in found.events)
    assert len(tries) < 300  # the value-by-value reads of ~10 events and ~12 doublings, not 1,000 tries


def test_a_cut_string_says_where_it_starts_once(tmp_path):
    path = tmp_path / "cut.json"
    path.write_text('{"traceEvents": [{"name": "abc', encoding="utf-8")
    for read in (read_trace, load_trace):
        with pytest.raises(TraceError, match="not JSON") as err:
            read(path)
        assert "at at" not in str(err.value) and "Unterminated string starting at " in str(err.value)


def test_a_million_calls_are_counted_in_whole_numbers():
    found = explain(load_trace(FIXTURES / "flash.json.gz"))
    found["kernels"][0]["calls"] = 1_048_470
    text = report(found)
    assert "1,048,470 calls" in text and "e+06" not in text


def test_twenty_device_names_list_eight_and_count_the_rest(tmp_path, capsys):
    trace = with_text("k")
    trace["deviceProperties"] = [dict(PROPS, id=i, name=f"GPU {i}") for i in range(20)]
    code, out, _ = command(write(tmp_path / "t.json", trace), capsys)
    gpu = [line for line in out.splitlines() if "(compute capability" in line]  # the detail's GPU line
    assert code == 0 and len(gpu) == 1 and gpu[0].count("(compute capability") == 8 and gpu[0].endswith("… and 12 more")


# --- nothing escapes, round two (issue 36) ------------------------------------------------

def strict_json(text):
    """json.loads that refuses NaN and Infinity, which no JSON reader but Python's takes."""
    return json.loads(text, parse_constant=lambda c: pytest.fail(f"{c} in the JSON result"))


@pytest.mark.parametrize("fast", [True, False], ids=["msgspec", "pure-python"])
@pytest.mark.parametrize("value", ["1e400", "-1e400", "NaN", "Infinity", "32.0", "true"])
def test_a_launch_resource_that_is_not_a_finite_whole_number_is_malformed(value, fast, tmp_path, capsys,
                                                                           monkeypatch):
    monkeypatch.setattr(reading_stream, "FAST_DECODER", reading_stream.FAST_DECODER and fast)
    text = json.dumps(with_text("k")).replace('"registers per thread": 32', f'"registers per thread": {value}')
    text = text.replace('"shared memory": 0', f'"shared memory": 0, "est. achieved occupancy %": {value}')
    (tmp_path / "t.json").write_text(text, encoding="utf-8")
    assert build_tables.main(["--explain", str(tmp_path / "t.json"), "--format", "json"]) == 0
    row = next(k for k in strict_json(capsys.readouterr().out)["detail"]["kernels"] if k["kind"] == "kernel")
    assert row["registers_per_thread"] is None and row["block"] is None
    assert row["kineto_occupancy_pct"] == (32.0 if value == "32.0" else None)  # a percent may be a float
    assert row["grid"] == [256, 1, 1] and row["shared_memory"] == 0  # the well-formed ones stay
    code, out, _ = command(tmp_path / "t.json", capsys)
    assert code == 0 and "occupancy: the trace has no launch resources for it" in out


def test_no_float_fails_the_json_result():
    found = explain(load_trace(FIXTURES / "flash.json.gz"))
    found.pace.busy_share, found.detail["kernels"][0]["avg_us"] = float("nan"), float("inf")
    found.detail["odd"] = {"a": [float("-inf"), 1.5]}
    doc = strict_json(explain_module.explain_json(found))
    assert doc["pace"]["busy_share"] is None and doc["detail"]["kernels"][0]["avg_us"] is None
    assert doc["detail"]["odd"] == {"a": [None, 1.5]}


DIGITS = "9" * 5000  # beyond Python's 4,300 digits of an int parsed from text


@pytest.mark.parametrize("fast", [True, False], ids=["msgspec", "pure-python"])
@pytest.mark.parametrize("where", ["dur", "grid", "numSms", "schemaVersion", "pid"])
def test_an_integer_of_thousands_of_digits_is_one_line(where, fast, tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(reading_stream, "FAST_DECODER", reading_stream.FAST_DECODER and fast)
    trace = dict(with_text("k"), schemaVersion=1)
    text = json.dumps(trace)
    old = {"dur": '"dur": 5.0', "grid": '"grid": [256', "numSms": '"numSms": ', "schemaVersion": '"schemaVersion": 1',
           "pid": '"pid": 0'}[where]
    new = {"dur": f'"dur": {DIGITS}', "grid": f'"grid": [{DIGITS}', "numSms": f'"numSms": {DIGITS}, "x": ',
           "schemaVersion": f'"schemaVersion": {DIGITS}', "pid": f'"pid": {DIGITS}'}[where]
    assert old in text
    path = tmp_path / "t.json"
    path.write_text(text.replace(old, new, 1), encoding="utf-8")
    code, out, err = command(path, capsys)
    assert code == 2 and out == "" and err.count("\n") == 1 and "an integer of more than 4,300 digits" in err
    with pytest.raises(TraceError, match="an integer of more than 4,300 digits"):
        load_trace(path)


def test_the_command_and_explain_take_the_same_options_and_draw_the_same(tmp_path, capsys):
    from report.doctor import cli

    given = {a.dest for a in cli.parser()._actions} - {"help", "trace"}
    path = str(FIXTURES / "flash.json.gz")
    assert given == {"format", "svg", "ask_torch", "lang"}
    assert cli.main([path, "--svg", str(tmp_path / "a.svg")]) == 0
    doctor = capsys.readouterr().out
    assert build_tables.main(["--explain", path, "--svg", str(tmp_path / "b.svg")]) == 0
    assert capsys.readouterr().out == doctor
    assert (tmp_path / "a.svg").read_text(encoding="utf-8") == (tmp_path / "b.svg").read_text(encoding="utf-8")


@pytest.mark.parametrize("fast", [True, False], ids=["msgspec", "pure-python"])
def test_a_duration_under_a_nanosecond_is_no_time(fast, tmp_path, capsys, monkeypatch):
    """Kineto writes whole nanoseconds: a kernel of 5e-324 µs printed 330 zeros; a duration
    above 0 and below 0.001 µs is malformed (the event is not kept), 0 stays a time."""
    monkeypatch.setattr(reading_stream, "FAST_DECODER", reading_stream.FAST_DECODER and fast)
    trace = with_text("k")
    trace["traceEvents"] += [kernel("tiny", 20.0, 1), kernel("zero", 30.0, 1)]
    trace["traceEvents"][-2]["dur"], trace["traceEvents"][-1]["dur"] = 5e-324, 0
    trace["traceEvents"][3]["dur"] = 4e-4
    found = read_trace(write(tmp_path / "t.json", trace))
    assert sorted(e.name for e in found.events if e.cat == "kernel") == ["zero"]
    code, out, _ = command(tmp_path / "t.json", capsys)
    assert code == 0 and "0000000" not in out and "tiny" not in out


def test_a_derived_time_is_shown_to_the_nanosecond():
    from report.doctor.shown.numbers import sig_us

    assert [sig_us(v) for v in (5e-324, 4e-4, 0.0123, 16.16, 172_296.4)] == [
        "0 µs", "0 µs", "0.012 µs", "16.2 µs", "172,300 µs"]


def test_a_launch_delay_is_never_negative(tmp_path, capsys):
    """2,000 launch calls and kernels on one correlation id: each kernel is paired with the
    call of that id that began last before it (each 6 µs late), not with the last call of
    the trace (-199,900 µs); a kernel that starts before its call returns overlaps it: 0."""
    events = []
    for i in range(2000):
        events += [ev("cuda_runtime", "cudaLaunchKernel", 100.0 * i, 4.0, correlation=1), kernel("k", 100.0 * i + 10, 1)]
    events += [ev("cuda_runtime", "cudaGraphLaunch", 300_000.0, 50.0, correlation=2), kernel("g", 300_010.0, 2),
               kernel("g", 300_020.0, 2)]
    found = explain(load_trace(write(tmp_path / "t.json", {"traceEvents": events})))
    stream = found["streams"][0]
    assert stream["launch_delay_us"] == 6.0 and found["ranges"][0]["launch_delay_us"] == 6.0
    code, out, _ = command(tmp_path / "t.json", capsys)
    assert code == 0 and not re.search(r"-\d[\d,.]* µs", out)
    from report.doctor.model.timeline import Timeline
    from report.trace.reading.stream import from_dict

    acts = Timeline(from_dict({"traceEvents": events}).events).acts
    assert [a.delay for a in acts if a.e.name == "g"] == [0.0, None]  # the graph's first kernel: 40 µs in its call
    assert {a.delay for a in acts if a.e.name == "k"} == {6.0}


# --- beyond what the reader holds: one line, before the explaining -------------------------

def test_more_events_than_the_reader_holds_is_refused_before_explaining(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(trace_file, "MAX_EVENTS", 1000)  # read_trace passes it to the reader
    monkeypatch.setattr(explain_module, "_explain", lambda data: pytest.fail("explained"))
    path = tmp_path / "t.json"
    w = explain_stress.Writer()
    explain_stress.plain(w, 400)  # 1,208 events kept
    w.write(path)
    code, out, err = command(path, capsys)
    assert code == 2 and out == "" and err.count("\n") == 1
    assert "more than 1,000 events of the kinds --explain reads" in err


@pytest.mark.parametrize("value", ["string", "number", "spaces"])
def test_one_value_beyond_the_cap_is_refused_while_it_is_read(value, tmp_path, capsys, monkeypatch):
    """A 1.9 GB string in a 2 MB gzip took 4 GB of memory and ended in a MemoryError: one
    value beyond MAX_VALUE_CHARS (1 MB here, 40 MB in the file) is refused as it is read."""
    monkeypatch.setattr(reading_stream, "CHUNK", 1 << 16)
    monkeypatch.setattr(reading_stream, "MAX_VALUE_CHARS", 1 << 20)
    big = {"string": '"' + "x" * (40 << 20) + '"', "number": "1." + "0" * (40 << 20),
           "spaces": "1" + " " * (40 << 20)}[value]
    path = tmp_path / "t.json.gz"
    path.write_bytes(gzip.compress(b'{"traceEvents": [{"ph": "X", "cat": "kernel", "name": ' + big.encode()
                                   + b', "ts": 1, "dur": 1}]}', compresslevel=1))
    tracemalloc.start()
    code, out, err = command(path, capsys)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert code == 2 and out == "" and err.count("\n") == 1 and "one JSON value of more than 1 MB" in err
    assert peak < 12 << 20  # a few times the cap, not the 40 MB value


def test_running_out_of_memory_is_one_line(tmp_path, capsys, monkeypatch):
    def no_memory(*_):
        raise MemoryError
    monkeypatch.setattr(trace_file, "_read_stream", no_memory)
    code, out, err = command(FIXTURES / "flash.json.gz", capsys)
    assert code == 2 and out == "" and err.count("\n") == 1 and "more than this machine's free memory" in err
    monkeypatch.undo()
    monkeypatch.setattr(explain_module, "_explain", no_memory)
    code, out, err = command(FIXTURES / "flash.json.gz", capsys)
    assert code == 2 and out == "" and err.count("\n") == 1 and "more than this machine's free memory" in err
