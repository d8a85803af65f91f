"""The verdicts a trace should get, derived from its raw events alone: an independent
computation that tests compare `--explain` with (it imports nothing from report/).

    python tests/expected_verdicts.py tests/fixtures/corpus      # prints what it derives
    python tests/expected_verdicts.py tests/fixtures/corpus --write   # writes expected.json

The rule, as the page states it (a trace without ranges is one, from its first CPU event
to the end of its last): a range's time runs from its start on the CPU (or its
first GPU activity, if earlier) to its last GPU activity's end (or the end of its CPU time
less synchronize calls, if later). The GPU is idle where no GPU activity at all runs; an
idle stretch is a wait for the host when the next activity to start was launched after the
GPU ran out of work, or when none follows; before the trace's first GPU activity the GPU
waits for nothing (a range's time starts there at the earliest). Medians over the range's
instances with GPU work: CPU-bound if the host waits take at least 10 % of the time (GPU-bound
where the launches queue: a median launch delay of 50 µs or more), else GPU-bound if the GPU runs
something for at least 90 % of it, else stalled. Of three or more profiler steps the first is
left out (it holds the profiler's start); Kineto's own events (category overhead) do not
start the whole trace.

Beside the verdicts: the GPU's busy time (the union of its activities), the streams, the
SDPA backends whose ops ran, hand-written softmax calls, what the trace holds (GPU
activity, an MTIA accelerator's, or CPU events only) and each stream's median launch delay
(the start of a launch call's first activity less the call's end: a CUDA graph's replay is one
call for all its kernels); the GPU activities SDPA launches to prepare its inputs (inside its op, outside every backend's op: "preparation" among the backends)
and its calls' distinct recorded inputs (dtype, head dim, mask dtype, is_causal). Older
Kineto's category names ("Kernel", "Runtime") are read as today's.
"""
from __future__ import annotations

import bisect
import gzip
import json
import re
import statistics
import sys
from pathlib import Path

GPU = ("kernel", "gpu_memcpy", "gpu_memset")
LAUNCH = ("cuda_runtime", "cuda_driver")
SYNCS = ("cudaDeviceSynchronize", "cudaStreamSynchronize", "cudaEventSynchronize", "cuCtxSynchronize",
         "cuStreamSynchronize", "cuEventSynchronize", "cudaMemcpy",
         # a ROCm build's, under cuda_runtime as Kineto files them (hipMemcpyWithStream: its blocking copy)
         "hipDeviceSynchronize", "hipStreamSynchronize", "hipEventSynchronize", "hipMemcpy", "hipMemcpyWithStream")
FIRST_STEP_OUT = 3  # with this many profiler steps or more, the first is left out of the verdict
# the dtypes Kineto records for a tensor input ("Input type"), as torch names them
DTYPES = {"c10::BFloat16": "bfloat16", "c10::Half": "float16", "float": "float32", "double": "float64", "bool": "bool"}
SDPA_OPS = {"flash": "_scaled_dot_product_flash_attention", "efficient": "_scaled_dot_product_efficient_attention",
            "cudnn": "_scaled_dot_product_cudnn_attention", "math": "_scaled_dot_product_attention_math"}


# older Kineto names the same categories differently (HTA's test traces: "Kernel", "Runtime")
OLD_NAMES = {"kernel": "kernel", "memcpy": "gpu_memcpy", "memset": "gpu_memset", "runtime": "cuda_runtime",
             "driver": "cuda_driver", "operator": "cpu_op"}


def read(path):
    raw = Path(path).read_bytes()
    return json.loads(gzip.decompress(raw) if raw[:2] == b"\x1f\x8b" else raw)


def _complete(trace):
    out = []
    for e in trace["traceEvents"]:
        if (isinstance(e, dict) and e.get("ph") == "X" and isinstance(e.get("ts"), (int, float))
                and isinstance(e.get("dur"), (int, float))):
            cat = e.get("cat")
            if isinstance(cat, str) and cat not in GPU + LAUNCH and cat.lower() in OLD_NAMES:
                e = dict(e, cat=OLD_NAMES[cat.lower()])
            out.append(e)
    return out


def _idle_parts(busy, lo, hi):
    """The stretches of [lo, hi] that no (start, end) of busy covers."""
    parts, at = [], lo
    for s, t in busy:
        if t <= at:
            continue
        if s >= hi:
            break
        if s > at:
            parts.append((at, s))
        at = max(at, t)
    if at < hi:
        parts.append((at, hi))
    return parts


def verdicts(trace):
    """{range name: verdict} for the range names with GPU work (ProfilerStep#N as one)."""
    events = _complete(trace)
    gpu = sorted((e for e in events if e.get("cat") in GPU), key=lambda e: (e["ts"], e["ts"] + e["dur"]))
    starts = [e["ts"] for e in gpu]
    launch_of = {e["args"]["correlation"]: e for e in events
                 if e.get("cat") in LAUNCH and "correlation" in (e.get("args") or {})}
    busy = []
    for e in gpu:  # the union of every GPU activity, as sorted (start, end) stretches
        if busy and e["ts"] <= busy[-1][1]:
            busy[-1][1] = max(busy[-1][1], e["ts"] + e["dur"])
        else:
            busy.append([e["ts"], e["ts"] + e["dur"]])
    syncs = [e for e in events if e.get("cat") in LAUNCH and e["name"] in SYNCS]
    names = {}
    for e in events:
        if e.get("cat") == "user_annotation":
            names.setdefault(re.sub(r"^ProfilerStep#\d+$", "ProfilerStep#*", e["name"]), []).append(e)
    whole = not names  # no ranges: the trace is one, from its first CPU event to its last one's end
    if whole:
        host = [e for e in events if e.get("cat") not in GPU and e.get("cat") != "overhead"] or gpu
        start, end = min(e["ts"] for e in host), max(e["ts"] + e["dur"] for e in host)
        names = {"(whole trace)": [{"ts": start, "dur": end - start}]}
    out = {}
    for name, instances in names.items():
        if name == "ProfilerStep#*" and len(instances) >= FIRST_STEP_OUT:
            instances = sorted(instances, key=lambda r: r["ts"])[1:]  # the first step holds the profiler's start
        hosts, busies, delays = [], [], []
        for r in instances:
            start, end = r["ts"], r["ts"] + r["dur"]
            mine = list(gpu) if whole else []  # the whole trace holds every activity
            for e in gpu if not whole else ():
                launch = launch_of.get((e.get("args") or {}).get("correlation"))
                if launch is not None and start <= launch["ts"] <= end:
                    mine.append(e)
            if not mine:
                continue
            cpu = r["dur"] - sum(s["dur"] for s in syncs if start <= s["ts"] <= end)
            lo = max(min(start, min(e["ts"] for e in mine)), busy[0][0])  # nothing to wait for before the first
            hi = max(max(e["ts"] + e["dur"] for e in mine), start + cpu)
            host = idle = 0.0
            for s, t in _idle_parts(busy, lo, hi):
                idle += t - s
                i = bisect.bisect_left(starts, t)  # the first activity to start at t or later
                first = gpu[i] if i < len(gpu) else None
                launch = launch_of.get((first.get("args") or {}).get("correlation")) if first else None
                ran_out = max((b[1] for b in busy if b[1] <= s), default=s)  # where the GPU ran out of work
                if first is None or launch is None or launch["ts"] > ran_out:
                    host += t - s
            hosts.append(host / (hi - lo) if hi > lo else 0.0)
            busies.append(1 - idle / (hi - lo) if hi > lo else 1.0)
            done = set()
            for e in sorted(mine, key=lambda e: e["ts"]):  # each launch call's first activity
                launch = launch_of.get((e.get("args") or {}).get("correlation"))
                if launch is not None and id(launch) not in done:
                    done.add(id(launch))
                    delays.append(e["ts"] - launch["ts"] - launch["dur"])
        if not hosts:
            continue
        if statistics.median(hosts) >= 0.1:  # a deep queue (a median launch delay of 50 µs): the GPU's pace
            out[name] = "GPU-bound" if delays and statistics.median(delays) >= 50.0 else "CPU-bound"
        elif statistics.median(busies) >= 0.9:
            out[name] = "GPU-bound"
        else:
            out[name] = "stalled"
    return out


def facts(trace):
    """Verdicts and what else a test compares: GPU busy time (the union), streams, the SDPA
    backends whose ops ran, and the softmax calls outside scaled_dot_product_attention."""
    events = _complete(trace)
    gpu = sorted((e for e in events if e.get("cat") in GPU), key=lambda e: e["ts"])
    union, end = 0.0, float("-inf")
    for e in gpu:
        s, t = e["ts"], e["ts"] + e["dur"]
        if t > end:
            union += t - max(s, end)
            end = t
    ops = [e for e in events if e.get("cat") == "cpu_op"]
    backends = sorted({b for b, op in SDPA_OPS.items() for e in ops if e["name"] == "aten::" + op}
                      | ({"flex"} if any("flex_attention" in e["name"] for e in gpu) else set())
                      # Inductor names a Triton kernel after the ops it fuses: one that fuses ops
                      # around an SDPA call says so in its name
                      | ({"inductor_fused"} if any(e["name"].startswith("triton_") and "scaled_dot_product"
                                                   in e["name"] for e in gpu) else set()))
    sdpa = [e for e in ops if e["name"] == "aten::scaled_dot_product_attention"]
    softmax = [e for e in ops if e["name"] in ("aten::softmax", "aten::_softmax")
               and not any(s["ts"] <= e["ts"] <= s["ts"] + s["dur"] for s in sdpa)]
    outer = [e for e in softmax if not any(o is not e and o["name"] in ("aten::softmax", "aten::_softmax")
                                           and o["ts"] <= e["ts"] and e["ts"] + e["dur"] <= o["ts"] + o["dur"]
                                           and o["dur"] > e["dur"] for o in softmax)]
    # nested jagged tensors call the kernel's op with no aten::_scaled_dot_product_* op around it
    sdp_ops = [e for e in ops if e["name"].startswith("aten::_scaled_dot_product_")]
    for op, name in (("aten::_flash_attention_forward", "flash_nested"),
                     ("aten::_efficient_attention_forward", "efficient_nested")):
        if any(e["name"] == op and not _within(e, sdp_ops) for e in ops):
            backends = sorted(set(backends) | {name})
    prep = _preparation(ops, gpu, events)
    if prep:
        backends = sorted(set(backends) | {"preparation"})
    streams = {((e.get("args") or {}).get("device"), (e.get("args") or {}).get("stream")) for e in gpu}
    launch_of = {e["args"]["correlation"]: e for e in events
                 if e.get("cat") in LAUNCH and "correlation" in (e.get("args") or {})}
    delays, started = {}, set()  # per stream: from the end of each launch call to its first activity's start
    for e in sorted(gpu, key=lambda e: (e["ts"], e["ts"] + e["dur"])):
        args = e.get("args") or {}
        launch = launch_of.get(args.get("correlation"))
        if launch is not None and id(launch) not in started:  # a graph's later kernels wait on its earlier ones
            started.add(id(launch))
            delays.setdefault(f"{args.get('device')}/{args.get('stream')}", []).append(
                max(0.0, e["ts"] - (launch["ts"] + launch["dur"])))  # one that starts before its call returns: no wait
    cats = {e.get("cat") for e in trace["traceEvents"] if isinstance(e, dict) and isinstance(e.get("cat"), str)}
    activity = "gpu" if gpu else "mtia" if any("mtia" in c.lower() for c in cats) else "cpu only"
    return {"verdicts": verdicts(trace), "busy_us": round(union, 1), "streams": len(streams),
            "backends": backends, "softmax_outside_sdpa": len(outer), "activity": activity,
            "preparation_kernels": prep, "sdpa_inputs": _sdpa_inputs(sdpa),
            "launch_delay_us": {s: round(statistics.median(d), 1) for s, d in sorted(delays.items())}}


def _preparation(ops, gpu, events):
    """GPU activities launched inside an aten::scaled_dot_product_attention op but outside
    every backend's op on its thread (SDPA preparing its inputs): how many."""
    backend_ops = {"aten::" + op for op in SDPA_OPS.values()}
    sdpa = [e for e in ops if e["name"] == "aten::scaled_dot_product_attention"]
    inner = [e for e in ops if e["name"] in backend_ops]
    launch_of = {e["args"]["correlation"]: e for e in events
                 if e.get("cat") in LAUNCH and "correlation" in (e.get("args") or {})}
    count = 0
    for a in gpu:
        launch = launch_of.get((a.get("args") or {}).get("correlation"))
        if launch is None:
            continue
        if _within(launch, sdpa) and not _within(launch, inner):
            count += 1
    return count


def _within(launch, ops):
    """Whether the launch call starts inside one of the ops on its thread."""
    at, tid = launch["ts"], launch.get("tid")
    return any(o.get("tid") == tid and o["ts"] <= at <= o["ts"] + o["dur"] for o in ops)


def _sdpa_inputs(sdpa):
    """The distinct recorded inputs of the SDPA calls: [query dtype, head dim, mask dtype or
    None, is_causal], from "Input type", "Input Dims" and "Concrete Inputs"."""
    found = set()
    for e in sdpa:
        args = e.get("args") or {}
        dims, types, concrete = args.get("Input Dims"), args.get("Input type"), args.get("Concrete Inputs")
        if not dims or not types:
            continue
        mask = DTYPES.get(types[3], types[3]) if len(types) > 3 and types[3] else None
        causal = concrete[5] == "True" if concrete and len(concrete) > 5 and concrete[5] else None
        found.add((DTYPES.get(types[0], types[0]), dims[0][-1], mask, causal))
    return [list(x) for x in sorted(found, key=str)]


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    folder = Path(argv[0])
    found = {p.name.removesuffix(".json.gz"): facts(read(p)) for p in sorted(folder.glob("*.json.gz"))}
    text = json.dumps(found, indent=1, sort_keys=True) + "\n"
    if "--write" in argv:
        (folder / "expected.json").write_text(text, encoding="utf-8")
    sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
