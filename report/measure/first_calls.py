"""What a fused backend's first call costs, taken apart: library loading and plan
building (the first call in the process, from the seed measurement), the same shape
again, and the first and second call of a shape the process has not seen.

PyTorch keeps cuDNN's attention plans in a cache keyed on the call's sizes, strides,
dtypes and flags (aten/src/ATen/native/cudnn/MHA.cpp, MHAGraphCache), so a new shape
builds a new plan while a repeated one does not.
"""
from __future__ import annotations

from ..variants import FUSED
from .callables import make_inputs, make_variant
from .guard import Refused, guarded, timed_call_ms


def new_shape(cfg):
    """A shape the seed measurement did not use: twice the sequence length."""
    return {**cfg, "seq_len": cfg["seq_len"] * 2}


def first_call_row(torch, name, cfg, seed_row, dtype, device):
    fn, ctx = make_variant(name, cfg, device)
    row = {"first_in_process_ms": seed_row.get("first_call_ms")}
    try:
        with guarded(torch), ctx(), torch.no_grad():
            q, k, v = make_inputs(cfg, dtype, device)
            row["same_shape_again_ms"] = timed_call_ms(torch, device, lambda: fn(q, k, v))[1]
            shape = new_shape(cfg)
            q2, k2, v2 = make_inputs(shape, dtype, device)
            row["first_new_shape_ms"] = timed_call_ms(torch, device, lambda: fn(q2, k2, v2))[1]
            row["new_shape_again_ms"] = timed_call_ms(torch, device, lambda: fn(q2, k2, v2))[1]
    except Refused as refused:
        return refused.row
    return {"status": "ok", **row}


def measure_first_calls(torch, args, results, progress):
    device, dtype = args.device, getattr(torch, args.dtype)
    cfg = {k: results["config"][k] for k in ("batch", "heads", "seq_len", "head_dim")}
    rows = {}
    for name in FUSED:
        seed_row = results["variants"].get(name, {})
        if seed_row.get("status") != "ok":
            continue
        rows[name] = row = first_call_row(torch, name, cfg, seed_row, dtype, device)
        if row["status"] == "ok":
            progress(f"  first calls {name:<10} process {row['first_in_process_ms']:9.2f} ms  "
                     f"again {row['same_shape_again_ms']:7.3f} ms  new shape "
                     f"{row['first_new_shape_ms']:9.2f} ms  again {row['new_shape_again_ms']:7.3f} ms")
    return {"new_shape": new_shape(cfg), "rows": rows}
