"""Forward + backward at the seed's shape: times, kernels per step, peak memory."""
from __future__ import annotations

from .. import snippets
from ..variants import BACKWARD_VARIANTS
from .callables import make_inputs, make_variant
from .guard import Refused, free, guarded, peak_extra_mib, timed_call_ms
from .timing import profile_train, wall_us


def backward_row(torch, name, cfg, q, k, v, grad, args):
    device = args.device
    training_step = snippets.load("training_step").training_step
    fn, ctx = make_variant(name, cfg, device)
    step = lambda: training_step(fn, q, k, v, grad)  # noqa: E731
    try:
        with guarded(torch), ctx():
            _, first = timed_call_ms(torch, device, step)
            peak = peak_extra_mib(torch, device, step)
            wall = wall_us(step, args.timer_seconds)
            kept = profile_train(torch, step, f"{name}_train", args.traces)
    except Refused as refused:
        return refused.row
    return {"status": "ok", "first_call_ms": first, "peak_extra_mib": peak,
            "wall_time_us": wall, **kept}


def measure_backward(torch, args, progress):
    device, dtype = args.device, getattr(torch, args.dtype)
    cfg = {"batch": args.batch, "heads": args.heads, "seq_len": args.seq_len, "head_dim": args.head_dim}
    q, k, v = (t.requires_grad_() for t in make_inputs(cfg, dtype, device))
    grad = torch.randn_like(q)
    rows = {}
    for name in [n for n in BACKWARD_VARIANTS if n in args.variants]:
        free(torch, device)
        rows[name] = row = backward_row(torch, name, cfg, q, k, v, grad, args)
        if row["status"] == "ok":
            progress(f"  backward {name:<14} wall {row['wall_time_us']['median']:9.1f} us per step")
    del q, k, v, grad
    free(torch, device)
    return {"config": cfg, "rows": rows}
