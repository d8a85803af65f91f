#!/usr/bin/env python3
"""Cut a torch.profiler trace down to a small test fixture: pure Python, no torch.

    python benchmarks/cut_trace.py IN.json.gz OUT.json.gz [--steps 2]
    python benchmarks/cut_trace.py --all RECORDED_DIR tests/fixtures/corpus --steps 2 --steps decode=1
    python benchmarks/cut_trace.py IN.json.gz OUT.json.gz --first 200   # an MTIA or CPU-only trace

Keeps the first N profiler steps (ProfilerStep#...; the whole trace if it has none): the
ranges, launch calls and GPU activities in them, and of the CPU operations only those that
hold a launch call (with their enclosing ones), which is what --explain reads (op stacks,
ATen ops, attention), Kineto's own events (category overhead) in those steps, and the
recorded inputs (Input Dims, Input type, Input Strides, Concrete Inputs) of SDPA's ops and
the matmuls alone (events.INPUT_OPS: the reasons a backend ran, and a GEMM's sizes). Drops flow
events, Python function events, operations without GPU work under them and every other
op's shape arguments. A trace without GPU activity
(MTIA, CPU-only), which that would leave empty, is cut with --first N instead: its metadata
and the first N other events of each category. Writes gzip with no timestamp, so the
same input gives the same bytes.
"""
from __future__ import annotations

import argparse
import bisect
import gzip
import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# `python benchmarks/cut_trace.py` puts benchmarks/ on sys.path, not the repository root
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from report.trace.reading.events import INPUT_ARGS, INPUT_OPS  # noqa: E402

STEP = re.compile(r"ProfilerStep#\d+")
GPU = {"kernel", "gpu_memcpy", "gpu_memset"}
LAUNCH = {"cuda_runtime", "cuda_driver"}
DROPPED_ARGS = {*INPUT_ARGS, "Ev Idx", "Record function id", "Sequence number", "Fwd thread id"}


def _read(path):
    raw = Path(path).read_bytes()
    return json.loads(gzip.decompress(raw) if raw[:2] == b"\x1f\x8b" else raw)


def cut(trace, steps=2):
    """A copy of the trace with the first `steps` profiler steps and what they need."""
    events = [e for e in trace["traceEvents"] if isinstance(e, dict)]
    x = [e for e in events if e.get("ph") == "X" and isinstance(e.get("ts"), (int, float))]
    marks = sorted((e for e in x if e.get("cat") == "user_annotation" and STEP.fullmatch(str(e.get("name")))),
                   key=lambda e: e["ts"])[:steps]
    if marks:
        lo, hi = marks[0]["ts"], max(e["ts"] + e["dur"] for e in marks)
    else:
        lo, hi = min(e["ts"] for e in x), max(e["ts"] + e.get("dur", 0) for e in x)
    inside = lambda e: lo <= e["ts"] <= hi  # noqa: E731
    launches = [e for e in x if e.get("cat") in LAUNCH and inside(e)]
    corrs = {(e.get("args") or {}).get("correlation") for e in launches}
    gpu = [e for e in x if e.get("cat") in GPU and (e.get("args") or {}).get("correlation") in corrs]
    ops = [e for e in x if e.get("cat") == "cpu_op" and inside(e)]
    kept_ops = []
    by_tid = {}
    for op in ops:
        by_tid.setdefault(op.get("tid"), []).append(op)
    for tid, mine in by_tid.items():
        starts = sorted(e["ts"] for e in launches if e.get("tid") == tid)
        for op in mine:  # an op is kept when a launch call of its thread lies in it
            i = bisect.bisect_left(starts, op["ts"])
            if i < len(starts) and starts[i] <= op["ts"] + op["dur"]:
                kept_ops.append(op)
    ranges = [e for e in x if e.get("cat") in ("user_annotation", "gpu_user_annotation") and inside(e)]
    overhead = [e for e in x if e.get("cat") == "overhead" and inside(e)]
    meta = [e for e in events if e.get("ph") == "M"]
    out = []
    for e in meta + ranges + kept_ops + launches + gpu + overhead:
        e = dict(e)
        if isinstance(e.get("args"), dict):
            keep = INPUT_ARGS if e.get("cat") == "cpu_op" and e.get("name") in INPUT_OPS else ()
            e["args"] = {k: v for k, v in e["args"].items() if k not in DROPPED_ARGS or k in keep}
        out.append(e)
    out.sort(key=lambda e: (e.get("ts", 0), e.get("ph") != "M"))
    return {k: v for k, v in trace.items() if k != "traceEvents"} | {"traceEvents": out}


def first(trace, n):
    """A copy of the trace with its metadata events and the first n others of each category
    (in the file's order), as they are."""
    out, seen = [], {}
    for e in trace["traceEvents"]:
        if not isinstance(e, dict):
            continue
        cat = str(e.get("cat"))
        if e.get("ph") == "M" or seen.get(cat, 0) < n:
            out.append(e)
            if e.get("ph") != "M":
                seen[cat] = seen.get(cat, 0) + 1
    return {k: v for k, v in trace.items() if k != "traceEvents"} | {"traceEvents": out}


def write(trace, path):
    data = json.dumps(trace, separators=(",", ":")).encode("utf-8")
    Path(path).write_bytes(gzip.compress(data, compresslevel=9, mtime=0))


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("source", type=Path, help="a trace, or with --all a folder of traces")
    p.add_argument("target", type=Path, help="the cut trace, or with --all a folder")
    p.add_argument("--steps", action="append", default=[],
                   help="profiler steps to keep (default 2); NAME=N for one trace of --all")
    p.add_argument("--all", action="store_true", help="cut every *.json.gz of the source folder")
    p.add_argument("--first", type=int, metavar="N",
                   help="keep the metadata and the first N events of each category instead (no GPU activity)")
    args = p.parse_args(argv)
    steps, per_name = 2, {}
    for item in args.steps:
        name, _, n = item.rpartition("=")
        if not n.isdigit():
            p.error(f"--steps {item}: a number, or NAME=number")
        if name:
            per_name[name] = int(n)
        else:
            steps = int(n)
    if args.source.resolve() == args.target.resolve():
        p.error(f"{args.target}: the same as the source; the cut would replace the whole trace")
    pairs = [(args.source, args.target)]
    if args.all:
        args.target.mkdir(parents=True, exist_ok=True)
        pairs = [(f, args.target / f.name) for f in sorted(args.source.glob("*.json.gz"))]
        manifest = args.source / "manifest.json"  # record_traces.py's: the GPU and versions
        if manifest.is_file():
            found = json.loads(manifest.read_text(encoding="utf-8"))
            found["cut"] = {"steps": steps, **per_name}
            (args.target / "manifest.json").write_text(json.dumps(found, indent=1) + "\n", encoding="utf-8")
    for src, dst in pairs:
        try:
            trace = _read(src)
        except (OSError, ValueError) as err:
            print(f"{src}: not readable ({err})", file=sys.stderr)
            return 2
        if args.first is not None:
            write(first(trace, args.first), dst)
        else:
            write(cut(trace, per_name.get(src.name.removesuffix(".json.gz"), steps)), dst)
        print(f"{src} -> {dst}: {dst.stat().st_size / 1024:,.0f} KiB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
