"""One whole measurement run: inputs, roof, every variant, then the --all sections."""
from __future__ import annotations

import argparse
import shutil
import tempfile
import time
from pathlib import Path

from ..results import SCHEMA_VERSION, UsageError
from ..variants import EXTRA_VARIANTS
from . import backward, first_calls, ncu, overhead, seed, shape_runs, sweep
from .callables import make_inputs, reference_output
from .guard import first_line
from .provenance import gpu_slug, provenance
from .roof import measure_roof

SECTIONS = (  # (results key, args flag, title); measured in this order
    ("first_calls", "first_calls", "first calls: process, same shape, new shape"),
    ("overhead", "overhead", "launch overhead: eager vs CUDA graph"),
    ("backward", "backward", "forward + backward"),
    ("sweep", "sweep", "sweep over sequence length and head dimension"),
    ("shapes", "shapes", "today's shapes: decode, prefill, grouped-query, sliding window"),
    ("ncu", "ncu", "occupancy from Nsight Compute"),
)


def _measure_section(key, torch, args, results, progress):
    """The --all sections, looked up at call time (tests replace one to make it fail)."""
    if key == "first_calls":
        return first_calls.measure_first_calls(torch, args, results, progress)
    if key == "ncu":
        return ncu.measure_ncu(torch, args, results, progress)
    return {"overhead": overhead.measure_overhead, "backward": backward.measure_backward,
            "sweep": sweep.measure_sweep, "shapes": shape_runs.measure_shapes}[key](torch, args, progress)


def config(args):
    return {"batch": args.batch, "heads": args.heads, "seq_len": args.seq_len,
            "head_dim": args.head_dim, "dtype": args.dtype, "causal": True,
            "forward_only": True, "no_grad": True, "steps": args.steps,
            "warmup_calls": 3, "schedule": {"wait": 1, "warmup": 1, "active": args.steps}}


def _inputs(torch, cfg, dtype, device):
    try:
        q, k, v = make_inputs(cfg, dtype, device)
        return q, k, v, reference_output(torch, q, k, v)
    except (RuntimeError, MemoryError) as err:  # CUDA's OutOfMemoryError, or the CPU allocator's
        where = "GPU" if device == "cuda" else "memory"
        raise UsageError(f"the inputs and float64 reference for shape {cfg['batch']}x{cfg['heads']}x"
                         f"{cfg['seq_len']}x{cfg['head_dim']} do not fit in {where} "
                         f"({first_line(err)[:120]}); use a smaller shape (nothing was written)") from None


def _progress_line(i, total, name, row, secs):
    if row["status"] != "ok":
        return f"[{i}/{total}] {name:<14} {row['status']}: {row['reason'][:100]}"
    ct = row["cuda_time_us"]["median"] if row.get("cuda_time_us") else float("nan")
    return (f"[{i}/{total}] {name:<14} ok  CUDA {ct:9.1f} us  "
            f"CPU {row['cpu_time_us']['median']:9.1f} us  "
            f"wall {row['wall_time_us']['median']:9.1f} us  ({secs:.1f} s)")


def _variants(torch, results, inputs, args, trace_dir, progress):
    q, k, v, ref = inputs
    made = {}
    for i, name in enumerate(args.variants, 1):
        t0 = time.perf_counter()
        row, made[name] = seed.measure_variant(torch, name, results["config"], q, k, v, ref, args, trace_dir)
        row["label"] = name
        results["variants"][name] = row
        progress(_progress_line(i, len(args.variants), name, row, time.perf_counter() - t0))
    t0 = time.perf_counter()
    seed.measure_host(torch, results["variants"], made, (q, k, v), args)
    progress(f"host overhead, every variant in turn, {args.host_calls} calls each "
             f"({time.perf_counter() - t0:.1f} s)")


def _sections(torch, results, args, progress):
    section_args = argparse.Namespace(**{**vars(args), "variants": [
        n for n in args.variants if n not in EXTRA_VARIANTS]})
    for key, flag, title in SECTIONS:
        if not getattr(args, flag) or (key in ("overhead", "ncu") and args.device != "cuda"):
            continue
        progress(title)
        t0 = time.perf_counter()
        try:
            results[key] = _measure_section(key, torch, section_args, results, progress)
        except Exception as err:  # keep the rest of the run; the section says what broke
            results[key + "_error"] = f"{type(err).__name__}: {str(err).strip()[:500]}"
            progress(f"  {key} failed: {results[key + '_error']}")
        progress(f"  ({time.perf_counter() - t0:.1f} s)")


def run_measurements(args, argv, out_dir, progress=print, check=None):
    """(slug, results, folder of traces); the caller writes them and removes the folder.

    check(slug, provenance), if given, runs once the device is known and before anything
    is measured: it raises UsageError to refuse the run.
    """
    import torch

    device = args.device
    if device == "cuda" and not torch.cuda.is_available():
        raise UsageError("no CUDA device found: run on a machine with an NVIDIA GPU, "
                         "or pass --device cpu for CPU tables (nothing was written)")
    cfg = config(args)
    prov = provenance(torch, device, argv)
    slug = args.slug or (gpu_slug(prov["gpu_name"]) if device == "cuda" else "cpu")
    if check is not None:
        check(slug, prov)
    progress(f"device: {prov['gpu_name']}  ->  {out_dir / slug}")
    dtype = getattr(torch, args.dtype)
    inputs = _inputs(torch, cfg, dtype, device)
    roof = measure_roof(torch, device, dtype)
    progress(f"roof: {roof['dtype']} matmul {roof['shape'][0]}^3 at {roof['tflops']:.0f} TFLOP/s")
    results = {"schema_version": SCHEMA_VERSION, "generated_by": "build_tables.py",
               "provenance": prov, "config": cfg, "roof": roof, "variants": {}}
    tmp = Path(tempfile.mkdtemp(prefix="traces-"))
    try:
        _variants(torch, results, inputs, args, tmp, progress)
        _sections(torch, results, args, progress)
        return slug, results, tmp
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
