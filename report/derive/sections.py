"""What each section of a collected run keeps of its traces: the figures trace/analyze.py
reads off one kept trace, as each section's rows held them when they were computed on the
GPU machine (schema.py's rows name the code of each field)."""
from __future__ import annotations

from ..rows import CPU_TIME, GPU_SPAN, KERNEL_TIME, gpu_span, gpu_work
from ..trace.kernel_occupancy import add_occupancy, limits_from_trace
from ..trace.names import backend_of_kernels
from ..variants import SDPA_VARIANTS, causal_flops
from .kept import analysis

KERNEL_FIELDS = ("name", "short_name", "kind", "aten_op", "aten_stack", "per_forward", "avg_us")
SHAPE_KERNEL_FIELDS = ("name", "short_name", "kind", "aten_op", "per_forward", "avg_us", "grid", "block")
SUMMARY = (GPU_SPAN, KERNEL_TIME, CPU_TIME, "gpu_activities_per_forward")
ROUND = (KERNEL_TIME, GPU_SPAN, CPU_TIME)  # a round's compared figures
SEED = ("steps", CPU_TIME, GPU_SPAN, KERNEL_TIME, "launch_api_us",
        "gpu_activities_per_forward", "kernels", "attribution", "cpu_ops_per_forward")
GPU_ONLY = (GPU_SPAN, KERNEL_TIME, "gpu_activities_per_forward", "launch_api_us")
ASK_KERNELS = 24  # kernel names kept per condition


def _figures(folder, row, gpu, cuda_time="gpu_range"):
    """The row's trace analysed; without a GPU in the run, its GPU-side figures do not exist."""
    a = analysis(folder, row, cuda_time)
    if not gpu:
        a.update(dict.fromkeys(GPU_ONLY))
    return a


def summary(folder, row, gpu, kernel_fields=KERNEL_FIELDS, cuda_time="gpu_range"):
    """A short profile's figures (a sweep point, a shape point, a training row)."""
    a = _figures(folder, row, gpu, cuda_time)
    return {k: a[k] for k in SUMMARY} | {"kernels": [{f: k.get(f) for f in kernel_fields} for k in a["kernels"]]}


def round_figures(folder, row, gpu):
    """A round's (and an overhead row's) kernel time, GPU span and profiled CPU time."""
    a = _figures(folder, row, gpu)
    return {k: a[k] for k in ROUND}


def _backend(kernels, sdpa):
    """The SDPA backend the kernel names show (trace/names.py), for an SDPA call with kernels."""
    names = [k["name"] for k in kernels]
    return backend_of_kernels(names) if sdpa and names else None


def tflops(cfg, time_us):
    """Causal attention's FLOPs over a time per call (a stats summary), in TFLOP/s."""
    return causal_flops(cfg) / (time_us["median"] * 1e-6) / 1e12


def seed_row(folder, name, row, cfg, gpu):
    """A variant at the seed's shape: its full profile's figures; on a GPU each kernel's
    occupancy from the trace's device properties, the backend and TFLOP/s by GPU span."""
    a = _figures(folder, row, gpu)
    out = {key: a[key] for key in SEED}
    if gpu:
        props = a["device_properties"]
        if props:
            add_occupancy(out["kernels"], limits_from_trace(props))
        out["backend_ran"] = _backend(out["kernels"], name in SDPA_VARIANTS)
        out["tflops"] = tflops(cfg, gpu_span(out)) if gpu_span(out) else None
    else:
        out["backend_ran"] = None
        out["tflops"] = tflops(cfg, gpu_work(out))  # no kernel time without a GPU: the CPU's
    return out


def sweep_point(folder, point, gpu):
    """A sweep point: the short profile's times, the backend, TFLOP/s by kernel time (by
    profiled CPU time without a GPU: small shapes wait on the CPU)."""
    s = summary(folder, point, gpu)
    cfg = {k: point[k] for k in ("batch", "heads", "seq_len", "head_dim")}
    return {**{k: s[k] for k in ROUND},
            "backend_ran": _backend(s["kernels"], point["variant"] in SDPA_VARIANTS),
            "tflops": tflops(cfg, gpu_work(s))}


def shape_point(folder, point, gpu):
    s = summary(folder, point, gpu, SHAPE_KERNEL_FIELDS)
    return s | {"backend_ran": _backend(s["kernels"], gpu and point.get("sdpa", False))}


def training_row(folder, row, gpu):
    """Forward and backward: the GPU time from the first to the last activity (backward's
    kernels are launched from autograd's thread, outside the range's GPU side)."""
    return summary(folder, row, gpu, cuda_time="kernel_span")


def ask_backend(names):
    """The backend kernel names show (trace/names.py); "other" where no fused kernel ran and
    Inductor's generated (Triton) kernels did; None without kernels (a CPU run)."""
    if not names:
        return None
    found = backend_of_kernels(names)
    return "other" if found == "math" and any(n.startswith("triton") for n in names) else found


def ask_row(folder, row, gpu):
    """A condition of the eligibility grid: its kernels' names, which backend they show
    ("other" where no fused kernel ran and Inductor's Triton kernels did) and, on a GPU,
    the kernel time per profiled step."""
    a = analysis(folder, row)
    names = [k["name"] for k in a["kernels"] if k["kind"] == "kernel"]
    steps = a["kernel_sum_steps_us"]
    median = a[KERNEL_TIME]["median"] if a[KERNEL_TIME] else 0
    timed = gpu and steps and median > 0
    return {"kernels": names[:ASK_KERNELS], "ran": ask_backend(names),
            "kernel_time_us": {"median": median, "steps": steps} if timed else None}
