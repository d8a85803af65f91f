"""Occupancy from a second tool: Nsight Compute's theoretical and achieved occupancy and
its block limits, for the kernel of each fused backend (and of math and the hand-written
module, every kernel of one call), with the bytes each kernel read from and wrote to
DRAM and how busy the tensor pipes and the special-function (XU) pipe were. A metric
this GPU's ncu does not know is left out and named in "metrics_missing"; the ones used
are in "metrics". Without ncu, or without permission to read the GPU's counters, the
section says which, and the run goes on."""
from __future__ import annotations

import csv
import io
import json
import re
import shutil
import subprocess
import sys

from ..paths import ROOT
from ..variants import FUSED

METRICS = {"Theoretical Occupancy": "theoretical_pct", "Achieved Occupancy": "achieved_pct",
           "Block Limit Registers": "limit_registers", "Block Limit Shared Mem": "limit_shared_memory",
           "Block Limit Warps": "limit_warps", "Block Limit SM": "limit_blocks"}
# key -> the ncu metric, read beside the Occupancy section (names as `ncu --query-metrics`
# lists them for Hopper). tensor_pct: the tensor pipe's active cycles, every instruction
# type (mma.sync's HMMA and Hopper's wgmma alike); tensor_hmma_pct: the cycles ncu counts
# for its HMMA pipe (the only tensor figure of runs before tensor_pct); gmma_inst: wgmma
# warp instructions executed (0 for a kernel without wgmma); XU the special-function pipe
# that computes exp. H200's ncu has no sm__pipe_tensor_op_gmma_cycles_active: a run asked
# for it and recorded it under metrics_missing.
EXTRA = {"dram_read_bytes": "dram__bytes_read.sum", "dram_write_bytes": "dram__bytes_write.sum",
         "tensor_pct": "sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_active",
         "tensor_hmma_pct": "sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active",
         "gmma_inst": "sm__inst_executed_pipe_tensor_op_gmma.sum",
         "xu_pct": "sm__inst_executed_pipe_xu.avg.pct_of_peak_sustained_active"}
# the metrics an H200 run (ncu on GH100) has read without error: if ncu refuses the whole
# set, these are tried alone before occupancy alone, so a new name cannot cost the old ones
VERIFIED = ("dram_read_bytes", "dram_write_bytes", "tensor_hmma_pct", "xu_pct")
NCU_VARIANTS = ("naive", "math", *FUSED)  # every kernel of one call each
NO_PERMISSION = "ERR_NVGPUCTRPERM"
TIMEOUT_S = 240
QUERY_TIMEOUT_S = 60
METRIC_NAME = re.compile(r"^[\s\"]*([a-z0-9_]+__[a-z0-9_]+)")


def parse(stdout):
    """{kernel name: {metric key: value}} from `ncu --csv --page details` output."""
    lines = stdout.splitlines()
    start = next((i for i, line in enumerate(lines) if line.startswith('"ID"')), None)
    if start is None:
        return {}
    kernels = {}
    keys = METRICS | {metric: key for key, metric in EXTRA.items()}
    for row in csv.DictReader(io.StringIO("\n".join(lines[start:]))):
        key = keys.get(row.get("Metric Name"))
        if key:
            value = row["Metric Value"].replace(",", "")
            kernels.setdefault(row["Kernel Name"], {})[key] = float(value)
    return kernels


def _command(exe, name, cfg, metrics=()):
    more = ["--metrics", ",".join(metrics), "--print-units", "base"] if metrics else []
    return [exe, "--clock-control", "none", "--profile-from-start", "off", "--section", "Occupancy",
            *more, "--csv", "--page", "details", sys.executable, "-m", "report.measure.ncu_target",
            name, json.dumps(cfg)]


def known_metrics(text):
    """The metric names (without .sum, .avg... suffixes) in `ncu --query-metrics` output."""
    return {m.group(1) for line in text.splitlines() if (m := METRIC_NAME.match(line))}


def choose_metrics(exe):
    """({key: metric} this GPU's ncu knows, {key: why not}); when ncu cannot list its
    metrics, every one is tried (ncu_row falls back to occupancy alone if that fails)."""
    try:
        proc = subprocess.run([exe, "--query-metrics"], cwd=ROOT, capture_output=True, text=True,
                              timeout=QUERY_TIMEOUT_S, stdin=subprocess.DEVNULL)
        known = known_metrics(proc.stdout) if proc.returncode == 0 else set()
    except (subprocess.TimeoutExpired, OSError):
        known = set()
    if not known:
        return dict(EXTRA), {}
    found = {k: m for k, m in EXTRA.items() if m.split(".")[0] in known}
    missing = {k: f"{m.split('.')[0]} is not among this GPU's ncu metrics" for k, m in EXTRA.items()
               if k not in found}
    return found, missing


def _run(exe, name, cfg, metrics):
    try:
        proc = subprocess.run(_command(exe, name, cfg, metrics), cwd=ROOT, capture_output=True, text=True,
                              timeout=TIMEOUT_S, stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        return {"status": "error", "reason": f"ncu took more than {TIMEOUT_S} s"}
    if NO_PERMISSION in proc.stdout + proc.stderr:
        return {"status": "no_permission", "reason": "no permission to read the GPU's performance counters"}
    kernels = parse(proc.stdout)
    if proc.returncode != 0 or not kernels:
        tail = (proc.stderr or proc.stdout).strip().splitlines()[-1:] or [f"exit {proc.returncode}"]
        return {"status": "error", "reason": tail[0][:300]}
    return {"status": "ok", "kernels": kernels}


def ncu_row(exe, name, cfg, metrics=None):
    """Occupancy and the metrics ({key: metric}) of every kernel of one call; if ncu fails
    with the metrics, once more with the VERIFIED ones among them, then with occupancy
    alone ("metrics_error" says why, "metrics_dropped" which keys were left out)."""
    metrics = metrics or {}
    row = _run(exe, name, cfg, tuple(metrics.values()))
    if not metrics or row["status"] != "error":
        return row
    verified = {k: m for k, m in metrics.items() if k in VERIFIED}
    for fewer in ([verified] if verified and verified != metrics else []) + [{}]:
        again = _run(exe, name, cfg, tuple(fewer.values()))
        if again["status"] == "ok":
            again["metrics_error"] = row["reason"]
            again["metrics_dropped"] = sorted(set(metrics) - set(fewer))
            return again
        if again["status"] != "error":
            return again
    return again


def measure_ncu(torch, args, results, progress):
    exe = shutil.which("ncu")
    if exe is None:
        return {"status": "unavailable", "reason": "Nsight Compute (ncu) is not on the PATH"}
    cfg = {k: results["config"][k] for k in ("batch", "heads", "seq_len", "head_dim", "dtype")}
    metrics, missing = choose_metrics(exe)
    progress(f"  ncu metrics: {', '.join(metrics.values()) or 'occupancy only'}"
             + (f"; not on this GPU: {', '.join(missing)}" if missing else ""))
    rows = {}
    for name in NCU_VARIANTS:
        if results["variants"].get(name, {}).get("status") != "ok":
            continue
        rows[name] = row = ncu_row(exe, name, cfg, metrics)
        progress(f"  ncu {name:<10} {row['status']}" + (f" ({len(row['kernels'])} kernels)"
                                                        if row["status"] == "ok" else ""))
        if row["status"] == "no_permission":
            return {"status": "no_permission", "reason": row["reason"]}
    return {"status": "ok", "rows": rows, "metrics": metrics, "metrics_missing": missing}
