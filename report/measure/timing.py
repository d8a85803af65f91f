"""Timers: wall clock per call, and short profiles read back as traces (host overhead: host.py)."""
from __future__ import annotations

import json
import tempfile
from pathlib import Path

from .. import snippets
from ..trace.analyze import analyze_trace


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


KERNEL_FIELDS = ("name", "short_name", "kind", "aten_op", "aten_stack", "per_forward", "avg_us")


def summary(trace_path, name, device, cuda_time="gpu_range", kernel_fields=KERNEL_FIELDS):
    """The figures a sweep point, a shape point, an overhead row or a training row keeps
    from one trace."""
    a = analyze_trace(json.loads(Path(trace_path).read_text()), name, cuda_time=cuda_time)
    if device != "cuda":  # no GPU in this run: the GPU-side figures do not exist
        a.update(cuda_time_us=None, kernel_sum_us=None, gpu_activities_per_forward=None)
    return {k: a[k] for k in ("cuda_time_us", "kernel_sum_us", "cpu_time_us",
                              "gpu_activities_per_forward")} | {
        "kernels": [{f: k.get(f) for f in kernel_fields} for k in a["kernels"]]}


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
