"""The reruns committed beside a GPU's run (data/reruns/<gpu>/<run>/results.json), loaded
for Reproduce's table of reruns (render/reruns.py)."""
from __future__ import annotations

from pathlib import Path

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
