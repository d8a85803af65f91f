#!/usr/bin/env python3
"""Record real torch.profiler traces of a Llama-style transformers model: the corpus that
`build_tables.py --explain` is tested on (issue 21, item 7). Needs torch and transformers;
the weights are random (built from a LlamaConfig), so nothing is downloaded.

    python benchmarks/record_traces.py OUT_DIR                 # on a CUDA GPU (under 3 minutes on an H200)
    python benchmarks/record_traces.py OUT_DIR --device cpu    # smoke test: tiny model, CPU-only traces
    python benchmarks/record_traces.py OUT_DIR --only sdpa_infer,decode

Writes OUT_DIR/<case>.json.gz for every case that ran and OUT_DIR/manifest.json (versions,
GPU, the model's config, each case's status, size and seconds). Each case is trapped: one
that fails is printed with its error and the others still run; the exit status is 1 when
any failed (a case the device cannot run is skipped, not failed). Cut the traces down to
test fixtures with benchmarks/cut_trace.py:

    python benchmarks/cut_trace.py --all OUT_DIR tests/fixtures/corpus --steps 2 --steps decode=1
    python tests/expected_verdicts.py tests/fixtures/corpus --write

The cases are benchmarks/trace_cases.py's; this script records them.
Each trace: torch.profiler with schedule(wait=1, warmup=1, active=3), record_shapes, CPU
and CUDA activities; every step is a ProfilerStep#N with record_function ranges inside it
(forward, backward, optimizer, loss_item, prefill, decode_token, stream_a/stream_b,
graph_replay, generate, attention). The cases after sdpa_compiled (issue 31) each show one
thing the diagnosis must name: a padded encoder's bool mask, a sliding window, GPT-2's eager
attention in float16 with a vocabulary of 50,257, GQA training in float16 with AdamW's
foreach=False, generate() with its KV cache, compiled FlexAttention with a score_mod, SDPA on
nested jagged tensors, in float64, with head dims 100 and 512, with an [L, L] bool causal
mask, with a learned bias in training, and a training step recorded with with_stack=True.
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
import traceback
from pathlib import Path

import torch
from torch.profiler import ProfilerActivity, profile, schedule

sys.path.insert(0, str(Path(__file__).resolve().parent))  # trace_cases.py beside it, however this is run
from trace_cases import CASES, CPU_SIZE, GPU_SIZE, Skipped, sync  # noqa: E402

WAIT, WARMUP, ACTIVE = 1, 1, 3
STEPS = WAIT + WARMUP + ACTIVE
MAX_MB = 5.0  # a trace larger than this (gzipped) is reported: record fewer steps or a smaller model

def record(name, make, size, device, dtype, out):
    """Build the case, run STEPS profiler steps, write out/<name>.json.gz; its figures."""
    started = time.perf_counter()
    step = make(size, device, dtype)
    step()  # the first call (allocations, cuDNN/cuBLAS plans) outside the profile
    sync(device)
    path = out / f"{name}.json.gz"
    activities = [ProfilerActivity.CPU] + ([ProfilerActivity.CUDA] if device == "cuda" else [])
    with profile(activities=activities, record_shapes=True, **getattr(make, "profile", {}),
                 schedule=schedule(wait=WAIT, warmup=WARMUP, active=ACTIVE),
                 on_trace_ready=lambda p: p.export_chrome_trace(str(path))) as prof:
        for _ in range(STEPS):
            step()
            sync(device)  # each step ends with the GPU done: steps do not overlap
            prof.step()
    if not path.exists():
        raise RuntimeError("the profiler wrote no trace")
    mb = path.stat().st_size / 1e6
    return {"status": "ok", "mb": round(mb, 2), "seconds": round(time.perf_counter() - started, 1),
            "too_large": mb > MAX_MB}


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("out", type=Path, help="folder for the traces (made if missing)")
    p.add_argument("--device", choices=("cuda", "cpu"), default="cuda")
    p.add_argument("--only", help="comma-separated case names (default: all): " + ", ".join(CASES))
    args = p.parse_args(argv)
    names = list(CASES) if not args.only else [n.strip() for n in args.only.split(",") if n.strip()]
    unknown = [n for n in names if n not in CASES]
    if unknown:
        p.error(f"unknown case(s): {', '.join(unknown)}; known: {', '.join(CASES)}")
    if args.device == "cuda" and not torch.cuda.is_available():
        p.error("no CUDA GPU here; use --device cpu for the smoke test")
    size = GPU_SIZE if args.device == "cuda" else CPU_SIZE
    dtype = torch.bfloat16 if args.device == "cuda" else torch.float32
    try:
        import transformers
    except ImportError:
        p.error("transformers is not installed here (pip install transformers): the model comes from it")
    args.out.mkdir(parents=True, exist_ok=True)

    manifest = {"torch": torch.__version__, "transformers": transformers.__version__,
                "python": platform.python_version(), "device": args.device,
                "gpu": torch.cuda.get_device_name() if args.device == "cuda" else None,
                "dtype": str(dtype).removeprefix("torch."), "size": size,
                "schedule": {"wait": WAIT, "warmup": WARMUP, "active": ACTIVE}, "cases": {}}
    began = time.perf_counter()
    for name in names:
        print(f"{name} ...", flush=True)
        try:
            found = record(name, CASES[name], size, args.device, dtype, args.out)
            print(f"  ok: {found['mb']} MB in {found['seconds']} s"
                  + (f" (over {MAX_MB} MB)" if found["too_large"] else ""), flush=True)
        except Skipped as why:
            found = {"status": "skipped", "why": str(why)}
            print(f"  skipped: {why}", flush=True)
        except Exception as err:  # noqa: BLE001 - one failing case must not stop the others
            found = {"status": "failed", "error": f"{type(err).__name__}: {err}"[:500]}
            print(f"  FAILED: {found['error']}", flush=True)
            traceback.print_exc(limit=3, file=sys.stdout)
        manifest["cases"][name] = found
        if args.device == "cuda":
            torch.cuda.empty_cache()
    manifest["seconds"] = round(time.perf_counter() - began, 1)
    (args.out / "manifest.json").write_text(json.dumps(manifest, indent=1) + "\n", encoding="utf-8")
    failed = [n for n, c in manifest["cases"].items() if c["status"] == "failed"]
    print(f"done in {manifest['seconds']} s; traces in {args.out}/; "
          + (f"FAILED: {', '.join(failed)}" if failed else "no case failed"))
    return 1 if failed else 0


if __name__ == "__main__":
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    sys.exit(main())
