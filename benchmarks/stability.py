#!/usr/bin/env python3
"""How repeatable are build_tables.py's figures? Prints numbers; asserts nothing.

    python -m benchmarks.stability            # on a CUDA GPU (about 3 minutes)
    python benchmarks/stability.py            # the same
    python -m benchmarks.stability --device cpu --seq-len 128 --batch 1 --heads 2

It imports build_tables and report/ from the repository root, whichever form starts it.

Runs the measurement twice in one process with the default number of profiled steps,
then twice with 3 steps (like the original study), and prints for every quantity the
largest run-to-run difference over the variants, counting only times of at least 50 µs.
Host overhead (measured without the profiler, with the GPU kept busy) counts at any
size, in µs and in small ops (report/measure/host.py); its target is a difference of
at most 10 % between two runs, printed next to the profiled CPU time's.
Writes nothing under docs/.
"""
import shutil
import sys
import time
from pathlib import Path

# `python benchmarks/stability.py` puts benchmarks/ on sys.path, not the repository root
ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import build_tables  # noqa: E402
from report.measure.run import run_measurements  # noqa: E402
from report.results import UsageError  # noqa: E402
from report.rows import cpu_time, gpu_span, kernel_time  # noqa: E402
from report.verdict import median  # noqa: E402

QUANTITIES = {  # the guide's words for time (its vocabulary table)
    "GPU span": lambda r: median(gpu_span(r)),
    "kernel time": lambda r: median(kernel_time(r)),
    "profiled CPU time": lambda r: median(cpu_time(r)),
    "wall time per call": lambda r: r["wall_time_us"]["median"],
    "host overhead, µs": lambda r: r["host_time_us"]["median"],
    "host overhead, small ops": lambda r: r["host_time_us"]["per_small_op"]["median"],
}
ANY_SIZE = ("host overhead, µs", "host overhead, small ops")
FLOOR_US = 50.0
TARGET_PCT = 10.0


def measure(argv):
    # it compares whole runs' full figures; the rounds (build_tables.py --rounds) would only
    # add time, so it measures one unless told otherwise
    argv = argv if any(a.split("=")[0] == "--rounds" for a in argv) else [*argv, "--rounds", "1"]
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
            if not x or not y or (min(x, y) < FLOOR_US and label not in ANY_SIZE):
                continue
            diff = abs(x - y) / min(x, y)
            if diff > worst[0]:
                worst = (diff, name)
        rows[label] = worst
    return rows


def main(argv):
    # the benchmark sets the steps itself: a later --steps wins over one the caller gave
    steps = build_tables.parse_args([]).steps
    many, few = argv + ["--steps", str(steps)], argv + ["--steps", "3"]
    try:
        first, seconds = measure(many)
    except UsageError as err:
        print(f"stability.py: error: {err}", file=sys.stderr)
        return 2
    second, _ = measure(many)
    three_a, _ = measure(few)
    three_b, _ = measure(few)
    many, few = largest_difference(first, second), largest_difference(three_a, three_b)
    print(f"one full measurement took {seconds:.1f} s (wall, in-process, CUDA already started)")
    print(f"per variant, run 1 / run 2 with {steps} steps (µs; small ops: a ratio):")
    for name, ra in first.items():
        rb = second.get(name, {})
        if ra["status"] != "ok" or rb.get("status") != "ok":
            continue
        cells = []
        for label, get in QUANTITIES.items():
            x, y = get(ra), get(rb)
            cells.append(f"{label} {x:.1f}/{y:.1f}" if x and y else f"{label} -")
        print(f"  {name:<20} " + "; ".join(cells))
    ops = [r["host_time_us"]["small_op_us"] for run in (first, second) for r in run.values() if r["status"] == "ok"]
    if ops:
        low, high = min(q for o in ops for q in o["quarters"]), max(q for o in ops for q in o["quarters"])
        print(f"one small op (torch.add, one element): the medians of the quarters of both runs' host passes "
              f"lie between {low:.2f} and {high:.2f} µs per call ({100 * (high - low) / low:.0f} %): "
              f"how far the time of the same CPU work moved")
    print(f"largest run-to-run difference over variants (times >= {FLOOR_US:.0f} µs only, host overhead at any size):")
    print(f"{'quantity':<26} {f'{steps} steps':>24} {'3 steps':>24}")
    for label in QUANTITIES:
        (d1, n1), (d2, n2) = many[label], few[label]
        print(f"{label:<26} {d1 * 100:8.2f} % {n1 or '-':>14} {d2 * 100:8.2f} % {n2 or '-':>14}")
    for label in ANY_SIZE:
        d = max(many[label][0], few[label][0]) * 100
        verdict = "met" if d <= TARGET_PCT else "NOT met"
        print(f"{label}: largest difference between two runs {d:.1f} % (target at most {TARGET_PCT:.0f} %: {verdict})")
    d = max(many["profiled CPU time"][0], few["profiled CPU time"][0]) * 100
    print(f"profiled CPU time, for comparison: largest difference between two runs {d:.1f} %")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
