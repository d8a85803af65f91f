"""Timers: wall clock per call (every block kept), and profiles kept as traces for
report/derive/ to read (host overhead: host.py)."""
from __future__ import annotations

import gzip
import hashlib
import json
import statistics
import tempfile
import time
import timeit
from pathlib import Path

from .. import snippets

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
    out = {"median": median * 1e6, "iqr": (q3 - q1) * 1e6, "runs": len(times),
           "blocks_us": [round(t * 1e6, 4) for t in times]}  # raw: every block's time per call
    if with_number:
        out["calls_per_run"] = number
    return out


PROFILES = "profiles"  # the short profiles' folder inside the run's traces/ folder


def _compact(raw_path):
    """The exported trace's JSON, compact (no spaces): what is kept of it."""
    return json.dumps(json.loads(Path(raw_path).read_text()), separators=(",", ":"))


def _gzip_to(path, text):
    """text gzip'd (level 9, no name or time in the header: the same trace, the same bytes)."""
    with open(path, "wb") as raw, gzip.GzipFile(filename="", mode="wb", fileobj=raw,
                                                 compresslevel=9, mtime=0) as fh:
        fh.write(text.encode("utf-8"))


def keep_trace(raw_path):
    """A trace the profiler exported to raw_path (.json), kept beside it as .json.gz
    (compact, level 9) and the raw file removed. Kept whole: what it shows is derived from
    it later, on any machine (report/derive/), never here."""
    raw_path = Path(raw_path)
    _gzip_to(raw_path.with_suffix(".json.gz"), _compact(raw_path))
    raw_path.unlink()


def keep_profile(raw_path, range_name, traces):
    """A short profile's trace kept in <traces>/profiles/, named by the sha256 of its
    compact JSON (one name per trace, with no naming scheme to keep unique across sections,
    rounds and processes): {"trace": its path from the run's folder, "range": the
    record_function range it profiled}. report/derive/ reads it back."""
    text = _compact(raw_path)
    folder = Path(traces) / PROFILES
    folder.mkdir(parents=True, exist_ok=True)
    name = f"{hashlib.sha256(text.encode('utf-8')).hexdigest()[:20]}.json.gz"
    _gzip_to(folder / name, text)
    return {"trace": f"traces/{PROFILES}/{name}", "range": range_name}


def profile_short(fn, inputs, name, steps, traces):
    """A short profile of fn(*inputs) (profile_attention.profile_forward, `steps` active
    steps), its trace kept (keep_profile)."""
    profile_forward = snippets.load("profile_attention").profile_forward
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "trace.json"
        profile_forward(fn, *inputs, name=name, steps=steps, trace_path=str(path))
        return keep_profile(path, name, traces)


def profile_train(torch, step, name, traces):
    """Profile training steps (autograd on, so not through profile_forward's no_grad); the
    trace kept (keep_profile)."""
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
        return keep_profile(path, name, traces)
