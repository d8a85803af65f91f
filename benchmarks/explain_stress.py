#!/usr/bin/env python3
"""Does `build_tables.py --explain` stay linear in the trace whatever its shape? Prints time,
CPU time and peak memory; asserts nothing (issue 27, item 2; issue 50, item 4: comm).

    python benchmarks/explain_stress.py                  # every shape at its default size
    python benchmarks/explain_stress.py --scale 0.25     # each shape a quarter as large
    python benchmarks/explain_stress.py --only streams   # one shape (and the plain trace)
    python benchmarks/explain_stress.py --only comm      # 3,000 NCCL streams, and comm_one beside it
    python benchmarks/explain_stress.py --limit-gb 3     # each run under 3 GB of address space
    python benchmarks/explain_stress.py --root DIR       # read with DIR's report/ (another checkout)

Each shape is a made-up trace in Kineto's layout that stresses one dimension, written beside
a plain trace with as many events (one stream, one device, ranges in sequence):
    plain     GPU activities on one stream, each launched inside an op, a profiler step and a
              synchronize call every 100
    streams   each GPU activity on a stream of its own
    devices   each GPU activity on a device of its own, with its deviceProperties, and a
              name of its own
    nesting   ranges of one name nested like stairs, and ops nested as deep on the host
              thread, a launch in each level
    syncs     after every activity a synchronize call that keeps the next launch back,
              one in four in an .item(), an .item() on another thread beside the others
    names     each GPU activity with a long name of its own
    chains    hand-written attention (matmul, softmax, matmul) beside as many SDPA calls
    comm      NCCL kernels each on a stream of its own beside compute kernels on one
              (3,000 and 20,000 at the default size: issue 50), each NCCL kernel running
              over a few compute kernels
    comm_one  the same kernels, the NCCL ones on one stream of their own: the figure
              `comm` is measured against
Each is read by the command's own function in a fresh interpreter (the pure-Python reader,
as in the browser, unless --msgspec), under a timeout, `resource.getrusage` giving its peak
resident memory; a run that ends otherwise prints how (MemoryError, a timeout, its last line).
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PROPS = {"name": "NVIDIA H200", "totalGlobalMem": 150109880320, "computeMajor": 9, "computeMinor": 0,
         "maxThreadsPerBlock": 1024, "maxThreadsPerMultiprocessor": 2048, "regsPerBlock": 65536, "warpSize": 32,
         "sharedMemPerBlock": 49152, "numSms": 132, "regsPerMultiprocessor": 65536,
         "sharedMemPerBlockOptin": 232448, "sharedMemPerMultiprocessor": 233472}
KERNEL = "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float> >(int)"
DEFAULT_N = 8000  # GPU activities per trace: the 8,000 streams


class Writer:
    """Events in Kineto's layout (its keys in its order, its spacing), one per line."""

    def __init__(self):
        self.lines, self.corr = [], 0

    def add(self, ph_cat, name, ts, dur, pid=1, tid=1, args=None):
        head = (f'{{"ph": "X", "cat": "{ph_cat}", "name": {json.dumps(name)}, "pid": {pid}, "tid": {tid}, '
                f'"ts": {ts:.3f}, "dur": {dur:.3f}')
        self.lines.append(head + (f', "args": {json.dumps(args)}}}' if args is not None else "}"))

    def op(self, name, ts, dur, tid=1):
        self.add("cpu_op", name, ts, dur, tid=tid, args={"External id": self.corr})

    def range(self, name, ts, dur):
        self.add("user_annotation", name, ts, dur, args={"External id": 0})

    def launch(self, ts, name="cudaLaunchKernel", dur=4.0):
        self.corr += 1
        self.add("cuda_runtime", name, ts, dur, args={"cbid": 211, "correlation": self.corr})
        return self.corr

    def kernel(self, corr, ts, dur, name=KERNEL, device=0, stream=7, cat="kernel"):
        args = {"device": device, "stream": stream, "correlation": corr, "registers per thread": 32,
                "shared memory": 0, "grid": [8192, 1, 1], "block": [128, 1, 1],
                "est. achieved occupancy %": 100}
        if cat != "kernel":
            args = {"device": device, "stream": stream, "correlation": corr}
        self.add(cat, name, ts, dur, pid=device, tid=stream, args=args)

    def write(self, path, devices=1):
        props = [dict(PROPS, id=i, name=f"{PROPS['name']} #{i}" if devices > 1 else PROPS["name"])
                 for i in range(devices)]
        with open(path, "w", encoding="utf-8") as f:
            f.write('{\n  "schemaVersion": 1,\n  "deviceProperties": [\n    '
                    + ",\n    ".join(json.dumps(p) for p in props) + '\n  ],\n  "traceEvents": [\n  '
                    + ",\n  ".join(self.lines) + '\n  ],\n  "traceName": "stress"\n}\n')


def _step(w, n, stream_of, device_of=lambda i: 0, name_of=lambda i: KERNEL):
    """n activities, each launched inside an op; a step range and a sync every 100."""
    t, gpu = 1000.0, 1100.0
    for start in range(0, n, 100):
        t0 = t
        for i in range(start, min(n, start + 100)):
            w.op("aten::add", t, 8.0)
            corr = w.launch(t + 2.0)
            gpu = max(gpu, t + 8.0)
            w.kernel(corr, gpu, 5.0, name=name_of(i), device=device_of(i), stream=stream_of(i))
            gpu += 6.0
            t += 10.0
        w.add("cuda_runtime", "cudaDeviceSynchronize", t, max(gpu - t, 1.0), args={"correlation": 0})
        t = max(t, gpu) + 5.0
        w.range(f"ProfilerStep#{start // 100}", t0, t - t0)


def plain(w, n):
    _step(w, n, lambda i: 7)


def streams(w, n):
    _step(w, n, lambda i: 100 + i)


def devices(w, n):
    _step(w, n, lambda i: 7, device_of=lambda i: i, name_of=lambda i: f"kernel_{i}")
    return n


def names(w, n):
    _step(w, n, lambda i: 7, name_of=lambda i: f"void kernel_{i}<" + "float, " * 150 + f"{i}>(int)")


def nesting(w, n):
    """n // 2 ranges of one name nested like stairs, and as many ops on the host thread,
    each level with a launch of its own just after its start (so each range has GPU work
    and a window to the end of the trace); the rest of the n launches in the innermost."""
    depth, t = n // 2, 1000.0
    end = t + 10.0 * n + 10.0
    gpu = t + 10.0
    for k in range(n):
        if k < depth:
            w.range("nested", t, end - t - k)
            w.op(f"op_{k % 7}", t, end - t - k - 1.0)
        corr = w.launch(t + 1.0)
        w.kernel(corr, gpu, 5.0)
        gpu, t = gpu + 8.0, t + 10.0


def chains(w, n):
    """Hand-written attention beside SDPA calls on one thread: n // 4 of each, each chain
    (matmul, softmax, matmul) and each call launching its kernels."""
    t = 1000.0
    for _ in range(n // 4):
        for name in ("aten::matmul", "aten::softmax", "aten::matmul"):
            w.op(name, t, 8.0)
            corr = w.launch(t + 2.0)
            w.kernel(corr, t + 9.0, 5.0)
            t += 10.0
        w.op("aten::scaled_dot_product_attention", t, 9.0)
        w.op("aten::_scaled_dot_product_flash_attention", t + 0.5, 8.0)
        corr = w.launch(t + 2.0)
        w.kernel(corr, t + 9.0, 5.0, name="flash_fwd_kernel")
        t += 10.0


def syncs(w, n):
    """Each activity followed by a synchronize call that keeps the next launch back (a host
    gap after each): one in four inside an .item() (aten::item and its DtoH copy), the
    others bare, with an .item() on a second thread meanwhile (each gap's search for the op
    around its sync passes them)."""
    t = 1000.0
    for i in range(n // 2):
        w.op("aten::add", t, 8.0)
        corr = w.launch(t + 2.0)
        w.kernel(corr, t + 8.0, 5.0)
        if i % 4:
            w.add("cuda_runtime", "cudaStreamSynchronize", t + 10.0, 35.0, args={"correlation": 0})
            w.op("aten::item", t + 20.0, 2.0, tid=2)
            w.op("aten::_local_scalar_dense", t + 20.5, 1.0, tid=2)
        else:
            w.op("aten::item", t + 9.0, 41.0)
            w.op("aten::_local_scalar_dense", t + 9.5, 40.0)
            corr = w.launch(t + 10.0, name="cudaMemcpyAsync", dur=1.0)
            w.kernel(corr, t + 13.0, 2.0, name="Memcpy DtoH (Device -> Pageable)", cat="gpu_memcpy")
            w.add("cuda_runtime", "cudaStreamSynchronize", t + 12.0, 33.0, args={"correlation": 0})
        t += 60.0


NCCL = "ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevKernelArgsStorage<4096ul>)"


def _comm(w, n, nccl_stream):
    """n * 5 // 2 compute kernels on one stream, each launched inside an op, a profiler
    step every 100; every seventh or so also launches an NCCL kernel (n * 3 // 8 of them)
    on nccl_stream(k) that runs beside the next few compute kernels."""
    compute, comm = n * 5 // 2, n * 3 // 8
    every = max(compute // max(comm, 1), 1)
    t, gpu, k = 1000.0, 1100.0, 0
    for start in range(0, compute, 100):
        t0 = t
        for i in range(start, min(compute, start + 100)):
            w.op("aten::add", t, 8.0)
            corr = w.launch(t + 2.0)
            gpu = max(gpu, t + 8.0)
            w.kernel(corr, gpu, 5.0)
            if i % every == 0 and k < comm:
                w.op("c10d::allreduce_", t + 4.0, 3.0)
                corr = w.launch(t + 5.0)
                w.kernel(corr, gpu + 2.0, 20.0, name=NCCL, stream=nccl_stream(k))
                k += 1
            gpu += 6.0
            t += 10.0
        t = max(t, gpu) + 5.0
        w.range(f"ProfilerStep#{start // 100}", t0, t - t0)


def comm(w, n):
    _comm(w, n, lambda k: 1000 + k)


def comm_one(w, n):
    _comm(w, n, lambda k: 13)


SHAPES = {"plain": plain, "streams": streams, "devices": devices, "nesting": nesting, "syncs": syncs,
          "names": names, "chains": chains, "comm": comm, "comm_one": comm_one}

CHILD = """
import resource, sys, time
sys.path.insert(0, {root!r})
try:
    from report.trace.reading import stream as reading_stream
    from report.doctor.explain import TraceError, explain_file
except ImportError:
    try:  # --root: a checkout from before the one reader (issue 38), the reader in report/doctor/reading/
        from report.doctor.reading import stream as reading_stream
        from report.doctor.explain import TraceError, explain_file
    except ImportError:  # --root: a checkout from before report/doctor/ (report/trace/explain*.py)
        from report.trace import explain_read as reading_stream
        from report.trace.explain import TraceError, explain_file
reading_stream.FAST_DECODER = reading_stream.FAST_DECODER and {fast!r}
started, cpu = time.perf_counter(), time.process_time()
try:
    text = explain_file({path!r})
    how = "read"
except TraceError as err:
    how = "refused: " + str(err).split(": ", 1)[1]
elapsed, cpu = time.perf_counter() - started, time.process_time() - cpu
print(elapsed, cpu, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, how)
"""


def run(path, fast, timeout, limit_gb, root=ROOT):
    """(seconds, CPU seconds, peak MB, how it ended) of explain_file(path) in a fresh
    interpreter (CPU seconds None where it did not end)."""
    def limited():
        if limit_gb:
            resource.setrlimit(resource.RLIMIT_AS, (int(limit_gb * 2**30),) * 2)

    code = CHILD.format(root=str(root), path=str(path), fast=fast)
    started = time.perf_counter()
    try:
        done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False,
                              timeout=timeout, preexec_fn=limited)
    except subprocess.TimeoutExpired:
        return time.perf_counter() - started, None, None, f"stopped after {timeout} s"
    if done.returncode:
        last = (done.stderr.strip().splitlines() or ["no output"])[-1]
        return time.perf_counter() - started, None, None, f"failed: {last[:120]}"
    seconds, cpu, kib, how = done.stdout.split(maxsplit=3)
    return float(seconds), float(cpu), int(kib) / 1024, how.strip()


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--scale", type=float, default=1.0, help=f"activities per trace: {DEFAULT_N:,} times this")
    p.add_argument("--only", choices=[s for s in SHAPES if s != "plain"], action="append",
                   help="this shape only (repeatable); the plain trace is always read, and comm_one with comm")
    p.add_argument("--timeout", type=int, default=300, help="seconds per run (default 300)")
    p.add_argument("--limit-gb", type=float, default=0, help="address-space limit per run (default none)")
    p.add_argument("--msgspec", action="store_true", help="the fast reader where installed (default: pure Python)")
    p.add_argument("--root", type=Path, default=ROOT,
                   help="the checkout whose report/ reads the traces (default: this one), e.g. an older "
                        "commit's (git worktree add), to compare")
    args = p.parse_args(argv)
    n = max(100, int(DEFAULT_N * args.scale))
    shapes = ["plain"] + (args.only or [s for s in SHAPES if s != "plain"])
    if "comm" in shapes and "comm_one" not in shapes:
        shapes.append("comm_one")
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    print(f"report/ of {args.root.resolve()}; {n:,} GPU activities per trace; load average {load} "
          f"on {os.cpu_count()} CPUs")
    cpus = {}
    with tempfile.TemporaryDirectory() as tmp:
        for shape in shapes:
            w = Writer()
            devs = SHAPES[shape](w, n) or 1
            path = Path(tmp) / f"{shape}.json"
            w.write(path, devices=devs)
            seconds, cpu, mb, how = run(path, args.msgspec, args.timeout, args.limit_gb, args.root.resolve())
            cpus[shape] = cpu
            peak = f"{mb:,.0f} MB" if mb is not None else "-"
            spent = f"{cpu:7.2f} s CPU" if cpu is not None else "      - s CPU"
            print(f"{shape:8} {path.stat().st_size / 1e6:7.1f} MB, {len(w.lines):>9,} events: "
                  f"{seconds:7.2f} s, {spent}, peak memory {peak:>9}; {how}", flush=True)
            path.unlink()
    if cpus.get("comm") and cpus.get("comm_one"):
        print(f"comm / comm_one: {cpus['comm'] / cpus['comm_one']:.1f}x the CPU time (issue 50: within 3x)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
