"""The columns of "Every GPU side by side" (compare.py): one per GPU run, in the order of
their folder names, and Hugging Face's A100 last; the cells of a column in each table."""
from __future__ import annotations

import math
from dataclasses import dataclass

from ..text.catalog import t
from ..text.format import fmt_num, fmt_us
from ..variants import EXTRA_VARIANTS, VARIANTS
from ..verdict import median
from .markdown import kernel_count, markdown_safe, safe_provenance, status_text

SHAPE_KEYS = ("batch", "heads", "seq_len", "head_dim", "dtype")


@dataclass(frozen=True)
class Column:
    label: str          # Markdown-safe
    shape: tuple        # SHAPE_KEYS' values
    folder: str | None  # None: Hugging Face's A100
    results: dict       # safe_provenance(results.json), or the reference's figures
    gpu: str | None = None   # the GPU's name as results.json has it (None: the A100)
    twin: bool = False       # another run of the same GPU: the folder tells them apart


def columns(runs, ref, lang):
    """One Column per GPU run (sorted by folder), then the A100's; a run without CUDA in
    its provenance (a CPU run) is left out."""
    gpu = sorted(((folder, r) for folder, r in runs if "cuda" in r["provenance"]), key=lambda item: item[0])
    names = [r["provenance"]["gpu_name"] for _, r in gpu]
    cols = []
    for folder, raw in gpu:
        r = safe_provenance(raw)
        name, twin = r["provenance"]["gpu_name"], names.count(raw["provenance"]["gpu_name"]) > 1
        if twin:  # two runs of one GPU: the folder tells them apart
            name = f"{name} ({markdown_safe(folder)})"
        cols.append(Column(name, shape_of(r["config"]), folder, r, raw["provenance"]["gpu_name"], twin))
    cols.append(Column(t("compare.a100", lang), shape_of(ref["config"]), None, ref))
    return cols


def shape_of(config):
    return tuple(config.get(k) for k in SHAPE_KEYS)


def shape_text(shape, lang, key="compare.shape"):
    """"8 × 16 × 1024 × 64, bfloat16" (B × H × S × D), or the sentence of `key`."""
    return t(key, lang).format(**dict(zip(SHAPE_KEYS, shape, strict=True)))


def variant_names(cols):
    """Every variant some column has, the known ones in their usual order."""
    seen = [n for c in cols for n in c.results["variants"]]
    known = [n for n in VARIANTS + EXTRA_VARIANTS if n in seen]
    return known + [n for n in dict.fromkeys(seen) if n not in known]


def finite(x):
    return x if isinstance(x, (int, float)) and math.isfinite(x) and x > 0 else None


def timed(figure):
    """A stored summary with a usable median, or None."""
    return figure if figure and finite(figure.get("median")) else None


def row_of(col, name):
    return col.results["variants"].get(name)


def _ours(col, name, lang, value):
    """The cell of a measured variant: value(row), its status, or "–" where not measured."""
    row = row_of(col, name)
    if row is None:
        return t("value.none", lang)
    if row["status"] != "ok":
        return status_text(row, lang)
    return value(row)


def cuda_cell(col, name, lang):
    if col.folder is None:
        return fmt_us((row_of(col, name) or {}).get("cuda_time_us"), lang)
    return _ours(col, name, lang, lambda row: fmt_us(median(row.get("cuda_time_us")), lang))


def cpu_cell(col, name, lang):
    if col.folder is None:
        return fmt_us((row_of(col, name) or {}).get("cpu_time_us"), lang)
    return _ours(col, name, lang, lambda row: fmt_us(median(row.get("cpu_time_us")), lang))


def wall_cell(col, name, lang):
    return _ours(col, name, lang, lambda row: fmt_us((row.get("wall_time_us") or {}).get("median"), lang))


def kernels_cell(col, name, lang):
    if col.folder is None:
        n = (row_of(col, name) or {}).get("kernels_per_forward")
        return fmt_num(n, lang, 0) if n is not None else t("value.none", lang)
    return _ours(col, name, lang, lambda row: kernel_count(row, lang))


def cuda_figure(col, name):
    """A column's recorded GPU span of a variant (Hugging Face's "CUDA time" for the A100,
    a figure with no spread), or None: the profiler's figure, shown and never ranking."""
    row = row_of(col, name) or {}
    if col.folder is None:
        x = finite(row.get("cuda_time_us"))
        return {"median": x} if x else None
    if row.get("status") != "ok":
        return None
    return timed(row.get("cuda_time_us"))
