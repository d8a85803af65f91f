#!/usr/bin/env python3
"""Measure every attention variant under torch.profiler and write the site's tables.

    python build_tables.py                  # on a CUDA GPU: measure, then render
    python build_tables.py --all            # also sweeps, CUDA graphs, backward, compiled rows, shapes
    python build_tables.py --render-only    # re-render tables from results.json, no GPU
    python build_tables.py --device cpu     # CPU run, into its own folder
    python build_tables.py --explain TRACE  # read any torch.profiler trace (.json, .json.gz)
    python build_tables.py --explain TRACE --svg OUT.svg  # and draw its median step
    python build_tables.py --explain TRACE --ask-torch  # and ask this machine's PyTorch (torch, CUDA)
    python build_tables.py --explain TRACE --lang nb  # the reading in Norwegian (JSON: the same in each)

Writes docs/generated/<gpu-slug>/ and docs/generated/compare/. This file is the command:
arguments, order of work, exit codes; the work is done by report/ (see its __init__).
"""
from __future__ import annotations

import os
import sys
import time
from pathlib import Path

from report.doctor import cli
from report.measure.host import PER_SLICE, WARM
from report.measure.pairs import PAIRS
from report.one_line import Parser, with_stdout
from report.output import checks, signals
from report.output.arguments import (
    given_options,
    out_folder,
    seconds,
    slug_name,
    variant_list,
    whole_number,
)
from report.output.write import publish_run, render_only, short_error
from report.paths import DEFAULT_OUT, SCRATCH_OUT
from report.results import UsageError
from report.variants import DTYPES, EXTRA_VARIANTS, SWEEP_SEQ_LENS, VARIANTS

MAX_HEAD_DIM = 512  # larger than any attention kernel supports
MAX_ELEMENTS = 2**34  # per tensor: impossible on any GPU
MIN_STEPS = 3  # a median of fewer means little
# the most each option takes: far beyond any real run, small enough that no figure derived
# from them overflows and no run is planned to last for years
MOST = {"batch": 4096, "heads": 1024, "seq_len": 2**20, "head_dim": 2**20, "steps": 10_000,
        "host_calls": 100_000, "rounds": 100, "sweep_max_seq": 2**20, "sweep_steps": 10_000,
        "pairs": 10_000}
MOST_SECONDS = 600  # --timer-seconds and --sweep-timer-seconds: ten minutes a variant or point
ALL_SECTIONS = tuple(flag for flag in checks.SECTION_FLAGS if flag != "ncu")  # what --all turns on
RENDER_OPTIONS = {"out", "slug", "render_only"}  # what --render-only uses; the rest measure


def _parser():
    p = Parser(
        prog="build_tables.py",
        description="Measure causal attention variants under torch.profiler and render the "
                    "site's tables (docs/generated/<gpu>/).")
    p.add_argument("--batch", type=whole_number(MOST["batch"]), default=8, help="batch size (default 8)")
    p.add_argument("--heads", type=whole_number(MOST["heads"]), default=16, help="attention heads (default 16)")
    p.add_argument("--seq-len", type=whole_number(MOST["seq_len"]), default=1024, help="sequence length (default 1024)")
    p.add_argument("--head-dim", type=whole_number(MOST["head_dim"]), default=64, help="head dimension (default 64)")
    p.add_argument("--dtype", choices=DTYPES, default="bfloat16", help="data type of q, k, v (default bfloat16)")
    p.add_argument("--variants", type=variant_list, default=None,
                   help=f"comma-separated subset of: {','.join(VARIANTS + EXTRA_VARIANTS)} "
                        f"(default: {','.join(VARIANTS)}, plus the compiled ones with --extra)")
    more = p.add_argument_group("beyond the seed's shape")
    more.add_argument("--extra", action="store_true",
                      help="also measure math with its precision switches, FlexAttention and "
                           "torch.compile of the naive module")
    more.add_argument("--sweep", action="store_true",
                      help="sequence lengths 256..16384 at head dims 64 and 128, every variant")
    more.add_argument("--overhead", action="store_true",
                      help="wall time vs kernel time, eager and replayed from a CUDA graph")
    more.add_argument("--backward", action="store_true", help="forward + backward per variant")
    more.add_argument("--first-calls", action="store_true",
                      help="each fused backend's first call taken apart: same shape again, a new shape")
    more.add_argument("--shapes", action="store_true",
                      help="today's shapes: decode against a KV cache, a long prompt, grouped-query "
                           "attention, a sliding window; every SDPA backend (uses --sweep-steps, "
                           "--sweep-timer-seconds, --host-calls)")
    more.add_argument("--ask", action="store_true",
                      help="ask PyTorch why: for a grid of conditions (masks, dtypes, head dims, "
                           "layouts, MultiheadAttention, nested and compiled calls, decode), what "
                           "torch.backends.cuda.can_use_*_attention say, which backend ran, its "
                           "warnings, error and kernel time, and one small trace each")
    more.add_argument("--ncu", action="store_true",
                      help="occupancy of each fused kernel from Nsight Compute (ncu), if installed "
                           "(about 30 s more; not part of --all)")
    more.add_argument("--all", action="store_true",
                      help="--extra --sweep --overhead --backward --first-calls --shapes --ask")
    more.add_argument("--sweep-max-seq", type=whole_number(MOST["sweep_max_seq"]), default=16384,
                      help="longest sequence length of the sweep (default 16384)")
    more.add_argument("--sweep-steps", type=whole_number(MOST["sweep_steps"]), default=5,
                      help="profiled steps per sweep and shape point (default 5)")
    more.add_argument("--sweep-timer-seconds", type=seconds(MOST_SECONDS), default=0.05,
                      help="wall timer per sweep and shape point (default 0.05; about 20 blocks of calls)")
    p.add_argument("--steps", type=whole_number(MOST["steps"]), default=50,
                   help=f"profiled (active) steps per variant, at least {MIN_STEPS} (default 50)")
    p.add_argument("--timer-seconds", type=seconds(MOST_SECONDS), default=0.5,
                   help="minimum run time of the wall-clock timer per variant (default 0.5)")
    p.add_argument("--host-calls", type=whole_number(MOST["host_calls"]), default=400,
                   help="calls per variant timed on the host, without the profiler, in slices of "
                        f"{PER_SLICE}, each after {WARM} untimed ones (default 400)")
    p.add_argument("--rounds", type=whole_number(MOST["rounds"]), default=4,
                   help="independent rounds of the figures findings compare, each in a fresh "
                        "process, one after another: every variant in turn (kernel time from a "
                        "short profile, wall time, host overhead, the small shape), then the "
                        "paired comparisons; with --first-calls also each backend's first calls "
                        "in a fresh process per round (default 4: the processes are what a "
                        "verdict is decided on)")
    p.add_argument("--pairs", type=whole_number(MOST["pairs"]), default=PAIRS,
                   help="alternating blocks of calls per paired comparison and round: every "
                        "variant compared on wall time or host overhead is timed in blocks, "
                        f"order shuffled per pair, against unpinned SDPA (default {PAIRS})")
    p.add_argument("--device", choices=("cuda", "cpu"), default="cuda",
                   help="measure on the GPU (default cuda) or, as a preview of the pipeline, on the "
                        "CPU; a CPU run writes to build-out/ unless --out says otherwise")
    p.add_argument("--out", type=out_folder, default=None,
                   help="parent folder; results go to <out>/<gpu-slug>/ (default docs/generated "
                        "on a GPU, build-out/ for --device cpu, which git ignores)")
    p.add_argument("--slug", type=slug_name,
                   help="folder name for this GPU: lower-case letters, digits, '-' "
                        "(default: derived from its name)")
    p.add_argument("--replace", action="store_true",
                   help="allow replacing results of another device, or a run with more in it")
    p.add_argument("--render-only", action="store_true",
                   help="re-render tables from existing results.json (no GPU needed); "
                        "takes only --out and --slug")
    p.add_argument("--fixes", action="store_true",
                   help="on a CUDA GPU: each refusal of SDPA's beside its own fix, at the same work, "
                        "timed in paired blocks (report/collect/fix_collector.py), collected raw into "
                        "data/fixes/<gpu>/; takes only --pairs and --slug; --render-only derives the table")
    p.add_argument("--explain", metavar="TRACE", type=Path,
                   help="read a trace that torch.profiler wrote (.json or .json.gz): kernels "
                        "with occupancy, GPU idle gaps and a verdict per range; no GPU, no "
                        "other option but --format, --svg, --ask-torch and --lang")
    # --explain's options are trace-doctor's, defined once (report/doctor/cli.py: OPTIONS)
    cli.add_options(p, help_prefix="with --explain: ")
    return p


def parse_args(argv):
    p = _parser()
    args = p.parse_args(argv)
    if args.explain is not None:
        extra = sorted(given_options(p, argv) - {"explain", *cli.OPTION_DESTS})
        if extra:
            p.error("--explain reads one trace (--format: text or json); it takes no other option but --svg, "
                    "--ask-torch and --lang, "
                    f"not {', '.join('--' + e.replace('_', '-') for e in extra)}")
        return args
    if "format" in given_options(p, argv):
        p.error("--format goes with --explain TRACE: it is the form of the reading")
    if args.svg is not None:
        p.error("--svg draws the trace that --explain reads: give --explain TRACE too")
    if args.ask_torch:
        p.error("--ask-torch asks PyTorch about the trace that --explain reads: give --explain TRACE too")
    if "lang" in given_options(p, argv):
        p.error("--lang is the language of the reading that --explain prints: give --explain TRACE too")
    if args.fixes:
        extra = sorted(given_options(p, argv) - {"fixes", "pairs", "slug"})
        if extra:
            p.error("--fixes collects one thing; it takes only --pairs and --slug, "
                    f"not {', '.join('--' + e.replace('_', '-') for e in extra)}")
        return args
    if args.render_only:
        extra = sorted(given_options(p, argv) - RENDER_OPTIONS)
        if extra:
            p.error("--render-only re-renders existing results; it takes only --out and --slug, "
                    f"not {', '.join('--' + e.replace('_', '-') for e in extra)}")
    if args.head_dim > MAX_HEAD_DIM:
        p.error(f"--head-dim {args.head_dim} is larger than any attention kernel supports "
                f"(max {MAX_HEAD_DIM})")
    if args.steps < MIN_STEPS:
        p.error(f"--steps must be at least {MIN_STEPS} for a median to mean anything")
    if args.sweep and args.sweep_max_seq < min(SWEEP_SEQ_LENS):
        p.error(f"--sweep-max-seq {args.sweep_max_seq} leaves the sweep empty: its shortest "
                f"sequence is {min(SWEEP_SEQ_LENS)}")
    if args.batch * args.heads * args.seq_len * args.head_dim > MAX_ELEMENTS:
        p.error("that shape has more than 2^34 elements per tensor: impossible on any GPU")
    if args.out is None:
        args.out = SCRATCH_OUT if args.device == "cpu" and not args.render_only else DEFAULT_OUT
    if args.all:
        args.extra = True
        for flag in ALL_SECTIONS:
            setattr(args, flag, True)
    if args.variants is None:
        args.variants = list(VARIANTS) + (list(EXTRA_VARIANTS) if args.extra else [])
    return args


QUIET_KINETO = "6"  # above every level of Kineto's logger: its USDT lines (profiler_start, _stop) too


def measure(args, argv):
    if args.device == "cpu":  # no CUPTI on a CPU run: nothing Kineto logs there tells the reader anything
        os.environ.setdefault("KINETO_LOG_LEVEL", QUIET_KINETO)  # read when torch loads Kineto, below
    from report.measure.run import run_measurements

    out = Path(args.out)
    for line in checks.before_measuring(args, out):  # refusals raise; a CPU run's estimate
        print(line)
    started = time.perf_counter()
    slug, results, trace_tmp = run_measurements(
        args, argv, out, check=lambda slug, prov: checks.check_target(args, out, slug, prov))
    publish_run(results, trace_tmp, out, slug, started)


def collect_fixes(args):
    """--fixes: one collection of report/collect/fix_collector.py into data/fixes/<gpu>/."""
    import torch

    from report.collect.fix_collector import PROTOCOL, collect, write
    from report.measure.provenance import gpu_slug
    from report.paths import FIXES
    from report.results import collect_hashes

    if not torch.cuda.is_available():
        raise UsageError("--fixes measures on a CUDA GPU, and this torch sees none")
    slug = args.slug or gpu_slug(torch.cuda.get_device_name(0))
    started = time.perf_counter()
    record = collect(torch, {"protocol": PROTOCOL, "sha256": collect_hashes()}, pairs=args.pairs,
                     log=lambda line: print(line, flush=True))
    path = write(record, FIXES / slug)
    print(f"wrote {path.relative_to(Path.cwd()) if path.is_relative_to(Path.cwd()) else path} "
          f"({time.perf_counter() - started:.0f} s); python build_tables.py --render-only derives its table")


def main(argv=None):
    """The exit status; a stdout that can take nothing: one line, 2, before any work (with_stdout)."""
    return with_stdout("build_tables.py", _parsed_main, sys.argv[1:] if argv is None else argv)


def _parsed_main(argv):
    args = parse_args(argv)
    with signals.installed():
        return _main(args, argv)


def _main(args, argv):
    try:
        if args.explain is not None:  # trace-doctor's entry, its stdout set up there
            return cli.run_parsed(args.explain, args, prog="build_tables.py")
        if args.fixes:
            collect_fixes(args)
        elif args.render_only:
            render_only(args.out, args.slug)
        else:
            measure(args, argv)
        return 0
    except UsageError as err:
        print(f"build_tables.py: error: {err}", file=sys.stderr)
        return 2
    except OSError as err:  # the machine's, not the input's: a full disk, a lost folder
        print(f"build_tables.py: error: {short_error(err)}", file=sys.stderr)
        return 1
    except Exception:
        if not signals.received():
            raise
        return signals.interrupted()  # an interrupt that surfaced as another error (a profiler's)
    except KeyboardInterrupt:
        return signals.interrupted()


if __name__ == "__main__":
    sys.exit(main())
