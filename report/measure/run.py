"""One whole measurement run: inputs, roof, every variant, then the --all sections."""
from __future__ import annotations

import argparse
import shutil
import tempfile
import time
from pathlib import Path

from ..results import SCHEMA_VERSION, UsageError
from ..variants import EXTRA_VARIANTS, FUSED
from . import ask, backward, first_calls, ncu, overhead, round_processes, seed, shape_runs, sweep
from .callables import make_inputs, reference_output
from .guard import first_line
from .provenance import gpu_slug, provenance
from .roof import measure_exp_roof, measure_fp32_roof, measure_roof

SECTIONS = (  # (results key, args flag, title); measured in this order
    ("first_calls", "first_calls", "first calls: process, same shape, new shape"),
    ("overhead", "overhead", "launch overhead: eager vs CUDA graph"),
    ("backward", "backward", "forward + backward"),
    ("sweep", "sweep", "sweep over sequence length and head dimension"),
    ("shapes", "shapes", "today's shapes: decode, prefill, grouped-query, sliding window"),
    ("eligibility", "ask", "ask PyTorch why: can_use_* per condition, what ran, its warnings"),
    ("ncu", "ncu", "occupancy from Nsight Compute"),
)


def _measure_section(key, torch, args, results, progress, fresh=None, trace_dir=None):
    """The --all sections, looked up at call time (tests replace one to make it fail);
    trace_dir: where the overhead section keeps its traces."""
    if key == "first_calls":
        return first_calls.measure_first_calls(torch, args, results, progress, fresh)
    if key == "ncu":
        return ncu.measure_ncu(torch, args, results, progress)
    if key == "overhead":
        return overhead.measure_overhead(torch, args, progress, trace_dir)
    if key == "eligibility":
        return ask.measure_eligibility(torch, args, progress, trace_dir)
    return {"backward": backward.measure_backward,
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
                         f"({_whole_sentences(first_line(err))}); use a smaller shape (nothing was written)") from None


def _whole_sentences(text, limit=160):
    """The message's first sentences up to about `limit` characters, never cut inside one
    ("Tried to allocate 64.00 GiB." stays whole)."""
    kept = ""
    for sentence in text.split(". "):
        more = f"{kept}. {sentence}" if kept else sentence
        if kept and len(more) > limit:
            return kept.rstrip(".") + "."
        kept = more
    return kept


def _progress_line(i, total, name, row, secs):
    """One line per variant: its refusal in whole sentences, or its times (no GPU column
    in a run without a GPU)."""
    if row["status"] != "ok":
        return f"[{i}/{total}] {name:<14} {row['status']}: {_whole_sentences(row['reason'] or '')}"
    return f"[{i}/{total}] {name:<14} ok  wall {row['wall_time_us']['median']:9.1f} us  ({secs:.1f} s)"


class Phases:
    """Seconds per phase of the run, printed as they end and once more at the end
    (results.json keeps them as "phase_seconds")."""

    def __init__(self, progress):
        self.progress, self.seconds, self.t0 = progress, {}, time.perf_counter()

    def done(self, name):
        now = time.perf_counter()
        self.seconds[name] = round(now - self.t0, 2)
        self.t0 = now
        self.progress(f"  phase {name}: {self.seconds[name]:.1f} s")

    def summary(self):
        return "phase times: " + ", ".join(f"{k} {v:.1f} s" for k, v in self.seconds.items()) + \
            f"; total {sum(self.seconds.values()):.1f} s"


def _variants(torch, results, inputs, args, trace_dir, progress):
    q, k, v, ref = inputs
    made = {}
    for i, name in enumerate(args.variants, 1):
        t0 = time.perf_counter()
        row, made[name] = seed.measure_variant(torch, name, results["config"], q, k, v, ref, args, trace_dir)
        row["label"] = name
        results["variants"][name] = row
        progress(_progress_line(i, len(args.variants), name, row, time.perf_counter() - t0))
    return made


def _host(torch, results, made, inputs, args, progress):
    t0 = time.perf_counter()
    seed.measure_host(torch, results["variants"], made, inputs[:3], args)
    progress(f"host overhead, every variant in turn, {args.host_calls} calls each "
             f"({time.perf_counter() - t0:.1f} s)")


def _fresh_processes(results, args, progress):
    """Each fused backend's first calls in a fresh process per round, before this
    process touches a fused backend (first_calls.py); None where not asked for."""
    names = [n for n in args.variants if n in FUSED]
    if not getattr(args, "first_calls", False) or not names:
        return None
    progress(f"first calls in fresh processes: {', '.join(names)}, {args.rounds} round(s)")
    try:
        return first_calls.fresh_process_rounds(args, _seed_shape(results["config"]), names,
                                                args.rounds, progress)
    except Exception as err:  # the in-process figures still come; this says what broke
        results["first_calls_rounds_error"] = f"{type(err).__name__}: {str(err).strip()[:500]}"
        progress(f"  fresh processes failed: {results['first_calls_rounds_error']}")
        return None


def _seed_shape(cfg):
    return {k: cfg[k] for k in ("batch", "heads", "seq_len", "head_dim")}


def _rounds(torch, results, made, inputs, args, progress):
    progress(f"rounds: {args.rounds} fresh process(es), one after another, each: every variant's kernel "
             f"time, wall time and host overhead"
             + (", the small shape" if (results.get("overhead") or {}).get("rows") else "")
             + f", then {getattr(args, 'pairs', None)} alternating blocks per paired comparison")
    try:
        results["rounds"], results["pairs"] = round_processes.measure_rounds(
            torch, results, made, inputs[:3], args, progress)
    except Exception as err:  # the full measurement stands; this says what broke
        results["rounds_error"] = results["pairs_error"] = f"{type(err).__name__}: {str(err).strip()[:500]}"
        progress(f"  rounds failed: {results['rounds_error']}")


def _sections(torch, results, args, progress, phases, fresh=None, trace_dir=None):
    section_args = argparse.Namespace(**{**vars(args), "variants": [
        n for n in args.variants if n not in EXTRA_VARIANTS]})
    for key, flag, title in SECTIONS:
        if not getattr(args, flag) or (key in ("overhead", "ncu") and args.device != "cuda"):
            continue
        progress(title)
        try:
            results[key] = _measure_section(key, torch, section_args, results, progress, fresh, trace_dir)
        except Exception as err:  # keep the rest of the run; the section says what broke
            results[key + "_error"] = f"{type(err).__name__}: {str(err).strip()[:500]}"
            progress(f"  {key} failed: {results[key + '_error']}")
        phases.done(key)


def run_measurements(args, argv, out_dir, progress=print, check=None):
    """(slug, results, folder of traces); the caller writes them and removes the folder.

    check(slug, provenance), if given, runs once the device is known and before anything
    is measured: it raises UsageError to refuse the run.
    """
    phases = Phases(progress)
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
    progress(f"roof: {roof['dtype']} matmul {roof['shape'][0]}^3 at {roof['tflops']:.3g} TFLOP/s")
    fp32 = measure_fp32_roof(torch, device)
    progress(f"roof: float32 (no TF32) matmul {fp32['shape'][0]}^3 at {fp32['tflops']:.3g} TFLOP/s")
    results = {"schema_version": SCHEMA_VERSION, "generated_by": "build_tables.py",
               "provenance": prov, "config": cfg, "roof": roof, "fp32_roof": fp32, "variants": {}}
    phases.done("setup")
    if getattr(args, "extra", False):  # torch.compile runs in this run anyway (flex, compiled_naive)
        results["exp_roof"] = e = measure_exp_roof(torch, device)
        progress(f"exp roof: {e['exps_per_s'] / 1e12:.2f} T exp/s ({e['exps_per_element']} per element, "
                 f"{e['median_ms']:.3f} ms; a copy of the tensor {e['copy_ms']:.3f} ms)"
                 if e["status"] == "ok" else f"exp roof: {e['reason']}")
        phases.done("exp_roof")
    fresh = _fresh_processes(results, args, progress)
    if fresh is not None:
        phases.done("first_call_processes")
    tmp = Path(tempfile.mkdtemp(prefix="traces-"))
    args.traces = str(tmp)  # every profile is kept there (timing.py), rounds' processes too
    try:
        made = _variants(torch, results, inputs, args, tmp, progress)
        phases.done("variants")
        _host(torch, results, made, inputs, args, progress)
        phases.done("host_overhead")
        _sections(torch, results, args, progress, phases, fresh, tmp)
        _rounds(torch, results, made, inputs, args, progress)
        phases.done("rounds")
        results["phase_seconds"] = phases.seconds
        progress(phases.summary())
        return slug, results, tmp
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
