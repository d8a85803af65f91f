"""The rounds (rounds.py) and their pairs (pair_groups.py), each round in a fresh process.

A verdict is decided on processes: what differs between two processes (the kernel
FlexAttention's compile chose, the CPU's pace, where memory landed) is the same for every
pair inside one, so pairs make a round's estimate precise but cannot make a verdict
certain. So round r runs in a process of its own (round_child.py), started after round
r-1's has ended, one at a time, never beside another: the main process waits. Its figures
come back as JSON through a file in a temporary folder, removed at the end. A process
that fails, hangs or answers nothing records {"error": why} in every row of its round and
the run goes on; Ctrl-C or SIGTERM (output/signals.py raises them here) kill the process
of the round under way and the run ends as it would elsewhere.
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from ..paths import ROOT
from . import pair_groups, rounds
from .guard import free

CHILD_TIMEOUT_S = 600  # one round: torch imported, the variants made (Flex compiled), figures and pairs
STDERR_TAIL = 300      # characters of a failed process's last line of stderr kept as its reason


def spec(results, args, r):
    """What round_child.py needs: the options, the seed's config and who ran."""
    small = ((results.get("overhead") or {}).get("rows") or {}).get("small") or {}
    return {"round": r, "args": vars(args),
            "config": results["config"],
            "status": {n: row["status"] for n, row in results["variants"].items() if n in args.variants},
            "small_status": {n: row.get("status") for n, row in small.items()}}


def _env():
    return {**os.environ, "PYTHONPATH": os.pathsep.join(
        p for p in (str(ROOT), os.environ.get("PYTHONPATH")) if p)}


def _last_line(path):
    try:
        lines = Path(path).read_text(encoding="utf-8", errors="replace").strip().splitlines()
    except OSError:
        return "no output"
    return (lines or ["no output"])[-1][:STDERR_TAIL]


def run_child(the_spec, folder, timeout=CHILD_TIMEOUT_S):
    """One round's answer from a fresh process (round_child.py), or {"error": why}."""
    folder = Path(folder)
    spec_path, out_path, err_path = folder / "spec.json", folder / "out.json", folder / "stderr.txt"
    out_path.unlink(missing_ok=True)
    spec_path.write_text(json.dumps(the_spec, default=str), encoding="utf-8")  # paths as text
    cmd = [sys.executable, "-m", "report.measure.round_child", str(spec_path), str(out_path)]
    with open(err_path, "w", encoding="utf-8") as err:
        try:
            proc = subprocess.Popen(cmd, cwd=ROOT, env=_env(), stdin=subprocess.DEVNULL,
                                    stdout=subprocess.DEVNULL, stderr=err)
        except OSError as why:
            return {"error": f"could not start {sys.executable}: {why}"}
        try:
            code = proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            return {"error": f"the round's process took more than {timeout} s"}
        finally:  # a timeout, Ctrl-C or SIGTERM here: the process does not outlive its round
            if proc.poll() is None:
                proc.kill()
                proc.wait()
    try:
        out = json.loads(out_path.read_text(encoding="utf-8"))
        if not isinstance(out, dict):
            raise ValueError("not an object")
    except (OSError, ValueError):
        return {"error": f"exit status {code}: {_last_line(err_path)}"}
    return out


def _merge(results, out, pairs_out, names, small_names):
    """Append round `out` (or its error) to every row that takes part in the rounds."""
    failed = {"error": out["error"]} if "error" in out else None
    for name in names:
        row = failed or out.get("variants", {}).get(name) or {"error": "not measured in this round's process"}
        results["variants"][name].setdefault("rounds", []).append(row)
    small_rows = results["overhead"]["rows"]["small"] if small_names else {}
    for name in small_names:
        row = failed or out.get("small", {}).get(name) or {"error": out.get("small_error", "not measured")}
        small_rows[name].setdefault("rounds", []).append(row)
    for name, group in pairs_out["groups"].items():
        group["rounds"].append(failed or out.get("pairs", {}).get(name)
                               or {"error": "not measured in this round's process", "seconds": 0})


def measure_rounds(torch, results, made, inputs, args, progress, child=run_child):
    """results["rounds"] and results["pairs"], one fresh process per round, in order.

    child(spec, folder) gives one round's answer (run_child; tests give a fake)."""
    cfg = rounds.settings(args)
    groups = pair_groups.plan(torch, args, results, made, inputs)
    pairs_out = pair_groups.settings(args, groups)
    names = [n for n in made if results["variants"][n]["status"] == "ok"]
    small = ((results.get("overhead") or {}).get("rows") or {}).get("small") or {}
    small_names = [n for n, row in small.items() if row.get("status") == "ok"]
    cfg["seconds"], cfg["processes"] = [], []
    free(torch, args.device)  # the main process's cached blocks go back before a round starts
    folder = tempfile.mkdtemp(prefix="rounds-")
    try:
        for r in range(cfg["count"]):
            t0 = time.perf_counter()
            out = child(spec(results, args, r), folder)
            took = time.perf_counter() - t0
            _merge(results, out, pairs_out, names, small_names)
            process = {"seconds": round(took, 2), **(out.get("process") or {})}
            if "error" in out:
                process["error"] = out["error"]
            cfg["processes"].append(process)
            cfg["seconds"].append(process.get("rounds_s", 0.0))
            pairs_out["seconds"].append(process.get("pairs_s", 0.0))
            if "small_error" in out:
                cfg["small_error"] = out["small_error"]
            _report(progress, r, cfg["count"], out, process, names, pairs_out)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    return cfg, pairs_out


def _report(progress, r, count, out, process, names, pairs_out):
    head = f"  round {r + 1}/{count} in a fresh process ({process['seconds']:.1f} s"
    if "error" in out:
        progress(f"{head}): failed: {out['error'][:200]}")
        return
    progress(f"{head}, of which import and setup {process.get('import_torch_s', 0) + process.get('setup_s', 0):.1f} s, "
             f"first calls {sum((process.get('warm_s') or {}).values()):.1f} s): "
             + rounds.summary_line({n: out["variants"].get(n, {}) for n in names}))
    for name, group in pairs_out["groups"].items():
        progress(pair_groups.line(name, group["rounds"][-1]))
