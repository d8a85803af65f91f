#!/usr/bin/env python3
"""Measure every attention variant under torch.profiler and write the site's tables.

    python build_tables.py                  # on a CUDA GPU: measure, then render
    python build_tables.py --all            # also sweeps, CUDA graphs, backward, compiled rows, shapes
    python build_tables.py --render-only    # re-render tables from results.json, no GPU
    python build_tables.py --device cpu     # CPU run, into its own folder
    python build_tables.py --explain TRACE  # read any torch.profiler trace (.json, .json.gz)

Writes docs/generated/<gpu-slug>/: results.json (raw numbers and provenance),
tables/*.nb.md and *.en.md, and traces/<variant>.json.gz (open them in Perfetto); and
docs/generated/compare/tables/: every GPU folder there side by side, with the A100's.
The code that is measured is imported from snippets/, the files the pages show.
This file is the command: arguments, order of work, exit codes. The work is done by
the package report/ (see its __init__ for the layers).
"""
from __future__ import annotations

import argparse
import json
import math
import os
import re
import shutil
import sys
import tempfile
import time
from contextlib import contextmanager
from pathlib import Path

from report.measure.host import PER_SLICE, WARM
from report.measure.run import SECTIONS
from report.paths import COMPARE, DEFAULT_OUT, SCRATCH_OUT
from report.results import UsageError, load_reference, load_results, replace_dir, write_results
from report.variants import DTYPES, EXTRA_VARIANTS, VARIANTS

MAX_HEAD_DIM = 512  # larger than any attention kernel supports
MAX_ELEMENTS = 2**34  # per tensor: impossible on any GPU
MIN_STEPS = 3  # a median of fewer means little
SLUG = re.compile(r"[a-z0-9][a-z0-9-]*")
# what --render-only uses; every other option is for measuring
SECTION_FLAGS = tuple(key for key, _, _ in SECTIONS)  # results.json keys, each with its own flag
ALL_SECTIONS = tuple(key for key in SECTION_FLAGS if key != "ncu")  # what --all turns on
RENDER_OPTIONS = {"out", "slug", "render_only"}


def positive_int(text):
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"{value} must be at least 1")
    return value


def positive_seconds(text):
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
    if not math.isfinite(value) or value <= 0:
        raise argparse.ArgumentTypeError(f"{text} must be a positive, finite number of seconds")
    return value


def slug_name(text):
    if not SLUG.fullmatch(text):
        raise argparse.ArgumentTypeError(
            f"{text!r} is not a folder name of lower-case letters, digits and '-' (e.g. h200)")
    return text


def variant_list(text):
    names = [n.strip() for n in text.split(",") if n.strip()]
    known = VARIANTS + EXTRA_VARIANTS
    unknown = [n for n in names if n not in known]
    if unknown or not names:
        raise argparse.ArgumentTypeError(
            f"unknown variant(s) {', '.join(unknown) or '(none given)'}; choose from {', '.join(known)}")
    return names


class Parser(argparse.ArgumentParser):
    def error(self, message):
        """One line and exit 2, instead of argparse's usage block."""
        self.exit(2, f"{self.prog}: error: {message} (see --help)\n")


def _parser():
    p = Parser(
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
    more.add_argument("--ncu", action="store_true",
                      help="occupancy of each fused kernel from Nsight Compute (ncu), if installed "
                           "(about 30 s more; not part of --all)")
    more.add_argument("--all", action="store_true",
                      help="--extra --sweep --overhead --backward --first-calls --shapes")
    more.add_argument("--sweep-max-seq", type=positive_int, default=16384)
    more.add_argument("--sweep-steps", type=positive_int, default=5)
    more.add_argument("--sweep-timer-seconds", type=positive_seconds, default=0.1)
    p.add_argument("--steps", type=positive_int, default=50,
                   help=f"profiled (active) steps per variant, at least {MIN_STEPS} (default 50)")
    p.add_argument("--timer-seconds", type=positive_seconds, default=0.5,
                   help="minimum run time of the wall-clock timer per variant (default 0.5)")
    p.add_argument("--host-calls", type=positive_int, default=400,
                   help="calls per variant timed on the host, without the profiler, in slices of "
                        f"{PER_SLICE}, each after {WARM} untimed ones (default 400)")
    p.add_argument("--device", choices=("cuda", "cpu"), default="cuda")
    p.add_argument("--out", type=Path, default=None,
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
    p.add_argument("--explain", metavar="TRACE", type=Path,
                   help="read a trace that torch.profiler wrote (.json or .json.gz): kernels "
                        "with occupancy, GPU idle gaps and a verdict per range; no GPU, no "
                        "other option")
    return p


def given_options(parser, argv):
    """The dests of the options the command line names (defaults left out)."""
    names = set()
    for token in argv:
        if token.startswith("--"):
            opt = token.split("=", 1)[0]
            action = parser._option_string_actions.get(opt)
            if action is not None:
                names.add(action.dest)
    return names


def parse_args(argv):
    p = _parser()
    args = p.parse_args(argv)
    if args.explain is not None:
        extra = sorted(given_options(p, argv) - {"explain"})
        if extra:
            p.error("--explain reads one trace; it takes no other option, "
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
    if args.batch * args.heads * args.seq_len * args.head_dim > MAX_ELEMENTS:
        p.error("that shape has more than 2^34 elements per tensor: impossible on any GPU")
    if args.out is None:
        args.out = SCRATCH_OUT if args.device == "cpu" and not args.render_only else DEFAULT_OUT
    if args.all:
        args.extra = True
        for key in ALL_SECTIONS:
            setattr(args, key, True)
    if args.variants is None:
        args.variants = list(VARIANTS) + (list(EXTRA_VARIANTS) if args.extra else [])
    return args


@contextmanager
def staged(parent, prefix, damaged=None):
    """A fresh folder under `parent` to build into; whatever of it the body did not move
    away is removed, on success or failure. With damaged=(what, consequence), an error
    that results of another version raise while rendering becomes one UsageError line."""
    staging = Path(tempfile.mkdtemp(prefix=prefix, dir=parent))
    try:
        yield staging
    except (KeyError, TypeError, ValueError, AttributeError) as err:
        if damaged is None:
            raise
        what, consequence = damaged
        raise UsageError(f"{what} is damaged or was written by another version of build_tables.py "
                         f"({type(err).__name__}: {err}); {consequence}") from None
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def render_folder(folder, ref):
    """Re-render one GPU's tables and figures from its results.json, all or nothing."""
    from report.render.site import render_all

    results = load_results(folder / "results.json")
    with staged(folder, ".render-", (folder / "results.json", "nothing was changed: measure again")) as staging:
        render_all(results, ref, staging / "tables", staging / "figures", folder / "traces")
        for part in ("tables", "figures"):
            replace_dir(staging / part, folder / part)


def result_folders(out):
    """Every folder of `out` with a results.json, by name."""
    return sorted(d for d in out.iterdir() if (d / "results.json").exists()) if out.exists() else []


def render_comparison(out, ref):
    """<out>/compare/tables/ from every GPU folder of `out`, all or nothing; the path, or
    None where `out` holds no GPU run (CPU runs are never compared)."""
    from report.render.compare import has_gpu_runs, render_compare

    runs = [(d.name, load_results(d / "results.json")) for d in result_folders(out)]
    if not has_gpu_runs(runs):
        return None
    final = out / COMPARE / "tables"
    final.parent.mkdir(exist_ok=True)
    with staged(final.parent, ".render-", (f"a results.json under {out}", f"{final} was not changed")) as staging:
        render_compare(runs, ref, staging / "tables")
        replace_dir(staging / "tables", final)
    return final


def render_only(args):
    out = Path(args.out)
    folders = [out / args.slug] if args.slug else result_folders(out)
    if not folders:
        raise UsageError(f"no results.json under {out}: nothing to render")
    ref = load_reference()
    for folder in folders:
        render_folder(folder, ref)
        print(f"rendered {folder / 'tables'} and {folder / 'figures'} from {folder / 'results.json'}")
    compared = render_comparison(out, ref)
    if compared:
        print(f"rendered {compared} from every GPU's results.json under {out}")


def check_writable(out):
    """Refuse an output location the run could not write, before any measurement."""
    out = Path(out)
    existing = out
    while not existing.exists() and existing != existing.parent:
        existing = existing.parent
    if not existing.is_dir():
        raise UsageError(f"--out {out}: {existing} is not a folder (nothing was measured)")
    try:
        fd, probe = tempfile.mkstemp(prefix=".write-test-", dir=existing)
        os.close(fd)
        os.unlink(probe)
    except OSError as err:
        raise UsageError(f"--out {out}: cannot write in {existing} ({err.strerror or err}); "
                         "choose another --out (nothing was measured)") from None


def _shape(config):
    return {k: config.get(k) for k in ("batch", "heads", "seq_len", "head_dim", "dtype")}


def check_target(args, out, slug, prov):
    """Refuse to replace results of another device, another shape, or a fuller run."""
    target = Path(out) / slug
    if slug == COMPARE:
        raise UsageError(f"{target} holds the comparison of every GPU, not one GPU's results: "
                         "choose another --slug (nothing was measured)")
    if target.exists() and not target.is_dir():
        raise UsageError(f"{target} is a file, not a results folder (nothing was measured)")
    old_path = target / "results.json"
    if args.replace or not old_path.is_file():
        return
    try:
        old = json.loads(old_path.read_text(encoding="utf-8"))
        old_gpu = old["provenance"]["gpu_name"]
    except (OSError, ValueError, KeyError, TypeError):
        raise UsageError(f"{old_path} is there but unreadable; pass --replace to overwrite it, "
                         "or choose another --slug (nothing was measured)") from None
    why = None
    if old_gpu != prov["gpu_name"]:
        why = f"holds results of {old_gpu}, and this run is on {prov['gpu_name']}"
    elif _shape(old.get("config", {})) != _shape(vars(args)):
        why = "holds results of another shape or dtype"
    else:
        lost = [v for v in old.get("variants", {}) if v not in args.variants]
        lost += [f"--{s.replace('_', '-')}" for s in SECTION_FLAGS if s in old and not getattr(args, s)]
        if lost:
            why = f"holds {', '.join(lost)}, which this run would not measure"
    if why:
        raise UsageError(f"{target} {why}: pass --replace to replace it, or choose another "
                         "--slug or --out (nothing was measured)")


def write_run(results, trace_tmp, out, slug):
    """Write results, traces, tables and figures into a staging folder, then swap it in."""
    from report.render.site import render_all

    out.mkdir(parents=True, exist_ok=True)
    with staged(out, f".{slug}-") as staging:
        write_results(results, staging / "results.json")
        shutil.copytree(trace_tmp, staging / "traces")
        render_all(results, load_reference(), staging / "tables", staging / "figures",
                   staging / "traces")
        replace_dir(staging, out / slug)


def measure(args, argv):
    from report.measure.run import run_measurements

    out = Path(args.out)
    check_writable(out)
    started = time.perf_counter()
    slug, results, trace_tmp = run_measurements(
        args, argv, out, check=lambda slug, prov: check_target(args, out, slug, prov))
    try:
        write_run(results, trace_tmp, out, slug)
    except OSError as err:
        raise UsageError(f"could not write {out / slug} ({err}); the previous results there "
                         "are untouched") from None
    finally:
        shutil.rmtree(trace_tmp, ignore_errors=True)
    print(f"wrote {out / slug} in {time.perf_counter() - started:.1f} s")
    try:
        compared = render_comparison(out, load_reference())
    except (UsageError, OSError) as err:  # the run itself is written and stays
        print(f"build_tables.py: warning: the comparison of every GPU was not refreshed ({err}); "
              "fix that, then run python build_tables.py --render-only", file=sys.stderr)
    else:
        if compared:
            print(f"rendered {compared} from every GPU's results.json under {out}")


def explain(path):
    """Print what report/trace/explain.py reads off one trace; needs no torch."""
    from report.trace.explain import TraceError, explain_file

    try:
        sys.stdout.write(explain_file(path))
    except TraceError as err:  # one line that names the file
        raise UsageError(str(err)) from None


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    args = parse_args(argv)
    try:
        if args.explain is not None:
            explain(args.explain)
        elif args.render_only:
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
