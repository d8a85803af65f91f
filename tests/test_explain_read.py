"""The streamed reader's three ways to read a batch of events (report/trace/reading/stream.py):
msgspec where it is installed (reading/msgspec_decoder.py), the pattern for Kineto's layout (reading/kineto_layout.py)
and json for any other. They keep the same events with the same fields on every committed
trace and on odd input, so --explain prints the same whichever ran.
"""
import gc
import json
import random

import pytest
from factory import FIXTURES, odd_value

from report.doctor.explain import TraceError, explain, load_trace, read_trace, report
from report.paths import ROOT
from report.trace.reading import events as reading_events
from report.trace.reading import msgspec_decoder
from report.trace.reading import stream as reading_stream

CORPUS = ROOT / "tests" / "fixtures" / "corpus"
TRACES = sorted(FIXTURES.glob("*.json.gz")) + sorted(CORPUS.rglob("*.json.gz"))


def kept(trace):
    """Everything the reader kept, as plain values."""
    events = [(e.cat, e.name, e.ts, e.dur, e.end, e.pid, e.tid, e.corr, e.args) for e in trace.events]
    ranges = [(e.cat, e.name, e.ts, e.dur, e.end, e.pid, e.tid, e.corr, e.args) for e in trace.gpu_ranges]
    return events, ranges, sorted(trace.categories), trace.meta


def read_with(path, monkeypatch, fast_decoder, chunk=1 << 14):
    """read_trace with msgspec on or off, in batches of about `chunk` characters; the batches
    msgspec read (True) or handed on (False)."""
    used = []
    decode = msgspec_decoder.events

    def counted(text):
        found = decode(text)
        used.append(found is not None)
        return found

    with monkeypatch.context() as m:
        m.setattr(reading_stream, "FAST_DECODER", fast_decoder)
        m.setattr(reading_stream, "CHUNK", chunk)
        m.setattr(msgspec_decoder, "events", counted)
        return read_trace(path), used


def kineto_layout(trace, path):
    """The trace written one event a line, as Kineto spaces it."""
    rest = json.dumps({k: v for k, v in trace.items() if k != "traceEvents"})[1:-1]
    path.write_text('{"traceEvents": [\n' + ",\n".join(json.dumps(e) for e in trace["traceEvents"])
                    + "\n], " + rest + "}", encoding="utf-8")
    return path


@pytest.mark.parametrize("path", TRACES, ids=lambda p: p.relative_to(ROOT / "tests" / "fixtures").as_posix())
def test_msgspec_and_the_pure_python_reader_keep_the_same(path, monkeypatch):
    pytest.importorskip("msgspec")
    pure, used_pure = read_with(path, monkeypatch, False)
    fast, used_fast = read_with(path, monkeypatch, True)
    assert not used_pure and used_fast and all(used_fast)  # every batch by msgspec
    assert kept(fast) == kept(pure)
    assert said(fast) == said(pure) == said(load_trace(path))


def said(trace):
    """What --explain prints of the trace, or the line it refuses it with."""
    try:
        return report(explain(trace))
    except TraceError as err:
        return f"error: {err}"


def test_without_msgspec_the_reader_is_pure_python(monkeypatch):
    monkeypatch.setattr(msgspec_decoder, "AVAILABLE", False)
    assert msgspec_decoder.events('{"ph": "X"}') is None
    path = FIXTURES / "flash.json.gz"
    pure, used = read_with(path, monkeypatch, True)  # on, but not installed
    assert used == [False] * len(used) and used
    assert report(explain(pure)) == report(explain(load_trace(path)))


ODD = [None, [], [1, 2], {}, {"a": 1}, "x", -1, 0, 1.0, -0.0, 1e308, True, "7", -5.5, 2**70]


def test_odd_launch_resources_and_args_read_the_same(tmp_path, monkeypatch):
    """Launch resources of other types than Kineto's (kept as they are, not shared with
    equal-looking ints), args that are no object (the batch goes on to json): the same."""
    pytest.importorskip("msgspec")
    trace = load_trace(CORPUS / "sdpa_infer.json.gz")
    kernels = [e for e in trace["traceEvents"] if e.get("cat") == "kernel"]
    assert len(kernels) > 500
    kernels[0]["args"]["grid"] = [1.0, 1, 1]
    kernels[100]["args"]["stream"] = "7"
    kernels[200]["args"] = ["not", "a", "dict"]
    kernels[300]["args"]["registers per thread"] = True
    kernels[400]["args"]["est. achieved occupancy %"] = -0.0
    kernels[500]["args"]["shared memory"] = 2**70
    path = kineto_layout(trace, tmp_path / "odd.json")
    pure, _ = read_with(path, monkeypatch, False)
    fast, used = read_with(path, monkeypatch, True)
    assert False in used and True in used  # the batch with a list for args went on to json, the rest did not
    assert kept(fast) == kept(pure)
    assert report(explain(fast)) == report(explain(pure))


def test_odd_values_anywhere_read_the_same_both_ways(tmp_path, monkeypatch):
    pytest.importorskip("msgspec")
    base = load_trace(FIXTURES / "cudnn.json.gz")
    rng = random.Random(21)
    for _ in range(40):
        t = json.loads(json.dumps(base))
        for _ in range(rng.randint(1, 8)):
            odd_value(rng, t["traceEvents"], ODD, 0.4)
        path = kineto_layout(t, tmp_path / "t.json")
        pure, _ = read_with(path, monkeypatch, False, chunk=1 << 13)
        fast, _ = read_with(path, monkeypatch, True, chunk=1 << 13)
        assert kept(fast) == kept(pure) == kept(reading_stream.from_dict(t))


def test_equal_launch_resources_share_one_dict_and_unequal_types_do_not():
    pool = {}
    a = reading_events.shared({"grid": [4, 1, 1], "block": [128, 1, 1], "shared memory": 0}, pool)
    b = reading_events.shared({"grid": [4, 1, 1], "block": [128, 1, 1], "shared memory": 0}, pool)
    assert a is b
    for other in ({"grid": [4.0, 1, 1], "block": [128, 1, 1], "shared memory": 0},
                  {"grid": [4, 1, 1], "block": [128, 1, 1], "shared memory": False},
                  {"grid": [4, 1, 1], "block": [128, 1, 1], "shared memory": -0.0}):
        assert reading_events.shared(dict(other), pool) == other and reading_events.shared(dict(other), pool) is not a
    assert reading_events.shared({"device": [0]}, pool) == {"device": "[0]"}  # made hashable, as before


def test_reading_and_explaining_leave_the_garbage_collector_as_they_found_it():
    path = FIXTURES / "flash.json.gz"
    assert gc.isenabled()
    explain(read_trace(path))
    assert gc.isenabled()
    gc.disable()
    try:
        explain(read_trace(path))
        assert not gc.isenabled()
    finally:
        gc.enable()
