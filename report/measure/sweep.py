"""Every variant over sequence lengths and head dimensions; OOM and refusals recorded."""
from __future__ import annotations

from ..variants import SWEEP_HEAD_DIMS, SWEEP_SEQ_LENS
from .callables import make_inputs, make_variant
from .guard import Refused, free, guarded, peak_extra_mib
from .timing import profile_short, wall_us


def measure_point(torch, name, cfg, q, k, v, args):
    """One sweep point: peak memory, wall time, and a short profile kept (its times are
    report/derive/'s)."""
    device = args.device
    fn, ctx = make_variant(name, cfg, device)
    try:
        with guarded(torch), ctx(), torch.no_grad():
            fn(q, k, v)
            peak = peak_extra_mib(torch, device, lambda: fn(q, k, v))
            wall = wall_us(lambda: fn(q, k, v), args.sweep_timer_seconds)
            kept = profile_short(fn, (q, k, v), f"{name}_fwd", args.sweep_steps, args.traces)
    except Refused as refused:
        return refused.row
    finally:
        free(torch, device)
    return {"status": "ok", "wall_time_us": wall, "peak_extra_mib": peak, **kept}


def _shown(point):
    if point["status"] != "ok":
        return point["status"]
    return f"wall {point['wall_time_us']['median']:10.1f} us"


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
