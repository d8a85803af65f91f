"""Host overhead: the CPU time to issue one call, measured without the profiler.

The same CPU work does not take the same time throughout a run on a shared machine: the
same small PyTorch op can cost twice as much a minute later (the H200 machine of this
project showed it). So every variant is timed in slices spread over the whole pass, and
each slice times, just before the variant's calls, calls of one small op (`torch.add` on
a one-element tensor). The ratio of the two is the variant's cost in small ops, which
moves far less, so variants are compared by it.

The first calls after the CPU waited for the GPU, and the first calls of a variant after
the small op, cost several times a steady call (`first_calls` records by how much). So
each timed run starts after WARM untimed calls of the same call, and each slice's figure
is the median of its timed calls. On a GPU each slice is queued behind
`torch.cuda._sleep`, so the GPU is busy and issuing never waits for it.
"""
from __future__ import annotations

import gc
import statistics
import time
from contextlib import nullcontext

from ..stats import stats
from .guard import sync

PER_SLICE = 5        # timed calls of the small op and of the variant per slice
WARM = 3             # untimed calls before each timed run, the first of them timed alone
QUARTERS = 4         # spread_pct: the largest against the smallest median of the pass's quarters
MIN_SLEEP_US = 500   # the shortest time the GPU is kept busy per slice
SLEEP_MARGIN = 2     # the GPU sleeps this many times the slice's expected issuing time


def small_op(torch, device, dtype):
    """The reference call: one small op, one kernel."""
    x = torch.ones(1, device=device, dtype=dtype)
    return lambda: torch.add(x, x)


def sleep_cycles_per_us(torch):
    """GPU clock cycles of torch.cuda._sleep per microsecond, read from the device."""
    torch.cuda._sleep(1000)
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    torch.cuda._sleep(20_000_000)
    end.record()
    end.synchronize()
    return 20_000_000 / (start.elapsed_time(end) * 1e3)


def _block_us(call, n):
    """Microseconds per call of n calls issued back to back."""
    t0 = time.perf_counter_ns()
    for _ in range(n):
        call()
    return (time.perf_counter_ns() - t0) / 1e3 / n


def _run_us(call, n):
    """(the first of WARM untimed calls, timed alone; the median of the n calls after
    them), in microseconds per call."""
    t0 = time.perf_counter_ns()
    call()
    first = time.perf_counter_ns() - t0
    for _ in range(WARM - 1):
        call()
    times = []
    for _ in range(n):
        t0 = time.perf_counter_ns()
        call()
        times.append(time.perf_counter_ns() - t0)
    return first / 1e3, statistics.median(times) / 1e3


def _summary(values):
    """stats() of the values, with the medians of their QUARTERS consecutive quarters and
    spread_pct: the largest against the smallest of those medians, in percent."""
    out = stats(values)
    k = max(1, len(values) // QUARTERS)
    quarters = [statistics.median(values[i:i + k]) for i in range(0, k * QUARTERS, k) if values[i:i + k]]
    out.update(quarters=quarters, spread_pct=100 * (max(quarters) - min(quarters)) / min(quarters))
    return out


def host_overheads(torch, device, calls, small, total_calls):
    """{name: host overhead} for calls = {name: (call, context factory or None)}.

    About `total_calls` timed calls per variant, in slices of PER_SLICE; each round of
    slices visits every call: GPU queued behind a sleep, WARM + PER_SLICE calls of the
    small op, then WARM + PER_SLICE calls of the variant (_run_us).
    Per variant: the median over the slices in microseconds per call (`spread_pct` says
    how far the quarters of the pass differ), `per_small_op` (the ratio in each slice, its
    median and spread), `small_op_us` (the small op's own cost: how far the time of the
    same CPU work moved) and `first_calls`: how many times a slice's median the first call
    cost, for the small op after the wait for the GPU (`after_wait`) and for the variant
    after the small op (`after_switch`). `gpu_kept_busy` is the share of slices in which
    the GPU was still busy when the last call had been issued.
    """
    slices, per_slice = max(QUARTERS, total_calls // PER_SLICE), PER_SLICE
    cycles = sleep_cycles_per_us(torch) if device == "cuda" else 0
    ctx = {name: c or nullcontext for name, (_, c) in calls.items()}
    guess = {}
    for name, (call, _) in calls.items():  # how long a slice takes to issue, for the sleep
        with ctx[name]():
            call()
            guess[name] = _block_us(call, 3) + _block_us(small, 3)
        sync(torch, device)
    own, ref, waited, switched, busy = ({name: [] for name in calls} for _ in range(5))
    gc.collect()
    gc.disable()
    try:
        for _ in range(slices):
            for name, (call, _) in calls.items():
                with ctx[name]():
                    sync(torch, device)
                    if device == "cuda":
                        issue_us = SLEEP_MARGIN * (WARM + per_slice) * guess[name]
                        torch.cuda._sleep(int(max(MIN_SLEEP_US, issue_us) * cycles))
                    first_small, small_us = _run_us(small, per_slice)
                    first_call, call_us = _run_us(call, per_slice)
                    busy[name].append(device == "cuda" and not torch.cuda.current_stream().query())
                    own[name].append(call_us)
                    ref[name].append(small_us)
                    waited[name].append(first_small / small_us)
                    switched[name].append(first_call / call_us)
        sync(torch, device)
    finally:
        gc.enable()
    out = {}
    for name in calls:
        row = _summary(own[name])
        row.update(calls=slices * per_slice, slices=slices, warm=WARM,
                   per_small_op=_summary([a / b for a, b in zip(own[name], ref[name], strict=True)]),
                   small_op_us=_summary(ref[name]),
                   first_calls={"after_wait": stats(waited[name]), "after_switch": stats(switched[name])},
                   gpu_kept_busy=sum(busy[name]) / slices)
        out[name] = row
    return out
