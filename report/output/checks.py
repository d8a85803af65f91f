"""Refusals before anything is measured: an output location the run cannot write, and a
target folder it must not replace."""
from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path

from ..measure.run import SECTIONS
from ..paths import COMPARE
from ..results import UsageError
from .folders import refuse_replacing, refuse_set_aside

SECTION_FLAGS = tuple(flag for _, flag, _ in SECTIONS)  # each results.json section's own flag


def check_writable(out):
    """Refuse an output location the run could not write, before any measurement."""
    if not str(out):
        raise UsageError("--out is empty: name a folder (nothing was measured)")
    out = Path(out)
    existing = out
    while not existing.exists() and existing != existing.parent:
        if existing.is_symlink():
            raise UsageError(f"--out {out}: {existing} is a symbolic link to a missing "
                             f"{os.readlink(existing)} (nothing was measured)")
        existing = existing.parent
    if not existing.is_dir():
        raise UsageError(f"--out {out}: {existing} is not a folder (nothing was measured)")
    try:
        fd, probe = tempfile.mkstemp(prefix=".write-test-", dir=existing)
        os.close(fd)
        os.unlink(probe)
    except OSError as err:
        raise UsageError(f"--out {out}: cannot write in {existing} ({err.strerror or err}); "
                         "choose another --out (nothing was measured)") from None
    check_temp()


def check_temp():
    """Refuse a temporary folder (TMPDIR) that cannot take a file, before measuring."""
    try:
        with tempfile.TemporaryDirectory(prefix="build-tables-probe-") as tmp:
            (Path(tmp) / "probe").write_bytes(b"\0" * 65536)
    except OSError as err:
        raise UsageError(f"the temporary folder {tempfile.gettempdir()} cannot take the run's "
                         f"traces ({err.strerror or err}); set TMPDIR to a folder with space "
                         "(nothing was measured)") from None


def _shape(config):
    return {k: config.get(k) for k in ("batch", "heads", "seq_len", "head_dim", "dtype")}


def check_folder(out, slug):
    """Refuse a target that is the comparison, a file, or a folder build_tables.py did not
    write; needs no device, so the command asks it before importing torch."""
    target = Path(out) / slug
    if slug == COMPARE:
        raise UsageError(f"{target} holds the comparison of every GPU, not one GPU's results: "
                         "choose another --slug (nothing was measured)")
    if target.exists() and not target.is_dir():
        raise UsageError(f"{target} is a file, not a results folder (nothing was measured)")
    refuse_replacing(target)  # even with --replace: only a folder build_tables.py wrote
    refuse_set_aside(target.with_name(target.name + ".old"))  # a backup the swap would replace


def check_target(args, out, slug, prov):
    """Refuse to replace results of another device, another shape, or a fuller run."""
    check_folder(out, slug)
    target = Path(out) / slug
    old_path = target / "results.json"
    if args.replace or not old_path.is_file():
        return
    try:
        old = json.loads(old_path.read_text(encoding="utf-8"))
        old_gpu = old["provenance"]["gpu_name"]
    except (OSError, ValueError, KeyError, TypeError):
        raise UsageError(f"{old_path} is there but unreadable; pass --replace to overwrite it, "
                         "or choose another --slug (nothing was measured)") from None
    why = None
    if old_gpu != prov["gpu_name"]:
        why = f"holds results of {old_gpu}, and this run is on {prov['gpu_name']}"
    elif _shape(old.get("config", {})) != _shape(vars(args)):
        why = "holds results of another shape or dtype"
    else:
        lost = [v for v in old.get("variants", {}) if v not in args.variants]
        lost += [f"--{flag.replace('_', '-')}" for key, flag, _ in SECTIONS
                 if key in old and not getattr(args, flag)]
        if lost:
            why = f"holds {', '.join(lost)}, which this run would not measure"
    if why:
        raise UsageError(f"{target} {why}: pass --replace to replace it, or choose another "
                         "--slug or --out (nothing was measured)")


BYTES = {"float32": 4, "float16": 2, "bfloat16": 2, "float64": 8}
MEMORY_SHARE = 0.8  # of the memory available now: what a CPU run may plan to use
CPU_FLOPS = 50e9  # a rough rate for a CPU's attention; the estimate says it is rough
SAY_TIME_FROM = 60  # seconds: a run expected to be shorter gets no estimate line
CALLS_BESIDE_STEPS = 10  # warm-up, the reference, the error check, the timer's first rounds


def cpu_memory_needed(args):
    """Bytes a CPU run of this shape holds at its peak: q, k, v and the output in the
    dtype, the float64 reference of them, and the L x L scores with their softmax."""
    n = args.batch * args.heads * args.seq_len * args.head_dim
    scores = args.batch * args.heads * args.seq_len * args.seq_len
    size = BYTES.get(args.dtype, 4)
    return 4 * n * size + 8 * (4 * n + 2 * scores) + 3 * scores * size


def available_memory():
    """Bytes of memory available now (MemAvailable), or None where the system says not."""
    try:
        with open("/proc/meminfo", encoding="ascii") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    try:
        return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, AttributeError):
        return None


def _gib(n):
    return f"{n / 2**30:,.1f} GiB"


def check_cpu_memory(args, available=None):
    """Refuse a CPU shape that does not fit in memory, before anything is allocated."""
    if args.device != "cpu":
        return
    available = available_memory() if available is None else available
    needed = cpu_memory_needed(args)
    if available is not None and needed > MEMORY_SHARE * available:
        raise UsageError(f"the shape {args.batch}x{args.heads}x{args.seq_len}x{args.head_dim} "
                         f"needs about {_gib(needed)} of memory on the CPU (q, k, v, the output, "
                         f"a float64 reference and the {args.seq_len} x {args.seq_len} scores), "
                         f"and {_gib(available)} is available: use a smaller shape (nothing "
                         "was measured)")


def cpu_time_estimate(args):
    """A line that says how long a CPU run will take, roughly, or None for a short one."""
    if args.device != "cpu":
        return None
    flops = 4 * args.batch * args.heads * args.seq_len ** 2 * args.head_dim
    calls = args.steps + args.host_calls + CALLS_BESIDE_STEPS
    seconds = len(args.variants) * (calls * flops / CPU_FLOPS + args.timer_seconds)
    if seconds < SAY_TIME_FROM:
        return None
    shown = f"{seconds / 60:.0f} min" if seconds < 5400 else f"{seconds / 3600:.1f} h"
    return (f"this CPU run will take roughly {shown} ({len(args.variants)} variants x {calls} "
            f"calls of {flops / 1e9:,.1f} GFLOP at about {CPU_FLOPS / 1e9:.0f} GFLOP/s); for a "
            "quick look use e.g. --batch 1 --heads 1 --seq-len 256 --steps 5 --host-calls 20")


def before_measuring(args, out):
    """Every refusal that needs no device, before torch is imported (UsageError); the lines
    to print before the run starts (how long a CPU run will take)."""
    check_writable(out)
    if args.slug:
        check_folder(out, args.slug)
    check_cpu_memory(args)
    estimate = cpu_time_estimate(args)
    return [estimate] if estimate else []
