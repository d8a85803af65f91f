"""The timelines of one profiled step: report/doctor/output/svg.py draws them, the render step
puts them on the pages (report/render/timelines.py), `--explain TRACE --svg PATH` writes the
same drawing. Each drawn GPU activity is checked against the trace, read here on its own."""
import gzip
import json
import re
import shutil
import statistics
import xml.etree.ElementTree as ET

import pytest
from factory import SITE_RUN
from madeup import small_call

import build_tables
from report.doctor.output.svg import WORDS, svg
from report.doctor.output.svg_pieces import MAX_ACTS, pieces
from report.output.folders import result_folders
from report.paths import ROOT
from report.render import timelines
from report.text.catalog import t
from report.trace.reading.stream import from_dict

MISSING = t("finding.missing", "en")  # the line a file without its data says

GENERATED = ROOT / "docs" / "generated"
TRACES = SITE_RUN / "traces"
FIGURES = SITE_RUN / "figures"
NS = "{http://www.w3.org/2000/svg}"
GPU = ("kernel", "gpu_memcpy", "gpu_memset")
AT = {lang: re.compile("^(?P<name>.*): " + re.escape(w["at"].split("{start}")[0].split(": ", 1)[1])
                       + r"(?P<start>[\d.,\u00a0]+) µs, .* (?P<dur>[\d.,\u00a0]+) µs$")
      for lang, w in WORDS.items()}


def load(path):
    with gzip.open(path, "rt", encoding="utf-8") as f:
        return json.load(f)


def number(text, lang):
    return float(text.replace("\u00a0", "").replace(",", ".") if lang == "nb" else text.replace(",", ""))


def drawn(path, lang="en"):
    """Per panel, in order: (its heading, [(full name, start, duration) of each GPU activity])."""
    text = path.read_text(encoding="utf-8")
    root = ET.fromstring(text.split("\n", 1)[1] if text.startswith("<!--") else text)
    panels = []
    for el in root:
        if el.tag == NS + "text" and el.get("class") == "h":
            if panels and panels[-1][0].endswith(":") and not panels[-1][1]:  # a heading's second line
                panels[-1] = (panels[-1][0] + " " + el.text, [])
            else:
                panels.append((el.text, []))
        elif el.tag == NS + "g" and el.get("tabindex") == "0":
            m = AT[lang].match(el.find(NS + "title").text)
            panels[-1][1].append((m["name"], number(m["start"], lang), number(m["dur"], lang)))
    return panels


def steps_by_kernel_time(trace):
    """{step name: (its start, the GPU time launched in it)}: launches by correlation id."""
    events = [e for e in trace["traceEvents"] if e.get("ph") == "X"]
    steps = {e["name"]: e for e in events if e.get("cat") == "user_annotation" and e["name"].startswith("ProfilerStep#")}
    launch = {e["args"]["correlation"]: e["ts"] for e in events
              if e.get("cat") in ("cuda_runtime", "cuda_driver") and "correlation" in e.get("args", {})}
    out = {}
    for name, s in steps.items():
        acts = [e for e in events if e.get("cat") in GPU
                and s["ts"] <= launch.get(e["args"].get("correlation"), -1) <= s["ts"] + s["dur"]]
        out[name] = (s["ts"], sum(e["dur"] for e in acts))
    return out


def test_math_draws_more_gpu_activities_than_the_hand_written_version():
    panels = dict((heading.split(" · ")[0], acts) for heading, acts in drawn(FIGURES / "timeline-naive-math.en.svg"))
    assert len(panels["math.json.gz"]) > len(panels["naive.json.gz"]) > 0


def check_drawn(figures, traces, figure, lang):
    """Every GPU activity drawn is an activity of the trace named above its panel, with its
    name, its start from the step's start and its duration (to the 0.1 µs the title shows);
    a panel of one step draws the step whose kernel time is the median (the lower middle one)."""
    panels = drawn(figures / f"{figure}.{lang}.svg", lang)
    assert len(panels) == len(timelines.FIGURES[figure][0])
    for heading, acts in panels:
        trace_name, rest = heading.split(" · ", 1)
        trace = load(traces / trace_name)
        steps = steps_by_kernel_time(trace)
        first = re.match(r"(ProfilerStep#\d+)", rest).group(1)
        start = steps[first][0]
        events = [e for e in trace["traceEvents"] if e.get("ph") == "X" and e.get("cat") in GPU]
        assert acts and len(acts) <= MAX_ACTS
        for name, at, dur in acts:
            assert any(e["name"] == name and abs(e["ts"] - start - at) <= 0.051 and abs(e["dur"] - dur) <= 0.051
                       for e in events), (figure, trace_name, name, at, dur)
        if timelines.FIGURES[figure][1] == 1:
            times = sorted(k for _, k in steps.values() if k > 0)
            assert steps[first][1] == pytest.approx(times[(len(times) - 1) // 2])
            assert sum(d for _, _, d in acts) == pytest.approx(steps[first][1], abs=0.05 * len(acts))


@pytest.mark.parametrize("figure", sorted(timelines.FIGURES))
@pytest.mark.parametrize("lang", ["nb", "en"])
def test_each_drawn_activity_is_one_of_the_trace_at_its_time(figure, lang):
    """The committed folder's figures (check_drawn); a figure none of whose traces the run
    kept (the small shape's, which only a newer --overhead run records) and its caption
    say "not measured"."""
    if not any((TRACES / f"{v}.json.gz").is_file() for v in timelines.FIGURES[figure][0]):
        assert said_missing(FIGURES / f"{figure}.{lang}.svg", lang)
        table = (SITE_RUN / "tables" / f"{figure}.{lang}.md").read_text(encoding="utf-8")
        assert table.split("\n", 1)[1].strip() == t("finding.missing", lang)
        return
    check_drawn(FIGURES, TRACES, figure, lang)


def test_the_svg_the_command_writes_is_the_pages(tmp_path, capsys):
    """`--explain auto.json.gz --svg PATH` writes Home's English figure, less its first line."""
    out = tmp_path / "auto.svg"
    assert build_tables.main(["--explain", str(TRACES / "auto.json.gz"), "--svg", str(out)]) == 0
    assert "ProfilerStep#*" in capsys.readouterr().out  # the text as without --svg
    page = (FIGURES / "timeline-home.en.svg").read_text(encoding="utf-8")
    assert page.split("\n", 1)[1] == out.read_text(encoding="utf-8")


@pytest.mark.parametrize("args, said", [
    (["--svg", "x.svg"], "give --explain TRACE too"),
    (["--explain", "t.json", "--svg", "{existing}"], "exists"),
    (["--explain", "t.json", "--svg", "{missing}/x.svg"], "no folder"),
])
def test_svg_is_refused_without_a_trace_or_over_a_file(args, said, tmp_path, capsys):
    existing = tmp_path / "here.svg"
    existing.write_text("mine", encoding="utf-8")
    args = [a.format(existing=existing, missing=tmp_path / "nope") for a in args]
    with pytest.raises(SystemExit) as err:
        build_tables.main(args)
    assert err.value.code == 2
    assert said in capsys.readouterr().err
    assert existing.read_text(encoding="utf-8") == "mine"


def made_up_trace(kernel="my_gpu_kernel", steps=3):
    """A trace of a GPU no folder has: ProfilerSteps with one launch and one kernel each."""
    events, corr = [], 1
    for i in range(steps):
        ts = 1000.0 * i
        events += [
            {"ph": "X", "cat": "user_annotation", "name": f"ProfilerStep#{i + 2}", "ts": ts, "dur": 100.0,
             "pid": 1, "tid": 1},
            {"ph": "X", "cat": "cpu_op", "name": "aten::my_op", "ts": ts + 10, "dur": 50.0, "pid": 1, "tid": 1},
            {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "ts": ts + 20, "dur": 5.0,
             "pid": 1, "tid": 1, "args": {"correlation": corr}},
            {"ph": "X", "cat": "kernel", "name": kernel, "ts": ts + 40 + i, "dur": 10.0 + 5 * i, "pid": 0,
             "tid": 7, "args": {"correlation": corr, "device": 0, "stream": 7}},
        ]
        corr += 1
    return {"traceEvents": events}


def said_missing(path, lang):
    """The figure file says "not measured" and draws nothing: no panel, no GPU activity."""
    text = path.read_text(encoding="utf-8")
    root = ET.fromstring(text.split("\n", 1)[1])
    return ("".join(root.itertext()) == t("finding.missing", lang) and not drawn(path, lang)
            and int(root.get("width")) < 390)  # no sideways scrolling on a phone


def test_a_made_up_gpu_folder_renders_its_own(tmp_path):
    traces = tmp_path / "traces"
    traces.mkdir()
    with gzip.open(traces / "auto.json.gz", "wt", encoding="utf-8") as f:
        json.dump(made_up_trace(), f)
    shutil.copyfile(TRACES / "flash.json.gz", traces / "flash.json.gz")
    figures = tmp_path / "figures"
    figures.mkdir()
    bodies, written = timelines.render_timelines(traces, figures, "en")
    assert sorted(written) == sorted(figures.glob("*.svg"))
    assert set(bodies) == set(timelines.FIGURES)
    home = drawn(figures / "timeline-home.en.svg")
    assert [(h.split(" · ")[0], [a[0] for a in acts]) for h, acts in home] == [("auto.json.gz", ["my_gpu_kernel"])]
    assert "ProfilerStep#3" in home[0][0]  # the median of 10, 15, 20 µs
    assert [h.split(" · ")[0] for h, _ in drawn(figures / "timeline-fused.en.svg")] == ["flash.json.gz"]
    assert said_missing(figures / "timeline-naive-math.en.svg", "en")  # no trace of it
    assert bodies["timeline-naive-math"][0] == MISSING


def test_a_trace_without_steps_is_drawn_in_windows_of_its_activities():
    trace = made_up_trace(steps=3)
    trace["traceEvents"] = [e for e in trace["traceEvents"] if e["cat"] != "user_annotation"]
    found = pieces(from_dict(trace))
    assert not found.steps and found.default == 0 and len(found.items) == 1
    from report.doctor.output.svg_pieces import panel

    text = svg([panel(found, 0, "t.json")], "en", "tl-t")
    assert text.count('tabindex="0"') == 3 and WORDS["en"]["title_window"].split(":")[0] in text


def test_every_figure_is_at_most_80_kb():
    folders = result_folders(GENERATED)
    assert SITE_RUN in folders
    for folder in folders:  # every committed run: each timeline in both languages
        paths = sorted(folder.glob("figures/timeline-*.svg"))
        assert len(paths) == 2 * len(timelines.FIGURES), folder.name
        assert max(p.stat().st_size for p in paths) <= 80 * 1024, folder.name


def test_the_median_step_is_the_median_of_the_trace():
    trace = load(TRACES / "math.json.gz")
    found = pieces(from_dict(trace))
    times = [k for _, k in steps_by_kernel_time(trace).values()]
    assert found.items[found.default].kernel_us == pytest.approx(sorted(times)[(len(times) - 1) // 2])
    assert found.items[found.default].kernel_us == pytest.approx(statistics.median_low(times))


def launches_drawn(path):
    """Per panel, in order: the names of the launch calls drawn (the runtime lane's calls
    that launched a GPU activity), and the hatched idle gaps' titles."""
    text = path.read_text(encoding="utf-8")
    root = ET.fromstring(text.split("\n", 1)[1] if text.startswith("<!--") else text)
    panels = []
    for el in root:
        if el.tag == NS + "text" and el.get("class") == "h" and not (panels and panels[-1][0].endswith(":")
                                                                      and not panels[-1][1]):
            panels.append([el.text, [], []])
        elif el.tag == NS + "rect" and el.get("class") == "l" and el.find(NS + "title") is not None:  # not the legend's
            panels[-1][1].append(el.find(NS + "title").text)
        elif el.tag == NS + "g" and el.find(NS + "rect") is not None and el.find(NS + "rect").get("class") == "gap":
            panels[-1][2].append(el.find(NS + "title").text)
    return panels


def small_folder(tmp_path, which=("small_auto", "small_auto_graph")):
    traces = tmp_path / "traces"
    traces.mkdir()
    for name in which:
        with gzip.open(traces / f"{name}.json.gz", "wt", encoding="utf-8") as f:
            json.dump(small_call(graph=name.endswith("_graph")), f)
    figures = tmp_path / "figures"
    figures.mkdir()
    return traces, figures


@pytest.mark.parametrize("lang", ["nb", "en"])
def test_gpu_waits_draws_the_small_shape_eager_and_replayed(tmp_path, lang):
    """Issue 32: the eager call at the small shape and its CUDA graph's replay, on one time
    scale. The eager panel draws a launch call per GPU activity and the GPU idle between them
    waiting for the host; the replay one cudaGraphLaunch per step, joined to every activity it
    replayed, and no wait for the host."""
    traces, figures = small_folder(tmp_path)
    bodies, _ = timelines.render_timelines(traces, figures, lang)
    check_drawn(figures, traces, "timeline-gpu-waits", lang)
    path = figures / f"timeline-gpu-waits.{lang}.svg"
    (eager, eager_calls, eager_gaps), (replay, replay_calls, replay_gaps) = launches_drawn(path)
    assert eager.startswith("small_auto.json.gz") and replay.startswith("small_auto_graph.json.gz")
    count = timelines.FIGURES["timeline-gpu-waits"][1]
    assert sorted(set(eager_calls)) == ["cuLaunchKernelEx", "cudaMemsetAsync"] and len(eager_calls) == 2 * count
    assert replay_calls == ["cudaGraphLaunch"] * count
    host = WORDS[lang]["host_long"]
    assert sum(host in g for g in eager_gaps) == count  # between the memset and the kernel of each call
    assert not any(host in g for g in replay_gaps)
    # the panels' objects: each graph launch joined to both activities it replayed, one bracket each
    _, panels = timelines.draw([traces / "small_auto.json.gz", traces / "small_auto_graph.json.gz"], lang, count)
    assert [len(p.fans) for p in panels] == [0, count]
    for launch, acts in panels[1].fans:
        assert launch.name == "cudaGraphLaunch" and [a.cls for a in acts] == ["memset", "kernel"]
        assert {id(a.act.launch) for a in acts} == {id(acts[0].act.launch)}
    assert path.read_text(encoding="utf-8").count('class="f"') == count + 1  # the brackets and the legend's
    # every runtime call is drawn, the ones that launched nothing apart from the launch calls
    classes = [[i.cls for i in p.items if p.lanes[i.lane] == ("runtime",)] for p in panels]
    assert classes == [["r", "l", "l", "r"] * count, ["l"] * count]
    assert "timeline-gpu-waits" in bodies and bodies["timeline-gpu-waits"][0] != t("finding.missing", lang)


def test_gpu_waits_without_the_small_shape_traces_says_not_measured(tmp_path):
    """A folder of today (no small_auto traces: a CPU run, a run without --overhead, every
    folder committed before them) says the figure was not measured; one trace alone draws it."""
    traces, figures = small_folder(tmp_path, which=())
    shutil.copyfile(TRACES / "flash.json.gz", traces / "flash.json.gz")
    bodies, _ = timelines.render_timelines(traces, figures, "en")
    assert bodies["timeline-gpu-waits"][0] == MISSING
    assert said_missing(figures / "timeline-gpu-waits.en.svg", "en")
    with gzip.open(traces / "small_auto_graph.json.gz", "wt", encoding="utf-8") as f:
        json.dump(small_call(graph=True), f)
    bodies, _ = timelines.render_timelines(traces, figures, "en")
    assert [h.split(" · ")[0] for h, _ in drawn(figures / "timeline-gpu-waits.en.svg")] == ["small_auto_graph.json.gz"]


def test_a_real_graph_replay_is_one_launch_joined_to_its_kernels():
    """The corpus's CUDA graph (torch.cuda.graphs, 414 activities a replay): Kineto gives every
    replayed activity the cudaGraphLaunch's correlation id; the panel joins the launch to the
    ones it draws (at most MAX_ACTS) under one bracket."""
    trace = load(ROOT / "tests" / "fixtures" / "corpus" / "cuda_graph.json.gz")
    found = pieces(from_dict(trace))
    from report.doctor.output.svg_pieces import panel

    p = panel(found, found.default, "cuda_graph.json.gz")
    launches = [i for i in p.items if i.cls == "l"]
    assert [i.name for i in launches] == ["cudaGraphLaunch"]
    assert len(p.fans) == 1 and p.fans[0][0] is launches[0]
    assert len(p.fans[0][1]) == min(MAX_ACTS, len(found.items[found.default].acts))
    corr = {e["args"]["correlation"] for e in trace["traceEvents"] if e.get("name") == "cudaGraphLaunch"}
    assert all(a.act.e.corr in corr for a in p.fans[0][1])
