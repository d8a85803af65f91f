"""Read any torch.profiler trace the way the page "Read your own trace" does: pure Python.

    load_trace(path)   the trace in a .json or .json.gz file; TraceError (one line) if it is none
    explain_file(path) load, explain and report in one: the text `--explain` prints, or
                       TraceError with the line it prints after "build_tables.py: error: "
                       (the command and the page's in-browser reader both call it)
    explain(trace)     its GPU activities with occupancy, and per range: GPU span, busy time,
                       idle gaps and a verdict (GPU-bound or CPU-bound), as a dict
    report(found)      the same as plain English text: what `build_tables.py --explain` prints

Ranges are the record_function ranges of the trace (cat "user_annotation"), grouped by
name; the profiler's own ProfilerStep#1, #2, ... count as one name, ProfilerStep#*. A
GPU activity belongs to a range when the CPU call that launched it lies in the range.
A trace without ranges is read as one range, the whole trace.

The verdict, per range name (medians over its ranges):
    profiled CPU time (host)  the range on the CPU, less the time the CPU spent in
                     CUDA's synchronize calls (there it waits for the GPU)
    GPU span (span)  from the start of the range's first GPU activity to the end of its last
    GPU busy (busy)  the time the GPU ran at least one of the range's activities
GPU-bound: busy >= 90 % of span (the GPU ran the range's work back to back) and
host < span (the CPU had issued all of it before the GPU was done). CPU-bound
otherwise: the GPU waited for launches inside the span, or the CPU needs at least
as long per range as the GPU, so the GPU waits for the next range's work.
The page docs/read-your-trace.*.md states the same rule: change them together.
"""
from __future__ import annotations

import bisect
import gzip
import json
import math
import re
import zlib
from pathlib import Path

from ..limits import parse_json
from .analyze import activities_per_step, complete_events, op_stack_finder
from .kernel_occupancy import add_occupancy, limits_from_trace
from .names import GPU_CATS, LAUNCH_CATS, kernel_kind, short_kernel_name
from .stats import stats

BUSY_SHARE = 0.9  # GPU-bound needs the GPU busy for at least this share of its span
STEP = re.compile(r"ProfilerStep#\d+")
STEP_NAME = "ProfilerStep#*"
WHOLE_TRACE = "(whole trace)"
# CPU calls that wait for the GPU: their time is not work the CPU had to do
SYNC_CALLS = ("cudaDeviceSynchronize", "cudaStreamSynchronize", "cudaEventSynchronize",
              "cuCtxSynchronize", "cuStreamSynchronize", "cuEventSynchronize", "cudaMemcpy")
HOST_CATS = ("cpu_op", "user_annotation", "python_function") + LAUNCH_CATS
MAX_KERNELS, MAX_GAPS, MAX_RANGES = 10, 5, 20
MAX_TRACE_BYTES = 2 * 2**30  # of JSON: a trace of a few profiled steps is tens of MB
CHUNK = 2**20
MAX_TIME_US = 1e15  # 31 years in µs: any ts or dur beyond it is not a time
ID_ARGS = ("device", "correlation", "stream")  # used as keys: must be hashable


class TraceError(ValueError):
    """The file is not a torch.profiler trace with GPU activity; the message is one line."""


def load_trace(path):
    """The trace in a .json or .json.gz file that torch.profiler wrote (gzip is read by its
    magic bytes, not the file's name); TraceError with one line if it is none."""
    path = Path(path)
    if not path.exists():
        raise TraceError(f"{path}: no such file")
    if not path.is_file():
        raise TraceError(f"{path}: not a file")
    try:
        with path.open("rb") as f:
            gzipped = f.read(2) == b"\x1f\x8b"
        raw = _read_capped(path, gzipped)
    except OSError as err:
        raise TraceError(f"{path}: cannot be read ({err.strerror or err})") from None
    try:
        trace = parse_json(raw.decode("utf-8"), json.loads)
    except UnicodeDecodeError:
        raise TraceError(f"{path}: not JSON (not UTF-8 text)") from None
    except json.JSONDecodeError as err:
        raise TraceError(f"{path}: not JSON ({err.msg} at line {err.lineno}, "
                         f"column {err.colno})") from None
    except ValueError as err:  # too deep
        raise TraceError(f"{path}: JSON {err}, so not a trace written by torch.profiler") from None
    if not isinstance(trace, dict) or not isinstance(trace.get("traceEvents"), list):
        raise TraceError(f"{path}: JSON without a traceEvents list, so not a trace "
                         "written by torch.profiler")
    return trace


def _read_capped(path, gzipped):
    """The file's bytes, gunzipped in chunks; TraceError beyond MAX_TRACE_BYTES."""
    opener = gzip.open if gzipped else open
    chunks, size = [], 0
    try:
        with opener(path, "rb") as f:
            while chunk := f.read(CHUNK):
                size += len(chunk)
                if size > MAX_TRACE_BYTES:
                    raise TraceError(f"{path}: more than {MAX_TRACE_BYTES // 2**20:,} MB of JSON"
                                     f"{' once unpacked' if gzipped else ''}: too large for a "
                                     "trace of a few steps; record fewer steps")
                chunks.append(chunk)
    except (EOFError, zlib.error, gzip.BadGzipFile) as err:
        raise TraceError(f"{path}: not a readable gzip file ({err})") from None
    return b"".join(chunks)


def _sane(trace):
    """The trace with what the reader cannot use left out: events that are not objects,
    args that are not objects, ids that cannot be keys, times that are not finite or
    beyond MAX_TIME_US (they would overflow every sum)."""
    events = []
    for e in trace["traceEvents"]:
        if not isinstance(e, dict):
            continue
        e = dict(e)
        args = e.get("args")
        e["args"] = {k: v for k, v in args.items() if k not in ID_ARGS or _key(v)} \
            if isinstance(args, dict) else {}
        for key in ("ts", "dur"):
            if key in e and not _time(e[key]):
                del e[key]
        if not isinstance(e.get("name"), str) or not _key(e.get("cat")):
            continue
        events.append(e)
    props = trace.get("deviceProperties")
    props = [p for p in props if isinstance(p, dict) and _key(p.get("id", 0))] \
        if isinstance(props, list) else []
    return {**trace, "traceEvents": events, "deviceProperties": props}


def _key(value):
    return value is None or isinstance(value, (str, int)) and not isinstance(value, bool) \
        and (not isinstance(value, int) or abs(value) < 2**63)


def _time(value):
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return False
    try:
        return math.isfinite(float(value)) and abs(value) <= MAX_TIME_US
    except OverflowError:  # an int beyond any float: 10**400
        return False


def _timed(events):
    """Events with a numeric start and a non-negative duration (anything else is skipped)."""
    ok = (int, float)
    return [e for e in events if isinstance(e.get("ts"), ok) and not isinstance(e.get("ts"), bool)
            and isinstance(e.get("dur"), ok) and not isinstance(e.get("dur"), bool)
            and e["dur"] >= 0 and isinstance(e.get("name"), str)]


def _range_name(name):
    return STEP_NAME if STEP.fullmatch(name) else name


def _finder(ranges):
    """ts -> index of the range (sorted by start) that holds it, or None."""
    starts = [r["ts"] for r in ranges]
    reach, furthest = [], float("-inf")  # the latest end of any range up to each index
    for r in ranges:
        furthest = max(furthest, r["ts"] + r["dur"])
        reach.append(furthest)

    def step_of(ts):
        i = bisect.bisect_right(starts, ts) - 1
        while i >= 0 and reach[i] >= ts:  # ranges of one name may nest: the innermost
            if ts <= ranges[i]["ts"] + ranges[i]["dur"]:
                return i
            i -= 1
        return None
    return step_of


def _busy(acts):
    """Time covered by at least one activity, and the idle gaps between them."""
    busy, gaps, end, last = 0.0, [], None, None
    for a in sorted(acts, key=lambda a: (a["ts"], a["ts"] + a["dur"])):
        start, stop = a["ts"], a["ts"] + a["dur"]
        if end is None or start >= end:
            if end is not None and start > end:
                gaps.append((start - end, last["name"], a["name"]))
            busy += a["dur"]
            end, last = stop, a
        elif stop > end:
            busy += stop - end
            end, last = stop, a
    return busy, gaps


def _gap_table(all_gaps, instances):
    """Gaps of the same pair of activities, over every range: median and times per range."""
    pairs = {}
    for gap, before, after in all_gaps:
        pairs.setdefault((short_kernel_name(before), short_kernel_name(after)), []).append(gap)
    rows = [{"before": b, "after": a, "median_us": stats(g)["median"], "total_us": sum(g),
             "per_range": len(g) / instances} for (b, a), g in pairs.items()]
    return sorted(rows, key=lambda r: (-r["median_us"] * r["per_range"], r["before"], r["after"]))


def _verdict(host, span, busy):
    if span is None:
        return "CPU only", "no GPU activity was launched in it"
    share = busy / span if span else 1.0
    reasons = []
    if share < BUSY_SHARE:
        reasons.append(f"the GPU is idle for {100 * (1 - share):.0f}% of its span, "
                       "waiting for launches")
    if host >= span:
        reasons.append(f"the CPU takes {_us(host)} per range, no less than the GPU's {_us(span)}")
    if reasons:
        return "CPU-bound", "; ".join(reasons)
    return "GPU-bound", (f"the GPU is busy for {100 * share:.0f}% of its span, and the CPU "
                         f"issues the range in {_us(host)}, less than the GPU's {_us(span)}")


def _explain_range(name, ranges, events, syncs):
    """One range name: host, span, busy, gaps and verdict (medians over its ranges)."""
    n = len(ranges)
    if name == WHOLE_TRACE:
        per_range = [[e for e in events if e.get("cat") in GPU_CATS]]
        in_range = lambda ts: 0  # noqa: E731
    else:
        in_range = _finder(ranges)
        per_range = [[a for a, _ in acts] for acts in activities_per_step(events, n, in_range)[0]]
    wait = [0.0] * n
    for e in syncs:
        i = in_range(e["ts"])
        if i is not None:
            wait[i] += e["dur"]
    host = [r["dur"] - w for r, w in zip(ranges, wait, strict=True)]
    spans, busies, idles, all_gaps = [], [], [], []
    for acts in per_range:
        if not acts:
            continue
        span = max(a["ts"] + a["dur"] for a in acts) - min(a["ts"] for a in acts)
        busy, gaps = _busy(acts)
        spans.append(span)
        busies.append(busy)
        idles.append(span - busy)
        all_gaps += gaps
    med = {k: (stats(v) or {}).get("median") for k, v in
           (("host", host), ("span", spans), ("busy", busies), ("idle", idles))}
    verdict, why = _verdict(med["host"], med["span"], med["busy"])
    return {"name": name, "ranges": n, "with_gpu_work": len(spans),
            "host_us": med["host"], "sync_wait_us": stats(wait)["median"],
            "span_us": med["span"], "busy_us": med["busy"], "idle_us": med["idle"],
            "activities_per_range": stats([len(a) for a in per_range])["median"],
            "gaps": _gap_table(all_gaps, len(spans) or 1), "verdict": verdict, "why": why}


def _kernel_rows(gpu, events):
    """One row per distinct GPU activity name, longest total first, with occupancy."""
    rows = {}
    for e in gpu:
        args = e.get("args") or {}
        row = rows.get(e["name"])
        if row is None:
            row = rows[e["name"]] = {
                "name": e["name"], "short_name": short_kernel_name(e["name"]),
                "kind": kernel_kind(e), "device": args.get("device"),
                "correlation": args.get("correlation"), "calls": 0, "total_us": 0.0,
                "registers_per_thread": args.get("registers per thread"),
                "shared_memory": args.get("shared memory"),
                "block": args.get("block"), "grid": args.get("grid"),
                "kineto_occupancy_pct": args.get("est. achieved occupancy %")}
            if not (_dims(row["block"]) and _dims(row["grid"] or [1])
                    and _count(row["registers_per_thread"]) and _count(row["shared_memory"], 0)):
                row["block"] = None  # launch resources missing or malformed: no calculation
        row["calls"] += 1
        row["total_us"] += e["dur"]
    out = sorted(rows.values(), key=lambda k: (-k["total_us"], k["name"]))
    for k in out:
        k["avg_us"] = k["total_us"] / k["calls"]
    return out


def _dims(value):
    return isinstance(value, list) and 1 <= len(value) <= 3 and all(_count(v) for v in value)


def _count(value, least=1):
    return isinstance(value, int) and not isinstance(value, bool) and value >= least


def _devices(trace):
    """deviceProperties by device id, as the calculator's GpuLimits (None where unusable)."""
    found = {}
    for props in trace.get("deviceProperties") or []:
        if not isinstance(props, dict):
            continue
        try:
            limits = limits_from_trace(props)
        except (KeyError, TypeError):
            limits = None
        numbers = [] if limits is None else [
            limits.sm_count, limits.max_threads_per_sm, limits.regs_per_sm, limits.regs_per_block,
            limits.smem_per_sm, limits.smem_per_block, limits.smem_per_block_optin, limits.warp_size]
        usable = (limits is not None and isinstance(limits.name, str) and all(map(_count, numbers))
                  and all(_count(c, 0) for c in limits.compute_capability))
        found[props.get("id", 0)] = limits if usable else None
    return found


def _add_launchers(kernels, events):
    """The launch call and the ATen operation around it, for each row's first call."""
    launches = {(e.get("args") or {}).get("correlation"): e
                for e in events if e.get("cat") in LAUNCH_CATS}
    op_stack = op_stack_finder(events)
    for k in kernels:
        launch = launches.get(k["correlation"]) if k["correlation"] is not None else None
        k["launched_by"] = launch["name"] if launch else None
        stack = op_stack(launch) if launch else []
        k["aten_op"] = stack[-1] if stack else None


def explain_file(path):
    """The text `build_tables.py --explain PATH` prints; TraceError (one line, naming the
    file) if the file is no trace, or one this reader cannot use."""
    trace = load_trace(path)
    try:
        return report(explain(trace))
    except TraceError as err:
        raise TraceError(f"{path}: {err}") from None
    except (TypeError, KeyError, AttributeError, ArithmeticError, ValueError) as err:
        raise TraceError(f"{path}: a trace this reader cannot use ({type(err).__name__}: "
                         f"{str(err)[:100]})") from None


def explain(trace):
    """What the page reads off a trace, as a dict; TraceError if it has no GPU activity."""
    trace = _sane(trace)
    events = _timed(complete_events(trace))
    gpu = [e for e in events if e.get("cat") in GPU_CATS]
    if not gpu:
        raise TraceError("the trace has no GPU activity (kernels, memcpy, memset): record it "
                         "with ProfilerActivity.CUDA on a machine with a CUDA GPU")
    kernels = _kernel_rows(gpu, events)
    devices = _devices(trace)
    for device, limits in devices.items():
        if limits is not None:
            add_occupancy([k for k in kernels if k["device"] in (device, None)
                           and k["block"]], limits)
    shown = kernels[:MAX_KERNELS]
    _add_launchers(shown, events)

    groups = {}
    for e in events:
        if e.get("cat") == "user_annotation":
            groups.setdefault(_range_name(e["name"]), []).append(e)
    if not groups:
        host = [e for e in events if e.get("cat") in HOST_CATS]
        start = min(e["ts"] for e in host) if host else 0.0
        stop = max(e["ts"] + e["dur"] for e in host) if host else 0.0
        groups = {WHOLE_TRACE: [{"ts": start, "dur": stop - start}]}
    syncs = [e for e in events if e.get("cat") in LAUNCH_CATS and e["name"] in SYNC_CALLS]
    # user ranges by first appearance, the profiler's steps last; the MAX_RANGES longest
    order = sorted(groups, key=lambda n: (n == STEP_NAME, min(r["ts"] for r in groups[n]), n))
    kept = sorted(order, key=lambda n: -sum(r["dur"] for r in groups[n]))[:MAX_RANGES]
    ranges = [_explain_range(n, sorted(groups[n], key=lambda r: r["ts"]), events, syncs)
              for n in order if n in kept]
    total_busy, _ = _busy(gpu)
    return {"devices": {d: (lim.name if lim else None) for d, lim in devices.items()},
            "limits": {d: lim for d, lim in devices.items() if lim},
            "activities": len(gpu), "busy_us": total_busy, "kernels": kernels,
            "ranges": ranges, "ranges_left_out": len(order) - len(ranges)}


# --- the text ---------------------------------------------------------------------------

def _us(value):
    return f"{value:,.1f} µs"


def _pct(value, digits=1):
    return f"{value:.{digits}f}%"


def _launch(k):
    smem = k.get("shared_memory") or 0
    return (f"block {'×'.join(map(str, k['block']))}, grid {'×'.join(map(str, k['grid'] or [1]))}, "
            f"{k['registers_per_thread']} registers/thread, {smem / 1024:,.1f} KiB shared memory/block")


def _kernel_lines(i, k, busy_us):
    op = k.get("aten_op")
    label = k["short_name"] + (f" ({op})" if op and op not in (k["name"], k["short_name"]) else "")
    lines = [f"{i:>2}. {label}",
             f"    {k['kind']}, {k['calls']:,} calls, {_us(k['avg_us'])} per call, "
             f"{_us(k['total_us'])} in all ({_pct(100 * k['total_us'] / busy_us, 0)} of GPU busy time)"]
    if k["kind"] != "kernel":
        return lines
    if not k["block"]:
        return lines + ["    occupancy: the trace has no launch resources for it"]
    kineto = k.get("kineto_occupancy_pct")
    kineto = f"{kineto:g}%" if isinstance(kineto, (int, float)) else "not recorded"
    lines.append(f"    launch: {_launch(k)}")
    if "our_optin_pct" in k:
        lines.append(f"    occupancy: Kineto {kineto}; calculator, with its opt-in shared memory: "
                     f"{_pct(k['our_optin_pct'])}, {_plural(k['our_optin_blocks'], 'block', 'blocks')} per SM, "
                     f"limited by {', '.join(k['our_optin_limited_by'])}")
    else:
        lines.append(f"    occupancy: Kineto {kineto}; calculator: no device properties "
                     "for its device in the trace")
    return lines


def _range_lines(r):
    head = f"{r['name']}: {_plural(r['ranges'], 'range', 'ranges')}"
    if r["name"] == WHOLE_TRACE:
        head = f"{WHOLE_TRACE}: no record_function ranges, so the trace as one range"
    lines = [head]
    if r["span_us"] is None:
        return lines + [f"  profiled CPU time {_us(r['host_us'])}; no GPU activity launched in it",
                        f"  verdict: {r['verdict']}: {r['why']}"]
    wait = f" (after {_us(r['sync_wait_us'])} in synchronize calls)" if r["sync_wait_us"] else ""
    some = (f" ({r['with_gpu_work']:,} of them with GPU work)"
            if r["with_gpu_work"] != r["ranges"] else "")
    lines += [f"  per range, median{some}:",
              f"    profiled CPU time {_us(r['host_us']):>12}{wait}",
              f"    GPU span          {_us(r['span_us']):>12}  first activity start to last end, "
              f"{_plural(r['activities_per_range'], 'activity', 'activities')}",
              f"    GPU busy          {_us(r['busy_us']):>12}  "
              f"{_pct(100 * r['busy_us'] / r['span_us'] if r['span_us'] else 100, 0)} of the span",
              f"    GPU idle          {_us(r['idle_us']):>12}  between its activities"]
    gaps = [g for g in r["gaps"] if g["total_us"] > 0][:MAX_GAPS]
    if gaps:
        lines.append("  idle gaps on the GPU, largest first (median gap, times per range):")
        lines += [f"    {_us(g['median_us']):>10}  ×{g['per_range']:g}  {_clip(g['before'])} -> "
                  f"{_clip(g['after'])}" for g in gaps]
        if len(r["gaps"]) > len(gaps):
            lines.append(f"    … and {_plural(len(r['gaps']) - len(gaps), 'more pair', 'more pairs')}")
    else:
        lines.append("  no idle gaps between its activities")
    return lines + [f"  verdict: {r['verdict']}: {r['why']}"]


def _plural(n, one, many):
    return f"{n:,g} {one if n == 1 else many}"


def _clip(name, width=48):
    return name if len(name) <= width else name[: width - 1] + "…"


def report(found):
    """The explanation as plain English text, the same for the same trace."""
    devices = ", ".join(
        f"{lim.name} (compute capability {lim.compute_capability[0]}.{lim.compute_capability[1]}, "
        f"{lim.sm_count} SMs)" for _, lim in sorted(found["limits"].items(), key=lambda kv: str(kv[0])))
    lines = [f"GPU: {devices or 'no device properties in the trace'}",
             f"{found['activities']:,} GPU activities, {_us(found['busy_us'])} of GPU busy time", "",
             "GPU activities, longest total first:"]
    for i, k in enumerate(found["kernels"][:MAX_KERNELS], start=1):
        lines += _kernel_lines(i, k, found["busy_us"])
    more = found["kernels"][MAX_KERNELS:]
    if more:
        lines.append(f"    … and {len(more):,} more ({_us(sum(k['total_us'] for k in more))} in all)")
    lines += ["", "Ranges (record_function). GPU-bound: the GPU is busy for at least "
              f"{BUSY_SHARE:.0%} of its span, and the profiled CPU time is shorter than the span:"]
    for r in found["ranges"]:
        lines += [""] + _range_lines(r)
    if found["ranges_left_out"]:
        lines += ["", f"… and {found['ranges_left_out']:,} more range names, shorter in all"]
    return "\n".join(lines) + "\n"
