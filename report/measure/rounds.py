"""The figures findings compare, measured again in independent rounds (--rounds N).

The full measurement (seed.py: 50 profiled steps, kernels, traces; the --all sections)
runs once. Then each round, in a fresh process of its own (round_processes.py starts
them one after another, round_child.py is one), measures for every variant in turn only
the short, cheap figures a finding compares: kernel time, GPU span and profiled CPU time
from a short profile, wall time per call, host overhead (host.py, every variant in one
interleaved pass), and at the small shape of overhead.py kernel time and wall time, eager
and from a CUDA graph. The process is the unit: what differs between processes (a
compiled kernel, the CPU's pace) shows up as spread between rounds, not as an order
between variants. Each round is stored in its row's "rounds" list; a round that fails
records {"error": why} and the run goes on.
"""
from __future__ import annotations

from .. import snippets
from ..variants import SMALL_SHAPE
from .callables import make_inputs, make_variant
from .guard import Refused, first_line, guarded
from .host import PER_SLICE, host_overheads, small_op
from .timing import profile_short, wall_us

ROUND_STEPS = 10  # profiled steps per round and variant (the full profile has --steps)


def settings(args):
    """What one round measures per variant: the whole run's timer and host calls split
    over the rounds, so rounds add about one more timer pass and host pass in all."""
    return {"count": args.rounds, "profile_steps": min(args.steps, ROUND_STEPS),
            "timer_seconds": args.timer_seconds / args.rounds,
            "host_calls": max(PER_SLICE, args.host_calls // args.rounds),
            "unit": "process",
            "order": "one fresh process per round, one after another: in each, every variant "
                     "in turn, then the pair groups (pair_groups.py)"}


def _failed(err):
    if isinstance(err, Refused):
        return {"error": f"{err.row['status']}: {err.row['reason'][:300]}"}
    return {"error": f"{type(err).__name__}: {first_line(err)[:300]}"}


def _profile_and_wall(torch, name, fn, ctx, inputs, cfg, traces, wall_key):
    """One round of one variant: a short profile and the wall timer, in its context."""
    try:
        with guarded(torch), ctx(), torch.no_grad():
            kept = profile_short(fn, inputs, f"{name}_fwd", cfg["profile_steps"], traces)
            wall = wall_us(lambda: fn(*inputs), cfg["timer_seconds"], with_number=True)
    except Exception as err:  # a round that fails is recorded; the others stand
        return _failed(err)
    return {**kept, wall_key: wall}


def _host_round(torch, device, calls, small, host_calls):
    """{name: host overhead} of every variant in one pass, or {name: {"error"}} for all."""
    try:
        with torch.no_grad():
            return host_overheads(torch, device, calls, small, host_calls)
    except Exception as err:
        return {name: _failed(err) for name in calls}


class _Small:
    """The small shape's calls, made once for every round; per round, as overhead.py
    does: a short profile and the eager timer, then a CUDA graph captured, timed and
    dropped (no graph is alive while the profiler runs)."""

    def __init__(self, torch, results, args):
        self.rows = (results.get("overhead") or {}).get("rows", {}).get("small", {})
        self.cfg, self.device, self.traces = dict(SMALL_SHAPE), args.device, args.traces
        names = [n for n, r in self.rows.items() if r.get("status") == "ok"]
        self.inputs = make_inputs(self.cfg, getattr(torch, args.dtype), args.device) if names else None
        self.made = {name: make_variant(name, self.cfg, args.device) for name in names}

    def _graph_wall(self, torch, fn, ctx, seconds):
        """{"graph_wall_us": ...} or {"graph_error": why}."""
        try:
            with guarded(torch), ctx(), torch.no_grad():
                replay = snippets.load("cuda_graphs").capture(fn, *self.inputs)
                return {"graph_wall_us": wall_us(replay, seconds)}
        except Exception as err:
            return {"graph_error": _failed(err)["error"]}

    def measure(self, torch, name, cfg):
        fn, ctx = self.made[name]
        row = _profile_and_wall(torch, name, fn, ctx, self.inputs, cfg, self.traces, "eager_wall_us")
        if self.device == "cuda":
            row.update(self._graph_wall(torch, fn, ctx, cfg["timer_seconds"]))
        return row


def make_small(torch, results, args):
    """(the small shape's calls, or None, why not): a failure here leaves the seed shape's
    rounds standing."""
    try:
        return _Small(torch, results, args), None
    except Exception as err:  # noqa: BLE001 - the seed shape's rounds still run; this says what broke
        return _Small(torch, {}, args), _failed(err)["error"]


def measure_round(torch, results, made, inputs, args, cfg, small):
    """One round in this process: {"variants": {name: row}, "small": {name: row}} for
    every variant of `made` that ran in the seed measurement (results["variants"]) and
    every small-shape row that ran in overhead.py."""
    variants, device = results["variants"], args.device
    ok = [n for n in made if variants[n]["status"] == "ok"]
    found = {"variants": {}, "small": {}}
    for name in ok:
        fn, ctx = made[name]
        found["variants"][name] = _profile_and_wall(torch, name, fn, ctx, inputs, cfg, args.traces, "wall_time_us")
    calls = {n: ((lambda fn=made[n][0]: fn(*inputs)), made[n][1]) for n in ok}
    for name, host in _host_round(torch, device, calls, small_op(torch, device, inputs[0].dtype),
                                  cfg["host_calls"]).items():
        row = found["variants"][name]
        if "error" in host:
            row["host_error"] = host["error"]
        else:
            row["host_time_us"] = host
    for name in small.made:
        found["small"][name] = small.measure(torch, name, cfg)
    return found


def summary_line(rows):
    """Each variant's figure of one round ({name: row}), for the progress line."""
    parts = []
    for name, last in rows.items():
        own = (last.get("wall_time_us") or {}).get("median")
        host = (last.get("host_time_us") or {}).get("median")
        if own is None:
            parts.append(f"{name} failed")
            continue
        parts.append(f"{name} {own:.1f}" + (f"/{host:.1f}" if host is not None else ""))
    return "us (wall / host): " + ", ".join(parts)
