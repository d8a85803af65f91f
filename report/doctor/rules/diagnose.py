"""The diagnosis `--explain` prints first: what paces the trace, attention per backend with
its reason, and the findings with their remedies (rules/remedies.py).

    diagnose(found, timeline, events)   a Result (model/result_types.py) of explain.py's dict

The scope of the pace is the profiler's steps (ProfilerStep#*) where the trace has them,
else the whole trace, else the range with the most GPU work: one verdict, the range rule's
(explain.py). Kineto's own work (events of category overhead, such as Activity Buffer
Request) inside the scope's ranges delays the next launch the way the host's work would;
its time is the profiler's, taken off the host wait before the verdict is given.
"""
from __future__ import annotations

import bisect
import math

from ...stats import stats
from ...trace.names import GRAPH_LAUNCHES, backend_of_kernels
from ..model.communication import collectives, communication
from ..model.gemm_shapes import gemm_inputs
from ..model.intervals import merge
from ..model.result_types import (
    HOST_SHARE,
    QUEUE_US,
    WHOLE_TRACE,
    AttentionRow,
    GraphReplay,
    Pace,
    Result,
    pace_verdict,
)
from ..model.steps import STEP_NAME, range_name
from .remedies import ALIGNED
from .remedies import findings as _findings
from .repeat_kv import repeated_kv

OPTIMIZER = "Optimizer.step#"  # torch.optim's record_function around each step: "Optimizer.step#AdamW.step"
PACED_BY = {"CPU-bound": "host", "GPU-bound": "gpu", "stalled": "waiting", "CPU only": "none"}


class Facts:
    """What the rules read (rules/remedies.py)."""

    def __init__(self, **kw):
        self.__dict__.update(kw)


def _scope(ranges):
    worked = [r for r in ranges if r.get("span_us") is not None]
    for name in (STEP_NAME, WHOLE_TRACE):
        for r in worked:
            if r["name"] == name:
                return r
    if worked:
        return max(worked, key=lambda r: r["with_gpu_work"] * (r.get("window_us") or 0.0))
    return ranges[0] if ranges else None


def _overhead(events, spans):
    """Kineto's own events (category overhead) per span: their time inside it, µs."""
    over = sorted((e.ts, e.end) for e in events if e.cat == "overhead")
    if not over:
        return [0.0 for _ in spans]
    starts = [s for s, _ in over]
    out = []
    for s, t in spans:
        i = bisect.bisect_left(starts, s)
        total = 0.0
        while i < len(over) and over[i][0] < t:
            total += max(0.0, min(t, over[i][1]) - over[i][0])
            i += 1
        out.append(total)
    return out


def _optimizer(events, timeline):
    """The optimizer's steps (torch.optim's ranges): launches per step, whether a foreach or
    fused op ran in them, the GPU time from first to last activity launched in them, added up."""
    steps = [e for e in events if e.cat == "user_annotation" and e.name.startswith(OPTIMIZER)]
    if not steps:
        return None
    launches = sorted((a.launch.ts, a.e.ts, a.e.end) for a in timeline.acts if a.launch is not None)
    ts = [x[0] for x in launches]
    foreach = any(e.cat == "cpu_op" and ("_foreach_" in e.name or "_fused_" in e.name)
                  and any(s.ts <= e.ts <= s.end for s in steps) for e in events)
    counts, spans = [], []
    for s in steps:
        mine = launches[bisect.bisect_left(ts, s.ts):bisect.bisect_right(ts, s.end)]
        counts.append(len(mine))
        spans.append(max(x[2] for x in mine) - min(x[1] for x in mine) if mine else 0.0)
    return {"name": steps[0].name.removeprefix(OPTIMIZER), "launches": stats(counts)["median"],
            "gpu_span_us": sum(spans), "foreach": foreach}


def _host_gaps(timeline, spans):
    """The GPU's idle gaps inside the spans (the whole GPU idle between two busy stretches)
    whose cause is the host, each (its length, the activity after it, where it began); a
    gap across a span's edge is the span's opening or closing, not a wait between launches."""
    union, starts, causes = timeline.union, timeline.union_starts, timeline.gap_causes
    out = []
    for s, t in merge(spans):  # overlapping spans (nested ranges) as one: each gap is visited once
        k = bisect.bisect_right(starts, s)
        while k < len(union) and union[k][0] <= t:
            if union[k - 1][1] >= s and causes[k] == "host":
                out.append((union[k][0] - union[k - 1][1], union[k][2], union[k - 1][1]))
            k += 1
    return out


def _pace(scope, kernel_median, overhead_us, with_stack=False):
    if scope is None:
        return Pace("", "none", "none", case="no_range")
    if scope.get("span_us") is None:
        return Pace(scope["name"], scope["verdict"], "none", case="cpu_only")
    host_idle = scope["idle_by_cause_us"]["host"]
    window = scope["window_us"] or 0.0
    host_share = scope["idle_share"]["host"]
    if overhead_us and window:
        # the profiler's own work kept out of the host wait: the verdict on what is left
        host_share = max(0.0, host_idle - overhead_us) / window
        verdict = pace_verdict(host_share, scope["busy_share"], scope.get("launch_delay_us"))
        if verdict != scope["verdict"]:
            scope["verdict"] = verdict
            scope["why"] = ("profiler", {"overhead_us": overhead_us, "host_share": host_share,
                                              "busy_share": scope["busy_share"]})
    paced = PACED_BY.get(scope["verdict"], "none")
    syncs = scope.get("sync_wait_us") or 0.0
    if paced == "host" and scope.get("openers"):
        by, per = max(scope["openers"].items(), key=lambda kv: kv[1])
        if per >= 0.5 * host_idle:
            paced = "sync"
    return Pace(scope["name"], scope["verdict"], paced, busy_share=scope["busy_share"],
                host_wait_share=host_share, launches_per_range=scope["launches_per_range"],
                median_kernel_us=kernel_median, launch_delay_us=scope.get("launch_delay_us"),
                sync_wait_us=syncs, profiler_us=overhead_us,
                activities_per_range=scope["activities_per_range"], with_stack=with_stack)


def _graphs(timeline, spans, ranges, activity_us, launches_per_range, first_out=False):
    """GraphReplay where captured graphs replay: per range of the pace's scope, the replays
    and the other launch calls with GPU work (the scope's launches less the replays), over the
    ranges the pace's figures are of (the first of three or more profiler steps left out; the
    whole trace: every replay) and by the same statistic, their median."""
    mine = [a for a in timeline.acts if a.graph]
    if not mine:
        return None
    replays = {id(a.launch): a.launch.ts for a in mine}
    per = None
    if ranges and spans:
        ts = sorted(replays.values())
        kept = sorted(spans)[1:] if first_out and len(spans) > 1 else spans
        per = stats([bisect.bisect_right(ts, t) - bisect.bisect_left(ts, s) for s, t in kept])["median"]
    gpu = sum(a.e.dur for a in mine)
    return GraphReplay(len(replays), len(mine), gpu, gpu / activity_us if activity_us else 0.0, per,
                       max(0.0, (launches_per_range or 0.0) - per) if per is not None else None)


def _step_syncs(timeline, spans, first_out=False):
    """A synchronize in every range of the pace's scope that lets the GPU run dry (a
    microbenchmark's torch.cuda.synchronize() per step): (its name, the median GPU idle from
    the work it waited for to the next activity, the median time the host waited in it), or
    None. The ranges as the pace's figures take them (the first of three or more profiler
    steps left out), at least two; the idle at least HOST_SHARE of a step (the range rule's
    share of host wait: less is not what sets the pace)."""
    kept = sorted(spans)[1:] if first_out and len(spans) > 1 else sorted(spans)
    if len(kept) < 2 or not timeline.syncs:
        return None
    ends, union, starts = timeline.sync_ends, timeline.union, timeline.union_starts
    gaps, waits, names, steps = [], [], {}, []
    for s, t in kept:
        mine = [x for x in timeline.syncs[bisect.bisect_left(ends, s):bisect.bisect_right(ends, t)] if x.ts >= s]
        if not mine:
            return None  # a range without one: not every step waits
        last = mine[-1]
        k = bisect.bisect_right(starts, last.end) - 1
        if k < 0 or union[k][1] > last.end + 1.0:
            return None  # the GPU still runs after it returns: it did not wait for the GPU to run dry
        if k + 1 < len(union):
            gaps.append(union[k + 1][0] - union[k][1])
            waits.append(last.dur)
            steps.append(t - s)
            names[last.name] = names.get(last.name, 0) + 1
    if not gaps or stats(gaps)["median"] < HOST_SHARE * stats(steps)["median"]:
        return None  # the round trip a small part of a step: not what paces it
    return max(names, key=names.get), stats(gaps)["median"], stats(waits)["median"]


def _replayed(att, timeline, activity_us):
    """The attention kernels of compiled code or a graph's replay (no SDPA op around them), as
    one row: replayed where a graph launched them."""
    backend = att.get("compiled_backend")
    if not backend:
        return []
    by_name = {}  # each kernel name's backend once
    mine = [a for a in timeline.acts if (not a.stack or a.graph) and (
        by_name[a.e.name] if a.e.name in by_name else by_name.setdefault(a.e.name, backend_of_kernels([a.e.name]))
    ) == backend]
    if not mine:
        return []
    gpu = sum(a.e.dur for a in mine)
    return [AttentionRow(backend, "replayed" if any(a.graph for a in mine) else "compiled", len(mine), gpu,
                         gpu / activity_us if activity_us else 0.0)]


def _attention_rows(att):
    rows = []
    for r in att["backends"]:
        rows.append(AttentionRow(r["backend"], r["direction"], r["calls"], r["gpu_us"], r["share"],
                                 fallback=r["backend"] == "math", causes=r.get("causes") or {}))
    hand = att.get("hand_written")
    if hand:
        rows.append(AttentionRow("hand_written", "forward", hand["chains"], hand["gpu_us"], hand["share"],
                                 copies=hand["masked_fill_copies"]))
    for g in att.get("calls", ()):
        if g["shapes"]:
            rows.append(AttentionRow(g["backend"], "call", g["calls"], fallback=g["backend"] == "math",
                                     shapes=True, reasons=g.get("reasons", []), source=g.get("source"),
                                     parsed=g["parsed"], told=g["why"]))
    return rows


def diagnose(found, timeline, events):
    """The Result of explain.py's dict `found` (its ranges' verdicts corrected for Kineto's own
    work), with the timeline and the kept events it was read from."""
    scope = _scope(found["ranges"])
    spans = []
    if scope is not None and scope["name"] != WHOLE_TRACE:
        spans = [(e.ts, e.end) for e in events if e.cat == "user_annotation" and range_name(e.name) == scope["name"]]
    elif scope is not None:
        spans = [(min(a.e.ts for a in timeline.acts), max(a.e.end for a in timeline.acts))]
    # the whole trace holds every launch, those before its first activity too
    graph_spans = [(-math.inf, math.inf)] if scope is not None and scope["name"] == WHOLE_TRACE else spans
    overhead = stats(_overhead(events, spans))["median"] if spans else 0.0
    kernels = [a.e.dur for a in timeline.acts if a.e.cat == "kernel"]
    kernel_median = stats(kernels)["median"] if kernels else None
    pace = _pace(scope, kernel_median, overhead, found.get("with_stack", False))
    step_sync = _step_syncs(timeline, spans, bool(scope and scope.get("first_left_out"))) if spans else None
    if step_sync and not (pace.launch_delay_us is not None and pace.launch_delay_us >= QUEUE_US) and (
            pace.paced_by in ("gpu", "waiting")
            or (pace.paced_by == "host" and step_sync[1] >= scope["idle_by_cause_us"]["host"])):
        # each step waits for the GPU to finish, then the GPU for the next step's launch: that idle,
        # at least the host waits inside the range, is what sets the pace
        pace.paced_by = "sync"
    att = found["attention"]
    calls = att.get("calls", [])
    note = "no_inputs" if att["sdpa_calls"] and not any(g["shapes"] for g in calls) else None
    ranges = scope["with_gpu_work"] if scope and scope.get("span_us") is not None else 0
    host_wait = scope["idle_by_cause_us"]["host"] if ranges else None
    gaps = _host_gaps(timeline, spans) if ranges else []
    facts = Facts(pace=pace, attention=att, calls=calls, kernels=found["kernels"], activity_us=found["activity_us"],
                  optimizer=_optimizer(events, timeline), openers=(scope or {}).get("openers") or {},
                  host_wait_us=host_wait, ranges=ranges, timeline=timeline,
                  host_gaps=[g for g in gaps if timeline.opener(g[2], g[1].launch) is None],
                  decode_calls=sum(g["calls"] for g in calls if g["parsed"] and g["parsed"].lengths
                                   and g["parsed"].lengths[0] == 1), step_sync=step_sync)
    # read off the kernel rows (a few), not every activity
    replayed = any(n in GRAPH_LAUNCHES for k in found["kernels"] for n in k["launch_calls"])
    # outside the graphs, copies alone: a graph's inputs copied into its static buffers, not work left out of it
    facts.copies_outside = replayed and all(a.e.cat in ("gpu_memcpy", "gpu_memset") for a in timeline.acts
                                            if not a.graph)
    facts.graphs = _graphs(timeline, graph_spans, ranges, found["activity_us"], pace.launches_per_range,
                           bool(scope and scope.get("first_left_out"))) if replayed else None
    facts.communication = communication(timeline) if "communication" in found["kinds_us"] else []
    facts.collectives = collectives(timeline) if facts.communication else ()
    names = {e.name for e in events if e.cat in ("cpu_op", "user_annotation")} if facts.communication else ()
    facts.fsdp = any("FullyShardedDataParallel" in n or "FSDP" in n for n in names)
    facts.ddp = any("DistributedDataParallel" in n for n in names)
    facts.narrow = [k for k in found["kernels"] if any(a in k["name"] for a in ALIGNED)]  # names read once
    facts.gemm_inputs = gemm_inputs(timeline, events, [k["name"] for k in facts.narrow])
    facts.other_idle_share = scope["idle_share"]["other"] if ranges else None
    facts.repeated_kv = repeated_kv(events, timeline, found["activity_us"]) if att["sdpa_calls"] else None
    found_list = _findings(facts)
    total = (scope.get("window_us") or 0.0) * ranges if ranges else 0.0
    for x in found_list:
        if not x.share and total:
            x.share = min(1.0, x.time_us / total)
    rows = _attention_rows(att) + _replayed(att, timeline, found["activity_us"])
    return Result(pace=pace, attention=rows, attention_note=None, findings=found_list, detail=found, note=note,
                  graphs=facts.graphs, communication=facts.communication)
