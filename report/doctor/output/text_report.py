"""The plain English text of an explanation (model/result_types.py's Result): what
`build_tables.py --explain` prints: the diagnosis on the first screen (first_screen), then
the detail of explain.py's dict (detail). Numbers in en format, times in µs, never "-0.0". A trace
of PyTorch's ROCm build gets AMD's words where NVIDIA's differ (model/platform_words.py)."""
from __future__ import annotations

import textwrap

from ...trace.names import GRAPH_LAUNCHES
from ..model.platform_words import WORDS, unit
from ..model.result_types import BUSY_SHARE, HOST_SHARE, QUEUE_US, WHOLE_TRACE
from ..shown.numbers import pct as _pct
from ..shown.numbers import sig_us
from ..shown.numbers import us as _us
from ..shown.safe import shown

MAX_STREAMS, MAX_KERNELS, MAX_GAPS = 8, 10, 5
MAX_DEVICES = 8  # kinds of device on the GPU line (a made-up trace can list 20,000)
# and "efficient", whose kernels differ by platform: WORDS
BACKEND_NAMES = {"flash": "flash (FlashAttention)", "cudnn": "cuDNN", "math": "math (unfused: matmul, softmax, matmul)",
                 "flex": "Flex attention (Triton kernels)", "overrideable": "a backend's own (overrideable)",
                 "preparation": "SDPA's preparation of its inputs (no backend)",
                 "flash_nested": "flash on nested jagged tensors (varlen)",
                 "efficient_nested": "efficient on nested jagged tensors (varlen)",
                 "inductor_fused": "Inductor kernels fusing ops around an SDPA call (Triton)",
                 "hand_written": "hand-written (matmul, softmax, matmul outside SDPA)"}
WIDTH, SCREEN = 100, 25  # the first screen: at most SCREEN lines of at most WIDTH columns
PACED = {"host": "the host: the GPU waits for launches", "gpu": "the GPU: launches queue ahead of it",
         "sync": "a sync: the host waits for the GPU, then the GPU for the host",
         "waiting": "waiting: the GPU idles with its work launched (events, other streams, latency)",
         "none": "nothing on the GPU"}


def _plural(n, one, many):
    """A count in words: whole ones with separators (1,048,470 calls), a median between two 2.5."""
    count = f"{int(n):,}" if n == int(n) else f"{n:,.1f}"
    return f"{count} {one if n == 1 else many}"


def _clip(name, width=60):
    return shown(name, width)  # a trace's text: inert, at most `width` characters


def _dims(v):
    return "×".join(map(str, v or [1]))


def _launch(k):
    smem = k.get("shared_memory") or 0
    return (f"block {_dims(k['block'])}, grid {_dims(k['grid'])}, {k['registers_per_thread']} registers/thread, "
            f"{smem / 1024:,.1f} KiB shared memory/block")


def _ops(k, on="cuda"):
    """The ops that launched a row's activities, and a graph's replay where one replayed them."""
    ops = k["ops"].most_common()
    replay = WORDS[on]["graph"] if any(n in GRAPH_LAUNCHES for n in k.get("launch_calls", ())) else ""
    if len(ops) == 1:
        named = [] if ops[0][0] == "(no ATen op)" else [shown(ops[0][0])]
        return f" ({', '.join(named + ([replay] if replay else []))})" if named or replay else ""
    listed = ", ".join(f"{shown(op)} ×{n:,}" for op, n in ops[:3])
    return f" ({listed}{', …' if len(ops) > 3 else ''}{'; ' + replay if replay else ''})"


def _kernel_lines(i, k, activity_us, on):
    words = WORDS[on]
    configs = f", one of {k['configs_of_name']} launch configurations" if k["configs_of_name"] > 1 else ""
    collectives = f" ({words['collectives']} communication)" if k["work"] == "communication" else ""
    lines = [f"{i:>2}. {shown(k['short_name'])}{_ops(k, on)}",
             f"    {k['kind']}{collectives}, "
             f"{_plural(k['calls'], 'call', 'calls')}, {_us(k['avg_us'])} per call, {_us(k['total_us'])} in all "
             f"({_pct(100 * k['total_us'] / activity_us, 0)} of GPU activity time){configs}"]
    if k["kind"] != "kernel":
        return lines
    if not k["block"]:
        return lines + ["    occupancy: the trace has no launch resources for it"]
    kineto = k.get("kineto_occupancy_pct")
    # Kineto makes its estimate with CUPTI only: on ROCm, a trace without one gets no word of it
    silent = on == "rocm" and not isinstance(kineto, (int, float))
    kineto = f"{kineto:g}%" if isinstance(kineto, (int, float)) else "not recorded"
    if len(k["kineto"]) > 1:
        kineto += f" (most calls; {len(k['kineto'])} values)"
    lines.append(f"    launch: {_launch(k)}")
    if "theoretical_pct" not in k:
        return lines + [f"    occupancy: {'' if silent else f'Kineto {kineto}; '}theoretical: no device "
                        "properties for its device in the trace"]
    limited_by = ", ".join(words["warps"] if x == "warps" else x for x in k["limited_by"])
    rule = "" if silent else f"; Kineto {kineto} (its rule gives {_pct(k['kineto_rule_pct'])})"
    lines.append(f"    occupancy: theoretical {_pct(k['theoretical_pct'])} "
                 f"({_plural(k['blocks_per_sm'], 'block', 'blocks')} per {k['unit']} with its own shared memory, "
                 f"limited by {limited_by}){rule}")
    for reason in k["reasons"]:
        lines.append(f"    why: {reason}")
    return lines


def _range_lines(r):
    head = f"{shown(r['name'])}: {_plural(r['ranges'], 'range', 'ranges')}" + (
        " (the first step left out: it holds the profiler's start)" if r.get("first_left_out") else "")
    if r["name"] == WHOLE_TRACE:
        head = f"{WHOLE_TRACE}: no record_function ranges, so the trace as one range"
    lines = [head]
    if r["span_us"] is None:
        return lines + [f"  profiled CPU time {_us(r['host_us'])}; no GPU activity launched in it",
                        f"  verdict: {r['verdict']}: {r['why']}"]
    wait = f" (after {_us(r['sync_wait_us'])} in synchronize calls)" if r["sync_wait_us"] >= 0.05 else ""
    some = (f", over the {r['with_gpu_work']:,} with GPU work" if r["with_gpu_work"] != r["ranges"] else "")
    idle = r["idle_by_cause_us"]
    delay = r["launch_delay_us"]
    lines += [f"  per range, median{some}:",
              f"    profiled CPU time {_us(r['host_us']):>12}{wait}",
              f"    GPU span          {_us(r['span_us']):>12}  first activity start to last end, "
              f"{_plural(r['activities_per_range'], 'activity', 'activities')}",
              f"    range's time      {_us(r['window_us']):>12}  its start to its last activity's end "
              "(or its CPU time's end)",
              f"    GPU busy          {_us(r['busy_us']):>12}  running the range's own activities{_streams(r)}",
              f"    GPU running       {_us(r['gpu_busy_us']):>12}  anything (this range's or earlier work): "
              f"{_pct(100 * r['busy_share'], 0)} of the range's time",
              f"    GPU idle          {_us(r['idle_us']):>12}  waiting for the host {_us(idle['host'])}, "
              f"other {_us(idle['other'])}"]
    if delay is not None:
        lines.append(f"    launch delay      {_us(delay):>12}  from a launch call's end to its activity's start")
    if r.get("kinds_us") and len(r["kinds_us"]) > 1:
        lines.append("    busy by kind      " + ", ".join(f"{k} {_us(v)}" for k, v in r["kinds_us"].items()))
    gaps = [g for g in r["gaps"] if g["total_us"] >= 0.05][:MAX_GAPS]
    if gaps:
        lines.append("  idle gaps on the GPU by pair of activities, largest total first "
                     "(total, count, median, max, cause):")
        lines += [f"    {_us(g['total_us']):>12}  ×{g['count']:,}  median {_us(g['median_us'])}  max "
                  f"{_us(g['max_us'])}  {g['cause']}: {_clip(g['before'])} -> {_clip(g['after'])}" for g in gaps]
        if len(r["gaps"]) > len(gaps):
            lines.append(f"    … and {_plural(len(r['gaps']) - len(gaps), 'more pair', 'more pairs')}")
        lines.append("  largest single gaps:")
        for g in r["single_gaps"]:
            by = f", after {g['opened_by']}" if g["opened_by"] else ""
            lines.append(f"    {_us(g['gap_us']):>12}  {g['cause']}{by}: {_clip(g['before'])} -> {_clip(g['after'])}")
    else:
        lines.append("  no idle gaps between its activities")
    return lines + [f"  verdict: {r['verdict']}: {r['why']}"]


def _streams(r):
    if r["streams"] < 2:
        return ""
    return f" on {r['streams']} streams (they overlap for {_us(r['overlap_us'])})"


def _stream_lines(found):
    rows = found["streams"]
    lines = ["", f"Streams ({len(rows)}): busy time, idle time between activities by cause, launch delay "
             "(the verdicts are the ranges', one per range):"]
    for s in rows[:MAX_STREAMS]:
        idle = s["idle_us"]
        delay = f", launch delay median {_us(s['launch_delay_us'])}" if s["launch_delay_us"] is not None else ""
        kinds = ", ".join(f"{n:,} {k}" for k, n in sorted(s["kinds"].items()))
        lines.append(f"  device {shown(s['device'], 40)} stream {shown(s['stream'], 40)}: {kinds}; "
                     f"busy {_us(s['busy_us'])}; idle: "
                     f"host {_us(idle['host'])}, other stream {_us(idle['stream'])}, other {_us(idle['other'])}"
                     f"{delay}")
    if len(rows) > MAX_STREAMS:
        lines.append(f"  … and {len(rows) - MAX_STREAMS:,} more streams")
    return lines


def _attention_lines(att, on):
    lines = ["", "Attention:"]
    if not att["backends"] and not att["hand_written"]:
        what = (f"kernels launched with no ATen op around them ({WORDS[on]['graph']}, compiled code) "
                f"show the {att['compiled_backend']} backend" if att["compiled_backend"]
                else "no scaled_dot_product_attention call and no matmul-softmax-matmul chain")
        return lines + [f"  {what}"]
    names = BACKEND_NAMES | {"efficient": WORDS[on]["efficient"]}
    for b in att["backends"]:
        lines.append(f"  {names.get(b['backend'], b['backend'])}, {b['direction']}: "
                     f"{_plural(b['calls'], 'call', 'calls')}, {_us(b['gpu_us'] / max(b['calls'], 1))} per call, "
                     f"{_us(b['gpu_us'])} in all ({_pct(100 * b['share'])} of GPU activity time); "
                     f"main kernel {_clip(b['top_kernel'], 70)}")
        for cause, us in b.get("causes", {}).items():
            lines.append(f"    {cause}: {_us(us)}")
    for backend, (fwd, bwd) in sorted(att["backward_matched"].items()):
        match = "each backward matches a forward" if fwd == bwd else f"{fwd:,} forward calls: they do not match"
        lines.append(f"  backward on {backend}: {_plural(bwd, 'call', 'calls')}, {match}")
    for g in att.get("calls", ()):
        if g["shapes"]:
            lines.append(f"  {_plural(g['calls'], 'call', 'calls')} ran {g['backend'] or 'no backend op'}: "
                         f"{g['inputs']}" + (f"; why: {g['why']}" if g["why"] else ""))
            lines += [f"    warning: {w}" for w in g.get("warnings", ())]
    if att["math_fallback"] and not any(g["shapes"] for g in att.get("calls", ())):
        lines.append("  SDPA fell back to the math backend (unfused kernels). Likely reasons: "
                     + "; ".join(att["math_reasons"]) + ".")
        lines.append(f"  To check: {att['math_check']}.")
    hand = att["hand_written"]
    if hand:
        copies = (f", {hand['masked_fill_copies']:,} with a masked_fill copy of the scores"
                  if hand["masked_fill_copies"] else "")
        chains = _plural(hand["chains"], "matmul -> softmax -> matmul chain", "matmul -> softmax -> matmul chains")
        lines.append(f"  hand-written attention: {chains} "
                     f"outside scaled_dot_product_attention{copies}; their kernels take {_us(hand['gpu_us'])} "
                     f"({_pct(100 * hand['share'])} of GPU activity time): "
                     "F.scaled_dot_product_attention fuses them")
    return lines


def _devices(found):
    """The devices in the trace's order, equal ones once with their count (an 8-GPU host's
    trace lists all eight), at most MAX_DEVICES different ones."""
    counts = {}
    for d, lim in sorted(found["limits"].items(), key=lambda kv: str(kv[0])):
        many = unit(found["platform"], lim.compute_capability)[1]
        text = (f"{shown(lim.name)} (compute capability {lim.compute_capability[0]}.{lim.compute_capability[1]}, "
                f"{lim.sm_count} {many}{', ROCm properties' if found['schemas'].get(d) == 'rocm' else ''})")
        counts[text] = counts.get(text, 0) + 1
    listed = [text if n == 1 else f"{n:,} × {text}" for text, n in counts.items()]
    more = f", … and {len(listed) - MAX_DEVICES:,} more" if len(listed) > MAX_DEVICES else ""
    return ", ".join(listed[:MAX_DEVICES]) + more


def _wrap(text, indent=""):
    return textwrap.wrap(text, WIDTH, initial_indent=indent, subsequent_indent=indent + "  ",
                         break_on_hyphens=False) or [indent]


def _first_lines(lines, n):
    """At most n wrapped lines, the last ending in … where the text goes on (the whole of
    it is in the detail and the JSON): never a sentence cut off without a mark."""
    if len(lines) <= n:
        return lines
    return lines[:n - 1] + [lines[n - 1][:WIDTH - 2].rstrip() + " …"]


def _backend_name(row, on):
    return (BACKEND_NAMES | {"efficient": WORDS[on]["efficient"]}).get(row.backend, row.backend or "no backend op")


def first_screen(result):
    """The diagnosis: at most SCREEN lines of at most WIDTH columns."""
    p, on = result.pace, result.detail["platform"]
    lines = _wrap(f"Paced by {PACED.get(p.paced_by, p.paced_by)} ({p.verdict}, over {p.scope})" if p.scope
                  else f"Paced by {PACED['none']}")
    lines += _wrap(p.evidence, "  ")
    g = result.graphs
    if g is not None:
        per = (f"; {g.per_range:,.1f} per range, beside {g.other_launches_per_range:,.1f} other launches"
               if g.per_range is not None else "")
        lines += _wrap(f"{WORDS[on]['graphs']} replay here: {_plural(g.replays, 'replay', 'replays')} of "
                       f"{_plural(g.activities, 'GPU activity', 'GPU activities')}, {sig_us(g.gpu_us)} "
                       f"({_pct(100 * g.share, 0)} of GPU time){per}", "  ")
    for c in result.communication[:2]:
        lines += _wrap(f"{WORDS[on]['collectives']} on device {shown(c.device, 20)} stream {shown(c.stream, 20)}: "
                       f"{sig_us(c.comm_us)}, {_pct(100 * c.share, 0)} of its GPU busy time; compute runs during "
                       f"{_pct(100 * c.overlap_share, 1)} of it", "  ")
    att = [r for r in result.attention if r.direction != "call"]
    calls = [r for r in result.attention if r.direction == "call"]
    if att or calls or result.attention_note:
        lines.append("Attention:")
    for r in att[:4]:
        what = ("chain" if r.backend == "hand_written" else
                "kernel" if r.direction in ("replayed", "compiled") else "call")
        lines += _wrap(f"{_backend_name(r, on)}, {r.direction}: {_plural(r.calls, what, what + 's')}, "
                       f"{sig_us(r.gpu_us)} "
                       f"({_pct(100 * r.share)} of GPU time)" + (": fell back to math" if r.fallback else "")
                       + (f"; {r.why}" if r.why else ""), "  ")
    for r in calls[:2]:
        lines += _first_lines(_wrap(f"{_plural(r.calls, 'call', 'calls')} ran {_backend_name(r, on)}: {r.inputs}"
                       + (f"; why: {r.why}" if r.why else ""), "  "), 3)
        for w in r.warnings[:1]:  # a wrong result outranks speed: on the first screen
            lines += _first_lines(_wrap(f"warning: {w}", "    "), 2)
    if result.attention_note:
        lines += _wrap(result.attention_note, "  ")
    if result.findings:
        lines.append("Findings, largest time at stake first:")
    given = 0
    for i, f in enumerate(result.findings, start=1):
        block = (_wrap(f"{i}. {f.title}: {sig_us(f.time_us)} at stake ({_pct(100 * f.share, 0)})", "  ")
                 + _first_lines(_wrap(f"evidence: {f.evidence}", "     "), 2) + _wrap(f"remedy: {f.remedy}", "     "))
        if len(lines) + len(block) > SCREEN - 1:
            break
        lines += block
        given += 1
    if not result.findings:
        lines.append("No finding: no rule's evidence is in the trace.")
    more = len(result.findings) - given
    lines.append(f"… {_plural(more, 'more finding', 'more findings')} in the JSON (--format json); the detail follows."
                 if more else "The detail follows.")
    return lines[:SCREEN]


def report(result):
    """The first screen, then the detail (explain.py's dict) as before."""
    return "\n".join(first_screen(result)) + "\n\n" + detail(result.detail)


def detail(found):
    devices = _devices(found)
    kinds = ", ".join(f"{k} {_us(v)}" for k, v in found["kinds_us"].items())
    overlap = found["stream_busy_sum_us"] - found["busy_us"]
    lines = [f"GPU: {devices or 'no device properties in the trace'}",
             f"{found['activities']:,} GPU activities, {_us(found['activity_us'])} of GPU activity time "
             "(their durations added up; the shares below are of it)",
             f"{_us(found['busy_us'])} of GPU busy time (at least one activity running, over "
             f"{_plural(len(found['streams']), 'stream', 'streams')}"
             + (f"; streams overlap for {_us(overlap)}" if overlap >= 0.05 else "") + ")",
             f"busy by kind: {kinds}", "",
             "GPU activities, longest total first (one row per name and launch configuration):"]
    for i, k in enumerate(found["kernels"][:MAX_KERNELS], start=1):
        lines += _kernel_lines(i, k, found["activity_us"], found["platform"])
    more = found["kernels"][MAX_KERNELS:]
    if more:
        lines.append(f"    … and {len(more):,} more ({_us(sum(k['total_us'] for k in more))} in all)")
    lines += _attention_lines(found["attention"], found["platform"])
    lines += _stream_lines(found)
    lines += ["", f"Ranges (record_function). CPU-bound: the GPU waits for the host for at least "
              f"{HOST_SHARE:.0%} of the range's time, its launches not queued (GPU-bound where the median "
              f"launch delay is {QUEUE_US:g} µs or more); GPU-bound: otherwise, with the GPU busy for at "
              f"least {BUSY_SHARE:.0%} of it; stalled: otherwise (idle with its work launched):"]
    for r in found["ranges"]:
        lines += [""] + _range_lines(r)
    if found["ranges_left_out"]:
        lines += ["", f"… and {found['ranges_left_out']:,} more range names, shorter in all"]
    return "\n".join(lines) + "\n"
