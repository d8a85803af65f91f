#!/usr/bin/env python3
"""--explain beside Holistic Trace Analysis (HTA) on the same traces: the idle-time breakdown
per stream, the GPU time per kernel kind, and each one's time and peak memory. Prints both;
asserts nothing; HTA is not a requirement of this repository.

    python benchmarks/compare_hta.py                                  # the corpus, HTA importable here
    python benchmarks/compare_hta.py --hta-python /tmp/hta-venv/bin/python TRACE.json.gz ...

Each side runs in a fresh interpreter per trace (its wall time and peak resident memory
are its own; and HTA never sees the snippets --explain imports under their plain names).
For each stream: --explain's idle time split into host / other stream / other, HTA's
get_idle_time_breakdown (host_wait / kernel_wait / other, in the trace's µs), and whether
the split agrees: HTA's "host_wait" is --explain's "host" (the launch call began after the
previous activity on the stream ended); its "kernel_wait" (a gap under its consecutive-kernel
threshold) and "other" together are --explain's "other stream" and "other". GPU time per
kind: --explain's compute / communication / memory (each kind's union) beside HTA's
get_gpu_kernel_breakdown sums.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "tests" / "fixtures" / "corpus"

OURS = """
import json, resource, sys, time
sys.path.insert(0, {root!r})
started = time.perf_counter()
from report.doctor.explain import TraceError, explain, read_trace
try:
    found = explain(read_trace({path!r}))
except TraceError as err:
    print(json.dumps({{"error": str(err)}}))
    sys.exit(0)
out = {{"streams": {{str(s["stream"]): s["idle_us"] for s in found["streams"]}}, "kinds": found["kinds_us"]}}
out["seconds"] = time.perf_counter() - started
out["peak_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(json.dumps(out))
"""

HTA = """
import json, logging, resource, shutil, sys, tempfile, time, warnings
from pathlib import Path
logging.disable(logging.CRITICAL)
warnings.simplefilter("ignore")
started = time.perf_counter()
from hta.trace_analysis import TraceAnalysis
with tempfile.TemporaryDirectory() as tmp:  # HTA reads a folder of traces
    shutil.copy({path!r}, Path(tmp) / Path({path!r}).name)
    try:
        analysis = TraceAnalysis(trace_dir=tmp)
        idle, _ = analysis.get_idle_time_breakdown(visualize=False)
        kinds, _ = analysis.get_gpu_kernel_breakdown(visualize=False)
    except Exception as err:  # HTA's own failures are a finding, not ours
        print(json.dumps({{"error": f"{{type(err).__name__}}: {{err}}"}}))
        sys.exit(0)
streams = {{}}
for r in idle.to_dict("records"):
    streams.setdefault(str(r["stream"]), {{}})[r["idle_category"]] = float(r["idle_time"])
out = {{"streams": streams, "kinds": {{r["kernel_type"]: float(r["sum"]) for r in kinds.to_dict("records")}}}}
out["seconds"] = time.perf_counter() - started
use, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
out["peak_mb"] = (use.ru_maxrss + kids.ru_maxrss) / 1024
print(json.dumps(out))
"""


def run(python, code):
    done = subprocess.run([python, "-c", code], capture_output=True, text=True, check=False)
    lines = done.stdout.strip().splitlines()
    if done.returncode or not lines:
        tail = done.stderr.strip().splitlines()
        return {"error": tail[-1] if tail else f"exit {done.returncode}"}
    return json.loads(lines[-1])


def agreement(ours, theirs):
    """One line: the host share of each one's idle time, and whether the verdicts they imply agree."""
    o_host, o_all = ours["host"], sum(ours.values())
    t_host, t_all = theirs.get("host_wait", 0.0), sum(theirs.values())
    o_share = o_host / o_all if o_all else 0.0
    t_share = t_host / t_all if t_all else 0.0
    same = (o_share >= 0.5) == (t_share >= 0.5)
    return (f"host share of idle time: --explain {100 * o_share:.0f}% of {o_all:,.1f} µs, HTA {100 * t_share:.0f}% "
            f"of {t_all:,.1f} µs: {'agree' if same else 'DISAGREE'} on whether the host is most of it")


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("traces", nargs="*", type=Path)
    p.add_argument("--hta-python", default=sys.executable, help="a Python that imports hta (default: this one)")
    args = p.parse_args(argv)
    paths = args.traces or sorted(CORPUS.rglob("*.json.gz"))
    print(f"load average at the start: {', '.join(f'{x:.1f}' for x in os.getloadavg())} on {os.cpu_count()} CPUs")
    for path in paths:
        path = path.resolve()
        print(f"\n{path.name} ({path.stat().st_size / 1e6:,.1f} MB on disk)")
        ours = run(sys.executable, OURS.format(root=str(ROOT), path=str(path)))
        theirs = run(args.hta_python, HTA.format(path=str(path)))
        for label, found in (("--explain", ours), ("HTA", theirs)):
            if "error" in found:
                print(f"  {label}: {found['error']}")
            else:
                print(f"  {label}: {found['seconds']:.2f} s, peak memory {found['peak_mb']:,.0f} MB; GPU time by kind: "
                      + ", ".join(f"{k} {v:,.1f} µs" for k, v in found["kinds"].items()))
        if "error" in ours:
            continue
        for stream, idle in ours["streams"].items():
            print(f"  stream {stream}: --explain idle host {idle['host']:,.1f} µs, "
                  f"other stream {idle['stream']:,.1f} µs, other {idle['other']:,.1f} µs")
            mine = theirs.get("streams", {}).get(stream)
            if mine is not None:
                print(f"  stream {stream}: HTA " + ", ".join(f"{k} {v:,.1f} µs" for k, v in sorted(mine.items())))
                print(f"  stream {stream}: {agreement(idle, mine)}")
    print(f"\nload average at the end: {', '.join(f'{x:.1f}' for x in os.getloadavg())}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
