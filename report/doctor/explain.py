"""Read any torch.profiler trace the way the page "Read your own trace" does: pure Python.

    load_trace(path)   the trace in a .json or .json.gz file as a dict; TraceError (one line)
    read_trace(path)   the same file read as a stream into a compact Trace (a 200 MB trace
                       in less memory than its size twice)
    explain_path(path) read_trace and explain in one, its errors one line naming the file
    read_path(path)    the same, with the Trace and Timeline it read (--svg draws from them)
    explain_file(path) explain_path and report in one: the text `--explain` prints
                       (the command and the page's in-browser reader both call it);
                       written(found, form, lang) the same of a Result
    explain(trace)     either of the two explained, as a dict: GPU activities per launch
                       configuration with occupancy and its reason, streams, the attention
                       summary, and per range: span, busy time, idle time by cause, gaps,
                       launch delay and a verdict
    report(found)      the same as plain English text: what `build_tables.py --explain` prints

Ranges are the record_function ranges of the trace (cat "user_annotation"), grouped by
name; the profiler's own ProfilerStep#1, #2, ... count as one name, ProfilerStep#*. A
GPU activity belongs to a range when the CPU call that launched it lies in the range
(model/steps.py: the rule, once, with the drawing's). A trace without ranges is read as
one range, the whole trace.

The verdict, per range name (medians over the ranges with GPU work, every figure over the
same ones). A range's window runs from its start on the CPU to its last GPU activity's end,
or to the end of its profiled CPU time (its time less the CPU's synchronize calls) if that
comes later. The GPU's idle time in the window is split by cause (model/timeline.py):
waiting for the host (the next launch was issued after the GPU ran out of work: the same
wait the stream lines count; before the trace's first activity the GPU waits for nothing),
waiting on another stream, other.
    CPU-bound  the GPU waits for the host for at least 10 % of the window, its launches
               not queued: GPU-bound where they queue (a median launch delay of 50 µs or
               more, QUEUE_US: the GPU is behind the host, whatever waits elsewhere)
    GPU-bound  otherwise, when the GPU is busy for at least 90 % of the window
    stalled    otherwise: the GPU is idle with its work already launched (waiting on other
               streams or events, or the launch latency of many small kernels)
Of three or more profiler steps (ProfilerStep#*) the first is left out: it holds the
profiler's start (the first launches, Kineto's buffer requests). Kineto's own events
(category overhead) in a range are the profiler's time, not the host's (rules/diagnose.py).
The page docs/read-your-trace.*.md states the same rule: change them together.
"""
from __future__ import annotations

import bisect
import json
import math

from ..stats import stats
from ..trace.names import LAUNCH_CATS, short_kernel_name
from ..trace.reading.events import MAX_TIME_US
from ..trace.reading.stream import Trace, from_dict
from .model.idle import busy_by, idle_causes, window
from .model.kernel_rows import add_occupancy, devices, kernel_rows
from .model.platform_words import WORDS, platform
from .model.result_types import BUSY_SHARE, HOST_SHARE, QUEUE_US, WHOLE_TRACE, Result, pace_verdict, to_json
from .model.steps import STEP_NAME, Launched, first_left_out, range_name
from .model.timeline import HIP_SYNC_CALLS, SYNC_CALLS, Timeline
from .output import said
from .output.text_report import report as _text
from .output.text_report import screen as _screen
from .reading.trace_file import OUT_OF_MEMORY, TraceError, collector_paused, load_trace, read_trace
from .rules.attention import attention
from .rules.diagnose import diagnose
from .shown.safe import error_line, inert

MAX_RANGES, MAX_SINGLE = 20, 3
__all__ = ["BUSY_SHARE", "HIP_SYNC_CALLS", "HOST_SHARE", "MAX_TIME_US", "STEP_NAME", "SYNC_CALLS", "WHOLE_TRACE",
           "Result", "TraceError", "explain", "explain_file", "explain_json", "explain_path", "load_trace",
           "read_path", "read_trace", "report", "written"]


_LABELS = {}


def _label(a):
    """An activity by its short name and the ATen op that launched it: pairs of gaps are
    told apart by their whole context, not by short names that many ops share."""
    found = a.label
    if found is None:
        key = (a.e.name, a.op)
        found = _LABELS.get(key)
        if found is None:
            name = short_kernel_name(a.e.name)
            found = _LABELS[key] = f"{name} ({a.op})" if a.op and a.op != name else name
        a.label = found
    return found


def _no_gpu(data):
    cats = {c.lower() for c in data.categories}
    if any("mtia" in c for c in cats):
        return ("the trace is from an MTIA accelerator: --explain reads CUDA and ROCm GPU activity "
                "(kernel, gpu_memcpy, gpu_memset categories), and this trace has none")
    # ProfilerActivity.CUDA is a ROCm build's GPU activity too (model/platform_words.py)
    gpu = WORDS[platform(data.categories, data.meta, (e.name for e in data.events if e.cat in LAUNCH_CATS))]["gpu"]
    ops = sum(1 for e in data.events if e.cat in ("cpu_op", "user_annotation"))
    if ops:
        return (f"the trace has no GPU activity (kernels, memcpy, memset), only {ops:,} CPU events: "
                f"record it with ProfilerActivity.CUDA on a machine with {gpu}")
    return ("the trace has no GPU activity (kernels, memcpy, memset) and no CPU operations: record "
            f"it with ProfilerActivity.CPU and ProfilerActivity.CUDA on a machine with {gpu}")


def _explain_range(name, ranges, per_range, timeline):
    """One range name: medians over its ranges with GPU work, gaps, verdict."""
    sync_ts = [s.ts for s in timeline.syncs_by_start]
    rows = []
    for r, acts in zip(ranges, per_range, strict=True):
        lo = bisect.bisect_left(sync_ts, r["ts"])
        hi = bisect.bisect_right(sync_ts, r["ts"] + r["dur"])
        wait = sum(s.dur for s in timeline.syncs_by_start[lo:hi])
        host = r["dur"] - wait
        rows.append((host, wait, window(acts, timeline, r["ts"], r["ts"] + host) if acts else None, len(acts)))
    worked = [x for x in rows if x[2] is not None]
    out = {"name": name, "ranges": len(ranges), "with_gpu_work": len(worked)}
    if not worked:
        return out | {"host_us": stats([x[0] for x in rows])["median"], "sync_wait_us": 0.0,
                      "span_us": None, "verdict": "CPU only", "why": ("cpu_only", {}),
                      "gaps": [], "single_gaps": []}
    med = lambda values: stats(values)["median"]  # noqa: E731
    wins = [x[2] for x in worked]
    share = {c: med([w["idle"][c] / w["window"] if w["window"] else 0.0 for w in wins])
             for c in ("host", "other")}
    busy_share = med([w["gpu_busy"] / w["window"] if w["window"] else 1.0 for w in wins])
    delays = [d for w in wins for d in w["delays"]]
    streams = {}
    for w in wins:
        for s, b in w["stream_busy"].items():
            streams.setdefault(s, []).append(b)
    out |= {"host_us": med([x[0] for x in worked]), "sync_wait_us": med([x[1] for x in worked]),
            "span_us": med([w["span"] for w in wins]), "window_us": med([w["window"] for w in wins]),
            "busy_us": med([w["busy"] for w in wins]), "busy_share": busy_share,
            "gpu_busy_us": med([w["gpu_busy"] for w in wins]),
            "idle_us": med([w["window"] - w["gpu_busy"] for w in wins]),
            "idle_by_cause_us": {c: med([w["idle"][c] for w in wins]) for c in share},
            "idle_share": share, "launch_delay_us": (stats(delays) or {}).get("median"),
            "overlap_us": med([sum(w["stream_busy"].values()) - w["busy"] for w in wins]),
            "streams": len(streams),
            "kinds_us": {k: med([w["kinds"].get(k, 0.0) for w in wins])
                         for k in ("compute", "communication", "memory") if any(k in w["kinds"] for w in wins)},
            "activities_per_range": med([x[3] for x in worked]),
            # launch calls with GPU work (one delay each): a CUDA graph's replay is one for all its kernels
            "launches_per_range": med([len(w["delays"]) for w in wins])}
    out["gaps"], out["single_gaps"], out["openers"] = _gaps(wins, timeline, len(worked))
    out["verdict"], out["why"] = _verdict(out)
    return out


def _gaps(wins, timeline, instances):
    pairs, singles, openers = {}, [], {}
    for w in wins:
        for gap, prev, nxt, cause, idle_from in w["gaps"]:
            key = (_label(prev), _label(nxt))
            pairs.setdefault(key, []).append((gap, cause))
            singles.append((gap, key, cause, prev, nxt, idle_from))
    rows = []
    for (before, after), found in pairs.items():
        g = [x[0] for x in found]
        causes = {}
        for gap, cause in found:
            causes[cause] = causes.get(cause, 0.0) + gap
        st = stats(g)
        rows.append({"before": before, "after": after, "count": len(g), "per_range": len(g) / instances,
                     "total_us": sum(g), "median_us": st["median"], "max_us": st["max"],
                     "cause": max(causes, key=causes.get)})
    rows.sort(key=lambda r: (-r["total_us"], r["before"], r["after"]))
    singles.sort(key=lambda x: -x[0])
    top = []
    for gap, (before, after), cause, _, nxt, idle_from in singles[:MAX_SINGLE]:
        opener = timeline.opener(idle_from, nxt.launch) if cause == "host" else None
        top.append({"gap_us": gap, "before": before, "after": after, "cause": cause, "opened_by": opener})
    for gap, _, cause, _, nxt, idle_from in singles:
        if cause == "host" and gap >= 10.0:
            by = timeline.opener(idle_from, nxt.launch)
            if by:
                openers[by] = openers.get(by, 0.0) + gap / instances
    return rows, top, openers


def _verdict(r):
    """(verdict, why): why is a fact, (its case, its figures), that output/said.py words."""
    share, delay = r["idle_share"], r["launch_delay_us"]
    verdict = pace_verdict(share["host"], r["busy_share"], delay)
    figures = {"busy_share": r["busy_share"], "host_share": share["host"], "delay_us": delay}
    if verdict == "GPU-bound" and delay is not None and delay >= QUEUE_US:
        return verdict, ("queued", figures)
    if verdict == "CPU-bound":
        figures = {"host_share": share["host"], "host_us": r["idle_by_cause_us"]["host"]}
        if r["openers"]:
            by, us = max(r["openers"].items(), key=lambda kv: kv[1])
            return verdict, ("host_after", figures | {"by": by, "by_us": us})
        return verdict, ("host", figures)
    if verdict == "GPU-bound":
        return verdict, ("gpu" if delay is None else "gpu_delay", figures)
    return verdict, ("stalled" if delay is None else "stalled_delay", figures | {"other_share": share["other"]})


def _stream_verdict(row):
    """The range rule on one stream's whole span: its idle time before each activity by cause."""
    span = row["span_us"]
    if not span:
        return "GPU-bound"
    return pace_verdict(row["idle_us"]["host"] / span, row["busy_us"] / span, row["launch_delay_us"])


def explain_path(path):
    """The Result of the file at path; TraceError (one line, naming the file) if the file is
    no trace, or one this reader cannot use."""
    return read_path(path)[0]


def read_path(path):
    """(the Result of the file at path, the Trace it was read into, the Timeline of its events
    that the Result was read off): the file read and parsed once, what trace-doctor --svg draws
    from too (output/svg.py's draw_read); TraceError as explain_path."""
    trace = read_trace(path)  # streamed: a large trace needs less memory than as a dict
    try:
        result, timeline = _explained(trace)
        return result, trace, timeline
    except TraceError as err:
        raise TraceError(error_line(path, str(err))) from None
    except MemoryError:
        raise TraceError(error_line(path, OUT_OF_MEMORY)) from None
    except (TypeError, KeyError, AttributeError, ArithmeticError, ValueError) as err:
        raise TraceError(error_line(path, f"a trace this reader cannot use ({type(err).__name__}: "
                                          f"{str(err)[:100]})")) from None


def explain_file(path, form="text", lang="en"):
    """The text `build_tables.py --explain PATH` prints in `lang` (form "json": the JSON document
    of model/result_types.py, whatever the language); TraceError as explain_path."""
    return written(explain_path(path), form, lang)


def written(found, form="text", lang="en"):
    """A Result as explain_file prints it: the text in `lang`, or (form "json") the JSON document."""
    return explain_json(found) if form == "json" else report(found, lang)


def explain_json(result, lang="en"):
    """The Result as the JSON text `--format json` prints (model/result_types.py's schema): ASCII
    only, so no control character, bidi mark or lone surrogate of the trace's names reaches a
    terminal as itself (each is a JSON escape, \\u001b; inert() would write \\x1b, no JSON).
    Its facts are the same in every language; its words (a finding's title, evidence, remedy,
    source; the pace's evidence; a group of calls' inputs and why) are English, the schema's,
    unless the page asks for its own language (lang)."""
    doc = to_json(worded(result, lang) if lang != "en" else result)
    doc["screen"] = first_screen_parts(result, lang)  # the first screen's sentences: what the page's card shows
    return json.dumps(doc, indent=1, ensure_ascii=True, allow_nan=False) + "\n"


def first_screen_parts(result, lang="en"):
    """The first screen's sentences whole, in its order and words, by section (output/text_report.py's
    screen): [{heading, lines: [{text, level, kind}]}], the page's card (docs/javascripts/trace-doctor.js)."""
    return _screen(result, lang)[1]


def worded(result, lang="en"):
    """The result with the words of its facts in `lang` (output/said.py): what the JSON holds
    beside the facts. explain() gives it in English."""
    for f in result.findings:
        f.title, f.evidence, f.remedy, f.source = said.finding(f, lang)
    result.pace.evidence = said.pace(result.pace, lang)
    result.attention_note = said.attention_note(result.note, lang)
    for r in result.attention:
        if r.direction == "call":
            r.inputs = said.inputs(r.parsed, lang)
            r.why = said.call_why(r.told, lang) if r.told else None
            r.remedy = said.remedy(r.told, lang) if r.told else None
            r.warnings = said.warnings(r.told, lang) if r.told else []
        elif r.causes or r.copies:
            r.why = ("; ".join(said.say("att.cause", lang, cause=said.say(f"prep.{c}", lang), us=u)
                               for c, u in r.causes.items()) or said.say("att.copies", lang, copies=r.copies))
    return result


def explain(trace):
    """What the page reads off a trace (a dict from load_trace, or read_trace's Trace), as a
    Result (model/result_types.py): the diagnosis, and the detail dict, whose keys it reads as;
    TraceError if it has no GPU activity."""
    return _explained(trace if isinstance(trace, Trace) else from_dict(trace))[0]


def _explained(data):
    """(the Result of a Trace, worded; the Timeline it was read off)."""
    with collector_paused():
        result, timeline = _explain(data)
        return worded(result), timeline


def _explain(data):
    timeline = Timeline(data.events)
    if not timeline.acts:
        raise TraceError(_no_gpu(data))
    timeline.syncs_by_start = sorted(timeline.syncs, key=lambda e: e.ts)
    busy_us = math.fsum(u[1] - u[0] for u in timeline.union)
    # shares are of the activities' own time added up: with overlapping streams they still
    # add up to 100 %, where shares of the busy time (the union) would go past it
    # exactly rounded: Python 3.12+'s sum() (the page's Pyodide) adds floats otherwise than 3.11's
    activity_us = math.fsum(a.e.dur for a in timeline.acts)
    # NVIDIA's or AMD's words (model/platform_words.py): the first launch call's name, the synchronize
    # calls', the categories and the top-level fields tell
    first = next((a.launch.name for a in timeline.acts if a.launch is not None), "")
    found_on = platform(data.categories, data.meta, [first] + [s.name for s in timeline.syncs])
    kernels = kernel_rows(timeline.acts)
    devs = devices(data.meta)
    by_device = {}
    for k in kernels:
        if k["block"]:
            by_device.setdefault(k["device"], []).append(k)
    usable = [(device, limits) for device, (limits, _) in devs.items() if limits is not None]
    for device, limits in usable:
        add_occupancy(by_device.get(device, []), limits, found_on)
    if usable and None in by_device:  # rows without a device: by the last device's properties
        add_occupancy(by_device[None], usable[-1][1], found_on)

    groups = {}
    for e in data.events:
        if e.cat == "user_annotation":
            groups.setdefault(range_name(e.name), []).append({"ts": e.ts, "dur": e.dur})
    if not groups:
        host = [e for e in data.events if e.cat not in ("kernel", "gpu_memcpy", "gpu_memset", "overhead")]
        host = host or [a.e for a in timeline.acts]
        start, stop = min(e.ts for e in host), max(e.end for e in host)
        groups = {WHOLE_TRACE: [{"ts": start, "dur": stop - start}]}
    launched = Launched(timeline.acts)
    # user ranges by first appearance, the profiler's steps last; the MAX_RANGES longest
    order = sorted(groups, key=lambda n: (n == STEP_NAME, min(r["ts"] for r in groups[n]), n))
    kept = set(sorted(order, key=lambda n: -sum(r["dur"] for r in groups[n]))[:MAX_RANGES])
    ranges = []
    for n in order:
        if n not in kept:
            continue
        inst = sorted(groups[n], key=lambda r: r["ts"])
        first_out = first_left_out(n, len(inst))
        if first_out:  # the first step holds the profiler's start (its first launches, Kineto's buffers)
            inst = inst[1:]
        per = [list(timeline.acts)] if n == WHOLE_TRACE else launched.within([(r["ts"], r["dur"]) for r in inst])
        ranges.append(_explain_range(n, inst, per, timeline) | {"first_left_out": first_out})
    busy = busy_by(timeline.acts, lambda a: a.kind)  # each kind's busy stretches, in one pass
    kinds = {k: busy[k] for k in ("compute", "communication", "memory") if k in busy}
    streams = idle_causes(timeline)
    for row in streams:
        row["verdict"] = _stream_verdict(row)
    caps = [lim.compute_capability for lim, _ in devs.values() if lim]
    found = {"platform": found_on, "devices": {d: (lim.name if lim else None) for d, (lim, _) in devs.items()},
            "limits": {d: lim for d, (lim, _) in devs.items() if lim},
            "schemas": {d: schema for d, (lim, schema) in devs.items() if lim},
            "activities": len(timeline.acts), "busy_us": busy_us,
            "stream_busy_sum_us": sum(s["busy_us"] for s in streams), "kinds_us": kinds,
            "streams": streams, "kernels": kernels, "ranges": ranges,
            "ranges_left_out": len(order) - len(ranges),
            "activity_us": activity_us, "with_stack": "python_function" in data.categories,
            "attention": attention(timeline, data.events, activity_us, found_on, caps[0] if caps else None)}
    return diagnose(found, timeline, data.events), timeline


def report(found, lang="en"):
    """The explanation as plain text in `lang` (output/said.py's languages), the same for the
    same trace; the trace's text in it made inert (shown/safe.py), whatever the renderer
    clipped or not."""
    return inert(_text(found, lang))
