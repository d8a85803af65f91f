"""The reruns committed beside a GPU's run (data/reruns/<gpu>/<run>/results.json), loaded
for Reproduce's table of reruns (render/reruns.py)."""
from __future__ import annotations

from pathlib import Path

from ..paths import ROOT
from ..results import UsageError, load_results


def rerun_results(reruns_dir) -> list[tuple[str, dict]]:
    """[(run name, results)] of each rerun folder under reruns_dir (data/reruns/<gpu>/),
    by name; none where the folder is missing. A results.json that does not load is
    refused, as any results file is."""
    if reruns_dir is None or not Path(reruns_dir).is_dir():
        return []
    found = []
    for folder in sorted(p for p in Path(reruns_dir).iterdir() if (p / "results.json").is_file()):
        try:
            found.append((folder.name, load_results(folder / "results.json")))
        except UsageError as err:
            raise UsageError(f"rerun {folder}: {err}") from None
    return found


def rerun_lines(results, reruns, where) -> list[str]:
    """One line per rerun of `reruns` (rerun_results of the folder `where`): pooled with
    the run, or left out and why (render/reruns.py: pooling, the one rule), for the terminal."""
    from ..render.reruns import PACE_FACTOR, pooling

    chosen = pooling(results, reruns)
    where = Path(where)
    where = where.relative_to(ROOT) if where.is_relative_to(ROOT) else where
    lines = []
    for kept in chosen.kept:
        pace = "host pace not measured" if kept.pace is None else f"host pace {kept.pace:.3g} µs"
        host = "host not recorded" if kept.host is None else f"host {kept.host:.40}"
        lines.append(f"pooled rerun {Path(where) / kept.name} ({pace}, {host})")
    for left in chosen.left_out:
        if left.reason == "versions":
            why = "other software than the run: " + ", ".join(
                f"{field} {theirs!s:.40} against {ours!s:.40}" for field, ours, theirs in left.versions)
        elif left.reason == "pace":
            why = (f"its host pace, {left.pace:.3g} µs, lies more than {PACE_FACTOR:g}x from the other "
                   f"runs' median, {left.others:.3g} µs")
        else:
            why = "other measuring code than the run (provenance code_sha256)"
        lines.append(f"left out rerun {Path(where) / left.name}: {why}")
    return lines
