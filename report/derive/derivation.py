"""derive(results, folder): a collected run (results.COLLECTED) with every figure its kept
traces show filled in, section by section (sections.py). results.load_results calls it for
a collected run only: a run of the older schema, whose figures were computed on the GPU
machine and stored, is loaded as it is."""
from __future__ import annotations

import copy

from . import sections
from .kept import KeptError


def _rows(section, key="rows"):
    return ((section or {}).get(key) or {}) if isinstance(section, dict) else {}


def _each(rows, fill):
    """fill(row) into every row that kept a trace (a refused or failed one kept none)."""
    for row in rows:
        if isinstance(row, dict) and row.get("trace"):
            row.update(fill(row))


def derive(results, folder):
    """A copy of results with the figures of every kept trace (KeptError where one is
    missing, damaged or not the run's own)."""
    out = copy.deepcopy(results)
    gpu = bool((out.get("provenance") or {}).get("compute_capability"))
    cfg = out.get("config") or {}
    for name, row in (out.get("variants") or {}).items():
        if row.get("trace"):
            row.update(sections.seed_row(folder, name, row, cfg, gpu))
        _each(row.get("rounds") or [], lambda r: sections.round_figures(folder, r, gpu))
    for shape in _rows(out.get("overhead")).values():
        for row in shape.values():
            _each([row], lambda r: sections.round_figures(folder, r, gpu))
            _each(row.get("rounds") or [], lambda r: sections.round_figures(folder, r, gpu))
    _each(_rows(out.get("backward")).values(), lambda r: sections.training_row(folder, r, gpu))
    _each(_rows(out.get("sweep"), "points"), lambda p: sections.sweep_point(folder, p, gpu))
    _each(_rows(out.get("shapes"), "points"), lambda p: sections.shape_point(folder, p, gpu))
    eligibility = out.get("eligibility") if isinstance(out.get("eligibility"), dict) else {}
    ask_gpu = eligibility.get("device") == "cuda"
    _each(eligibility.get("conditions") or [], lambda c: sections.ask_row(folder, c, ask_gpu))
    return out


__all__ = ["KeptError", "derive"]
