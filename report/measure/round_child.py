"""One round in a fresh process; its figures go back as JSON through a file.

    python -m report.measure.round_child SPEC.json OUT.json

SPEC (round_processes.py writes it): {"round": r, "args": the run's options,
"config": the seed's config, "status": {variant: its seed status}, "small_status":
{variant: its status at overhead.py's small shape}}. The process imports torch, makes
the seed's inputs and every variant that ran in the seed measurement, calls each
WARM_CALLS times (FlexAttention and the compiled naive module compile here, from the
inductor cache on disk that the main process filled), then measures round r: the
compared figures of every variant (rounds.py: measure_round), then one round of every
pair group (pair_groups.py: measure_round). OUT gets {"round", "variants", "small",
"pairs", "process": {"import_torch_s", "setup_s", "warm_s", "rounds_s", "pairs_s"}};
or {"error": why} if the process could not measure at all. A failure of one variant or
group is recorded inside the figures, as in the main process.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time

from .guard import first_line

WARM_CALLS = 3  # untimed calls of each variant before the round (the seed measurement's warmup_calls)


def _warm(torch, made, inputs, device):
    """{name: seconds of its WARM_CALLS first calls}, and {name: why} where they failed
    (the round's own measurement then records the failure in the variant's row)."""
    from .guard import guarded, sync

    seconds, errors = {}, {}
    for name, (fn, ctx) in made.items():
        t0 = time.perf_counter()
        try:
            with guarded(torch), ctx(), torch.no_grad():
                for _ in range(WARM_CALLS):
                    fn(*inputs)
                sync(torch, device)
        except Exception as err:  # noqa: BLE001 - recorded; the measurement says it again per figure
            errors[name] = f"{type(err).__name__}: {first_line(err)[:300]}"
        seconds[name] = round(time.perf_counter() - t0, 3)
    return seconds, errors


def measure(spec, import_s):
    import torch

    from . import pair_groups, rounds
    from .callables import make_inputs, make_variant

    args = argparse.Namespace(**spec["args"])
    results = {"config": spec["config"],
               "variants": {n: {"status": s} for n, s in spec["status"].items()},
               "overhead": {"rows": {"small": {n: {"status": s} for n, s in spec["small_status"].items()}}}}
    t0 = time.perf_counter()
    shape = {k: spec["config"][k] for k in ("batch", "heads", "seq_len", "head_dim")}
    inputs = make_inputs(shape, getattr(torch, args.dtype), args.device)
    made = {n: make_variant(n, shape, args.device) for n, s in spec["status"].items() if s == "ok"}
    cfg = rounds.settings(args)
    small, small_error = rounds.make_small(torch, results, args)
    process = {"import_torch_s": round(import_s, 3), "setup_s": round(time.perf_counter() - t0, 3)}
    process["warm_s"], warm_errors = _warm(torch, made, inputs, args.device)
    if warm_errors:
        process["warm_errors"] = warm_errors
    t0 = time.perf_counter()
    found = rounds.measure_round(torch, results, made, inputs, args, cfg, small)
    process["rounds_s"] = round(time.perf_counter() - t0, 3)
    t0 = time.perf_counter()
    groups = pair_groups.plan(torch, args, results, made, inputs)
    found["pairs"] = pair_groups.measure_round(torch, args, groups, spec["round"])
    process["pairs_s"] = round(time.perf_counter() - t0, 3)
    if small_error:
        found["small_error"] = small_error
    return {"round": spec["round"], **found, "process": process}


def _write(path, out):
    """The whole answer or nothing: written beside OUT, then renamed onto it."""
    tmp = f"{path}.part"
    with open(tmp, "w", encoding="utf-8") as fh:
        json.dump(out, fh)
    os.replace(tmp, path)


def main(argv):
    started = time.perf_counter()
    if len(argv) != 2:
        print("usage: python -m report.measure.round_child SPEC.json OUT.json", file=sys.stderr)
        return 2
    try:
        with open(argv[0], encoding="utf-8") as fh:
            spec = json.load(fh)
        import torch  # noqa: F401

        out = measure(spec, time.perf_counter() - started)
    except Exception as err:  # one answer whatever happens; the parent records it for the round
        out = {"error": f"{type(err).__name__}: {first_line(err)[:300]}"}
    _write(argv[1], out)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
