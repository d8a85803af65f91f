"""What a fused backend's first call costs, taken apart: library loading and plan
building (the first call in the process, from the seed measurement), the same shape
again, and the first and second call of a shape the process has not seen.

PyTorch keeps cuDNN's attention plans in a cache keyed on the call's sizes, strides,
dtypes and flags (aten/src/ATen/native/cudnn/MHA.cpp, MHAGraphCache), so a new shape
builds a new plan while a repeated one does not.

With rounds, each backend's first calls are also measured in a fresh process per round
(first_call_child.py, which says what each figure holds), backends interleaved: round 1
every backend, then round 2, ... These run before the seed measurement touches any fused
backend, so round 1 may read a backend's libraries from disk, while later rounds find
them in the page cache (which a run cannot drop: it records what it found).
"""
from __future__ import annotations

import json
import os
import select
import subprocess
import sys
import time

from ..paths import ROOT
from ..variants import FUSED
from .callables import make_inputs, make_variant
from .guard import Refused, guarded, timed_call_ms


def new_shape(cfg):
    """A shape the seed measurement did not use: twice the sequence length."""
    return {**cfg, "seq_len": cfg["seq_len"] * 2}


CHILD_TIMEOUT_S = 300  # one fresh process: import torch, start the device, six calls


def _start(spec):
    """A fresh process that imports torch, says "ready" and waits for "go"
    (first_call_child.py --wait); or a row saying why it did not start."""
    cmd = [sys.executable, "-m", "report.measure.first_call_child", "--wait", json.dumps(spec)]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        p for p in (str(ROOT), os.environ.get("PYTHONPATH")) if p)}
    try:
        return subprocess.Popen(cmd, cwd=ROOT, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True), time.perf_counter()
    except OSError as err:
        return {"status": "error", "reason": f"could not start {sys.executable}: {err}"}, None


def _row(out, err, code):
    lines = out.strip().splitlines()
    try:
        row = json.loads(lines[-1])
        if not isinstance(row, dict) or "status" not in row:
            raise ValueError("not a row")
    except (IndexError, ValueError):
        tail = (err.strip().splitlines() or ["no output"])[-1]
        return {"status": "error", "reason": f"exit status {code}: {tail[:300]}"}
    return row


def _finish(started):
    """Wait until the process is ready, tell it to go, and read its row."""
    proc, t0 = started
    if isinstance(proc, dict):  # it never started
        return proc
    ready, _, _ = select.select([proc.stdout], [], [], CHILD_TIMEOUT_S)
    line = proc.stdout.readline() if ready else ""
    if line.strip() != "ready":  # it died (or hung) importing torch: its output says why
        if not ready:
            proc.kill()
        out, err = proc.communicate()
        if not ready:
            return {"status": "error", "reason": f"the fresh process took more than {CHILD_TIMEOUT_S} s"}
        return _row(line + out, err, proc.returncode)
    try:
        out, err = proc.communicate("go\n", timeout=CHILD_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate()
        return {"status": "error", "reason": f"the fresh process took more than {CHILD_TIMEOUT_S} s"}
    row = _row(out, err, proc.returncode)
    row["process_s"] = time.perf_counter() - t0
    return row


def _child(spec):
    """One fresh process's figures (first_call_child.py), or a row saying why there are none."""
    return _finish(_start(spec))


def fresh_process_rounds(args, cfg, names, rounds, progress):
    """{backend: [one row per round]}: each backend's first calls in a fresh process,
    round 1 every backend of `names`, then round 2, ... (first_call_child.py).

    Every process is started first and imports torch at the same time as the others
    (importing torch is most of a fresh process's seconds); then they measure one at a
    time, in order, each while the others wait on a pipe, before any of them has touched
    the GPU. So what a first call loads (cuDNN's sub-libraries and the backends' kernels,
    loaded lazily) is still loaded by that call."""
    spec = {"shape": cfg, "new_shape": new_shape(cfg), "dtype": args.dtype, "device": args.device}
    order = [(r, name) for r in range(rounds) for name in names]
    started = [_start({**spec, "variant": name}) for _, name in order]
    found = {name: [] for name in names}
    try:
        for i, (r, name) in enumerate(order):
            row = _finish(started[i])
            found[name].append(row)
            if row["status"] == "ok":
                progress(f"  fresh process {r + 1}/{rounds} {name:<10} first {row['first_call_ms']:9.2f} ms  "
                         f"new shape {row['first_new_shape_ms']:8.2f} ms  new thread "
                         f"{row.get('new_thread_first_ms', float('nan')):8.2f} ms  ({row['process_s']:.1f} s)")
            else:
                progress(f"  fresh process {r + 1}/{rounds} {name:<10} {row['status']}: {row['reason'][:100]}")
    finally:  # Ctrl-C, or an error here: no process is left waiting
        for proc, _ in started:
            if isinstance(proc, subprocess.Popen) and proc.poll() is None:
                proc.kill()
                proc.communicate()
    return found


def first_call_row(torch, name, cfg, seed_row, dtype, device):
    fn, ctx = make_variant(name, cfg, device)
    row = {"first_in_process_ms": seed_row.get("first_call_ms")}
    try:
        with guarded(torch), ctx(), torch.no_grad():
            q, k, v = make_inputs(cfg, dtype, device)
            row["same_shape_again_ms"] = timed_call_ms(torch, device, lambda: fn(q, k, v))[1]
            shape = new_shape(cfg)
            q2, k2, v2 = make_inputs(shape, dtype, device)
            row["first_new_shape_ms"] = timed_call_ms(torch, device, lambda: fn(q2, k2, v2))[1]
            row["new_shape_again_ms"] = timed_call_ms(torch, device, lambda: fn(q2, k2, v2))[1]
    except Refused as refused:
        return refused.row
    return {"status": "ok", **row}


def measure_first_calls(torch, args, results, progress, fresh=None):
    """The in-process figures of each fused backend that ran; with fresh (from
    fresh_process_rounds), each row also keeps "rounds": one fresh process per round."""
    device, dtype = args.device, getattr(torch, args.dtype)
    cfg = {k: results["config"][k] for k in ("batch", "heads", "seq_len", "head_dim")}
    rows = {}
    for name in FUSED:
        seed_row = results["variants"].get(name, {})
        if seed_row.get("status") != "ok":
            continue
        rows[name] = row = first_call_row(torch, name, cfg, seed_row, dtype, device)
        if fresh and fresh.get(name):
            row["rounds"] = fresh[name]
        if row["status"] == "ok":
            progress(f"  first calls {name:<10} process {row['first_in_process_ms']:9.2f} ms  "
                     f"again {row['same_shape_again_ms']:7.3f} ms  new shape "
                     f"{row['first_new_shape_ms']:9.2f} ms  again {row['new_shape_again_ms']:7.3f} ms")
    return {"new_shape": new_shape(cfg), "rows": rows}
