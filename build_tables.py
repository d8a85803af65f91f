#!/usr/bin/env python3
"""Measure every attention variant under torch.profiler and write the site's tables.

    python build_tables.py                  # on a CUDA GPU: measure, then render
    python build_tables.py --all            # also sweeps, CUDA graphs, backward, compiled rows
    python build_tables.py --render-only    # re-render tables from results.json, no GPU
    python build_tables.py --device cpu     # CPU run, into its own folder

Writes docs/generated/<gpu-slug>/: results.json (raw numbers and provenance),
tables/*.nb.md and *.en.md, and traces/<variant>.json.gz (open them in Perfetto).
The code that is measured is imported from snippets/, the files the pages show.
This file is the command: arguments, order of work, exit codes. The work is done by
the package report/ (see its __init__ for the layers).
"""
from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
from pathlib import Path

from report.paths import DEFAULT_OUT
from report.results import UsageError, load_reference, load_results, replace_dir, write_results
from report.variants import DTYPES, EXTRA_VARIANTS, VARIANTS

MAX_HEAD_DIM = 512  # larger than any attention kernel supports
MAX_ELEMENTS = 2**34  # per tensor: impossible on any GPU


def positive_int(text):
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"{value} must be at least 1")
    return value


def variant_list(text):
    names = [n.strip() for n in text.split(",") if n.strip()]
    known = VARIANTS + EXTRA_VARIANTS
    unknown = [n for n in names if n not in known]
    if unknown or not names:
        raise argparse.ArgumentTypeError(
            f"unknown variant(s) {', '.join(unknown) or '(none given)'}; choose from {', '.join(known)}")
    return names


def _parser():
    p = argparse.ArgumentParser(
        prog="build_tables.py",
        description="Measure causal attention variants under torch.profiler and render the "
                    "site's tables (docs/generated/<gpu>/).")
    p.add_argument("--batch", type=positive_int, default=8, help="batch size (default 8)")
    p.add_argument("--heads", type=positive_int, default=16, help="attention heads (default 16)")
    p.add_argument("--seq-len", type=positive_int, default=1024, help="sequence length (default 1024)")
    p.add_argument("--head-dim", type=positive_int, default=64, help="head dimension (default 64)")
    p.add_argument("--dtype", choices=DTYPES, default="bfloat16", help="data type of q, k, v (default bfloat16)")
    p.add_argument("--variants", type=variant_list, default=None,
                   help=f"comma-separated subset of: {','.join(VARIANTS + EXTRA_VARIANTS)} "
                        f"(default: {','.join(VARIANTS)}, plus the compiled ones with --extra)")
    more = p.add_argument_group("beyond the seed's shape")
    more.add_argument("--extra", action="store_true",
                      help="also measure FlexAttention and torch.compile of the naive module")
    more.add_argument("--sweep", action="store_true",
                      help="sequence lengths 256..16384 at head dims 64 and 128, every variant")
    more.add_argument("--overhead", action="store_true",
                      help="wall time vs kernel time, eager and replayed from a CUDA graph")
    more.add_argument("--backward", action="store_true", help="forward + backward per variant")
    more.add_argument("--all", action="store_true", help="--extra --sweep --overhead --backward")
    more.add_argument("--sweep-max-seq", type=positive_int, default=16384)
    more.add_argument("--sweep-steps", type=positive_int, default=5)
    more.add_argument("--sweep-timer-seconds", type=float, default=0.1)
    p.add_argument("--steps", type=positive_int, default=50,
                   help="profiled (active) steps per variant (default 50)")
    p.add_argument("--timer-seconds", type=float, default=0.5,
                   help="minimum run time of the wall-clock timer per variant")
    p.add_argument("--host-calls", type=positive_int, default=200,
                   help="calls timed on the host, without the profiler (default 200)")
    p.add_argument("--device", choices=("cuda", "cpu"), default="cuda")
    p.add_argument("--out", type=Path, default=DEFAULT_OUT,
                   help="parent folder; results go to <out>/<gpu-slug>/ (default docs/generated)")
    p.add_argument("--slug", help="folder name for this GPU (default: derived from its name)")
    p.add_argument("--render-only", action="store_true",
                   help="re-render tables from existing results.json (no GPU needed)")
    return p


def parse_args(argv):
    p = _parser()
    args = p.parse_args(argv)
    if args.head_dim > MAX_HEAD_DIM:
        p.error(f"--head-dim {args.head_dim} is larger than any attention kernel supports "
                f"(max {MAX_HEAD_DIM})")
    if args.steps < 3:
        p.error("--steps must be at least 3 for a median to mean anything")
    if args.batch * args.heads * args.seq_len * args.head_dim > MAX_ELEMENTS:
        p.error("that shape has more than 2^34 elements per tensor: impossible on any GPU")
    if args.timer_seconds <= 0 or args.sweep_timer_seconds <= 0:
        p.error("--timer-seconds and --sweep-timer-seconds must be positive")
    if args.all:
        args.extra = args.sweep = args.overhead = args.backward = True
    if args.variants is None:
        args.variants = list(VARIANTS) + (list(EXTRA_VARIANTS) if args.extra else [])
    return args


def render_folder(folder, ref):
    """Re-render one GPU's tables and figures from its results.json, all or nothing."""
    from report.render.site import render_all

    results = load_results(folder / "results.json")
    staging = Path(tempfile.mkdtemp(prefix=".render-", dir=folder))
    try:
        render_all(results, ref, staging / "tables", staging / "figures")
        for part in ("tables", "figures"):
            replace_dir(staging / part, folder / part)
        staging.rmdir()
    except (KeyError, TypeError, ValueError, AttributeError) as err:
        shutil.rmtree(staging, ignore_errors=True)
        raise UsageError(f"{folder / 'results.json'} is damaged or was written by another "
                         f"version of build_tables.py ({type(err).__name__}: {err}); "
                         "nothing was changed: measure again") from None
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise


def render_only(args):
    out = Path(args.out)
    folders = [out / args.slug] if args.slug else sorted(
        d for d in out.iterdir() if (d / "results.json").exists()) if out.exists() else []
    if not folders:
        raise UsageError(f"no results.json under {out}: nothing to render")
    ref = load_reference()
    for folder in folders:
        render_folder(folder, ref)
        print(f"rendered {folder / 'tables'} and {folder / 'figures'} from {folder / 'results.json'}")


def write_run(results, trace_tmp, out, slug):
    """Write results, traces, tables and figures into a staging folder, then swap it in."""
    from report.render.site import render_all

    out.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{slug}-", dir=out))
    try:
        write_results(results, staging / "results.json")
        shutil.copytree(trace_tmp, staging / "traces")
        render_all(results, load_reference(), staging / "tables", staging / "figures")
        replace_dir(staging, out / slug)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise


def measure(args, argv):
    from report.measure.run import run_measurements

    out = Path(args.out)
    started = time.perf_counter()
    slug, results, trace_tmp = run_measurements(args, argv, out)
    try:
        write_run(results, trace_tmp, out, slug)
    finally:
        shutil.rmtree(trace_tmp, ignore_errors=True)
    print(f"wrote {out / slug} in {time.perf_counter() - started:.1f} s")


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    args = parse_args(argv)
    try:
        if args.render_only:
            render_only(args)
        else:
            measure(args, argv)
        return 0
    except UsageError as err:
        print(f"build_tables.py: error: {err}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("build_tables.py: interrupted; the existing results were left as they were",
              file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
