#!/usr/bin/env python3
"""How fast is `build_tables.py --explain` on a large trace, and how much memory does it take?
Prints figures; asserts nothing (issue 21, item 8: at most 5 s and twice the file's size).

    python benchmarks/explain_speed.py              # a ~200 MB trace in a temporary folder
    python benchmarks/explain_speed.py --mb 50      # a smaller one
    python benchmarks/explain_speed.py --keep DIR   # write the trace to DIR and keep it
    python benchmarks/explain_speed.py --hta-python /tmp/hta-venv/bin/python   # HTA from another venv

Writes a synthetic Kineto trace (ProfilerStep ranges, ATen ops with shapes, launch calls,
kernels with launch resources, flow events, a sync per step, as torch.profiler writes them),
then runs the command in a fresh interpreter, `resource.getrusage` giving its peak resident
memory and CPU time, three times (the median is printed with all three): with msgspec
where it is installed, and with the pure-Python reader the browser runs. On a shared
machine the CPU time is the steadier figure; the load average is printed with them.
Holistic Trace Analysis (`hta`), when importable here or by --hta-python, reads the same
file for its idle-time breakdown and kernel statistics beside it; it is not a requirement
of this repository.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
KERNEL_NAMES = ("void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<c10::BFloat16>, "
                "std::array<char*, 3ul> >(int, at::native::CUDAFunctor_add<c10::BFloat16>, std::array<char*, 3ul>)",
                "nvjet_sm90_tst_256x128_64x4_1x2_h_bz_coopA_TNT",
                "void at::native::(anonymous namespace)::cunn_SoftMaxForward<8, c10::BFloat16, float, "
                "c10::BFloat16, at::native::(anonymous namespace)::SoftMaxForwardEpilogue>(c10::BFloat16*, "
                "c10::BFloat16 const*, int)",
                "cudnn_generated_fort_native_sdpa_sm90_flash_fprop_wgmma_f16_knob_7_64x128x64_4x1x1_cga1x1x1_kernel0_0")
OPS = ("aten::add", "aten::mm", "aten::_softmax", "aten::_cudnn_attention_forward")
PROPS = {"id": 0, "name": "NVIDIA H200", "totalGlobalMem": 150109880320, "computeMajor": 9, "computeMinor": 0,
         "maxThreadsPerBlock": 1024, "maxThreadsPerMultiprocessor": 2048, "regsPerBlock": 65536, "warpSize": 32,
         "sharedMemPerBlock": 49152, "numSms": 132, "regsPerMultiprocessor": 65536,
         "sharedMemPerBlockOptin": 232448, "sharedMemPerMultiprocessor": 233472}


def write_trace(path, mb):
    """A synthetic trace of about `mb` MB of JSON, written as torch.profiler lays it out."""
    target, corr, t, step = mb * 1_000_000, 1, 1_000_000.0, 0
    with open(path, "w", encoding="utf-8") as f:
        f.write('{\n  "schemaVersion": 1,\n  "deviceProperties": [\n    ' + json.dumps(PROPS)
                + '\n  ],\n  "traceEvents": [\n')
        first = True
        while f.tell() < target:
            step += 1
            events, gpu_t, t0 = [], t + 50.0, t
            for i in range(200):
                k = i % 4
                op_ts, launch_ts = t, t + 2.0
                events.append(f'  {{"ph": "X", "cat": "cpu_op", "name": "{OPS[k]}", "pid": 1, "tid": 1, '
                              f'"ts": {op_ts:.3f}, "dur": 9.5, "args": {{"External id": {corr}, '
                              f'"Record function id": 0, "Concrete Inputs": ["", ""], "Input type": '
                              f'["c10::BFloat16", "c10::BFloat16"], "Input Strides": [[4194304, 4096, 1], '
                              f'[4194304, 4096, 1]], "Input Dims": [[4, 1024, 4096], [4, 1024, 4096]], '
                              f'"Ev Idx": {corr}}}}}')
                events.append(f'  {{"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, '
                              f'"tid": 1, "ts": {launch_ts:.3f}, "dur": 4.0, "args": {{"External id": {corr}, '
                              f'"cbid": 211, "correlation": {corr}}}}}')
                dur = (3.0, 40.0, 12.0, 60.0)[k]
                gpu_t = max(gpu_t, launch_ts + 6.0)
                smem = 0 if k != 3 else 134144
                events.append(f'  {{"ph": "X", "cat": "kernel", "name": "{KERNEL_NAMES[k]}", "pid": 0, '
                              f'"tid": 7, "ts": {gpu_t:.3f}, "dur": {dur}, "args": {{"External id": {corr}, '
                              f'"queued": 0, "device": 0, "context": 1, "stream": 7, "correlation": {corr}, '
                              f'"registers per thread": {(32, 168, 48, 168)[k]}, "shared memory": {smem}, '
                              f'"blocks per SM": 31.0, "warps per SM": 124.1, '
                              f'"grid": [{(8192, 128, 16384, 132)[k]}, 1, 1], '
                              f'"block": [{(128, 384, 128, 384)[k]}, 1, 1], "est. achieved occupancy %": '
                              f'{(100, 0, 63, 0)[k]}}}}}')
                events.append(f'  {{"ph": "s", "id": {corr}, "pid": 1, "tid": 1, "ts": {launch_ts:.3f}, '
                              f'"cat": "ac2g", "name": "ac2g"}}')
                events.append(f'  {{"ph": "f", "id": {corr}, "pid": 0, "tid": 7, "ts": {gpu_t:.3f}, '
                              f'"cat": "ac2g", "name": "ac2g", "bp": "e"}}')
                gpu_t += dur + 1.0
                t += 10.0
                corr += 1
            events.append(f'  {{"ph": "X", "cat": "cuda_runtime", "name": "cudaStreamSynchronize", "pid": 1, '
                          f'"tid": 1, "ts": {t:.3f}, "dur": {max(gpu_t - t, 1.0):.3f}, '
                          f'"args": {{"correlation": {corr}}}}}')
            t = max(t, gpu_t) + 5.0
            events.append(f'  {{"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#{step}", "pid": 1, '
                          f'"tid": 1, "ts": {t0:.3f}, "dur": {t - t0:.3f}, "args": {{"External id": 0}}}}')
            f.write(("" if first else ",\n") + ",\n".join(events))
            first = False
        f.write('\n  ],\n  "traceName": "synthetic"\n}\n')
    return step


CHILD = """
import resource, sys, time
sys.path.insert(0, {root!r})
started = time.perf_counter()
from report.trace.reading import stream as reading_stream
from report.doctor.explain import explain, read_trace, report
reading_stream.FAST_DECODER = reading_stream.FAST_DECODER and {fast!r}
text = report(explain(read_trace({path!r})))
elapsed = time.perf_counter() - started
use = resource.getrusage(resource.RUSAGE_SELF)
print(elapsed, use.ru_maxrss, use.ru_utime + use.ru_stime)
"""

# the same machine's pace for reference: the file as one json.loads, and --explain through
# load_trace (the whole document as a dict, as before the streamed reader)
BARE_JSON = """
import json, resource, time
started = time.perf_counter()
with open({path!r}, encoding="utf-8") as f:
    json.load(f)
use = resource.getrusage(resource.RUSAGE_SELF)
print(time.perf_counter() - started, use.ru_maxrss, use.ru_utime + use.ru_stime)
"""
AS_DICT = CHILD.replace("read_trace({path", "load_trace({path").replace(
    "from report.doctor.explain import explain, read_trace", "from report.doctor.explain import explain, load_trace")

HTA = """
import resource, sys, time
started = time.perf_counter()
from hta.trace_analysis import TraceAnalysis
analysis = TraceAnalysis(trace_dir={folder!r})
analysis.get_idle_time_breakdown(visualize=False)
analysis.get_gpu_kernel_breakdown(visualize=False)
use, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
# HTA parses in worker processes: their CPU time added, their largest peak added to its own
print(time.perf_counter() - started, use.ru_maxrss + kids.ru_maxrss,
      use.ru_utime + use.ru_stime + kids.ru_utime + kids.ru_stime)
"""


def measure(code, python=sys.executable):
    """(seconds, peak resident MB, CPU seconds) of `code` in a fresh interpreter (Linux:
    ru_maxrss in KiB)."""
    done = subprocess.run([python, "-c", code], capture_output=True, text=True, check=False)
    if done.returncode:
        raise RuntimeError(done.stderr.strip().splitlines()[-1] if done.stderr.strip() else "failed")
    seconds, kib, cpu = done.stdout.split()[-3:]
    return float(seconds), int(kib) / 1024, float(cpu)


def median(values):
    return sorted(values)[len(values) // 2]


def has_msgspec():
    code = "import importlib.util, sys; sys.exit(importlib.util.find_spec('msgspec') is None)"
    return subprocess.run([sys.executable, "-c", code], check=False).returncode == 0


def baseline_mb():
    """Peak resident memory of an interpreter that only imports the explain modules."""
    code = (f"import resource, sys; sys.path.insert(0, {str(ROOT)!r}); import report.doctor.explain; "
            "print(0, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, 0)")
    return measure(code)[1]


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--mb", type=int, default=200, help="size of the synthetic trace in MB (default 200)")
    p.add_argument("--runs", type=int, default=3)
    p.add_argument("--keep", type=Path, help="write the trace into this folder and keep it")
    p.add_argument("--hta-python", help="a Python that imports hta (HTA kept out of this venv)")
    args = p.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        folder = args.keep or Path(tmp)
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / "synthetic_trace.json"
        began = time.perf_counter()
        steps = write_trace(path, args.mb)
        size = path.stat().st_size / 1e6
        print(f"trace: {path} ({size:,.0f} MB, {steps:,} profiler steps, written in "
              f"{time.perf_counter() - began:.1f} s)")
        base = baseline_mb()
        readers = [("msgspec", True)] if has_msgspec() else []
        readers.append(("pure Python", False))
        met = []
        for label, fast in readers:
            runs = [measure(CHILD.format(root=str(ROOT), path=str(path), fast=fast)) for _ in range(args.runs)]
            wall, cpu = median([r[0] for r in runs]), median([r[2] for r in runs])
            peak = max(r[1] for r in runs)
            met.append(wall <= 5 and peak <= 2 * size)
            print(f"--explain, {label} reader: {wall:.2f} s median (runs: {', '.join(f'{r[0]:.2f}' for r in runs)}; "
                  f"CPU {cpu:.2f} s), peak memory {peak:,.0f} MB ({peak / size:.2f}x the file; the interpreter "
                  f"alone {base:,.0f} MB); load average {', '.join(f'{x:.1f}' for x in os.getloadavg())} "
                  f"on {os.cpu_count()} CPUs")
        if not has_msgspec():
            print("msgspec: not installed (pip install -r requirements.txt for the fast reader)")
        print(f"target: at most 5 s and {2 * size:,.0f} MB (twice the file): "
              f"{'met' if met[0] else 'NOT met'} by the first reader above")
        for label, code in (("json.load of the file alone", BARE_JSON),
                            ("--explain through load_trace (a dict)", AS_DICT)):
            seconds, mb, cpu = measure(code.format(root=str(ROOT), path=str(path), fast=True))
            print(f"for reference, {label}: {seconds:.2f} s (CPU {cpu:.2f} s), peak memory {mb:,.0f} MB")
        print(f"load average while measuring: {', '.join(f'{x:.1f}' for x in os.getloadavg())}")
        hta_python = args.hta_python
        if hta_python is None:
            try:
                import hta  # noqa: F401
            except ImportError:
                print("HTA: not installed (pip install HolisticTraceAnalysis, or --hta-python PYTHON)")
            else:
                hta_python = sys.executable
        if hta_python:
            try:
                runs = [measure(HTA.format(folder=str(folder)), hta_python) for _ in range(args.runs)]
                print(f"HTA idle-time breakdown and kernel breakdown: {median([r[0] for r in runs]):.2f} s median "
                      f"(runs: {', '.join(f'{r[0]:.2f}' for r in runs)}; CPU {median([r[2] for r in runs]):.2f} s), "
                      f"peak memory {max(r[1] for r in runs):,.0f} MB; load average "
                      f"{', '.join(f'{x:.1f}' for x in os.getloadavg())}")
            except RuntimeError as err:
                print(f"HTA: failed on this trace ({err})")
        if not args.keep:
            path.unlink()
    return 0


if __name__ == "__main__":
    sys.exit(main())
