"""The detail of an explanation in text (explain.py's dict): the devices, the GPU activities
with their occupancy, attention, the streams and the ranges, after the first screen
(text_report.py). Every sentence is a key of output/words_*.py; numbers as the language
writes them, times in µs, never "-0.0". A trace of PyTorch's ROCm build gets AMD's words where
NVIDIA's differ (model/platform_words.py).

    detail(found, lang)   the text, one string
"""
from __future__ import annotations

from functools import partial

from ...trace.names import GRAPH_LAUNCHES
from ..model.platform_words import WORDS, unit
from ..model.result_types import BUSY_SHARE, HOST_SHARE, QUEUE_US, WHOLE_TRACE
from ..shown.numbers import count
from ..shown.safe import shown
from . import said

MAX_STREAMS, MAX_KERNELS, MAX_GAPS = 8, 10, 5
MAX_DEVICES = 8  # kinds of device on the GPU line (a made-up trace can list 20,000)
MAX_CALL_GROUPS = 20  # groups of SDPA calls shown (and replayed by --ask-torch), most calls first
NO_OP = "(no ATen op)"  # model/kernel_rows.py's mark of activities no op launched


def _clip(name, width=60):
    return shown(name, width)  # a trace's text: inert, at most `width` characters


def _ops(k, on, say):
    """The ops that launched a row's activities, and a graph's replay where one replayed them."""
    ops = k["ops"].most_common()
    replay = say(f"platform.graph.{on}") if any(n in GRAPH_LAUNCHES for n in k.get("launch_calls", ())) else ""
    if len(ops) == 1:
        named = [] if ops[0][0] == NO_OP else [shown(ops[0][0])]
        return f" ({', '.join(named + ([replay] if replay else []))})" if named or replay else ""
    listed = ", ".join(say("detail.op_count", op=shown(op), n=n) for op, n in ops[:3])
    return f" ({listed}{', …' if len(ops) > 3 else ''}{'; ' + replay if replay else ''})"


def _kernel_lines(i, k, activity_us, on, say):
    extra = dict(collectives=say("kernel.collectives", name=WORDS[on]["collectives"])
                 if k["work"] == "communication" else "",
                 configs=say("kernel.configs", n=k["configs_of_name"]) if k["configs_of_name"] > 1 else "")
    lines = [f"{i:>2}. {shown(k['short_name'])}{_ops(k, on, say)}",
             say("kernel.row", kind=k["kind"], calls=k["calls"], avg=k["avg_us"], total=k["total_us"],
                 share=100 * k["total_us"] / activity_us, **extra)]
    if k["kind"] != "kernel":
        return lines
    if not k["block"]:
        return lines + [say("kernel.no_resources")]
    kineto = k.get("kineto_occupancy_pct")
    # Kineto makes its estimate with CUPTI only: on ROCm, a trace without one gets no word of it
    silent = on == "rocm" and not isinstance(kineto, (int, float))
    kineto = say("kernel.kineto", pct=kineto) if isinstance(kineto, (int, float)) else say("kernel.not_recorded")
    if len(k["kineto"]) > 1:
        kineto = say("kernel.kineto_values", kineto=kineto, n=len(k["kineto"]))
    smem = k.get("shared_memory") or 0
    lines.append(say("kernel.launch", block=k["block"], grid=k["grid"], registers=k["registers_per_thread"],
                     kib=smem / 1024))
    if "theoretical_pct" not in k:
        return lines + [say("kernel.no_properties") if silent else say("kernel.no_properties_kineto", kineto=kineto)]
    limited_by = ", ".join(say(f"limit.{on}.warps") if x == "warps" else say(f"limit.{x}") for x in k["limited_by"])
    v = dict(theoretical=k["theoretical_pct"], blocks=k["blocks_per_sm"], unit=say(f"unit.{k['unit']}"),
             limited_by=limited_by)
    lines.append(say("kernel.occupancy", **v) if silent else
                 say("kernel.occupancy_kineto", kineto=kineto, rule=k["kineto_rule_pct"], **v))
    for case, figures in k["reasons"]:
        figures = {**figures, "unit": say(f"unit.{figures['unit']}")} if "unit" in figures else figures
        lines.append(say("kernel.why", reason=say(f"occ.{case}", **figures)))
    return lines


def _range_lines(r, lang, say):
    name = say("range.whole_trace") if r["name"] == WHOLE_TRACE else shown(r["name"])
    head = (say("range.whole") if r["name"] == WHOLE_TRACE else
            say("range.first_out" if r.get("first_left_out") else "range.head", name=name, n=r["ranges"]))
    lines = [head]
    verdict = say("range.verdict", verdict=said.verdict(r["verdict"], lang), why=said.range_why(r["why"], lang))
    if r["span_us"] is None:
        return lines + [say("range.cpu_only", host=r["host_us"]), verdict]
    wait = say("range.sync_wait", us=r["sync_wait_us"]) if r["sync_wait_us"] >= 0.05 else ""
    idle = r["idle_by_cause_us"]
    streams = say("range.streams", n=r["streams"], us=r["overlap_us"]) if r["streams"] >= 2 else ""
    lines += [say("range.median_some", n=r["with_gpu_work"]) if r["with_gpu_work"] != r["ranges"] else
              say("range.median"),
              say("range.host", us=r["host_us"], wait=wait),
              say("range.span", us=r["span_us"], n=r["activities_per_range"]),
              say("range.window", us=r["window_us"]),
              say("range.busy", us=r["busy_us"], streams=streams),
              say("range.running", us=r["gpu_busy_us"], share=r["busy_share"]),
              say("range.idle", us=r["idle_us"], host=idle["host"], other=idle["other"])]
    if r["launch_delay_us"] is not None:
        lines.append(say("range.delay", us=r["launch_delay_us"]))
    if r.get("kinds_us") and len(r["kinds_us"]) > 1:
        lines.append(say("range.kinds", kinds=_kinds(r["kinds_us"], say)))
    gaps = [g for g in r["gaps"] if g["total_us"] >= 0.05][:MAX_GAPS]
    if not gaps:
        return lines + [say("range.no_gaps"), verdict]
    lines.append(say("range.gaps"))
    lines += [say("range.gap", total=g["total_us"], count=g["count"], median=g["median_us"], most=g["max_us"],
                  cause=say(f"cause.{g['cause']}"), before=_clip(g["before"]), after=_clip(g["after"]))
              for g in gaps]
    if len(r["gaps"]) > len(gaps):
        lines.append(say("range.more_gaps", n=len(r["gaps"]) - len(gaps)))
    lines.append(say("range.single_gaps"))
    for g in r["single_gaps"]:
        v = dict(gap=g["gap_us"], cause=say(f"cause.{g['cause']}"), before=_clip(g["before"]), after=_clip(g["after"]))
        lines.append(say("range.single_after", by=g["opened_by"], **v) if g["opened_by"] else
                     say("range.single", **v))
    return lines + [verdict]


def _kinds(kinds_us, say):
    return ", ".join(say("detail.kind", kind=say(f"kind.{k}"), us=v) for k, v in kinds_us.items())


def _stream_lines(found, lang, say):
    rows = found["streams"]
    lines = ["", say("streams.head", n=len(rows))]
    for s in rows[:MAX_STREAMS]:
        idle = s["idle_us"]
        v = dict(device=shown(s["device"], 40), stream=shown(s["stream"], 40), busy=s["busy_us"], host=idle["host"],
                 other_stream=idle["stream"], other=idle["other"],
                 kinds=", ".join(f"{count(n, lang)} {say(f'kind.{k}')}" for k, n in sorted(s["kinds"].items())))
        lines.append(say("streams.row", **v) if s["launch_delay_us"] is None else
                     say("streams.row_delay", delay=s["launch_delay_us"], **v))
    if len(rows) > MAX_STREAMS:
        lines.append(say("streams.more", n=len(rows) - MAX_STREAMS))
    return lines


def _attention_lines(att, on, lang, say):
    lines = ["", say("head.attention")]
    if not att["backends"] and not att["hand_written"]:
        what = (say("att.compiled", graph=say(f"platform.graph.{on}"), backend=att["compiled_backend"])
                if att["compiled_backend"] else say("att.none"))
        return lines + [f"  {what}"]
    for b in att["backends"]:
        lines.append(say("att.backend", backend=said.backend_name(b["backend"], on, lang),
                         direction=say(f"direction.{b['direction']}"), calls=b["calls"],
                         per=b["gpu_us"] / max(b["calls"], 1), gpu=b["gpu_us"], share=b["share"],
                         kernel=_clip(b["top_kernel"], 70)))
        lines += [say("att.cause_line", cause=say(f"prep.{c}"), us=u) for c, u in b.get("causes", {}).items()]
    for backend, (fwd, bwd) in sorted(att["backward_matched"].items()):
        lines.append(say("att.backward_matched", backend=backend, calls=bwd) if fwd == bwd else
                     say("att.backward_unmatched", backend=backend, calls=bwd, forward=fwd))
    shapes = [g for g in att.get("calls", ()) if g["shapes"]]
    for g in shapes[:MAX_CALL_GROUPS]:
        told = g["why"]
        lines.append("  " + said.call_line(g["calls"], g["backend"] or say("call.no_backend"), g["parsed"], told,
                                           lang))
        lines += ["    " + say("warning", warning=w) for w in (said.warnings(told, lang) if told else ())]
    if len(shapes) > MAX_CALL_GROUPS:
        lines.append(say("calls.more", n=len(shapes) - MAX_CALL_GROUPS))
    if att["math_fallback"] and not any(g["shapes"] for g in att.get("calls", ())):
        lines.append(say("math.likely", reasons="; ".join(say(f"math_reason.{k}") for k in att["math_reasons"])))
        lines.append(say("math.check", backends=att["math_check_backends"]))
    hand = att["hand_written"]
    if hand:
        v = dict(chains=hand["chains"], gpu=hand["gpu_us"], share=hand["share"], copies=hand["masked_fill_copies"])
        lines.append(say("att.hand_copies" if hand["masked_fill_copies"] else "att.hand", **v))
    return lines


def _devices(found, say):
    """The devices in the trace's order, equal ones once with their count (an 8-GPU host's
    trace lists all eight), at most MAX_DEVICES different ones."""
    counts = {}  # each kind of device by its facts, worded once (a made-up trace lists 20,000)
    for d, lim in sorted(found["limits"].items(), key=lambda kv: str(kv[0])):
        kind = (lim.name, *lim.compute_capability[:2], lim.sm_count,
                unit(found["platform"], lim.compute_capability)[1], found["schemas"].get(d) == "rocm")
        counts[kind] = counts.get(kind, 0) + 1
    listed = []
    for (name, major, minor, sms, many, rocm), n in list(counts.items())[:MAX_DEVICES]:
        text = say("device.rocm" if rocm else "device", name=shown(name), major=major, minor=minor, sms=sms,
                   unit=say(f"unit.{many}"))
        listed.append(text if n == 1 else say("device.count", n=n, device=text))
    more = say("device.more", n=len(counts) - MAX_DEVICES) if len(counts) > MAX_DEVICES else ""
    return ", ".join(listed) + more


def detail(found, lang="en"):
    say = partial(said.say, lang=lang)
    devices = _devices(found, say)
    overlap = found["stream_busy_sum_us"] - found["busy_us"]
    busy = dict(us=found["busy_us"], streams=len(found["streams"]))
    lines = [say("detail.gpu", devices=devices) if devices else say("detail.no_devices"),
             say("detail.activities", n=found["activities"], us=found["activity_us"]),
             say("detail.busy_overlap", overlap=overlap, **busy) if overlap >= 0.05 else say("detail.busy", **busy),
             say("detail.kinds", kinds=_kinds(found["kinds_us"], say)), "",
             say("detail.kernels_head")]
    for i, k in enumerate(found["kernels"][:MAX_KERNELS], start=1):
        lines += _kernel_lines(i, k, found["activity_us"], found["platform"], say)
    more = found["kernels"][MAX_KERNELS:]
    if more:
        lines.append(say("detail.more_kernels", n=len(more), us=sum(k["total_us"] for k in more)))
    lines += _attention_lines(found["attention"], found["platform"], lang, say)
    lines += _stream_lines(found, lang, say)
    lines += ["", say("ranges.head", host=HOST_SHARE, queue=QUEUE_US, busy=BUSY_SHARE)]
    for r in found["ranges"]:
        lines += [""] + _range_lines(r, lang, say)
    if found["ranges_left_out"]:
        lines += ["", say("ranges.more", n=found["ranges_left_out"])]
    return "\n".join(lines) + "\n"
