"""Every variant over sequence lengths and head dimensions; OOM and refusals recorded."""
from __future__ import annotations

from ..trace.names import backend_of_kernels
from ..variants import SDPA_VARIANTS, SWEEP_HEAD_DIMS, SWEEP_SEQ_LENS
from .callables import causal_flops, make_inputs, make_variant
from .guard import Refused, free, guarded, peak_extra_mib
from .timing import profile_short, wall_us


def measure_point(torch, name, cfg, q, k, v, args):
    """One sweep point: peak memory, wall time, and times from a short profile."""
    device = args.device
    fn, ctx = make_variant(name, cfg, device)
    try:
        with guarded(torch), ctx(), torch.no_grad():
            fn(q, k, v)
            peak = peak_extra_mib(torch, device, lambda: fn(q, k, v))
            wall = wall_us(lambda: fn(q, k, v), args.sweep_timer_seconds)
            prof = profile_short(fn, (q, k, v), f"{name}_fwd", args.sweep_steps, device)
    except Refused as refused:
        return refused.row
    finally:
        free(torch, device)
    timing = prof["kernel_sum_us"] or prof["cpu_time_us"]  # GPU work; small shapes wait on the CPU
    ran = backend_of_kernels([k["name"] for k in prof["kernels"]]) if name in SDPA_VARIANTS else None
    return {"status": "ok", "backend_ran": ran if prof["kernels"] else None,
            "cuda_time_us": prof["cuda_time_us"], "cpu_time_us": prof["cpu_time_us"],
            "kernel_sum_us": prof["kernel_sum_us"], "wall_time_us": wall, "peak_extra_mib": peak,
            "tflops": causal_flops(cfg) / (timing["median"] * 1e-6) / 1e12}


def _shown(point):
    if point["status"] != "ok":
        return point["status"]
    return f"{(point['cuda_time_us'] or point['cpu_time_us'])['median']:10.1f} us"


def measure_sweep(torch, args, progress):
    device, dtype = args.device, getattr(torch, args.dtype)
    seq_lens = [s for s in SWEEP_SEQ_LENS if s <= args.sweep_max_seq]
    points = []
    for head_dim in SWEEP_HEAD_DIMS:
        for seq_len in seq_lens:
            free(torch, device)
            cfg = {"batch": args.batch, "heads": args.heads, "seq_len": seq_len, "head_dim": head_dim}
            try:
                with guarded(torch):
                    q, k, v = make_inputs(cfg, dtype, device)
            except Refused as refused:
                points += [{"variant": n, **cfg, **refused.row} for n in args.variants]
                continue
            for name in args.variants:
                point = {"variant": name, **cfg, **measure_point(torch, name, cfg, q, k, v, args)}
                points.append(point)
                progress(f"  sweep d={head_dim:<3} S={seq_len:<5} {name:<14} {_shown(point)}")
            del q, k, v
    free(torch, device)
    return {"batch": args.batch, "heads": args.heads, "dtype": args.dtype, "seq_lens": seq_lens,
            "head_dims": list(SWEEP_HEAD_DIMS), "steps": args.sweep_steps, "points": points}
