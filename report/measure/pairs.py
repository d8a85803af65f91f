"""Paired, interleaved timing: the figures that decide "A is faster than B" when the CPU
sets the pace (wall time per call, host overhead).

A machine's pace drifts during a run (the same small op can cost twice as much a minute
later), so timing A for a while and then B measures the drift as much as the difference.
Here every entry of a group is timed in short blocks of back-to-back calls, one block of
each entry per pair, in an order shuffled per pair with a fixed seed (the same order on
every run), in one process and thread, PAIRS times per round. Drift then moves both sides
of a pair together, and each pair gives one ratio to the group's reference: the
verdict rule (another module) decides from those ratios.

Two timers: "wall" (the block starts after a synchronisation and ends when its last
kernel has: what a caller waits for) and "host" (the GPU is kept busy behind
torch.cuda._sleep, so the block times issuing alone: host overhead without the profiler).
Each block is preceded by WARM untimed calls of the same entry, so the cost of switching
from one entry to the next (cold caches after another call) stays out of the figure.
"""
from __future__ import annotations

import gc
import random
import time
from contextlib import nullcontext

from .guard import Refused, first_line, guarded, sync
from .host import MIN_SLEEP_US, SLEEP_MARGIN, sleep_cycles_per_us

PAIRS = 30        # blocks of each entry per group and round (= process): their median is the
                  # round's ratio, which the verdict (report/verdict/paired.py) compares across processes
SEED = 29         # the shuffle's seed: with the group's name and the round, the same order every run
BLOCK_MS = 3.0    # a block's aim: calls per block = BLOCK_MS over one call's wall time ...
MIN_CALLS = 1     # ... at least this many (a call of 3 ms or more is a block of its own) ...
MAX_CALLS = 200   # ... and at most this many (queued launches stay far below the driver's queue)
WARM = 1          # untimed calls before each timed block
PROBE_CALLS = 3   # calls timed together, PROBES times per entry, to size its block
PROBES = 3
METRICS = ("wall", "host")


def settings(pairs=PAIRS):
    return {"pairs": pairs, "seed": SEED, "block_ms": BLOCK_MS, "min_calls": MIN_CALLS,
            "max_calls": MAX_CALLS, "warm_calls": WARM,
            "order": "per pair one block of every entry, order shuffled per pair "
                     "(random.Random(f'{seed}-{group}-{round}'))"}


def calls_per_block(per_call_us, block_ms=None):
    """How many calls one block of an entry makes, from one call's wall time and the
    block's aim in ms (BLOCK_MS unless the group has its own)."""
    block_ms = BLOCK_MS if block_ms is None else block_ms
    return max(MIN_CALLS, min(MAX_CALLS, round(block_ms * 1e3 / max(per_call_us, 1e-3))))


def _probe(torch, device, call):
    """(wall µs per call, host µs per call): the least of PROBES timings of PROBE_CALLS
    calls each, after one warm call (the least, so one interruption cannot shrink a block)."""
    call()
    sync(torch, device)
    walls, hosts = [], []
    for _ in range(PROBES):
        t0 = time.perf_counter_ns()
        for _ in range(PROBE_CALLS):
            call()
        issued = time.perf_counter_ns()
        sync(torch, device)
        walls.append((time.perf_counter_ns() - t0) / 1e3 / PROBE_CALLS)
        hosts.append((issued - t0) / 1e3 / PROBE_CALLS)
    return min(walls), min(hosts)


class Timer:
    """One block of n calls, in microseconds per call, by the group's metric."""

    def __init__(self, torch, device, metric):
        if metric not in METRICS:
            raise ValueError(f"metric {metric!r} is not one of {', '.join(METRICS)}")
        self.torch, self.device, self.metric = torch, device, metric
        self.cycles = sleep_cycles_per_us(torch) if device == "cuda" and metric == "host" else 0

    def block_us(self, call, n, host_us):
        torch, device = self.torch, self.device
        sync(torch, device)
        if self.metric == "host" and device == "cuda":  # the GPU stays busy while the block issues
            torch.cuda._sleep(int(max(MIN_SLEEP_US, SLEEP_MARGIN * (WARM + n) * host_us) * self.cycles))
        for _ in range(WARM):
            call()
        if self.metric == "wall":
            sync(torch, device)
        t0 = time.perf_counter_ns()
        for _ in range(n):
            call()
        if self.metric == "wall":
            sync(torch, device)
        return (time.perf_counter_ns() - t0) / 1e3 / n


def measure_group(torch, device, entries, reference, metric, pairs, order_seed, block_ms=None):
    """One round of one group: entries = {name: (call, context factory or None)}.

    block_ms: a block's aim in ms (calls_per_block; None: BLOCK_MS).
    Returns {"calls_per_block": {name: n}, "blocks_us": {name: [µs per call, one per
    pair]}, "ratio": {name: [its block over the reference's block, per pair]},
    "refused": {name: why}} ("ratio" leaves out the reference itself). An entry that
    refuses or fails in its probe is left out with its reason; if the reference does,
    the round raises Refused.
    """
    ctx = {name: c or nullcontext for name, (_, c) in entries.items()}
    calls, size, host, refused = {}, {}, {}, {}
    for name, (call, _) in entries.items():
        try:
            with guarded(torch), ctx[name]():
                wall, host[name] = _probe(torch, device, call)
        except Refused as err:
            refused[name] = f"{err.row['status']}: {err.row['reason'][:300]}"
            continue
        except Exception as err:  # noqa: BLE001 - an entry that cannot run is recorded, the others go on
            refused[name] = f"{type(err).__name__}: {first_line(err)[:300]}"
            continue
        calls[name], size[name] = call, calls_per_block(wall, block_ms)
    if reference not in calls:
        raise Refused("error", f"the reference {reference} did not run: {refused.get(reference)}")
    timer = Timer(torch, device, metric)
    rng = random.Random(order_seed)
    blocks = {name: [] for name in calls}
    names = list(calls)
    gc.collect()
    gc.disable()
    try:
        for _ in range(pairs):
            for name in rng.sample(names, len(names)):
                with ctx[name]():
                    blocks[name].append(timer.block_us(calls[name], size[name], host[name]))
        sync(torch, device)
    finally:
        gc.enable()
    ref = blocks[reference]
    ratio = {name: [a / b for a, b in zip(blocks[name], ref, strict=True)]
             for name in names if name != reference}
    return {"calls_per_block": size, "blocks_us": blocks, "ratio": ratio, "refused": refused}
