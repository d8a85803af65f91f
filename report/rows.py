"""A row of results.json read by what it measures, not by its key: the one place outside
the writers (trace/analyze.py: analyze_trace, measure/) and schema.py (the types) that
names the keys of a row's profiled times. A variant row, a round, a sweep or shape point,
a backward or overhead row all store them alike (schema.py); each reader takes the
summary (schema.Stats) through these, or None where the row (or the time) is missing.

The names are the glossary's metrics: kernel time, GPU span, profiled CPU time.
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .schema import Stats

Row = Mapping[str, Any] | None

# The keys, for the readers that take a figure by key (a round's figure, a table's column).
KERNEL_TIME = "kernel_sum_us"  # trace/analyze.py: _gpu_times, the sum of GPU activity per forward
GPU_SPAN = "cuda_time_us"  # trace/analyze.py: _gpu_times, the GPU span per forward
CPU_TIME = "cpu_time_us"  # trace/analyze.py: analyze_trace, the profiled CPU range


def kernel_time(row: Row) -> Stats | None:
    """Kernel time: the sum of the GPU's activity per forward."""
    return row.get(KERNEL_TIME) if row else None


def gpu_span(row: Row) -> Stats | None:
    """GPU span: the forward's range on the GPU (where none was recorded, its first GPU
    activity to its last)."""
    return row.get(GPU_SPAN) if row else None


def cpu_time(row: Row) -> Stats | None:
    """Profiled CPU time: the CPU range the profiler recorded around a forward."""
    return row.get(CPU_TIME) if row else None


def gpu_work(row: Row) -> Stats | None:
    """The time the work itself took: the kernel time, else (a run without a GPU, where the
    work runs on the CPU, or a row without kernels) the profiled CPU time."""
    return kernel_time(row) or cpu_time(row)


def with_kernel_time(stats: Stats | Any) -> dict[str, Any]:
    """A row holding only a kernel time: a figure measured elsewhere (a recorded table's
    steps, a model's point) given to a rule that reads rows."""
    return {KERNEL_TIME: stats}
