"""What SDPA math's dtype conversions convert, told apart in the variant's committed trace.

`_scaled_dot_product_attention_math` (aten/src/ATen/native/transformers/attention.cpp)
converts `q`, `k` and `v` to FP32 before its first matmul, and at its `return` converts two
things back to the input dtype: the output (L×D per head) and the weight matrix after the
softmax (L×S per head, `attn.to(origin_dtype)`, the second output SDPA drops). results.json
keeps one row per kernel name and op stack, so the two conversions back (the same kernel)
share a row there; the trace has each launch. This module reads them per step:

- the conversions launched before the step's first `aten::matmul` are the inputs upcast;
- of the two after it, both the same kernel, the one launched with more threads converts
  more elements: the weights, provided the ratio of their threads is S/D, the ratio of the
  two sizes (checked; otherwise the two are kept together as "converted back").

The parts add up to the attribution's "dtype_conversion" row (checked, else no split).
"""
from __future__ import annotations

import math
from pathlib import Path

from ..stats import stats
from ..trace.analyze import activities_per_step, as_trace, op_stack_finder, ranges_named, read, step_finder
from ..trace.causes import cause_of
from ..trace.names import kernel_kind

PARTS = ("inputs", "output", "weights", "back")  # "back": output and weights, not told apart
RATIO_TOLERANCE = 0.02  # how far the threads' ratio may be from S/D (a grid is rounded up)


def _threads(event):
    args = event.args or {}
    grid, block = args.get("grid"), args.get("block")
    return math.prod(grid) * math.prod(block) if grid and block else None


def split_steps(trace, range_name, seq_len, head_dim):
    """{part: [µs in each step]} for the dtype conversions of each `range_name` range of a
    trace (a Trace of the reader, or a dict), and the activities per step of each part; None
    where the trace does not show the pattern above (no range, no matmul, a different number
    of conversions per step)."""
    events = as_trace(trace).events
    ranges = ranges_named((e for e in events if e.cat == "user_annotation"), range_name)
    if not ranges:
        return None
    step_of = step_finder(ranges)
    per_step, _ = activities_per_step(events, len(ranges), step_of)
    op_stack = op_stack_finder(events)
    matmuls = [e for e in events if e.cat == "cpu_op" and e.name == "aten::matmul"]
    out, counts = {}, None
    for i, acts in enumerate(per_step):
        starts = [m.ts for m in matmuls if step_of(m.ts) == i]
        if not starts:
            return None
        conv = [(e, launch) for e, launch in acts
                if cause_of(op_stack(launch), kernel_kind(e), e.name) == "dtype_conversion"]
        inputs = [e for e, launch in conv if launch.ts < min(starts)]
        back = sorted((e for e, launch in conv if launch.ts >= min(starts)), key=lambda e: _threads(e) or 0)
        parts = {"inputs": inputs}
        threads = [_threads(e) for e in back]
        told = (len(back) == 2 and back[0].name == back[1].name and all(threads)
                and abs(threads[1] / threads[0] - seq_len / head_dim) <= RATIO_TOLERANCE * seq_len / head_dim)
        parts.update({"output": back[:1], "weights": back[1:]} if told else {"back": back})
        mine = {p: len(es) for p, es in parts.items() if es}
        if counts is not None and mine != counts:
            return None
        counts = mine
        for part, es in parts.items():
            if es:
                out.setdefault(part, []).append(sum(e.dur for e in es))
    return {"us": out, "activities": counts} if out else None


def conversion_split(name, row, traces_dir, config):
    """{part: {"us_per_forward", "activities_per_forward", "us": stats per step}} for the
    variant `name` (its row, its trace traces_dir/<name>.json.gz), in PARTS order, or None
    where the trace is missing,
    cannot be read, does not show the pattern, or its parts do not add up to the row's
    "dtype_conversion" figure (then the attribution keeps its one row)."""
    whole = (row.get("attribution") or {}).get("dtype_conversion")
    path = Path(traces_dir) / f"{name}.json.gz" if traces_dir is not None else None
    if not whole or path is None or not path.is_file():
        return None
    try:  # the range each forward pass is recorded in (report/measure/seed.py: measure_variant)
        found = split_steps(read(path), f"{name}_fwd", config["seq_len"], config["head_dim"])
    except (OSError, ValueError, KeyError):  # unreadable, no trace (the reader's ReadError), no such field
        return None
    if not found:
        return None
    steps = len(next(iter(found["us"].values())))
    split = {p: {"us_per_forward": sum(found["us"][p]) / steps, "activities_per_forward": found["activities"][p],
                 "us": stats(found["us"][p])} for p in PARTS if p in found["us"]}
    total = sum(s["us_per_forward"] for s in split.values())
    if abs(total - whole["us_per_forward"]) > 1e-6 * whole["us_per_forward"] or \
            sum(s["activities_per_forward"] for s in split.values()) != whole["activities_per_forward"]:
        return None
    return split
