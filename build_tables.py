#!/usr/bin/env python3
"""Measure every attention variant under torch.profiler and write the site's tables.

    python build_tables.py                  # on a CUDA GPU: measure, then render
    python build_tables.py --all            # also sweeps, CUDA graphs, backward, compiled rows
    python build_tables.py --render-only    # re-render tables from results.json, no GPU
    python build_tables.py --device cpu     # CPU run, into its own folder

Writes docs/generated/<gpu-slug>/: results.json (raw numbers and provenance),
tables/*.nb.md and *.en.md, and traces/<variant>.json.gz (open them in Perfetto).
The code that is measured is imported from snippets/, the files the pages show.
"""
from __future__ import annotations

import argparse
import datetime as _dt
import gzip
import hashlib
import json
import math
import os
import platform
import re
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import warnings
from contextlib import nullcontext
from pathlib import Path

ROOT = Path(__file__).resolve().parent
SNIPPETS = ROOT / "snippets"
sys.path.insert(0, str(SNIPPETS))

import build_extra  # noqa: E402
from occupancy import GpuLimits, occupancy  # noqa: E402  (snippet, pure Python)

SCHEMA_VERSION = 1
DEFAULT_OUT = ROOT / "docs" / "generated"
REFERENCE = ROOT / "data" / "hf_blog_a100.json"
SNIPPET_FILES = ("naive_attention.py", "sdpa_backends.py", "profile_attention.py", "occupancy.py",
                 *build_extra.EXTRA_SNIPPETS)
VARIANTS = ("naive", "naive_inplace", "math", "flash", "efficient", "cudnn", "auto")
EXTRA_VARIANTS = ("flex", "compiled_naive")  # torch.compile: measured with --extra or --all
FUSED = ("flash", "efficient", "cudnn")
SDPA_VARIANTS = ("math", *FUSED, "auto")
DTYPES = ("bfloat16", "float16", "float32")
LANGS = ("nb", "en")
GPU_CATS = ("kernel", "gpu_memcpy", "gpu_memset")
LAUNCH_CATS = ("cuda_runtime", "cuda_driver")


class UsageError(Exception):
    """A problem with the input that the user must fix; printed as one line, exit 2."""


# ----------------------------------------------------------------------------
# Trace analysis (pure Python: runs on CPU against committed traces)
# ----------------------------------------------------------------------------

def kernel_kind(event):
    return {"kernel": "kernel", "gpu_memcpy": "memcpy", "gpu_memset": "memset"}[event["cat"]]


def short_kernel_name(name):
    """'void at::native::(anonymous namespace)::foo<float, 4>(...)' -> 'at::native::foo'."""
    name = name.replace("(anonymous namespace)::", "")
    if name.startswith("void "):
        name = name[5:]
    depth, out = 0, []
    for ch in name:
        if ch in "<(":
            if depth == 0 and ch == "(" and out:
                break
            depth += 1
        elif ch in ">)":
            depth -= 1
        elif depth == 0:
            out.append(ch)
    return "".join(out).strip() or name


def backend_of_kernels(names):
    """Which SDPA backend ran, read off the kernel names of one forward pass."""
    joined = " ".join(names).lower()
    if "cudnn" in joined or "_sdpa_sm" in joined:
        return "cudnn"
    if "fmha_cutlass" in joined or "attention_kernel" in joined or "efficient" in joined:
        return "efficient"
    if "flash" in joined:
        return "flash"
    return "math"


def _stats(values):
    values = [float(v) for v in values]
    if not values:
        return None
    return {"median": statistics.median(values), "min": min(values), "max": max(values),
            "mean": statistics.fmean(values), "n": len(values)}


def analyze_trace(trace, range_name, cuda_time="gpu_range"):
    """Per-forward figures for every `range_name` range in a Chrome trace from torch.profiler.

    CPU time is the host-side record_function range; CUDA time is the GPU-side range
    ("gpu_user_annotation": first kernel start to last kernel end). GPU activities are
    tied to a forward pass through the launch call that issued them (its correlation id).
    cuda_time="kernel_span" measures from the first to the last GPU activity instead: the
    GPU-side range only covers launches from the thread that opened it, and backward
    kernels are launched from autograd's own thread.
    """
    events = [e for e in trace.get("traceEvents", []) if e.get("ph") == "X"]
    cpu_ranges = sorted((e for e in events
                         if e.get("cat") == "user_annotation" and e.get("name") == range_name),
                        key=lambda e: e["ts"])
    if not cpu_ranges:
        raise ValueError(f"no record_function range named {range_name!r} in the trace")
    gpu_ranges = sorted((e for e in events
                         if e.get("cat") == "gpu_user_annotation" and e.get("name") == range_name),
                        key=lambda e: e["ts"])
    steps = len(cpu_ranges)

    def step_of(ts):
        for i, r in enumerate(cpu_ranges):
            if r["ts"] <= ts <= r["ts"] + r["dur"]:
                return i
        return None

    ops = sorted((e for e in events if e.get("cat") == "cpu_op"), key=lambda e: e["ts"])

    def innermost_op(launch):
        """The ATen operation whose CPU span holds this launch call (the shortest one)."""
        best = None
        for op in ops:
            if op["ts"] > launch["ts"]:
                break
            if (op.get("tid") == launch.get("tid") and launch["ts"] <= op["ts"] + op["dur"]
                    and (best is None or op["dur"] <= best["dur"])):
                best = op
        return best["name"] if best else None

    launches = {}
    launch_time = [0.0] * steps
    for e in events:
        if e.get("cat") in LAUNCH_CATS:
            i = step_of(e["ts"])
            if i is not None:
                launch_time[i] += e["dur"]
                corr = (e.get("args") or {}).get("correlation")
                if corr is not None:
                    launches[corr] = (i, e)

    per_step = [[] for _ in range(steps)]
    for e in events:
        if e.get("cat") in GPU_CATS:
            hit = launches.get((e.get("args") or {}).get("correlation"))
            if hit is not None:
                per_step[hit[0]].append((e, hit[1]))

    cpu_ops = {}
    for e in events:
        if e.get("cat") == "cpu_op" and step_of(e["ts"]) is not None:
            cpu_ops[e["name"]] = cpu_ops.get(e["name"], 0) + 1

    cpu_us = [r["dur"] for r in cpu_ranges]
    kernel_sum_us, cuda_us, counts = [], [], []
    for i, acts in enumerate(per_step):
        counts.append(len(acts))
        kernel_sum_us.append(sum(e["dur"] for e, _ in acts))
        if cuda_time == "gpu_range" and len(gpu_ranges) == steps:
            cuda_us.append(gpu_ranges[i]["dur"])
        elif acts:  # no GPU-side range recorded: first start to last end
            cuda_us.append(max(e["ts"] + e["dur"] for e, _ in acts) - min(e["ts"] for e, _ in acts))

    kernels = {}
    for acts in per_step:
        for e, launch in acts:
            args = e.get("args") or {}
            k = kernels.get(e["name"])
            if k is None:
                k = kernels[e["name"]] = {
                    "name": e["name"], "short_name": short_kernel_name(e["name"]),
                    "kind": kernel_kind(e), "launched_by": launch["name"],
                    "aten_op": innermost_op(launch), "calls": 0, "total_us": 0.0,
                    "registers_per_thread": args.get("registers per thread"),
                    "shared_memory": args.get("shared memory"),
                    "block": args.get("block"), "grid": args.get("grid"),
                    "kineto_occupancy_pct": args.get("est. achieved occupancy %"),
                    "kineto_occupancy": args.get("occupancy"),
                }
            k["calls"] += 1
            k["total_us"] += e["dur"]
    kernel_list = []
    for k in kernels.values():
        k["per_forward"] = k["calls"] / steps
        k["avg_us"] = k["total_us"] / k["calls"]
        kernel_list.append(k)
    kernel_list.sort(key=lambda k: -k["total_us"])

    return {
        "steps": steps,
        "cpu_time_us": _stats(cpu_us),
        "cuda_time_us": _stats(cuda_us),
        "kernel_sum_us": _stats(kernel_sum_us),
        "launch_api_us": _stats(launch_time),
        "gpu_activities_per_forward": _stats(counts),
        "kernels": kernel_list,
        "cpu_ops_per_forward": {name: n / steps for name, n in sorted(cpu_ops.items())},
        "device_properties": (trace.get("deviceProperties") or [None])[0],
    }


def add_occupancy(kernels, limits):
    """Our own occupancy for each kernel: Kineto's rule, and with the kernel's opt-in."""
    for k in kernels:
        if k["kind"] != "kernel" or not k.get("block") or k.get("registers_per_thread") is None:
            continue
        threads = math.prod(k["block"])
        grid = math.prod(k["grid"]) if k.get("grid") else None
        smem = k.get("shared_memory") or 0
        pct, blocks, why = occupancy(limits, k["registers_per_thread"], threads, smem,
                                     grid_blocks=grid, opted_in=False)
        k["our_kineto_rule_pct"] = pct
        pct, blocks, why = occupancy(limits, k["registers_per_thread"], threads, smem,
                                     opted_in=True)
        k["our_optin_pct"], k["our_optin_blocks"], k["our_optin_limited_by"] = pct, blocks, why
    return kernels


# ----------------------------------------------------------------------------
# Measurement (needs torch; CUDA for everything but --device cpu)
# ----------------------------------------------------------------------------

def snippet_hashes():
    return {name: hashlib.sha256((SNIPPETS / name).read_bytes()).hexdigest()[:16]
            for name in SNIPPET_FILES}


def gpu_slug(name):
    slug = re.sub(r"^nvidia\s+", "", name.strip(), flags=re.I).lower()
    slug = re.sub(r"[^a-z0-9]+", "-", slug).strip("-")
    return slug or "gpu"


def driver_version():
    try:
        out = subprocess.run(["nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader"],
                             capture_output=True, text=True, timeout=20)
        return out.stdout.strip().splitlines()[0] if out.returncode == 0 else None
    except (OSError, subprocess.SubprocessError, IndexError):
        return None


def provenance(torch, device, argv):
    prov = {
        "date": _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%d"),
        "command": "python build_tables.py" + "".join(" " + shlex.quote(a) for a in argv),
        "torch": torch.__version__, "python": platform.python_version(),
        "snippet_sha256": snippet_hashes(),
    }
    if device == "cuda":
        props = torch.cuda.get_device_properties(0)
        v = torch.backends.cudnn.version() or 0
        prov.update(gpu_name=props.name, compute_capability=f"{props.major}.{props.minor}",
                    sm_count=props.multi_processor_count, cuda=torch.version.cuda,
                    cudnn=f"{v // 10000}.{v % 10000 // 100}.{v % 100}" if v >= 9000
                    else f"{v // 1000}.{v % 1000 // 100}.{v % 100}",
                    driver=driver_version(), gpu_memory_gib=round(props.total_memory / 2**30, 1),
                    regs_per_sm=props.regs_per_multiprocessor,
                    max_warps_per_sm=props.max_threads_per_multi_processor // props.warp_size,
                    smem_per_block=props.shared_memory_per_block,
                    smem_per_block_optin=props.shared_memory_per_block_optin)
    else:
        prov.update(gpu_name=f"CPU ({platform.processor() or platform.machine()})",
                    cpu_threads=torch.get_num_threads())
    return prov


def measure_roof(torch, device, dtype):
    """Achieved TFLOP/s of a large matmul in the run's dtype: the roof for attention."""
    n = 8192 if device == "cuda" else 512
    a, b = (torch.randn(n, n, device=device, dtype=dtype) for _ in range(2))
    times = []
    for i in range(13):
        t0 = time.perf_counter()
        if device == "cuda":
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
            a @ b
            end.record()
            end.synchronize()
            dt = start.elapsed_time(end) / 1e3
        else:
            a @ b
            dt = time.perf_counter() - t0
        if i >= 3:
            times.append(dt)
    med = statistics.median(times)
    return {"shape": [n, n, n], "dtype": str(dtype).replace("torch.", ""),
            "tflops": 2 * n**3 / med / 1e12, "median_ms": med * 1e3}


def causal_flops(cfg):
    b, h, s, d = cfg["batch"], cfg["heads"], cfg["seq_len"], cfg["head_dim"]
    return 4 * b * h * d * s * (s + 1) / 2  # two matmuls over the causal triangle


def make_variant(name, cfg, device, torch):
    """(callable, factory of its backend context) for a variant; code from snippets/."""
    from naive_attention import NaiveCausalAttention
    from sdpa_backends import BACKENDS, causal_sdpa
    from torch.nn.attention import sdpa_kernel

    if name in ("naive", "naive_inplace"):
        module = NaiveCausalAttention(cfg["seq_len"], inplace=name == "naive_inplace").to(device)
        return module, nullcontext
    if name == "auto":
        return causal_sdpa, nullcontext
    if name == "flex":
        from flex_attention import make_flex_causal
        return make_flex_causal(cfg["seq_len"], device), nullcontext
    if name == "compiled_naive":
        from flex_attention import make_compiled_naive
        return make_compiled_naive(cfg["seq_len"], device), nullcontext
    return causal_sdpa, lambda: sdpa_kernel(BACKENDS[name])


def reference_output(torch, q, k, v):
    qd, kd, vd = q.double(), k.double(), v.double()
    s = q.size(-2)
    scores = (qd @ kd.transpose(-2, -1)) / math.sqrt(q.size(-1))
    mask = torch.ones(s, s, dtype=torch.bool, device=q.device).triu(1)
    return torch.softmax(scores.masked_fill(mask, float("-inf")), dim=-1) @ vd


def sync(torch, device):
    if device == "cuda":
        torch.cuda.synchronize()


def measure_variant(name, cfg, q, k, v, ref, args, torch, trace_dir):
    from profile_attention import profile_forward
    from torch.utils.benchmark import Timer

    device = args.device
    fn, ctx = make_variant(name, cfg, device, torch)
    row = {"status": "ok", "reason": None}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            with ctx(), torch.no_grad():
                sync(torch, device)
                t0 = time.perf_counter()
                out = fn(q, k, v)
                sync(torch, device)
                row["first_call_ms"] = (time.perf_counter() - t0) * 1e3
        except torch.cuda.OutOfMemoryError as err:
            return {"status": "oom", "reason": str(err).splitlines()[0]}
        except RuntimeError as err:
            why = list(dict.fromkeys(str(w.message).strip() for w in caught))
            return {"status": "unsupported",
                    "reason": " | ".join(why + [str(err).strip().splitlines()[0]])}
    try:
        with ctx(), torch.no_grad():
            err = (out.double() - ref).norm() / ref.norm()
            row["rel_error"] = float(err)
            del out
            if device == "cuda":
                torch.cuda.empty_cache()
                torch.cuda.reset_peak_memory_stats()
                base = torch.cuda.memory_allocated()
                fn(q, k, v)
                sync(torch, device)
                row["peak_extra_mib"] = (torch.cuda.max_memory_allocated() - base) / 2**20
            timer = Timer(stmt="fn(q, k, v)", globals={"fn": fn, "q": q, "k": k, "v": v})
            m = timer.blocked_autorange(min_run_time=args.timer_seconds)
            row["wall_time_us"] = {"median": m.median * 1e6, "iqr": m.iqr * 1e6,
                                   "runs": len(m.times), "calls_per_run": m.number_per_run}
            host = []  # CPU cost of one call without the profiler: GPU idle, so no waiting
            for _ in range(args.host_calls):
                sync(torch, device)
                t0 = time.perf_counter()
                fn(q, k, v)
                host.append((time.perf_counter() - t0) * 1e6)
            sync(torch, device)
            row["host_time_us"] = _stats(host)
            range_name = f"{name}_fwd"
            raw_path = Path(trace_dir) / f"{name}.json"
            prof = profile_forward(fn, q, k, v, name=range_name, steps=args.steps,
                                   trace_path=str(raw_path))
            sort_by = "cuda_time_total" if device == "cuda" else "cpu_time_total"
            row["profiler_table"] = prof.key_averages().table(sort_by=sort_by, row_limit=14,
                                                              max_name_column_width=48)
    except torch.cuda.OutOfMemoryError as err:
        return {"status": "oom", "reason": str(err).splitlines()[0]}
    trace = json.loads(raw_path.read_text())
    with gzip.open(raw_path.with_suffix(".json.gz"), "wt", compresslevel=9) as fh:
        json.dump(trace, fh, separators=(",", ":"))
    raw_path.unlink()
    analysis = analyze_trace(trace, range_name)
    row.update({k: analysis[k] for k in ("steps", "cpu_time_us", "cuda_time_us", "kernel_sum_us",
                                         "launch_api_us", "gpu_activities_per_forward",
                                         "kernels", "cpu_ops_per_forward")})
    if device == "cuda":
        props = analysis["device_properties"]
        limits = GpuLimits.from_trace(props) if props else GpuLimits.from_torch()
        add_occupancy(row["kernels"], limits)
        names = [k["name"] for k in row["kernels"]]
        row["backend_ran"] = backend_of_kernels(names) if name in SDPA_VARIANTS else None
        if row["cuda_time_us"]:
            row["tflops"] = causal_flops(cfg) / (row["cuda_time_us"]["median"] * 1e-6) / 1e12
    else:  # no GPU: the GPU-side figures do not exist
        row.update(cuda_time_us=None, kernel_sum_us=None, launch_api_us=None,
                   gpu_activities_per_forward=None, backend_ran=None)
        row["tflops"] = causal_flops(cfg) / (row["cpu_time_us"]["median"] * 1e-6) / 1e12
    return row


def run_measurements(args, argv, out_dir, progress=print):
    import torch

    device = args.device
    if device == "cuda" and not torch.cuda.is_available():
        raise UsageError("no CUDA device found: run on a machine with an NVIDIA GPU, "
                         "or pass --device cpu for CPU tables (nothing was written)")
    dtype = getattr(torch, args.dtype)
    cfg = {"batch": args.batch, "heads": args.heads, "seq_len": args.seq_len,
           "head_dim": args.head_dim, "dtype": args.dtype, "causal": True,
           "forward_only": True, "no_grad": True, "steps": args.steps,
           "warmup_calls": 3, "schedule": {"wait": 1, "warmup": 1, "active": args.steps}}
    prov = provenance(torch, device, argv)
    slug = args.slug or (gpu_slug(prov["gpu_name"]) if device == "cuda" else "cpu")
    progress(f"device: {prov['gpu_name']}  ->  {out_dir / slug}")

    from naive_attention import make_inputs
    try:
        q, k, v = make_inputs(args.batch, args.heads, args.seq_len, args.head_dim,
                              dtype=dtype, device=device)
        ref = reference_output(torch, q, k, v)
    except torch.cuda.OutOfMemoryError:
        raise UsageError(f"the inputs and float64 reference for shape {args.batch}x{args.heads}x"
                         f"{args.seq_len}x{args.head_dim} do not fit in GPU memory; "
                         "use a smaller shape (nothing was written)") from None
    roof = measure_roof(torch, device, dtype)
    progress(f"roof: {roof['dtype']} matmul {roof['shape'][0]}^3 at {roof['tflops']:.0f} TFLOP/s")

    results = {"schema_version": SCHEMA_VERSION, "generated_by": "build_tables.py",
               "provenance": prov, "config": cfg, "roof": roof, "variants": {}}
    tmp = Path(tempfile.mkdtemp(prefix="traces-"))
    try:
        for i, name in enumerate(args.variants, 1):
            t0 = time.perf_counter()
            row = measure_variant(name, cfg, q, k, v, ref, args, torch, tmp)
            row["label"] = name
            results["variants"][name] = row
            secs = time.perf_counter() - t0
            if row["status"] == "ok":
                ct = row["cuda_time_us"]["median"] if row.get("cuda_time_us") else float("nan")
                progress(f"[{i}/{len(args.variants)}] {name:<14} ok  CUDA {ct:9.1f} us  "
                         f"CPU {row['cpu_time_us']['median']:9.1f} us  "
                         f"wall {row['wall_time_us']['median']:9.1f} us  ({secs:.1f} s)")
            else:
                progress(f"[{i}/{len(args.variants)}] {name:<14} {row['status']}: {row['reason'][:100]}")
        sweep_args = argparse.Namespace(**{**vars(args), "variants": [
            n for n in args.variants if n not in EXTRA_VARIANTS]})
        sections = [("overhead", args.overhead and device == "cuda", build_extra.measure_overhead,
                     "launch overhead: eager vs CUDA graph"),
                    ("backward", args.backward, build_extra.measure_backward, "forward + backward"),
                    ("sweep", args.sweep, build_extra.measure_sweep,
                     "sweep over sequence length and head dimension")]
        for key, wanted, measure, title in sections:
            if not wanted:
                continue
            progress(title)
            t0 = time.perf_counter()
            try:
                results[key] = measure(sys.modules[__name__], sweep_args, torch, progress)
            except Exception as err:  # keep the rest of the run; the section says what broke
                results[key + "_error"] = f"{type(err).__name__}: {str(err).strip()[:500]}"
                progress(f"  {key} failed: {results[key + '_error']}")
            progress(f"  ({time.perf_counter() - t0:.1f} s)")
        return slug, results, tmp
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise


# ----------------------------------------------------------------------------
# Rendering (pure Python: results.json -> Markdown in both languages)
# ----------------------------------------------------------------------------

TEXT = {
    "header": {"nb": "<!-- generert av build_tables.py fra results.json: ikke rediger for hånd -->",
               "en": "<!-- generated by build_tables.py from results.json: do not edit by hand -->"},
    "caption": {"nb": "Målt på **{gpu}** · driver {driver} · CUDA {cuda} · cuDNN {cudnn} · "
                      "torch {torch} · {date} · `{command}`",
                "en": "Measured on **{gpu}** · driver {driver} · CUDA {cuda} · cuDNN {cudnn} · "
                      "torch {torch} · {date} · `{command}`"},
    "caption_cpu": {"nb": "Målt på **{gpu}** · torch {torch} · {date} · `{command}`",
                    "en": "Measured on **{gpu}** · torch {torch} · {date} · `{command}`"},
    "shape": {"nb": "Form: batch {batch}, {heads} hoder, sekvenslengde {seq_len}, "
                    "hodedimensjon {head_dim}, {dtype}, kausal, forward-pass under `torch.no_grad()`, "
                    "{steps} profilerte steg.",
              "en": "Shape: batch {batch}, {heads} heads, sequence length {seq_len}, "
                    "head dimension {head_dim}, {dtype}, causal, forward pass under `torch.no_grad()`, "
                    "{steps} profiled steps."},
    "cite": {"nb": "A100-tallene er Hugging Face sine, ikke våre: [{title}]({url}).",
             "en": "The A100 figures are Hugging Face's, not ours: [{title}]({url})."},
    "variant": {"nb": "Variant", "en": "Variant"},
    "kernels_fwd": {"nb": "GPU-kjerner per forward", "en": "GPU kernels per forward"},
    "cuda_time": {"nb": "CUDA-tid", "en": "CUDA time"},
    "kernel_sum": {"nb": "Sum kjernetid", "en": "Kernel time sum"},
    "cpu_time": {"nb": "CPU-tid (profilert)", "en": "CPU time (profiled)"},
    "host_time": {"nb": "CPU-tid uten profiler", "en": "CPU time without profiler"},
    "wall": {"nb": "Veggtid per kall", "en": "Wall time per call"},
    "vs_inplace": {"nb": "CUDA-tid mot naiv in-place", "en": "CUDA time vs naive in-place"},
    "a100_cuda": {"nb": "A100 CUDA-tid (HF)", "en": "A100 CUDA time (HF)"},
    "a100_cpu": {"nb": "A100 CPU-tid (HF)", "en": "A100 CPU time (HF)"},
    "a100_kernels": {"nb": "A100 kjerner (HF)", "en": "A100 kernels (HF)"},
    "kernel": {"nb": "Kjerne", "en": "Kernel"},
    "kind": {"nb": "Type", "en": "Type"},
    "per_forward": {"nb": "Per forward", "en": "Per forward"},
    "avg_time": {"nb": "Snittid", "en": "Average time"},
    "launched_by": {"nb": "Startet av", "en": "Launched by"},
    "regs": {"nb": "Registre/tråd", "en": "Registers/thread"},
    "smem": {"nb": "Delt minne/blokk", "en": "Shared memory/block"},
    "block": {"nb": "Blokk", "en": "Block"},
    "grid": {"nb": "Grid", "en": "Grid"},
    "kineto_occ": {"nb": "Kineto: est. okkupans", "en": "Kineto: est. occupancy"},
    "ours_kineto": {"nb": "Vår, Kinetos regel", "en": "Ours, Kineto's rule"},
    "ours_optin": {"nb": "Vår, med opt-in", "en": "Ours, with opt-in"},
    "blocks_sm": {"nb": "Blokker/SM", "en": "Blocks/SM"},
    "limited_by": {"nb": "Begrenset av", "en": "Limited by"},
    "peak_mem": {"nb": "Ekstra minne (topp)", "en": "Peak extra memory"},
    "tflops": {"nb": "TFLOP/s", "en": "TFLOP/s"},
    "roof_share": {"nb": "Andel av matmul-taket", "en": "Share of matmul roof"},
    "rel_err": {"nb": "Relativ feil mot float64", "en": "Relative error vs float64"},
    "first_call": {"nb": "Første kall", "en": "First call"},
    "spread": {"nb": "Spredning CUDA-tid (min–maks)", "en": "CUDA time spread (min–max)"},
    "backend_ran": {"nb": "Backend som kjørte", "en": "Backend that ran"},
    "op": {"nb": "ATen-operasjon", "en": "ATen operation"},
    "not_supported": {"nb": "ikke støttet", "en": "not supported"},
    "oom": {"nb": "tom for minne", "en": "out of memory"},
    "error": {"nb": "feil", "en": "error"},
    "none": {"nb": "–", "en": "–"},
    "roof_note": {"nb": "Matmul-taket er målt i samme kjøring: {dtype}-matmul {n}×{n}×{n} "
                        "med {tflops} TFLOP/s. TFLOP/s for attention teller bare den kausale "
                        "trekanten (4·B·H·D·S(S+1)/2 flyttallsoperasjoner) over CUDA-tiden.",
                  "en": "The matmul roof is measured in the same run: a {dtype} matmul "
                        "{n}×{n}×{n} at {tflops} TFLOP/s. Attention TFLOP/s counts only the causal "
                        "triangle (4·B·H·D·S(S+1)/2 floating-point operations) over the CUDA time."},
    "kind_kernel": {"nb": "kjerne", "en": "kernel"},
    "kind_memcpy": {"nb": "**Memcpy**", "en": "**Memcpy**"},
    "kind_memset": {"nb": "**Memset**", "en": "**Memset**"},
    "prov_item": {"nb": "Hva", "en": "What"},
    "prov_value": {"nb": "Verdi", "en": "Value"},
}

VARIANT_LABELS = {
    "naive": {"nb": "naiv (`masked_fill`)", "en": "naive (`masked_fill`)"},
    "naive_inplace": {"nb": "naiv in-place (`masked_fill_`)", "en": "naive in-place (`masked_fill_`)"},
    "math": {"nb": "SDPA math", "en": "SDPA math"},
    "flash": {"nb": "SDPA flash", "en": "SDPA flash"},
    "efficient": {"nb": "SDPA efficient", "en": "SDPA efficient"},
    "cudnn": {"nb": "SDPA cuDNN", "en": "SDPA cuDNN"},
    "auto": {"nb": "SDPA auto (ikke pinnet)", "en": "SDPA auto (unpinned)"},
    "flex": {"nb": "FlexAttention (kompilert)", "en": "FlexAttention (compiled)"},
    "compiled_naive": {"nb": "naiv in-place, `torch.compile`", "en": "naive in-place, `torch.compile`"},
}


def fmt_num(x, lang, decimals=1):
    s = f"{x:,.{decimals}f}"
    if lang == "nb":
        s = s.replace(",", "\u00a0").replace(".", ",")
    return s


def fmt_us(us, lang):
    if us is None:
        return TEXT["none"][lang]
    if us >= 1000:
        return f"{fmt_num(us / 1000, lang, 3)} ms"
    return f"{fmt_num(us, lang, 1)} µs"


def fmt_pct(p, lang, decimals=1):
    if p is None:
        return TEXT["none"][lang]
    return f"{fmt_num(p, lang, decimals)}\u00a0%" if lang == "nb" else f"{fmt_num(p, lang, decimals)}%"


def fmt_tflops(x, lang):
    return fmt_num(x, lang, 1 if x >= 10 else 3)


def fmt_ratio(r, lang):
    return f"{fmt_num(r, lang, 1 if r >= 1 else 2)}×"


def fmt_bytes(n, lang):
    if n is None:
        return TEXT["none"][lang]
    if n >= 2**30:
        return f"{fmt_num(n / 2**30, lang, 1)} GiB"
    return f"{fmt_num(n / 1024, lang, 1)} KiB" if n < 2**20 else f"{fmt_num(n / 2**20, lang, 1)} MiB"


def md_table(headers, rows, align=None):
    align = align or ["l"] + ["r"] * (len(headers) - 1)
    sep = ["---:" if a == "r" else ":---" for a in align]
    lines = ["| " + " | ".join(headers) + " |", "| " + " | ".join(sep) + " |"]
    lines += ["| " + " | ".join(str(c).replace("|", "\\|") for c in r) + " |" for r in rows]
    return "\n".join(lines)


def caption(results, lang):
    p = results["provenance"]
    key = "caption" if "cuda" in p else "caption_cpu"
    return TEXT[key][lang].format(gpu=p["gpu_name"], driver=p.get("driver") or "?",
                                  cuda=p.get("cuda"), cudnn=p.get("cudnn"), torch=p["torch"],
                                  date=p["date"], command=p["command"])


def med(stat):
    return stat["median"] if stat else None


def status_text(row, lang):
    return {"unsupported": TEXT["not_supported"][lang], "oom": TEXT["oom"][lang]}.get(
        row["status"], TEXT["error"][lang])


def kernel_count(row, lang):
    """'7 (1 Memcpy, 1 Memset)': every GPU activity of one forward pass, copies named."""
    total = med(row.get("gpu_activities_per_forward"))
    if total is None:
        return TEXT["none"][lang]
    extra = {}
    for k in row["kernels"]:
        if k["kind"] != "kernel":
            label = k["kind"].capitalize()
            extra[label] = extra.get(label, 0) + k["per_forward"]
    text = fmt_num(total, lang, 0)
    if extra:
        text += " (" + ", ".join(f"{fmt_num(n, lang, 0)} {kind}" for kind, n in extra.items()) + ")"
    return text


def render_headline(results, ref, lang):
    t = lambda key: TEXT[key][lang]  # noqa: E731
    base = results["variants"].get("naive_inplace", {})
    base_cuda = med(base.get("cuda_time_us")) if base.get("status") == "ok" else None
    rows = []
    for name, row in results["variants"].items():
        r = ref["variants"].get(name, {})
        label = VARIANT_LABELS[name][lang]
        a100 = [fmt_us(r.get("cuda_time_us"), lang), fmt_us(r.get("cpu_time_us"), lang)]
        if row["status"] != "ok":
            rows.append([label, status_text(row, lang), t("none"), a100[0], t("none"), a100[1]]
                        + [t("none")] * 3)
            continue
        cuda = med(row.get("cuda_time_us"))
        ratio = fmt_ratio(cuda / base_cuda, lang) if cuda and base_cuda else t("none")
        rows.append([label, kernel_count(row, lang), fmt_us(cuda, lang), a100[0],
                     fmt_us(med(row["cpu_time_us"]), lang), a100[1],
                     fmt_us(med(row.get("host_time_us")), lang),
                     fmt_us(row["wall_time_us"]["median"], lang), ratio])
    headers = [t("variant"), t("kernels_fwd"), t("cuda_time"), t("a100_cuda"), t("cpu_time"),
               t("a100_cpu"), t("host_time"), t("wall"), t("vs_inplace")]
    return md_table(headers, rows)


def render_kernels(results, lang, names):
    t = lambda key: TEXT[key][lang]  # noqa: E731
    rows = []
    for name in names:
        row = results["variants"].get(name)
        if not row:
            continue
        if row["status"] != "ok":
            rows.append([VARIANT_LABELS[name][lang], status_text(row, lang)] + [""] * 5)
            continue
        for k in row["kernels"]:
            rows.append([VARIANT_LABELS[name][lang], f"`{k['short_name']}`",
                         t("kind_" + k["kind"]), f"`{k['aten_op']}`" if k["aten_op"] else t("none"),
                         f"`{k['launched_by']}`", fmt_num(k["per_forward"], lang, 0),
                         fmt_us(k["avg_us"], lang)])
    return md_table([t("variant"), t("kernel"), t("kind"), t("op"), t("launched_by"),
                     t("per_forward"), t("avg_time")], rows, ["l", "l", "l", "l", "l", "r", "r"])


def render_resources(results, lang, names):
    t = lambda key: TEXT[key][lang]  # noqa: E731
    limit_words = {"nb": {"registers": "registre", "shared memory": "delt minne",
                          "warps": "warps", "blocks": "blokker", "grid": "grid"},
                   "en": {}}
    rows = []
    for name in names:
        row = results["variants"].get(name)
        if not row or row["status"] != "ok":
            continue
        for k in row["kernels"]:
            if k["kind"] != "kernel" or "our_optin_pct" not in k:
                continue
            why = ", ".join(limit_words[lang].get(w, w) for w in k["our_optin_limited_by"])
            rows.append([VARIANT_LABELS[name][lang], f"`{k['short_name']}`",
                         str(k["registers_per_thread"]), fmt_bytes(k["shared_memory"], lang),
                         "×".join(map(str, k["block"])), "×".join(map(str, k["grid"])),
                         fmt_pct(k["kineto_occupancy_pct"], lang, 0)
                         if k["kineto_occupancy_pct"] is not None else t("none"),
                         fmt_pct(k["our_kineto_rule_pct"], lang), fmt_pct(k["our_optin_pct"], lang),
                         fmt_num(k["our_optin_blocks"], lang, 0), why])
    headers = [t("variant"), t("kernel"), t("regs"), t("smem"), t("block"), t("grid"),
               t("kineto_occ"), t("ours_kineto"), t("ours_optin"), t("blocks_sm"), t("limited_by")]
    return md_table(headers, rows, ["l", "l", "r", "r", "r", "r", "r", "r", "r", "r", "l"])


def render_details(results, lang):
    t = lambda key: TEXT[key][lang]  # noqa: E731
    roof = results["roof"]
    rows = []
    for name, row in results["variants"].items():
        label = VARIANT_LABELS[name][lang]
        if row["status"] != "ok":
            rows.append([label, status_text(row, lang)] + [t("none")] * 6)
            continue
        cuda = row.get("cuda_time_us")
        spread = (f"{fmt_us(cuda['min'], lang)} – {fmt_us(cuda['max'], lang)}" if cuda
                  else t("none"))
        mem = row.get("peak_extra_mib")
        rows.append([label, fmt_us(med(row["kernel_sum_us"]), lang), spread,
                     f"{fmt_num(mem, lang, 1)} MiB" if mem is not None else t("none"),
                     fmt_tflops(row["tflops"], lang),
                     fmt_pct(100 * row["tflops"] / roof["tflops"], lang),
                     f"{row['rel_error']:.1e}".replace(".", "," if lang == "nb" else "."),
                     fmt_us(row["first_call_ms"] * 1000, lang)])
    headers = [t("variant"), t("kernel_sum"), t("spread"), t("peak_mem"), t("tflops"),
               t("roof_share"), t("rel_err"), t("first_call")]
    note = TEXT["roof_note"][lang].format(dtype=roof["dtype"], n=roof["shape"][0],
                                          tflops=fmt_tflops(roof["tflops"], lang))
    return md_table(headers, rows) + "\n\n" + note


def render_cpu_ops(results, lang, names):
    t = lambda key: TEXT[key][lang]  # noqa: E731
    names = [n for n in names if results["variants"].get(n, {}).get("status") == "ok"]
    ops = sorted({op for n in names for op in results["variants"][n]["cpu_ops_per_forward"]})
    rows = [[f"`{op}`"] + [fmt_num(results["variants"][n]["cpu_ops_per_forward"].get(op, 0), lang, 0)
                           for n in names] for op in ops]
    return md_table([t("op")] + [VARIANT_LABELS[n][lang] for n in names], rows)


def render_profiler_table(results, name, lang):
    row = results["variants"][name]
    if row["status"] != "ok":
        return f"{VARIANT_LABELS[name][lang]}: {status_text(row, lang)} ({row['reason']})"
    return "```text\n" + row["profiler_table"].rstrip() + "\n```"


def render_provenance(results, lang):
    t = lambda key: TEXT[key][lang]  # noqa: E731
    p = results["provenance"]
    keys = ["gpu_name", "compute_capability", "sm_count", "gpu_memory_gib", "driver", "cuda",
            "cudnn", "torch", "python", "date", "command"]
    rows = [[f"`{k}`", f"`{p[k]}`" if k == "command" else str(p[k])] for k in keys if k in p]
    rows += [[f"`{f}` (sha256)", f"`{h}`"] for f, h in p["snippet_sha256"].items()]
    return md_table([t("prov_item"), t("prov_value")], rows, ["l", "l"])


FINDINGS = {
    "math_ratio": {
        "nb": "Pinnet til math bruker SDPA **{ratio}** så lang CUDA-tid som den håndskrevne "
              "in-place-versjonen ({math} mot {inplace}). Hugging Face målte {a100_ratio} på "
              "A100 ({a100_math} mot {a100_inplace}).",
        "en": "Pinned to math, SDPA takes **{ratio}** the CUDA time of the hand-written in-place "
              "version ({math} vs {inplace}). Hugging Face measured {a100_ratio} on the A100 "
              "({a100_math} vs {a100_inplace})."},
    "memcpy": {
        "nb": "Ut-av-plass `masked_fill` kopierer hele score-matrisen først: en `{name}` på "
              "{memcpy} per forward-pass, startet av `aten::copy_`. Med `masked_fill_` er den borte, "
              "og CUDA-tiden faller fra {naive} til {inplace}.",
        "en": "Out-of-place `masked_fill` copies the whole score matrix first: a `{name}` of "
              "{memcpy} per forward pass, launched by `aten::copy_`. With `masked_fill_` it is gone, "
              "and the CUDA time drops from {naive} to {inplace}."},
    "memset": {
        "nb": "Begge håndskrevne varianter har også en `Memset` på {memset}, startet inne i "
              "`{op}` (av matmul-biblioteket, ikke av koden vår). Derfor teller vi {naive_n} og "
              "{inplace_n} GPU-aktiviteter der Hugging Face telte {a100_naive} og {a100_inplace}.",
        "en": "Both hand-written variants also launch a `Memset` of {memset} from inside `{op}` "
              "(by the matmul library, not by our code). That is why we count {naive_n} and "
              "{inplace_n} GPU activities where Hugging Face counted {a100_naive} and {a100_inplace}."},
    "math_gemms": {
        "nb": "Math-backendens matmul-er: {math_gemms}. Den håndskrevne bf16-versjonen bruker "
              "{naive_gemms}.",
        "en": "The math backend's matmuls: {math_gemms}. The hand-written bf16 version uses "
              "{naive_gemms}."},
    "math_ops": {
        "nb": "Per forward-pass kjører math-backenden {n_kernels} GPU-aktiviteter. Masken bygges "
              "på nytt hver gang ({mask_ops}), og `aten::_safe_softmax` legger til {safe_ops}.",
        "en": "Per forward pass the math backend runs {n_kernels} GPU activities. The mask is built "
              "again every time ({mask_ops}), and `aten::_safe_softmax` adds {safe_ops}."},
    "fused_rank": {
        "nb": "Raskest av de fusjonerte backendene på {gpu}: {ranking}. På A100 var rekkefølgen "
              "{a100_ranking}.",
        "en": "Fastest of the fused backends on the {gpu}: {ranking}. On the A100 the order was "
              "{a100_ranking}."},
    "auto": {
        "nb": "Uten pinning valgte SDPA **{backend}** på {gpu} ({auto} CUDA-tid).",
        "en": "Unpinned, SDPA chose **{backend}** on the {gpu} ({auto} CUDA time)."},
    "cpu_cuda": {
        "nb": "CPU-tid mot CUDA-tid per forward-pass (profilert): {pairs}. Uten profiler koster "
              "ett kall {host} på CPU-en.",
        "en": "CPU time vs CUDA time per forward pass (profiled): {pairs}. Without the profiler "
              "one call costs {host} of CPU time."},
    "first_call": {
        "nb": "Første kall med cuDNN tok {cudnn_first}, mot {cudnn} i stabil drift: biblioteket "
              "bygger og velger en plan for denne formen første gang. Flash brukte {flash_first} "
              "og efficient {efficient_first} på sitt første kall.",
        "en": "The first cuDNN call took {cudnn_first}, against {cudnn} once warm: the library "
              "builds and picks a plan for this shape the first time. Flash took {flash_first} "
              "and efficient {efficient_first} on their first call."},
    "gpu_busy": {
        "nb": "Uten profiler er veggtiden per kall {wall_ratio} av summen av kjernetidene "
              "for {variant} ({wall} mot {ksum}): {verdict}",
        "en": "Without the profiler the wall time per call is {wall_ratio} of the kernel time sum "
              "for {variant} ({wall} vs {ksum}): {verdict}"},
    "busy_yes": {"nb": "GPU-en er opptatt nesten hele tiden.",
                 "en": "the GPU is busy nearly all the time."},
    "busy_no": {"nb": "GPU-en venter på CPU-en mellom kjernene.",
                "en": "the GPU waits for the CPU between kernels."},
    "occ_flash": {
        "nb": "`{kernel}`: {threads} tråder × {regs} registre = {per_block} registre per blokk; "
              "{regs_sm} per SM gir {blocks} blokker, {warps} av {max_warps} warps: **{pct}**. "
              "Kineto viser {kineto}.",
        "en": "`{kernel}`: {threads} threads × {regs} registers = {per_block} registers per block; "
              "{regs_sm} per SM give {blocks} blocks, {warps} of {max_warps} warps: **{pct}**. "
              "Kineto shows {kineto}."},
    "occ_zero": {
        "nb": "`{kernel}` ber om {smem} delt minne per blokk, mer enn standardgrensen på {default}. "
              "Kinetos kalkulator regner med standardgrensen, finner plass til null blokker og viser "
              "**{kineto}**. Kjernen har valgt å bruke mer (opt-in, opptil {optin}), og får i "
              "virkeligheten {blocks} per SM: {pct}, begrenset av {limited}.",
        "en": "`{kernel}` asks for {smem} of shared memory per block, more than the default limit "
              "of {default}. Kineto's calculator assumes the default limit, fits zero blocks and "
              "shows **{kineto}**. The kernel opted in to more (up to {optin}) and really gets "
              "{blocks} per SM: {pct}, limited by {limited}."},
    "occ_zero_all": {
        "nb": "Alle kjernene i målingen som Kineto gir 0 %, og hvorfor: {kernels}.",
        "en": "Every kernel in the run that Kineto gives 0 %, and why: {kernels}."},
    "why_smem": {"nb": "{smem} delt minne, over standardgrensen",
                 "en": "{smem} of shared memory, over the default limit"},
    "why_grid": {"nb": "en grid på {grid} for {sms} SM-er ({pct}, avrundet til 0)",
                 "en": "a grid of {grid} for {sms} SMs ({pct}, rounded to 0)"},
    "rec_auto": {
        "nb": "På {gpu} valgte SDPA selv {backend} med {auto}; pinnet til math tok samme kall "
              "{math}, {factor} så lang tid.",
        "en": "On the {gpu} SDPA picked {backend} by itself at {auto}; pinned to math, the same "
              "call took {math}, {factor} as long."},
    "rec_cpu": {
        "nb": "{variant} bruker {cpu} CPU-tid for {cuda} GPU-arbeid per kall under profilereren, "
              "den høyeste andelen av de fusjonerte backendene, og {first} på det første kallet.",
        "en": "{variant} spends {cpu} of CPU time on {cuda} of GPU work per call under the "
              "profiler, the highest share of the fused backends, and {first} on its first call."},
    "rec_inplace": {
        "nb": "`masked_fill_` fjernet en `Memcpy` på {memcpy} per forward-pass, {share} av CUDA-tiden "
              "til den ut-av-plass-versjonen.",
        "en": "`masked_fill_` removed a `Memcpy` of {memcpy} per forward pass, {share} of the "
              "out-of-place version's CUDA time."},
    "missing": {"nb": "Ikke målt på denne GPU-en.", "en": "Not measured on this GPU."},
}

FINDING_FILES = {
    "findings-naive-math": ("math_ratio", "memcpy", "memset", "math_gemms", "math_ops"),
    "findings-fused": ("fused_rank", "auto", "cpu_cuda", "first_call", "gpu_busy"),
    "findings-occupancy": ("occ_flash", "occ_zero", "occ_zero_all"),
    "finding-rec-auto": ("rec_auto",),
    "finding-rec-cpu": ("rec_cpu",),
    "finding-rec-inplace": ("rec_inplace",),
}


BACKEND_NAMES = {"math": "math", "flash": "flash", "efficient": "efficient", "cudnn": "cuDNN"}


def blocks_text(n, lang):
    word = {"nb": ("blokk", "blokker"), "en": ("block", "blocks")}[lang][n != 1]
    return f"{fmt_num(n, lang, 0)} {word}"


def _ok(results, name):
    row = results["variants"].get(name)
    return row if row and row["status"] == "ok" and row.get("cuda_time_us") else None


def _compute_kernel(row):
    return next((k for k in row["kernels"] if k["kind"] == "kernel"), None)


def finding_values(key, results, ref, lang):
    """The numbers one finding needs, formatted; None if this run lacks the data."""
    v, rv = results["variants"], ref["variants"]
    us = lambda x: fmt_us(x, lang)  # noqa: E731
    cuda = lambda n: med(v[n]["cuda_time_us"])  # noqa: E731
    label = lambda n: VARIANT_LABELS[n][lang]  # noqa: E731
    gpu = results["provenance"]["gpu_name"]
    if key == "math_ratio" and _ok(results, "math") and _ok(results, "naive_inplace"):
        a = rv["math"]["cuda_time_us"] / rv["naive_inplace"]["cuda_time_us"]
        return dict(ratio=fmt_ratio(cuda("math") / cuda("naive_inplace"), lang),
                    math=us(cuda("math")), inplace=us(cuda("naive_inplace")),
                    a100_ratio=fmt_ratio(a, lang), a100_math=us(rv["math"]["cuda_time_us"]),
                    a100_inplace=us(rv["naive_inplace"]["cuda_time_us"]))
    if key == "memcpy" and _ok(results, "naive") and _ok(results, "naive_inplace"):
        copies = [k for k in v["naive"]["kernels"] if k["kind"] == "memcpy"]
        if copies:
            return dict(name=copies[0]["short_name"], memcpy=us(copies[0]["avg_us"]),
                        naive=us(cuda("naive")), inplace=us(cuda("naive_inplace")))
    if key == "memset" and _ok(results, "naive") and _ok(results, "naive_inplace"):
        sets = [k for k in v["naive_inplace"]["kernels"] if k["kind"] == "memset"]
        if sets:
            return dict(memset=us(sets[0]["avg_us"]), op=sets[0]["aten_op"],
                        naive_n=fmt_num(med(v["naive"]["gpu_activities_per_forward"]), lang, 0),
                        inplace_n=fmt_num(med(v["naive_inplace"]["gpu_activities_per_forward"]), lang, 0),
                        a100_naive=rv["naive"]["kernels_per_forward"],
                        a100_inplace=rv["naive_inplace"]["kernels_per_forward"])
    if key == "math_gemms" and _ok(results, "math") and _ok(results, "naive_inplace"):
        gemm = lambda n: ", ".join(  # noqa: E731
            f"`{k['short_name']}`" for k in v[n]["kernels"] if k["aten_op"] in ("aten::bmm", "aten::mm")
            and k["kind"] == "kernel")
        return dict(math_gemms=gemm("math"), naive_gemms=gemm("naive_inplace"))
    if key == "math_ops" and _ok(results, "math"):
        ops = v["math"]["cpu_ops_per_forward"]
        mask = [o for o in ("aten::ones", "aten::tril", "aten::scalar_tensor", "aten::fill_",
                            "aten::where") if ops.get(o)]
        safe = [k for k in v["math"]["kernels"]
                if k["aten_op"] in ("aten::isneginf", "aten::all", "aten::where", "aten::fill_")]
        n_safe = sum(k["per_forward"] for k in safe)
        word = {"nb": "GPU-aktiviteter fra", "en": "GPU activities from"}[lang]
        return dict(n_kernels=fmt_num(med(v["math"]["gpu_activities_per_forward"]), lang, 0),
                    mask_ops=", ".join(f"`{o}` ×{fmt_num(ops[o], lang, 0)}" for o in mask),
                    safe_ops=f"{fmt_num(n_safe, lang, 0)} {word} " + ", ".join(
                        sorted({f"`{k['aten_op']}`" for k in safe})))
    if key == "fused_rank":
        ours = sorted((n for n in FUSED if _ok(results, n)), key=cuda)
        theirs = sorted((n for n in FUSED if rv.get(n, {}).get("cuda_time_us")),
                        key=lambda n: rv[n]["cuda_time_us"])
        if ours:
            return dict(gpu=gpu,
                        ranking=" < ".join(f"{BACKEND_NAMES[n]} ({us(cuda(n))})" for n in ours),
                        a100_ranking=" < ".join(f"{BACKEND_NAMES[n]} ({us(rv[n]['cuda_time_us'])})"
                                                for n in theirs))
    if key == "auto" and _ok(results, "auto"):
        return dict(backend=BACKEND_NAMES.get(v["auto"].get("backend_ran")), gpu=gpu,
                    auto=us(cuda("auto")))
    if key == "cpu_cuda":
        names = [n for n in FUSED if _ok(results, n)]
        if names:
            return dict(pairs="; ".join(f"{BACKEND_NAMES[n]} {us(med(v[n]['cpu_time_us']))} / "
                                        f"{us(cuda(n))}" for n in names),
                        host=", ".join(f"{BACKEND_NAMES[n]} {us(med(v[n]['host_time_us']))}"
                                       for n in names))
    if key == "first_call" and all(_ok(results, n) for n in FUSED):
        return dict(cudnn_first=us(v["cudnn"]["first_call_ms"] * 1000), cudnn=us(cuda("cudnn")),
                    flash_first=us(v["flash"]["first_call_ms"] * 1000),
                    efficient_first=us(v["efficient"]["first_call_ms"] * 1000))
    if key == "gpu_busy":
        names = [n for n in FUSED if _ok(results, n)]
        if names:  # the fused variant whose kernels are shortest is the one most likely to wait
            n = min(names, key=lambda n: med(v[n]["kernel_sum_us"]))
            wall, ksum = v[n]["wall_time_us"]["median"], med(v[n]["kernel_sum_us"])
            return dict(variant=label(n), wall=us(wall), ksum=us(ksum),
                        wall_ratio=fmt_pct(100 * wall / ksum, lang, 0),
                        verdict=FINDINGS["busy_yes" if wall <= 1.1 * ksum else "busy_no"][lang])
    props = next((k for n in FUSED if _ok(results, n) for k in v[n]["kernels"]
                  if k.get("our_optin_pct") is not None), None)
    if key == "occ_flash" and _ok(results, "flash") and props:
        k = _compute_kernel(v["flash"])
        threads, warps = math.prod(k["block"]), math.prod(k["block"]) // 32 * k["our_optin_blocks"]
        regs_sm = results["provenance"].get("regs_per_sm", 65536)
        return dict(kernel=k["short_name"], threads=threads, regs=k["registers_per_thread"],
                    per_block=fmt_num(threads * k["registers_per_thread"], lang, 0),
                    regs_sm=fmt_num(regs_sm, lang, 0), blocks=k["our_optin_blocks"],
                    warps=warps, max_warps=results["provenance"].get("max_warps_per_sm", 64),
                    pct=fmt_pct(k["our_optin_pct"], lang),
                    kineto=fmt_pct(k["kineto_occupancy_pct"], lang, 0))
    if key == "occ_zero":
        zero = [(n, k) for n in FUSED if _ok(results, n) for k in v[n]["kernels"]
                if k["kind"] == "kernel" and k.get("kineto_occupancy_pct") == 0
                and k.get("our_optin_pct")]
        if zero:
            n, k = zero[0]
            words = {"nb": {"registers": "registre", "shared memory": "delt minne"}, "en": {}}[lang]
            return dict(kernel=k["short_name"], smem=fmt_bytes(k["shared_memory"], lang),
                        default=fmt_bytes(results["provenance"].get("smem_per_block", 49152), lang),
                        optin=fmt_bytes(results["provenance"].get("smem_per_block_optin"), lang),
                        kineto=fmt_pct(0, lang, 0), blocks=blocks_text(k["our_optin_blocks"], lang),
                        pct=fmt_pct(k["our_optin_pct"], lang),
                        limited=", ".join(words.get(w, w) for w in k["our_optin_limited_by"]))
    if key == "occ_zero_all":
        default = results["provenance"].get("smem_per_block", 49152)
        zero = {k["short_name"]: k for n in v if _ok(results, n) for k in v[n]["kernels"]
                if k["kind"] == "kernel" and k.get("kineto_occupancy_pct") == 0}
        reasons = []
        for name, k in sorted(zero.items()):
            if (k["shared_memory"] or 0) > default:
                why = FINDINGS["why_smem"][lang].format(smem=fmt_bytes(k["shared_memory"], lang))
            else:
                why = FINDINGS["why_grid"][lang].format(
                    grid=blocks_text(math.prod(k["grid"]), lang),
                    sms=results["provenance"].get("sm_count"),
                    pct=fmt_pct(k["our_kineto_rule_pct"], lang, 2))
            reasons.append(f"`{name}`: {why}")
        if reasons:
            return dict(kernels="; ".join(reasons))
    if key == "rec_auto" and _ok(results, "auto") and _ok(results, "math"):
        return dict(gpu=gpu, backend=BACKEND_NAMES.get(v["auto"].get("backend_ran")),
                    auto=us(cuda("auto")),
                    math=us(cuda("math")), factor=fmt_ratio(cuda("math") / cuda("auto"), lang))
    if key == "rec_cpu":
        names = [n for n in FUSED if _ok(results, n)]
        if names:  # the backend whose CPU time is largest next to its CUDA time
            n = max(names, key=lambda n: med(v[n]["cpu_time_us"]) / cuda(n))
            return dict(variant=label(n), cuda=us(cuda(n)), cpu=us(med(v[n]["cpu_time_us"])),
                        first=us(v[n]["first_call_ms"] * 1000))
    if key == "rec_inplace" and _ok(results, "naive"):
        copies = [k for k in v["naive"]["kernels"] if k["kind"] == "memcpy"]
        if copies:
            return dict(memcpy=us(copies[0]["avg_us"]),
                        share=fmt_pct(100 * copies[0]["avg_us"] / cuda("naive"), lang, 0))
    return None


def render_findings(results, ref, lang, keys):
    lines = []
    for key in keys:
        values = finding_values(key, results, ref, lang)
        if values is not None:
            lines.append("- " + FINDINGS[key][lang].format(**values))
    return "\n".join(lines) if lines else FINDINGS["missing"][lang]


def tables_for(results, ref, lang):
    """name -> Markdown body, for every table file the pages may include."""
    variants = list(results["variants"])
    out = {
        "headline": render_headline(results, ref, lang),
        "kernels-naive-math": render_kernels(results, lang, ["naive", "naive_inplace", "math"]),
        "kernels-fused": render_kernels(results, lang, list(FUSED) + ["auto"]),
        "resources": render_resources(results, lang, list(FUSED) + ["auto"]),
        "details": render_details(results, lang),
        "cpu-ops-naive-math": render_cpu_ops(results, lang, ["naive", "naive_inplace", "math"]),
        "cpu-ops-fused": render_cpu_ops(results, lang, list(FUSED) + ["auto"]),
        "provenance": render_provenance(results, lang),
    }
    for name in variants:
        out[f"profiler-{name}"] = render_profiler_table(results, name, lang)
    for name, keys in FINDING_FILES.items():
        out[name] = render_findings(results, ref, lang, keys)
    return out


def render_all(results, ref, tables_dir, figures_dir=None):
    """Write tables/<name>.<lang>.md (and figures/*.svg) in both languages; returns the paths."""
    cfg = results["config"]
    written = []
    tables_dir.mkdir(parents=True, exist_ok=True)
    me = sys.modules[__name__]
    for lang in LANGS:
        head = [TEXT["header"][lang], ""]
        shape = TEXT["shape"][lang].format(**{**cfg, "steps": cfg["steps"]})
        bodies = {name: (body, [shape]) for name, body in tables_for(results, ref, lang).items()}
        bodies.update({name: (body, []) for name, body in
                       build_extra.tables(me, results, lang, ref).items()})
        for name, (body, notes) in bodies.items():
            foot = ["", caption(results, lang) + ("  " if notes else "")] + notes
            if name == "headline":
                foot += ["", TEXT["cite"][lang].format(**ref["source"])]
            path = tables_dir / f"{name}.{lang}.md"
            path.write_text("\n".join(head + [body] + foot) + "\n", encoding="utf-8")
            written.append(path)
        if figures_dir is not None:
            written += build_extra.render_figures(me, results, lang, figures_dir)
    return written


# ----------------------------------------------------------------------------
# Files: load, validate, write atomically
# ----------------------------------------------------------------------------

def load_results(path):
    path = Path(path)
    if not path.exists():
        raise UsageError(f"{path} does not exist: run build_tables.py on a GPU first")
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as err:
        raise UsageError(f"{path} is not valid JSON ({err}); restore it with "
                         "`git checkout -- {path}` or measure again") from None
    if not isinstance(data, dict) or "schema_version" not in data:
        raise UsageError(f"{path} has no schema_version: not a results file of build_tables.py")
    if data["schema_version"] != SCHEMA_VERSION:
        raise UsageError(f"{path} has schema version {data['schema_version']}, this build_tables.py "
                         f"reads version {SCHEMA_VERSION}: measure again to upgrade it")
    missing = [k for k in ("provenance", "config", "roof", "variants") if k not in data]
    if missing:
        raise UsageError(f"{path} is missing {', '.join(missing)}: the file is damaged")
    return data


def load_reference():
    return json.loads(REFERENCE.read_text(encoding="utf-8"))


def replace_dir(staging, final):
    """Swap a fully written staging folder into place; the old one survives until then."""
    final = Path(final)
    old = final.with_name(final.name + ".old")
    if old.exists():
        shutil.rmtree(old)
    if final.exists():
        final.rename(old)
    Path(staging).rename(final)
    if old.exists():
        shutil.rmtree(old)


# ----------------------------------------------------------------------------
# Command line
# ----------------------------------------------------------------------------

def positive_int(text):
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"{value} must be at least 1")
    return value


def variant_list(text):
    names = [n.strip() for n in text.split(",") if n.strip()]
    known = VARIANTS + EXTRA_VARIANTS
    unknown = [n for n in names if n not in known]
    if unknown or not names:
        raise argparse.ArgumentTypeError(
            f"unknown variant(s) {', '.join(unknown) or '(none given)'}; choose from {', '.join(known)}")
    return names


def parse_args(argv):
    p = argparse.ArgumentParser(
        prog="build_tables.py",
        description="Measure causal attention variants under torch.profiler and render the "
                    "site's tables (docs/generated/<gpu>/).")
    p.add_argument("--batch", type=positive_int, default=8, help="batch size (default 8)")
    p.add_argument("--heads", type=positive_int, default=16, help="attention heads (default 16)")
    p.add_argument("--seq-len", type=positive_int, default=1024, help="sequence length (default 1024)")
    p.add_argument("--head-dim", type=positive_int, default=64, help="head dimension (default 64)")
    p.add_argument("--dtype", choices=DTYPES, default="bfloat16", help="data type of q, k, v (default bfloat16)")
    p.add_argument("--variants", type=variant_list, default=None,
                   help=f"comma-separated subset of: {','.join(VARIANTS + EXTRA_VARIANTS)} "
                        f"(default: {','.join(VARIANTS)}, plus the compiled ones with --extra)")
    more = p.add_argument_group("beyond the seed's shape")
    more.add_argument("--extra", action="store_true",
                      help="also measure FlexAttention and torch.compile of the naive module")
    more.add_argument("--sweep", action="store_true",
                      help="sequence lengths 256..16384 at head dims 64 and 128, every variant")
    more.add_argument("--overhead", action="store_true",
                      help="wall time vs kernel time, eager and replayed from a CUDA graph")
    more.add_argument("--backward", action="store_true", help="forward + backward per variant")
    more.add_argument("--all", action="store_true", help="--extra --sweep --overhead --backward")
    more.add_argument("--sweep-max-seq", type=positive_int, default=16384)
    more.add_argument("--sweep-steps", type=positive_int, default=5)
    more.add_argument("--sweep-timer-seconds", type=float, default=0.1)
    p.add_argument("--steps", type=positive_int, default=50,
                   help="profiled (active) steps per variant (default 50)")
    p.add_argument("--timer-seconds", type=float, default=0.5,
                   help="minimum run time of the wall-clock timer per variant")
    p.add_argument("--host-calls", type=positive_int, default=200,
                   help="calls timed on the host, without the profiler (default 200)")
    p.add_argument("--device", choices=("cuda", "cpu"), default="cuda")
    p.add_argument("--out", type=Path, default=DEFAULT_OUT,
                   help="parent folder; results go to <out>/<gpu-slug>/ (default docs/generated)")
    p.add_argument("--slug", help="folder name for this GPU (default: derived from its name)")
    p.add_argument("--render-only", action="store_true",
                   help="re-render tables from existing results.json (no GPU needed)")
    args = p.parse_args(argv)
    if args.head_dim > 512:
        p.error(f"--head-dim {args.head_dim} is larger than any attention kernel supports (max 512)")
    if args.steps < 3:
        p.error("--steps must be at least 3 for a median to mean anything")
    if args.batch * args.heads * args.seq_len * args.head_dim > 2**34:
        p.error("that shape has more than 2^34 elements per tensor: impossible on any GPU")
    if args.timer_seconds <= 0 or args.sweep_timer_seconds <= 0:
        p.error("--timer-seconds and --sweep-timer-seconds must be positive")
    if args.all:
        args.extra = args.sweep = args.overhead = args.backward = True
    if args.variants is None:
        args.variants = list(VARIANTS) + (list(EXTRA_VARIANTS) if args.extra else [])
    return args


def render_only(args):
    out = Path(args.out)
    folders = [out / args.slug] if args.slug else sorted(
        d for d in out.iterdir() if (d / "results.json").exists()) if out.exists() else []
    if not folders:
        raise UsageError(f"no results.json under {out}: nothing to render")
    ref = load_reference()
    for folder in folders:
        results = load_results(folder / "results.json")
        staging = Path(tempfile.mkdtemp(prefix=".render-", dir=folder))
        try:
            render_all(results, ref, staging / "tables", staging / "figures")
            for part in ("tables", "figures"):
                replace_dir(staging / part, folder / part)
            staging.rmdir()
        except (KeyError, TypeError, ValueError, AttributeError) as err:
            shutil.rmtree(staging, ignore_errors=True)
            raise UsageError(f"{folder / 'results.json'} is damaged or was written by another "
                             f"version of build_tables.py ({type(err).__name__}: {err}); "
                             "nothing was changed: measure again") from None
        except BaseException:
            shutil.rmtree(staging, ignore_errors=True)
            raise
        print(f"rendered {folder / 'tables'} and {folder / 'figures'} from {folder / 'results.json'}")


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    args = parse_args(argv)
    try:
        if args.render_only:
            render_only(args)
            return 0
        out = Path(args.out)
        started = time.perf_counter()
        slug, results, trace_tmp = run_measurements(args, argv, out)
        out.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(prefix=f".{slug}-", dir=out))
        try:
            (staging / "results.json").write_text(
                json.dumps(results, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
            shutil.copytree(trace_tmp, staging / "traces")
            render_all(results, load_reference(), staging / "tables", staging / "figures")
            replace_dir(staging, out / slug)
        except BaseException:
            shutil.rmtree(staging, ignore_errors=True)
            raise
        finally:
            shutil.rmtree(trace_tmp, ignore_errors=True)
        print(f"wrote {out / slug} in {time.perf_counter() - started:.1f} s")
        return 0
    except UsageError as err:
        print(f"build_tables.py: error: {err}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("build_tables.py: interrupted; the existing results were left as they were",
              file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
