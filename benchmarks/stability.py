#!/usr/bin/env python3
"""How repeatable are build_tables.py's figures? Prints numbers; asserts nothing.

    python -m benchmarks.stability            # on a CUDA GPU (about 3 minutes)
    python -m benchmarks.stability --device cpu --seq-len 128 --batch 1 --heads 2

Run it from the repository root (it imports build_tables and report/ from there).

Runs the measurement twice in one process with the default number of profiled steps,
then twice with 3 steps (like the original study), and prints for every quantity the
largest run-to-run difference over the variants, counting only times of at least 50 µs
(host overhead, measured without the profiler with the GPU kept busy, counts at any size:
it is the figure that replaces profiled CPU time for "what does a call cost the CPU").
Writes nothing under docs/.
"""
import shutil
import sys
import time
from pathlib import Path

import build_tables
from report.measure.run import run_measurements

QUANTITIES = {
    "CUDA time (GPU range)": lambda r: r["cuda_time_us"] and r["cuda_time_us"]["median"],
    "kernel time sum": lambda r: r["kernel_sum_us"] and r["kernel_sum_us"]["median"],
    "CPU time (range)": lambda r: r["cpu_time_us"]["median"],
    "wall time per call": lambda r: r["wall_time_us"]["median"],
    "host overhead": lambda r: r["host_time_us"]["median"],
}
FLOOR_US = 50.0


def measure(argv):
    args = build_tables.parse_args(argv)
    started = time.perf_counter()
    _, results, traces = run_measurements(args, argv, Path("."), progress=lambda s: None)
    shutil.rmtree(traces, ignore_errors=True)
    return results["variants"], time.perf_counter() - started


def largest_difference(a, b):
    rows = {}
    for label, get in QUANTITIES.items():
        worst = (0.0, None)
        for name, ra in a.items():
            rb = b.get(name)
            if ra["status"] != "ok" or not rb or rb["status"] != "ok":
                continue
            x, y = get(ra), get(rb)
            if not x or not y or (min(x, y) < FLOOR_US and label != "host overhead"):
                continue
            diff = abs(x - y) / min(x, y)
            if diff > worst[0]:
                worst = (diff, name)
        rows[label] = worst
    return rows


def main(argv):
    base = [a for a in argv if not a.startswith("--steps")]
    args = build_tables.parse_args(base)
    if args.device == "cuda":
        import torch

        if not torch.cuda.is_available():
            print("stability.py: error: no CUDA device found: run on a machine with an NVIDIA GPU, "
                  "or pass --device cpu", file=sys.stderr)
            return 2
    first, seconds = measure(base)
    second, _ = measure(base)
    three_a, _ = measure(base + ["--steps", "3"])
    three_b, _ = measure(base + ["--steps", "3"])
    steps = build_tables.parse_args(base).steps
    many, few = largest_difference(first, second), largest_difference(three_a, three_b)
    print(f"one full measurement took {seconds:.1f} s (wall, in-process, CUDA already started)")
    print(f"per variant, run 1 / run 2 with {steps} steps (us):")
    for name, ra in first.items():
        rb = second.get(name, {})
        if ra["status"] != "ok" or rb.get("status") != "ok":
            continue
        cells = []
        for label, get in QUANTITIES.items():
            x, y = get(ra), get(rb)
            cells.append(f"{label.split(' (')[0]} {x:.1f}/{y:.1f}" if x and y else f"{label} -")
        print(f"  {name:<14} " + "; ".join(cells))
    print(f"largest run-to-run difference over variants (times >= {FLOOR_US:.0f} us only):")
    print(f"{'quantity':<24} {f'{steps} steps':>18} {'3 steps':>18}")
    for label in QUANTITIES:
        (d1, n1), (d2, n2) = many[label], few[label]
        print(f"{label:<24} {d1 * 100:8.2f} % {n1 or '-':>8} {d2 * 100:8.2f} % {n2 or '-':>8}")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
