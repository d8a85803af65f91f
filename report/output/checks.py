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

SECTION_FLAGS = tuple(key for key, _, _ in SECTIONS)  # results.json keys, each with its own flag


def check_writable(out):
    """Refuse an output location the run could not write, before any measurement."""
    out = Path(out)
    existing = out
    while not existing.exists() and existing != existing.parent:
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


def _shape(config):
    return {k: config.get(k) for k in ("batch", "heads", "seq_len", "head_dim", "dtype")}


def check_target(args, out, slug, prov):
    """Refuse to replace results of another device, another shape, or a fuller run."""
    target = Path(out) / slug
    if slug == COMPARE:
        raise UsageError(f"{target} holds the comparison of every GPU, not one GPU's results: "
                         "choose another --slug (nothing was measured)")
    if target.exists() and not target.is_dir():
        raise UsageError(f"{target} is a file, not a results folder (nothing was measured)")
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
        lost += [f"--{s.replace('_', '-')}" for s in SECTION_FLAGS if s in old and not getattr(args, s)]
        if lost:
            why = f"holds {', '.join(lost)}, which this run would not measure"
    if why:
        raise UsageError(f"{target} {why}: pass --replace to replace it, or choose another "
                         "--slug or --out (nothing was measured)")
