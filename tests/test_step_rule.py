"""One model of a trace (issue 51): which GPU activities belong to a profiler step is one rule,
report/doctor/model/steps.py, that the figures (explain.py) and the drawing (output/svg_pieces.py)
both read; and `--svg` draws from the reading it explained, the file read and parsed once."""
import ast
import statistics

import pytest
from madeup import ev, kernel, launch, trace_of

from report.doctor import cli
from report.doctor.explain import STEP_NAME, explain, explain_file
from report.doctor.model import timeline as timeline_module
from report.doctor.output.svg import draw
from report.doctor.output.svg_pieces import pieces
from report.doctor.reading import trace_file
from report.paths import ROOT
from report.trace.reading.stream import from_dict

RULE = ROOT / "report" / "doctor" / "model" / "steps.py"
CORPUS = ROOT / "tests" / "fixtures" / "corpus"


def _docstrings(tree):
    """The ids of a module's, its classes' and its functions' docstring nodes."""
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                out.add(id(first.value))
    return out


def test_the_profiler_steps_name_is_written_in_one_module_of_report():
    """A string of code (no docstring, no comment) naming ProfilerStep is in model/steps.py alone:
    no second regex, no startswith("ProfilerStep#") anywhere in report/."""
    found = set()
    for path in sorted((ROOT / "report").rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        docs = _docstrings(tree)
        for node in ast.walk(tree):
            if (isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docs
                    and "ProfilerStep" in node.value):
                found.add(path.relative_to(ROOT).as_posix())
    assert found == {RULE.relative_to(ROOT).as_posix()}


def _step(n, ts, dur):
    return ev("user_annotation", f"ProfilerStep#{n}", ts, dur)


def _launched(*starts):
    """A launch call at each start, its kernel 2 µs later."""
    out = []
    for corr, ts in enumerate(starts, 1):
        out += [launch(ts, corr), kernel(f"k{corr}", ts + 2.0, 1.0, corr)]
    return out


@pytest.mark.parametrize(("steps", "starts", "per_step"), [
    # steps that touch: a launch on the boundary belongs to both
    ([(0.0, 100.0), (100.0, 100.0)], (10.0, 100.0, 150.0), [2, 2]),
    # a step nested in another: the innermost holds what was launched in it
    ([(0.0, 100.0), (20.0, 20.0)], (10.0, 30.0, 50.0, 60.0), [3, 1]),
], ids=["touching", "nested"])
def test_the_drawing_and_the_figures_give_a_step_the_same_activities(steps, starts, per_step):
    trace = from_dict(trace_of(*[_step(n, ts, dur) for n, (ts, dur) in enumerate(steps, 1)], *_launched(*starts)))
    drawn = pieces(trace)
    assert drawn.steps and [len(p.acts) for p in drawn.items] == per_step
    figures = next(r for r in explain(trace)["ranges"] if r["name"] == STEP_NAME)
    assert figures["activities_per_range"] == statistics.median(per_step)


@pytest.mark.parametrize("name", ["sdpa_train", "two_streams", "eager_infer"])
def test_the_corpus_steps_drawn_hold_what_the_figures_count(name):
    """On real traces: the steps' activities as drawn, the first left out as the figures leave it,
    give the figures' median count per step."""
    trace = trace_file.read_trace(CORPUS / f"{name}.json.gz")
    figures = next(r for r in explain(trace)["ranges"] if r["name"] == STEP_NAME)
    counts = [len(p.acts) for p in pieces(trace).items]
    counts = counts[1:] if figures["first_left_out"] else counts
    assert figures["activities_per_range"] == statistics.median(c for c in counts if c)


@pytest.mark.parametrize("form", ["text", "json"])
def test_svg_draws_from_the_one_reading_of_the_file(form, tmp_path, monkeypatch, capsys):
    path = CORPUS / "two_streams.json.gz"
    expected_out, expected_svg = explain_file(path, form), draw([path], "en")[0]  # each read anew
    reads, timelines = [], []
    read_stream, build = trace_file._read_stream, timeline_module.Timeline.__init__

    def counted_read(*args):
        reads.append(args[0])
        return read_stream(*args)

    def counted_build(self, events):
        timelines.append(events)
        build(self, events)

    monkeypatch.setattr(trace_file, "_read_stream", counted_read)
    monkeypatch.setattr(timeline_module.Timeline, "__init__", counted_build)
    out = tmp_path / "step.svg"
    assert cli.main([str(path), "--format", form, "--svg", str(out)]) == 0
    assert len(reads) == 1 and len(timelines) == 1  # one parse, one Timeline: the text's and the drawing's
    assert capsys.readouterr().out == expected_out
    assert out.read_text(encoding="utf-8") == expected_svg
