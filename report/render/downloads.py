"""The run's profiler traces as download links, for the page "Reproduce the numbers"."""
from __future__ import annotations

from pathlib import Path

from ..text.catalog import t
from .markdown import label

# the pages' placeholder for the run's folder: hooks/gpu.py replaces it, in included files too
RUN_FOLDER = "generated/GPU"


def trace_links(results, traces_dir, lang):
    """'[naive (masked_fill)](generated/GPU/traces/naive.json.gz) · …' for every variant
    of the run with a trace file, in the results' order; the "none" line where there is none."""
    folder = Path(traces_dir) if traces_dir is not None else None
    # plain link text: code spans inside a link lack contrast in the dark theme (axe-core)
    links = [f"[{label(name, lang).replace('`', '')}]({RUN_FOLDER}/traces/{name}.json.gz)"
             for name in results["variants"]
             if folder is not None and (folder / f"{name}.json.gz").is_file()]
    return " ·\n".join(links) if links else t("finding.no_traces", lang)
