"""A measured run, one GPU's render and the comparison, each written all or nothing."""
from __future__ import annotations

import shutil
import sys
import time
from contextlib import ExitStack
from pathlib import Path

from ..paths import COMPARE, DEFAULT_OUT, FIXES, MODEL_TRACE, RERUNS
from ..results import UsageError, collect_hashes, load_reference, load_results, write_results
from . import signals
from .asked_file import write_asked
from .fix_files import fix_collections
from .folders import (
    mark,
    owned,
    refuse_foreign,
    refuse_foreign_results,
    refuse_replacing,
    refuse_set_aside,
    replace_dir,
    result_folders,
    staged,
)
from .marker import mark_swapping
from .rerun_files import rerun_lines, rerun_results

RENDERED = ("tables", "figures")  # what a render replaces in a results folder
MAX_ERROR = 200  # characters of an OS error shown (a shutil.Error lists every file it copied)


def short_error(err):
    """An OSError as one short line: its reason and file, not a repr of every failed copy."""
    text = f"{err.strerror}: {err.filename}" if getattr(err, "strerror", None) else str(err)
    text = " ".join(text.split())
    return text if len(text) <= MAX_ERROR else text[: MAX_ERROR - 1] + "…"


def _renderer():
    """render_all, imported with Ctrl-C held back: an interrupted matplotlib import can
    leave the interpreter broken (a fatal error at exit instead of one line)."""
    with signals.deferred():
        import matplotlib.pyplot  # noqa: F401

        from ..render.site import render_all
    return render_all


def _stage_folder(stack, folder, ref):
    """One GPU's tables and figures rendered into a staging folder inside it: (the staging
    folder, a line for each rerun pooled into the render or left out)."""
    refuse_foreign(folder)
    results = load_results(folder / "results.json")
    if not owned(folder):  # a contributed results.json: its tables are new, or not ours
        for part in ("tables", "figures"):
            refuse_replacing(folder / part)
    render_all = _renderer()
    staging = stack.enter_context(
        staged(folder, ".render-", (folder / "results.json", "nothing was changed: measure again")))
    reruns = rerun_results(RERUNS / folder.name)
    render_all(results, ref, staging / "tables", staging / "figures", folder / "traces", MODEL_TRACE, reruns,
               fixes=_fixes(folder.name), fixes_code=collect_hashes())
    mark(staging)  # what a render killed from here on leaves is its own, and removable
    _refuse_unlisted(folder, staging, RENDERED)
    return staging, rerun_lines(results, reruns, RERUNS / folder.name)


def _fixes(slug):
    """The --fixes collections of data/fixes/<slug>/, checked, with one line each on which
    are pooled and which are left out (render/fixes.py)."""
    from ..render.fixes import Malformed, checked, pool_lines

    try:
        collections = checked(fix_collections(FIXES / slug))
    except Malformed as err:
        raise UsageError(f"data/fixes/{slug}/{err}") from None
    for line in pool_lines(collections, collect_hashes()):
        print(line)
    return collections


def _refuse_unlisted(folder, staging, parts):
    """Before any folder is swapped: each part holds only files folder's marker lists
    (folders.refuse_replacing), and a `part.old` is one a cut swap left (refuse_set_aside)."""
    for part in parts:
        refuse_replacing(folder / part, owner=folder, new=staging / part)
        refuse_set_aside(folder / f"{part}.old", owner=folder, new=staging / part)


def _swap(folder, staging, parts):
    """Swap `parts` of folder for staging's, its marker listing both while it does, then
    what it holds."""
    mark_swapping(folder, parts, staging)
    for part in parts:
        replace_dir(staging / part, folder / part, owner=folder)
    mark(folder, parts)


def _swap_folder(folder, staging):
    _swap(folder, staging, RENDERED)


def _stage_comparison(stack, out, ref):
    """<out>/compare/tables rendered into a staging folder of `out`, or None where `out`
    holds no GPU run (CPU runs are never compared)."""
    from ..render.compare import has_gpu_runs, render_compare

    refuse_foreign_results(out)
    runs = [(d.name, load_results(d / "results.json")) for d in result_folders(out)]
    if not has_gpu_runs(runs):
        return None
    refuse_replacing(out / COMPARE)
    staging = stack.enter_context(
        staged(out, ".render-", (f"a results.json under {out}", f"{out / COMPARE} was not changed")))
    render_compare(runs, ref, staging / "tables", {name: rerun_results(RERUNS / name) for name, _ in runs})
    mark(staging)
    if (out / COMPARE).is_dir():
        _refuse_unlisted(out / COMPARE, staging, ("tables",))
    return staging


def _swap_comparison(out, staging):
    folder = out / COMPARE
    if not folder.exists():
        folder.mkdir()
        mark(folder)
    _swap(folder, staging, ("tables",))
    return folder / "tables"


def render_folder(folder, ref):
    """Re-render one GPU's tables and figures from its results.json, all or nothing."""
    with ExitStack() as stack:
        _swap_folder(folder, _stage_folder(stack, folder, ref)[0])


def render_comparison(out, ref):
    """<out>/compare/tables/ from every GPU folder of `out`, all or nothing; the path, or
    None where `out` holds no GPU run."""
    with ExitStack() as stack:
        staging = _stage_comparison(stack, out, ref)
        return _swap_comparison(out, staging) if staging else None


def render_only(out, slug=None, progress=print):
    """Re-render `out`/`slug` (or every results folder of `out`) and the comparison; every
    part is rendered before any is swapped in, so a failure changes nothing."""
    out = Path(out)
    if slug == COMPARE:
        raise UsageError(f"{out / COMPARE} is the comparison of every GPU, rendered from their "
                         "folders: run --render-only without --slug to render it")
    folders = [out / slug] if slug else result_folders(out)
    if not folders:
        raise UsageError(f"no results.json under {out}: nothing to render")
    refuse_foreign_results(out, folders)  # before anything is written
    # the doctor's table first: the explain pages read it, so one render is already the
    # render of what is committed (a second gives the same bytes)
    refresh_asked(out, progress)
    ref = load_reference()
    with ExitStack() as stack:
        try:
            staged_folders = [(folder, _stage_folder(stack, folder, ref)) for folder in folders]
            compare = _stage_comparison(stack, out, ref)
        except OSError as err:
            raise UsageError(f"cannot render into {out} ({short_error(err)}); nothing was "
                             "changed") from None
        for folder, (staging, said) in staged_folders:
            _swap_folder(folder, staging)
            progress(f"rendered {folder / 'tables'} and {folder / 'figures'} from {folder / 'results.json'}")
            for line in said:
                progress(line)
        if compare:
            progress(f"rendered {_swap_comparison(out, compare)} from every GPU's results.json under {out}")


def refresh_asked(out, progress=print):
    """The doctor's copy of the committed runs' eligibility tables (asked_file.py), where `out`
    is the committed folder; a failure is a warning, since the tables and figures are written."""
    if Path(out).resolve() != DEFAULT_OUT.resolve():
        return
    try:
        written = write_asked(out)
    except (UsageError, OSError) as err:
        print(f"build_tables.py: warning: the trace doctor's table was not refreshed ({err}); "
              "fix that, then run python build_tables.py --render-only", file=sys.stderr)
        return
    if written:
        progress(f"wrote {written} from the eligibility tables of every results.json under {out}")


def write_run(results, trace_tmp, out, slug):
    """Write results, traces, tables and figures into a staging folder, then swap it in; a
    line for each rerun pooled into its render or left out."""
    render_all = _renderer()
    out.mkdir(parents=True, exist_ok=True)
    with staged(out, f".{slug}-") as staging:
        write_results(results, staging / "results.json")
        shutil.copytree(trace_tmp, staging / "traces")
        # rendered as --render-only renders it: loaded back, its figures derived from its traces
        results = load_results(staging / "results.json")
        reruns = rerun_results(RERUNS / slug)
        render_all(results, load_reference(), staging / "tables", staging / "figures",
                   staging / "traces", MODEL_TRACE, reruns, fixes=_fixes(slug),
                   fixes_code=collect_hashes())
        mark(staging)  # every file the run wrote, by its path and sha256
        replace_dir(staging, out / slug)
    return rerun_lines(results, reruns, RERUNS / slug)


def publish_run(results, trace_tmp, out, slug, started, progress=print):
    """Write a measured run (removing its temporary traces), then refresh the comparison;
    a comparison that fails is a warning, since the run itself is written and stays."""
    before = "the previous results there are untouched" if (out / slug).exists() \
        else "nothing was written"
    try:
        signals.check()
        said = write_run(results, trace_tmp, out, slug)
    except OSError as err:
        raise UsageError(f"could not write {out / slug} ({short_error(err)}); {before}") from None
    finally:
        shutil.rmtree(trace_tmp, ignore_errors=True)
    progress(f"wrote {out / slug} in {time.perf_counter() - started:.1f} s")
    for line in said:
        progress(line)
    try:
        compared = render_comparison(out, load_reference())
    except (UsageError, OSError) as err:
        print(f"build_tables.py: warning: the comparison of every GPU was not refreshed ({err}); "
              "fix that, then run python build_tables.py --render-only", file=sys.stderr)
    else:
        if compared:
            progress(f"rendered {compared} from every GPU's results.json under {out}")
    refresh_asked(out, progress)
