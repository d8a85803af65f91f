"""The sentences the pages' prose cites, generated so that no number is typed by hand.

Each finding is one small function, registered by name (registry.py), that returns the
finding's lines for this run, or [] when the run lacks what it needs. FILES says which
findings go into which generated file.
"""
from ...text.catalog import t
from . import (  # noqa: F401
    compiled,
    first_calls,
    fused,
    home,
    naive_math,
    occupancy,
    overhead,
    recommendations,
    scaling,
    training,
)
from .registry import FINDINGS

# findings of the seed's shape: their files carry the shape note
FILES = {
    "findings-naive-math": ("math_ratio", "memcpy", "memset", "math_gemms", "math_ops"),
    "findings-math-why": ("math_why",),
    "findings-math-switches": ("math_switches",),
    "findings-fused": ("fused_rank", "auto", "cpu_cuda", "idle_gap", "first_call", "gpu_busy"),
    "findings-host-overhead": ("host_drift", "host_first_calls"),
    "findings-occupancy": ("occ_flash", "occ_zero", "occ_zero_all"),
    "findings-occupancy-launch": ("occ_launch_api",),
    "finding-rec-auto": ("rec_auto",),
    "finding-rec-cpu": ("rec_cpu",),
    "finding-rec-inplace": ("rec_inplace",),
    "findings-home": ("home_auto", "home_math", "home_cpu", "home_pin"),
}
# findings of the --all measurements
EXTRA_FILES = {
    "findings-scaling": ("oom", "fits_all", "growth", "time_growth", "fastest", "best_tflops"),
    "findings-auto-vs-best": ("auto_vs_best", "auto_small"),
    "findings-first-calls": ("first_calls",),
    "findings-overhead": ("overhead",),
    "findings-training": ("train_ratio", "train_kernels", "train_memory"),
    "findings-compiled": ("compiled", "flex"),
}


def render_findings(results, ref, lang, names):
    """A Markdown list of the findings' lines, or the "not measured" line."""
    lines = [line for name in names for line in FINDINGS[name](results, ref, lang)]
    return "\n".join(f"- {line}" for line in lines) if lines else t("finding.missing", lang)
