"""Timers: wall clock per call, host time per call, and short profiles read back as traces."""
from __future__ import annotations

import json
import tempfile
import time
from pathlib import Path

from .. import snippets
from ..trace.analyze import analyze_trace
from ..trace.stats import stats
from .guard import sync


def wall_us(fn, seconds, with_number=False):
    """Wall time per call from torch.utils.benchmark (back-to-back calls), with the same
    number of CPU threads as every other timer (the Timer's own default is one)."""
    import torch
    from torch.utils.benchmark import Timer

    timer = Timer(stmt="fn()", globals={"fn": fn}, num_threads=torch.get_num_threads())
    m = timer.blocked_autorange(min_run_time=seconds)
    out = {"median": m.median * 1e6, "iqr": m.iqr * 1e6, "runs": len(m.times)}
    if with_number:
        out["calls_per_run"] = m.number_per_run
    return out


HOST_REPEATS = 10
GPU_BUSY_CYCLES = 50_000_000  # about 25 ms at 2 GHz: longer than issuing one repeat's calls


def host_time_us(torch, device, call, calls):
    """Host overhead: CPU time to issue one call, without the profiler.

    The calls are issued in HOST_REPEATS groups. On a GPU each group is queued behind
    torch.cuda._sleep, so the GPU is busy and issuing a call never waits for it. The
    summary is over every call; "repeat_medians" and "spread_pct" (largest against
    smallest repeat median) say how well the figure repeats.
    """
    per_repeat = max(1, calls // HOST_REPEATS)
    every, medians = [], []
    for _ in range(HOST_REPEATS):
        sync(torch, device)
        if device == "cuda":
            torch.cuda._sleep(GPU_BUSY_CYCLES)
        times = []
        for _ in range(per_repeat):
            t0 = time.perf_counter()
            call()
            times.append((time.perf_counter() - t0) * 1e6)
        sync(torch, device)
        every += times
        medians.append(stats(times)["median"])
    out = stats(every)
    out.update(repeat_medians=medians, spread_pct=100 * (max(medians) - min(medians)) / min(medians),
               gpu_kept_busy=device == "cuda")
    return out


def summary(trace_path, name, device, cuda_time="gpu_range"):
    """The figures a sweep point, an overhead row or a training row keeps from one trace."""
    a = analyze_trace(json.loads(Path(trace_path).read_text()), name, cuda_time=cuda_time)
    if device != "cuda":  # no GPU in this run: the GPU-side figures do not exist
        a.update(kernel_sum_us=None, gpu_activities_per_forward=None)
    keep = ("name", "short_name", "kind", "aten_op", "aten_stack", "per_forward", "avg_us")
    return {k: a[k] for k in ("cuda_time_us", "kernel_sum_us", "cpu_time_us",
                              "gpu_activities_per_forward")} | {
        "kernels": [{f: k[f] for f in keep} for k in a["kernels"]]}


def profile_short(fn, inputs, name, steps, device):
    """CUDA time (GPU range), kernel sum, CPU time and kernel count from a short profile."""
    profile_forward = snippets.load("profile_attention").profile_forward
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "trace.json"
        profile_forward(fn, *inputs, name=name, steps=steps, trace_path=str(path))
        return summary(path, name, device)


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
