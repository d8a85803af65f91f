"""Wall time per call against kernel time, eager and replayed from a CUDA graph; and on a
GPU, the traces of one small-shape call eagerly and replayed (traces/small_auto.json.gz,
traces/small_auto_graph.json.gz: the timelines of "When the GPU waits")."""
from __future__ import annotations

from pathlib import Path

from .. import snippets
from ..variants import SMALL_SHAPE
from .callables import make_inputs, make_variant
from .guard import Refused, first_line, free, guarded
from .timing import keep_trace, profile_short, wall_us


def _graph_wall(fn, q, k, v, seconds):
    """{"graph_wall_us": ...}, or {"graph_error": why} when the call cannot be captured."""
    try:
        replay = snippets.load("cuda_graphs").capture(fn, q, k, v)
        return {"graph_wall_us": wall_us(replay, seconds)}
    except (RuntimeError, AssertionError) as err:
        return {"graph_error": first_line(err)[:300]}


TRACED = "auto"  # the small shape's variant whose traces are kept, eager and replayed


def record_traces(torch, fn, q, k, v, args, trace_dir):
    """traces/small_<TRACED>.json.gz and traces/small_<TRACED>_graph.json.gz: fn(q, k, v)
    profiled eagerly and replayed from a CUDA graph, the way every variant's trace is
    (profile_attention.profile_forward, args.steps active steps); the replay's trace is
    left out where the call cannot be captured (the row says why)."""
    profile_forward = snippets.load("profile_attention").profile_forward
    base = Path(trace_dir) / f"small_{TRACED}"
    profile_forward(fn, q, k, v, name=f"small_{TRACED}_fwd", steps=args.steps, trace_path=f"{base}.json")
    keep_trace(f"{base}.json")
    try:
        replay = snippets.load("cuda_graphs").capture(fn, q, k, v)
    except (RuntimeError, AssertionError):
        return
    profile_forward(lambda *_: replay(), q, k, v, name=f"small_{TRACED}_graph_fwd", steps=args.steps,
                    trace_path=f"{base}_graph.json")
    keep_trace(f"{base}_graph.json")


def overhead_row(torch, name, cfg, q, k, v, args, trace_dir=None):
    """One variant at one shape; with trace_dir (a GPU run's small shape, TRACED alone) its
    traces are kept too (record_traces)."""
    fn, ctx = make_variant(name, cfg, args.device)
    try:
        with guarded(torch), ctx(), torch.no_grad():
            fn(q, k, v)
            row = {**profile_short(fn, (q, k, v), f"{name}_fwd", 20, args.traces),
                   "eager_wall_us": wall_us(lambda: fn(q, k, v), args.timer_seconds)}
            row.update(_graph_wall(fn, q, k, v, args.timer_seconds))
            if trace_dir is not None:
                record_traces(torch, fn, q, k, v, args, trace_dir)
    except Refused as refused:
        return refused.row
    row["status"] = "ok"
    return row


def measure_overhead(torch, args, progress, trace_dir=None):
    device, dtype = args.device, getattr(torch, args.dtype)
    shapes = {"seed": {"batch": args.batch, "heads": args.heads, "seq_len": args.seq_len,
                       "head_dim": args.head_dim}, "small": dict(SMALL_SHAPE)}
    out = {"shapes": shapes, "rows": {}}
    for shape_name, cfg in shapes.items():
        q, k, v = make_inputs(cfg, dtype, device)
        for name in args.variants:
            free(torch, device)
            keep = trace_dir if shape_name == "small" and name == TRACED and device == "cuda" else None
            row = overhead_row(torch, name, cfg, q, k, v, args, keep)
            out["rows"].setdefault(shape_name, {})[name] = row
            if row["status"] == "ok":
                g = row.get("graph_wall_us", {}).get("median", float("nan"))
                progress(f"  overhead {shape_name:<5} {name:<14} wall: eager "
                         f"{row['eager_wall_us']['median']:9.1f} us  graph {g:9.1f} us")
        del q, k, v
    free(torch, device)
    return out
