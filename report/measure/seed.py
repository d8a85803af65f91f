"""Every variant at the seed's shape: first call, error, memory, timers and a full trace."""
from __future__ import annotations

from pathlib import Path

from .. import snippets
from ..trace.analyze import analyze_trace
from ..trace.kernel_occupancy import add_occupancy, limits_from_trace
from ..trace.names import backend_of_kernels
from ..variants import SDPA_VARIANTS
from .callables import causal_flops, make_variant
from .guard import Refused, guarded, peak_extra_mib, timed_call_ms
from .host import host_overheads, small_op
from .timing import keep_trace, wall_us

TRACE_FIELDS = ("steps", "cpu_time_us", "cuda_time_us", "kernel_sum_us", "launch_api_us",
                "gpu_activities_per_forward", "kernels", "attribution", "cpu_ops_per_forward")


def _timings(torch, fn, q, k, v, ref, args):
    device = args.device
    out, first_ms = timed_call_ms(torch, device, lambda: fn(q, k, v))
    row = {"status": "ok", "reason": None, "first_call_ms": first_ms,
           "rel_error": float((out.double() - ref).norm() / ref.norm())}
    del out
    if device == "cuda":
        row["peak_extra_mib"] = peak_extra_mib(torch, device, lambda: fn(q, k, v))
    row["wall_time_us"] = wall_us(lambda: fn(q, k, v), args.timer_seconds, with_number=True)
    return row


def _profile(fn, q, k, v, name, args, trace_dir):
    """Profile the forward pass, keep its trace as traces/<name>.json.gz, return both."""
    profile_forward = snippets.load("profile_attention").profile_forward
    raw_path = Path(trace_dir) / f"{name}.json"
    prof = profile_forward(fn, q, k, v, name=f"{name}_fwd", steps=args.steps,
                           trace_path=str(raw_path))
    sort_by = "cuda_time_total" if args.device == "cuda" else "cpu_time_total"
    table = prof.key_averages().table(sort_by=sort_by, row_limit=14, max_name_column_width=48)
    return table, keep_trace(raw_path)


def _gpu_figures(row, analysis, name, cfg):
    props = analysis["device_properties"]
    if props:
        add_occupancy(row["kernels"], limits_from_trace(props))
    else:
        add_occupancy(row["kernels"], snippets.load("occupancy").GpuLimits.from_torch())
    names = [k["name"] for k in row["kernels"]]
    row["backend_ran"] = backend_of_kernels(names) if name in SDPA_VARIANTS else None
    if row["cuda_time_us"]:
        row["tflops"] = causal_flops(cfg) / (row["cuda_time_us"]["median"] * 1e-6) / 1e12


def measure_variant(torch, name, cfg, q, k, v, ref, args, trace_dir):
    """(one row of results.json's "variants", (callable, context factory)); a refusal or
    OOM is a row with its reason. The host overhead comes later, from measure_host."""
    fn, ctx = make_variant(name, cfg, args.device)
    try:
        with guarded(torch), ctx(), torch.no_grad():
            row = _timings(torch, fn, q, k, v, ref, args)
            row["profiler_table"], trace = _profile(fn, q, k, v, name, args, trace_dir)
    except Refused as refused:
        return refused.row, (fn, ctx)
    analysis = analyze_trace(trace, f"{name}_fwd")
    row.update({key: analysis[key] for key in TRACE_FIELDS})
    if args.device == "cuda":
        _gpu_figures(row, analysis, name, cfg)
    else:  # no GPU: the GPU-side figures do not exist
        row.update(cuda_time_us=None, kernel_sum_us=None, launch_api_us=None,
                   gpu_activities_per_forward=None, backend_ran=None)
        row["tflops"] = causal_flops(cfg) / (row["cpu_time_us"]["median"] * 1e-6) / 1e12
    return row, (fn, ctx)


def measure_host(torch, variants, made, inputs, args):
    """Host overhead of every variant that ran, in one pass that visits them in turn
    (report/measure/host.py), stored as each row's "host_time_us"."""
    q, k, v = inputs
    calls = {name: ((lambda fn=fn: fn(q, k, v)), ctx) for name, (fn, ctx) in made.items()
             if variants[name]["status"] == "ok"}
    with torch.no_grad():
        found = host_overheads(torch, args.device, calls, small_op(torch, args.device, q.dtype), args.host_calls)
    for name, host in found.items():
        variants[name]["host_time_us"] = host
