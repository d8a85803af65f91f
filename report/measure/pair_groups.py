"""Which variants are timed in pairs (pairs.py), and how: one group per comparison the
pages draw on wall time or host overhead.

- seed_wall, seed_host: every variant at the seed's shape (FlexAttention against flash
  with --extra), wall time and host overhead; with --overhead also each call replayed
  from a CUDA graph (the best path against eager calls).
- small: the small shape of overhead.py: each variant eagerly, SDPA pinned with
  `sdpa_kernel` entered once around the block (as the other timers do) and entered around
  every call (`<backend>_each_call`: what pinning itself costs), each replayed from a CUDA
  graph (`<name>_graph`); reference: unpinned SDPA.
- issue: what issuing one call costs, part by part, at the small shape (host timer):
  a Python call that does nothing, an op that dispatches and launches nothing, a small op
  (one launch), an empty kernel launch without the dispatcher (torch.cuda._sleep(0)),
  SDPA's backend choice alone (torch._fused_sdp_choice), each backend's ATen op called
  directly (no choice), and SDPA unpinned and pinned.
- decode_q<Q>_kv<N>: decode at batch 1 (shape_runs.py), each fused backend and unpinned
  SDPA eagerly and from a CUDA graph (math, 5 to 18 times slower than the fastest backend at
  every decode point of the H200 run, is left out: it decides nothing and costs most of the time).
- training: one forward and backward per variant at the seed's shape, in blocks of
  TRAINING_BLOCK_MS: a step's backward runs on autograd's own thread, and blocks of 6 or 7
  steps (3 ms) gave ratios that moved by 30 % between rounds on the H200.
"""
from __future__ import annotations

import time
from contextlib import nullcontext

from .. import snippets
from ..variants import BACKWARD_VARIANTS, EXTRA_VARIANTS, FUSED, SHAPE_BACKENDS, SMALL_SHAPE
from . import pairs, shape_runs
from .callables import make_inputs, make_variant
from .guard import Refused, first_line, free, guarded

REFERENCE = "auto"
PINNED = ("math", *FUSED)  # the backends sdpa_kernel pins
DECODE = tuple(b for b in SHAPE_BACKENDS if b != "math")
TRAINING_BLOCK_MS = 20.0  # a block of training steps: about 45 fused steps, 7 of naive, 3 of math


def _failing(why):
    def call():
        raise RuntimeError(why)
    return call


def _graph(torch, fn, ctx, inputs):
    """A replay of fn(*inputs) captured in a CUDA graph, or a call that raises why not."""
    try:
        with guarded(torch), ctx(), torch.no_grad():
            return snippets.load("cuda_graphs").capture(fn, *inputs)
    except Refused as err:
        return _failing(f"not captured: {err.row['reason'][:300]}")
    except Exception as err:  # noqa: BLE001 - a call that cannot be captured is recorded
        return _failing(f"not captured: {type(err).__name__}: {first_line(err)[:300]}")


def _each_call(fn, ctx, inputs):
    def call():
        with ctx():
            return fn(*inputs)
    return call


def _eager(fn, inputs):
    return lambda: fn(*inputs)


def _shape_of(cfg):
    return {k: cfg[k] for k in ("batch", "heads", "seq_len", "head_dim")}


class Group:
    """One comparison: its name, timer, reference, shape, and a builder of its entries
    (called once per round; what it allocates is dropped after the round)."""

    def __init__(self, name, metric, shape, build, grad=False, block_ms=None):
        self.name, self.metric, self.shape, self.build, self.grad = name, metric, shape, build, grad
        self.block_ms = block_ms


def _seed_entries(torch, args, made, inputs, graphs):
    entries = {name: (_eager(fn, inputs), ctx) for name, (fn, ctx) in made.items()}
    if graphs and args.device == "cuda":
        for name, (fn, ctx) in made.items():
            if name not in EXTRA_VARIANTS:
                entries[f"{name}_graph"] = (_graph(torch, fn, ctx, inputs), None)
    return entries


def _small_entries(torch, args):
    cfg = dict(SMALL_SHAPE)
    inputs = make_inputs(cfg, getattr(torch, args.dtype), args.device)
    names = [n for n in args.variants if n not in EXTRA_VARIANTS]
    made = {n: make_variant(n, cfg, args.device) for n in names}
    entries = {n: (_eager(fn, inputs), ctx) for n, (fn, ctx) in made.items()}
    for n in PINNED:
        if n in made:
            entries[f"{n}_each_call"] = (_each_call(*made[n], inputs), None)
    if args.device == "cuda":
        for n, (fn, ctx) in made.items():
            entries[f"{n}_graph"] = (_graph(torch, fn, ctx, inputs), None)
    return entries


def _issue_entries(torch, args):
    """The parts of issuing one call at the small shape, each a call of its own."""
    from torch.nn.attention import sdpa_kernel

    backends = snippets.load("sdpa_backends")
    q, k, v = make_inputs(dict(SMALL_SHAPE), getattr(torch, args.dtype), args.device)
    x = torch.ones(1, device=args.device, dtype=q.dtype)
    aten = torch.ops.aten

    def nothing(*_):
        return None

    entries = {
        "python_call": (lambda: nothing(q, k, v), None),
        "no_kernel_op": (lambda: torch.detach(x), None),
        "small_op": (lambda: torch.add(x, x), None),
        "choose_backend": (lambda: torch._fused_sdp_choice(q, k, v, is_causal=True), None),
        "auto": (lambda: backends.causal_sdpa(q, k, v), None),
        "aten_flash": (lambda: aten._scaled_dot_product_flash_attention(q, k, v, 0.0, True), None),
        "aten_efficient": (lambda: aten._scaled_dot_product_efficient_attention(
            q, k, v, None, False, 0.0, True), None),
        "aten_cudnn": (lambda: aten._scaled_dot_product_cudnn_attention(
            q, k, v, None, False, 0.0, True), None),
    }
    if args.device == "cuda":
        entries["empty_launch"] = (lambda: torch.cuda._sleep(0), None)
    for n in PINNED:
        entries[n] = (lambda: backends.causal_sdpa(q, k, v), lambda b=backends.BACKENDS[n]: sdpa_kernel(b))
    return entries


def _training_entries(torch, args):
    step = snippets.load("training_step").training_step
    cfg = {"batch": args.batch, "heads": args.heads, "seq_len": args.seq_len, "head_dim": args.head_dim}
    q, k, v = (t.requires_grad_() for t in make_inputs(cfg, getattr(torch, args.dtype), args.device))
    grad = torch.randn_like(q)
    entries = {}
    for name in [n for n in BACKWARD_VARIANTS if n in args.variants]:
        fn, ctx = make_variant(name, cfg, args.device)
        entries[name] = ((lambda fn=fn: step(fn, q, k, v, grad)), ctx)
    return entries


def _decode_groups(torch, args):
    """One group per decode point at batch 1 that fits this device."""
    cfg = shape_runs.shape_config(args.device)
    memory = shape_runs.device_memory_bytes(torch, args.device)
    element_size = torch.empty((), dtype=getattr(torch, args.dtype)).element_size()
    groups = []
    for family, shape, _ in shape_runs.plan(cfg):
        if family != "decode" or shape["batch"] != 1:
            continue
        if shape_runs.too_large(shape, REFERENCE, element_size, memory):
            continue

        def build(shape=shape):
            inputs = snippets.load("shapes").make_cache_inputs(
                dtype=getattr(torch, args.dtype), device=args.device,
                **{k: shape[k] for k in ("batch", "q_heads", "kv_heads", "q_len", "kv_len", "head_dim")})
            entries = {}
            for name in DECODE:
                fn, ctx, _ = shape_runs.make_call(name, shape, args.device)
                entries[name] = (_eager(fn, inputs), ctx)
                if args.device == "cuda":
                    entries[f"{name}_graph"] = (_graph(torch, fn, ctx, inputs), None)
            return entries

        groups.append(Group(f"decode_q{shape['q_len']}_kv{shape['kv_len']}", "wall",
                            {k: shape[k] for k in ("batch", "q_heads", "kv_heads", "q_len", "kv_len",
                                                   "head_dim")}, build))
    return groups


def plan(torch, args, results, made, inputs):
    """The groups this run measures, in order."""
    seed_shape = _shape_of(results["config"])
    ok = {n: made[n] for n in made if results["variants"][n]["status"] == "ok"}
    groups = []
    if REFERENCE in ok:
        groups += [Group("seed_wall", "wall", seed_shape,
                         lambda: _seed_entries(torch, args, ok, inputs, args.overhead)),
                   Group("seed_host", "host", seed_shape,
                         lambda: _seed_entries(torch, args, ok, inputs, False))]
    if args.overhead:
        groups += [Group("small", "wall", dict(SMALL_SHAPE), lambda: _small_entries(torch, args)),
                   Group("issue", "host", dict(SMALL_SHAPE), lambda: _issue_entries(torch, args))]
    if args.shapes:
        groups += _decode_groups(torch, args)
    if args.backward and REFERENCE in args.variants:
        groups.append(Group("training", "wall", seed_shape, lambda: _training_entries(torch, args),
                            grad=True, block_ms=TRAINING_BLOCK_MS))
    return groups


def _round(torch, args, group, r, count):
    """One round of one group, or {"error": why}."""
    t0 = time.perf_counter()
    try:
        with (nullcontext() if group.grad else torch.no_grad()):
            row = pairs.measure_group(torch, args.device, group.build(), REFERENCE, group.metric,
                                      count, f"{pairs.SEED}-{group.name}-{r}", group.block_ms)
    except Refused as err:
        row = {"error": f"{err.row['status']}: {err.row['reason'][:300]}"}
    except Exception as err:  # noqa: BLE001 - a group that fails is recorded; the others go on
        row = {"error": f"{type(err).__name__}: {first_line(err)[:300]}"}
    finally:
        free(torch, args.device)  # the round's inputs and graphs are gone with its entries
    row["seconds"] = time.perf_counter() - t0
    return row


def line(name, row):
    if "error" in row:
        return f"  pairs {name:<18} failed: {row['error'][:100]}"
    from statistics import median
    shown = ", ".join(f"{n} {median(v):.3g}" for n, v in list(row["ratio"].items())[:6])
    more = len(row["ratio"]) - 6
    return (f"  pairs {name:<18} median ratio to {REFERENCE}: {shown}"
            + (f" (+{more} more)" if more > 0 else "") + f" ({row['seconds']:.1f} s)")


def settings(args, groups):
    """results["pairs"] before its rounds: the settings, and per group its timer, shape
    and (filled in round by round, round_processes.py) its rounds."""
    count = getattr(args, "pairs", pairs.PAIRS)
    out = {**pairs.settings(count), "rounds": args.rounds, "reference": REFERENCE,
           "seconds": [], "groups": {}}
    for g in groups:
        out["groups"][g.name] = {"metric": g.metric, "shape": g.shape, "rounds": []}
        if g.block_ms is not None:  # a block aim of its own (results["pairs"]["block_ms"] otherwise)
            out["groups"][g.name]["block_ms"] = g.block_ms
    return out


def measure_round(torch, args, groups, r):
    """Round r of every group, in this process: {group name: its round (pairs.measure_group)
    or {"error": why}}."""
    count = getattr(args, "pairs", pairs.PAIRS)
    return {g.name: _round(torch, args, g, r, count) for g in groups}
