"""Every variant at the seed's shape: first call, error, memory, timers and a full trace
(kept whole: its figures are report/derive/'s)."""
from __future__ import annotations

from pathlib import Path

from .. import snippets
from .callables import make_variant
from .guard import Refused, guarded, peak_extra_mib, timed_call_ms
from .host import host_overheads, small_op
from .timing import keep_trace, wall_us


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
    """Profile the forward pass, keep its trace as traces/<name>.json.gz: (torch.profiler's
    own table, {"trace", "range"})."""
    profile_forward = snippets.load("profile_attention").profile_forward
    raw_path = Path(trace_dir) / f"{name}.json"
    prof = profile_forward(fn, q, k, v, name=f"{name}_fwd", steps=args.steps,
                           trace_path=str(raw_path))
    sort_by = "cuda_time_total" if args.device == "cuda" else "cpu_time_total"
    table = prof.key_averages().table(sort_by=sort_by, row_limit=14, max_name_column_width=48)
    keep_trace(raw_path)
    return table, {"trace": f"traces/{name}.json.gz", "range": f"{name}_fwd"}


def measure_variant(torch, name, cfg, q, k, v, ref, args, trace_dir):
    """(one row of results.json's "variants", (callable, context factory)); a refusal or
    OOM is a row with its reason. The host overhead comes later, from measure_host."""
    fn, ctx = make_variant(name, cfg, args.device)
    try:
        with guarded(torch), ctx(), torch.no_grad():
            row = _timings(torch, fn, q, k, v, ref, args)
            row["profiler_table"], kept = _profile(fn, q, k, v, name, args, trace_dir)
    except Refused as refused:
        return refused.row, (fn, ctx)
    row.update(kept)
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
