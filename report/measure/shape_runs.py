"""--shapes: today's attention shapes, unpinned and pinned to every SDPA backend.

Decode (one and a few new tokens against a KV cache), a long prompt, grouped-query
attention (shared K/V heads against K/V repeated by hand) and a sliding window
(FlexAttention) against the causal mask. Each point records which backend ran (from the
trace's kernel names), kernel time, GPU span, wall time, host time, memory, the error
against float64 on a slice, and the reason when a backend refuses.
"""
from __future__ import annotations

import json
from contextlib import nullcontext

from .. import snippets
from ..variants import SHAPE_BACKENDS, SHAPES_CPU, SHAPES_GPU, SHAPES_MEMORY_SHARE
from .guard import Refused, first_line, free, guarded, peak_extra_mib, timed_call_ms
from .host import host_overheads, small_op
from .roof import measure_copy_roof
from .timing import profile_short, wall_us

REFERENCE_ROWS = 16  # query rows (the last ones) checked against float64


def shape_config(device):
    return SHAPES_GPU if device == "cuda" else SHAPES_CPU


def device_memory_bytes(torch, device):
    """The device's memory, read from the device (None on the CPU: no cap there)."""
    if device != "cuda":
        return None
    return torch.cuda.get_device_properties(0).total_memory


def plan(cfg):
    """[(family, shape, variants)] in measuring order."""
    h, d = cfg["heads"], cfg["head_dim"]

    def shape(batch, kv_heads, q_len, kv_len, window=None):
        return {"batch": batch, "q_heads": h, "kv_heads": kv_heads, "q_len": q_len,
                "kv_len": kv_len, "head_dim": d, "window": window}

    points = [("decode", shape(b, h, q, kv), SHAPE_BACKENDS) for q, b in cfg["decode_runs"]
              for kv in cfg["decode_kv_lens"]]
    points += [("prefill", shape(1, h, s, s), SHAPE_BACKENDS) for s in cfg["prefill_lens"]]
    gd, gp = cfg["gqa_decode"], cfg["gqa_prefill_len"]
    points += [("gqa_decode", shape(gd["batch"], hk, 1, gd["kv_len"]), (*SHAPE_BACKENDS, "repeat_kv"))
               for hk in cfg["gqa_kv_heads"]]
    points += [("gqa_prefill", shape(1, hk, gp, gp), (*SHAPE_BACKENDS, "repeat_kv"))
               for hk in cfg["gqa_kv_heads"]]
    sw = cfg["sliding"]
    points.append(("sliding", shape(1, h, sw["seq_len"], sw["seq_len"], sw["window"]),
                   ("flex_sliding", "flex_causal", "auto")))
    return points


def _tri(a, b):
    """a + (a+1) + ... + b (0 when b < a)."""
    return (a + b) * (b - a + 1) // 2 if b >= a else 0


def allowed_pairs(q_len, kv_len, window=None):
    """(query, key) pairs the lower-right causal mask (and window) lets through, per head."""
    first = kv_len - q_len + 1  # the first query sees this many keys, the last kv_len
    if window is None:
        return _tri(first, kv_len)
    return _tri(first, min(kv_len, window)) + window * max(0, kv_len - max(first - 1, window))


def sizes(shape, element_size, variant=None):
    """Bytes of K and V, bytes a call must at least move (Q, K, V read, O written), FLOPs."""
    b, hq, hk, d = shape["batch"], shape["q_heads"], shape["kv_heads"], shape["head_dim"]
    kv_bytes = 2 * b * hk * shape["kv_len"] * d * element_size
    window = shape["window"] if variant == "flex_sliding" else None  # the others are causal
    pairs = allowed_pairs(shape["q_len"], shape["kv_len"], window)
    return {"kv_bytes": kv_bytes,
            "io_bytes": kv_bytes + 2 * b * hq * shape["q_len"] * d * element_size,
            "flops": 4 * b * hq * d * pairs}


def too_large(shape, variant, element_size, memory):
    """Why the point is skipped on this device, or None: K and V (and, for repeat_kv, their
    copies) may take at most SHAPES_MEMORY_SHARE of the device's memory."""
    if memory is None:
        return None
    need = sizes(shape, element_size)["kv_bytes"]
    what = "K and V"
    if variant == "repeat_kv":
        need *= 1 + shape["q_heads"] // shape["kv_heads"]
        what = "K and V with their copies per query head"
    limit = SHAPES_MEMORY_SHARE * memory
    if need <= limit:
        return None
    return (f"{what} would take {need / 2**30:.1f} GiB, more than {100 * SHAPES_MEMORY_SHARE:.0f} % "
            f"of this device's {memory / 2**30:.1f} GiB")


def reference_rows(torch, q, k, v, window=None, rows=REFERENCE_ROWS):
    """Float64 attention for batch 0, the first and last query head, the last `rows`
    queries, written out here (not with the snippet's code): (index, expected)."""
    hq, hk = q.size(1), k.size(1)
    heads = sorted({0, hq - 1})
    kv_heads = [h // (hq // hk) for h in heads]  # query head h reads K/V head h // group
    r = min(rows, q.size(2))
    qd = q[0, heads, -r:].double()
    kd, vd = k[0, kv_heads].double(), v[0, kv_heads].double()
    kv_len = k.size(2)
    pos = torch.arange(kv_len - r, kv_len, device=q.device)[:, None]  # the rows' places in the cache
    key = torch.arange(kv_len, device=q.device)[None, :]
    keep = key <= pos
    if window is not None:
        keep &= pos - key < window
    scores = (qd @ kd.transpose(-2, -1)) / q.size(-1) ** 0.5
    expected = torch.softmax(scores.masked_fill(~keep, float("-inf")), dim=-1) @ vd
    return (heads, r), expected


def rel_error(out, ref):
    (heads, r), expected = ref
    got = out[0, heads, -r:].double()
    return float((got - expected).norm() / expected.norm())


def make_call(name, shape, device):
    """(callable(q, k, v), context factory, extra fields) for a variant at this shape."""
    from torch.nn.attention import sdpa_kernel

    sh = snippets.load("shapes")
    if name == "repeat_kv":
        return (lambda q, k, v: sh.cache_attention(q, *sh.repeat_kv(q, k, v))), nullcontext, {}
    if name in ("flex_sliding", "flex_causal"):
        mask_mod = (sh.sliding_window(shape["window"]) if name == "flex_sliding"
                    else snippets.load("flex_attention").causal)
        fn, block_mask = sh.make_flex(mask_mod, shape["q_len"], device)
        return fn, nullcontext, {"block_sparsity_pct": float(block_mask.sparsity())}
    if name == "auto":
        return sh.cache_attention, nullcontext, {}
    backend = snippets.load("sdpa_backends").BACKENDS[name]
    return sh.cache_attention, lambda: sdpa_kernel(backend), {}


def measure_variant(torch, family, name, shape, inputs, ref, args, host):
    """One row: a refusal, OOM or unexpected error is a row with its reason."""
    device = args.device
    q, k, v = inputs
    try:
        fn, ctx, extra = make_call(name, shape, device)
        call = lambda: fn(q, k, v)  # noqa: E731
        with guarded(torch), ctx(), torch.no_grad():
            out, first_ms = timed_call_ms(torch, device, call)
            row = {"status": "ok", "reason": None, "first_call_ms": first_ms,
                   "rel_error": rel_error(out, ref), **extra}
            del out
            row["peak_extra_mib"] = peak_extra_mib(torch, device, call) if device == "cuda" else None
            row["wall_time_us"] = wall_us(call, args.sweep_timer_seconds)
            row["host_time_us"] = (host_overheads(torch, device, {name: (call, None)}, small_op(torch, device, q.dtype),
                                                  args.host_calls)[name] if host else None)
            row.update(profile_short(fn, inputs, f"{family}_{name}", args.sweep_steps, args.traces))
    except Refused as refused:
        return refused.row
    except Exception as err:  # anything else: this row says what broke, the section goes on
        return {"status": "error", "reason": f"{type(err).__name__}: {first_line(err)[:400]}"}
    finally:
        free(torch, device)
    row["sdpa"] = name in SHAPE_BACKENDS or name == "repeat_kv"  # what was called: derive names its backend
    return row


def _shown(row):
    if row["status"] != "ok":
        return f"{row['status']}: {(row.get('reason') or '')[:90]}"
    host = f"  host {row['host_time_us']['median']:8.1f} us" if row.get("host_time_us") else ""
    return f"wall {row['wall_time_us']['median']:10.1f} us{host}"


def measure_point(torch, family, shape, variants, args, memory, progress):
    device, dtype = args.device, getattr(torch, args.dtype)
    element_size = torch.empty((), dtype=dtype).element_size()
    rows = {}
    todo = []
    for name in variants:
        why = too_large(shape, name, element_size, memory)
        if why:
            rows[name] = {"status": "skipped", "reason": why}
        else:
            todo.append(name)
    label = (f"{family:<11} b={shape['batch']:<3} h={shape['q_heads']}/{shape['kv_heads']:<3} "
             f"q={shape['q_len']:<6} kv={shape['kv_len']:<7}")
    if todo:
        free(torch, device)
        try:
            with guarded(torch):
                inputs = snippets.load("shapes").make_cache_inputs(
                    dtype=dtype, device=device, **{k: shape[k] for k in (
                        "batch", "q_heads", "kv_heads", "q_len", "kv_len", "head_dim")})
                refs = {None: reference_rows(torch, *inputs)}  # causal, and the window's own
                if shape["window"] is not None:
                    refs["window"] = reference_rows(torch, *inputs, window=shape["window"])
        except Refused as refused:  # the inputs themselves do not fit
            rows.update({n: dict(refused.row) for n in todo})
            todo = []
        host = family == "decode" and shape["batch"] == 1  # where the CPU can set the pace
        for name in todo:
            ref = refs["window" if name == "flex_sliding" else None]
            rows[name] = measure_variant(torch, family, name, shape, inputs, ref, args, host)
            progress(f"  {label} {name:<13} {_shown(rows[name])}")
        inputs = refs = ref = None
        free(torch, device)
    for name in variants:
        if name not in todo:  # skipped, or the inputs did not fit
            progress(f"  {label} {name:<13} {_shown(rows[name])}")
    return [{"family": family, "variant": name, **shape, **sizes(shape, element_size, name), **rows[name]}
            for name in variants]


def measure_shapes(torch, args, progress):
    device = args.device
    cfg = shape_config(device)
    memory = device_memory_bytes(torch, device)
    roof = measure_copy_roof(torch, device, cfg["copy_mib"])
    progress(f"  copy roof: {roof['gb_per_s']:.0f} GB/s (read + written, {cfg['copy_mib']} MiB)")
    points = []
    for family, shape, variants in plan(cfg):
        points += measure_point(torch, family, shape, variants, args, memory, progress)
    return {"config": {**json.loads(json.dumps(cfg)),  # tuples as lists, as results.json holds them
                       "dtype": args.dtype, "steps": args.sweep_steps,
                       "timer_seconds": args.sweep_timer_seconds, "host_calls": args.host_calls,
                       "memory_share": SHAPES_MEMORY_SHARE, "device_memory_bytes": memory,
                       "reference_rows": REFERENCE_ROWS},
            "copy_roof": roof, "points": points}
