"""Timers: wall clock per call, and short profiles read back as traces (host overhead: host.py)."""
from __future__ import annotations

import gzip
import json
import statistics
import tempfile
import time
import timeit
from pathlib import Path

from .. import snippets
from ..trace.analyze import analyze_trace, read

BLOCKS = 20  # blocks of calls a timer aims for in its seconds: a median and IQR over ~20
MIN_BLOCKS = 2  # a call slower than the whole budget is still timed twice


def synced_clock(torch):
    """perf_counter, after waiting for the GPU where there is one: a block's time ends
    when its last kernel has, not when its last call returned."""
    if not torch.cuda.is_available():
        return time.perf_counter

    def clock():
        torch.cuda.synchronize()
        return time.perf_counter()
    return clock


def wall_us(fn, seconds, with_number=False):
    """Wall time per call: blocks of back-to-back calls, each block timed with Python's
    timeit (garbage collection off) and a clock that synchronises with the GPU, repeated
    until `seconds` are spent, in the process's own number of CPU threads. The block size
    comes from one timed call (ten for a fast one), then from the first block, so that
    about BLOCKS blocks fit: the median and IQR are over ~20 blocks, and one slow block
    (the machine hiccups) moves neither. (torch.utils.benchmark's blocked_autorange
    spends about as long choosing its block size as measuring and leaves 2 or 3 blocks at
    these budgets; its Timer.timeit warms up before every block.)"""
    import torch

    timer = timeit.Timer(fn, timer=synced_clock(torch))
    per_call = timer.timeit(1)
    if per_call * 10 < seconds / BLOCKS:  # a fast call: ten of them estimate it better than one
        per_call = timer.timeit(10) / 10
    number = max(1, int(seconds / BLOCKS / max(per_call, 1e-9)))
    times, t0 = [], time.perf_counter()
    while len(times) < MIN_BLOCKS or time.perf_counter() - t0 < seconds:
        times.append(timer.timeit(number) / number)
        if len(times) == 1:  # the first block measures the call better than the probe did
            number = max(1, int(seconds / BLOCKS / max(times[0], 1e-9)))
    q1, median, q3 = statistics.quantiles(times, n=4, method="inclusive")  # MIN_BLOCKS >= 2
    out = {"median": median * 1e6, "iqr": (q3 - q1) * 1e6, "runs": len(times)}
    if with_number:
        out["calls_per_run"] = number
    return out


KERNEL_FIELDS = ("name", "short_name", "kind", "aten_op", "aten_stack", "per_forward", "avg_us")


def summary(trace_path, name, device, cuda_time="gpu_range", kernel_fields=KERNEL_FIELDS):
    """The figures a sweep point, a shape point, an overhead row or a training row keeps
    from one trace."""
    a = analyze_trace(read(trace_path), name, cuda_time=cuda_time)
    if device != "cuda":  # no GPU in this run: the GPU-side figures do not exist
        a.update(cuda_time_us=None, kernel_sum_us=None, gpu_activities_per_forward=None)
    return {k: a[k] for k in ("cuda_time_us", "kernel_sum_us", "cpu_time_us",
                              "gpu_activities_per_forward")} | {
        "kernels": [{f: k.get(f) for f in kernel_fields} for k in a["kernels"]]}


def keep_trace(raw_path):
    """A trace the profiler exported to raw_path (.json), kept beside it as .json.gz
    (compact, level 9) and the raw file removed; returns the kept file read by the one
    reader (trace/reading/: the Trace the doctor reads of it too)."""
    raw_path = Path(raw_path)
    kept = raw_path.with_suffix(".json.gz")
    trace = json.loads(raw_path.read_text())
    with gzip.open(kept, "wt", compresslevel=9) as fh:
        json.dump(trace, fh, separators=(",", ":"))
    raw_path.unlink()
    return read(kept)


def profile_short(fn, inputs, name, steps, device, kernel_fields=KERNEL_FIELDS):
    """GPU span, kernel time, profiled CPU time and kernels from a short profile."""
    profile_forward = snippets.load("profile_attention").profile_forward
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "trace.json"
        profile_forward(fn, *inputs, name=name, steps=steps, trace_path=str(path))
        return summary(path, name, device, kernel_fields=kernel_fields)


def profile_train(torch, step, name, device):
    """Profile training steps (autograd on, so not through profile_forward's no_grad)."""
    from torch.profiler import ProfilerActivity, profile, record_function, schedule

    acts = [ProfilerActivity.CPU] + ([ProfilerActivity.CUDA] if torch.cuda.is_available() else [])
    for _ in range(3):
        step()
    with tempfile.TemporaryDirectory() as tmp:
        with profile(activities=acts, schedule=schedule(wait=1, warmup=1, active=10)) as prof:
            for _ in range(12):
                with record_function(name):
                    step()
                prof.step()
        path = Path(tmp) / "trace.json"
        prof.export_chrome_trace(str(path))
        return summary(path, name, device, cuda_time="kernel_span")
