"""Occupancy from a second tool: Nsight Compute's theoretical and achieved occupancy and
its block limits, for the kernel of each fused backend. Without ncu, or without
permission to read the GPU's counters, the section says which, and the run goes on."""
from __future__ import annotations

import csv
import io
import json
import shutil
import subprocess
import sys

from ..paths import ROOT
from ..variants import FUSED

METRICS = {"Theoretical Occupancy": "theoretical_pct", "Achieved Occupancy": "achieved_pct",
           "Block Limit Registers": "limit_registers", "Block Limit Shared Mem": "limit_shared_memory",
           "Block Limit Warps": "limit_warps", "Block Limit SM": "limit_blocks"}
NO_PERMISSION = "ERR_NVGPUCTRPERM"
TIMEOUT_S = 240


def parse(stdout):
    """{kernel name: {metric key: value}} from `ncu --csv --page details` output."""
    lines = stdout.splitlines()
    start = next((i for i, line in enumerate(lines) if line.startswith('"ID"')), None)
    if start is None:
        return {}
    kernels = {}
    for row in csv.DictReader(io.StringIO("\n".join(lines[start:]))):
        key = METRICS.get(row.get("Metric Name"))
        if key:
            value = row["Metric Value"].replace(",", "")
            kernels.setdefault(row["Kernel Name"], {})[key] = float(value)
    return kernels


def _command(exe, name, cfg):
    return [exe, "--clock-control", "none", "--profile-from-start", "off", "--section", "Occupancy",
            "--csv", "--page", "details", sys.executable, "-m", "report.measure.ncu_target", name,
            json.dumps(cfg)]


def ncu_row(exe, name, cfg):
    try:
        proc = subprocess.run(_command(exe, name, cfg), cwd=ROOT, capture_output=True, text=True,
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


def measure_ncu(torch, args, results, progress):
    exe = shutil.which("ncu")
    if exe is None:
        return {"status": "unavailable", "reason": "Nsight Compute (ncu) is not on the PATH"}
    cfg = {k: results["config"][k] for k in ("batch", "heads", "seq_len", "head_dim", "dtype")}
    rows = {}
    for name in FUSED:
        if results["variants"].get(name, {}).get("status") != "ok":
            continue
        rows[name] = row = ncu_row(exe, name, cfg)
        progress(f"  ncu {name:<10} {row['status']}")
        if row["status"] == "no_permission":
            return {"status": "no_permission", "reason": row["reason"]}
    return {"status": "ok", "rows": rows}
