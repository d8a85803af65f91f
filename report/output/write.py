"""A measured run, one GPU's render and the comparison, each written all or nothing."""
from __future__ import annotations

import shutil
import sys
import time
from pathlib import Path

from ..paths import COMPARE, DEFAULT_OUT, ROOT
from ..results import UsageError, load_reference, load_results, write_results
from .folders import replace_dir, result_folders, staged


def shown_traces(slug):
    """The traces folder as a reader names it from the repository: where the site's are."""
    return (DEFAULT_OUT / slug / "traces").relative_to(ROOT).as_posix()


def render_folder(folder, ref):
    """Re-render one GPU's tables and figures from its results.json, all or nothing."""
    from ..render.site import render_all

    results = load_results(folder / "results.json")
    with staged(folder, ".render-", (folder / "results.json", "nothing was changed: measure again")) as staging:
        render_all(results, ref, staging / "tables", staging / "figures", folder / "traces",
                   shown_traces(folder.name))
        for part in ("tables", "figures"):
            replace_dir(staging / part, folder / part)


def render_comparison(out, ref):
    """<out>/compare/tables/ from every GPU folder of `out`, all or nothing; the path, or
    None where `out` holds no GPU run (CPU runs are never compared)."""
    from ..render.compare import has_gpu_runs, render_compare

    runs = [(d.name, load_results(d / "results.json")) for d in result_folders(out)]
    if not has_gpu_runs(runs):
        return None
    final = out / COMPARE / "tables"
    final.parent.mkdir(exist_ok=True)
    with staged(final.parent, ".render-", (f"a results.json under {out}", f"{final} was not changed")) as staging:
        render_compare(runs, ref, staging / "tables")
        replace_dir(staging / "tables", final)
    return final


def render_only(out, slug=None, progress=print):
    """Re-render `out`/`slug` (or every results folder of `out`), then the comparison."""
    out = Path(out)
    folders = [out / slug] if slug else result_folders(out)
    if not folders:
        raise UsageError(f"no results.json under {out}: nothing to render")
    ref = load_reference()
    for folder in folders:
        render_folder(folder, ref)
        progress(f"rendered {folder / 'tables'} and {folder / 'figures'} from {folder / 'results.json'}")
    compared = render_comparison(out, ref)
    if compared:
        progress(f"rendered {compared} from every GPU's results.json under {out}")


def write_run(results, trace_tmp, out, slug):
    """Write results, traces, tables and figures into a staging folder, then swap it in."""
    from ..render.site import render_all

    out.mkdir(parents=True, exist_ok=True)
    with staged(out, f".{slug}-") as staging:
        write_results(results, staging / "results.json")
        shutil.copytree(trace_tmp, staging / "traces")
        render_all(results, load_reference(), staging / "tables", staging / "figures",
                   staging / "traces", shown_traces(slug))
        replace_dir(staging, out / slug)


def publish_run(results, trace_tmp, out, slug, started, progress=print):
    """Write a measured run (removing its temporary traces), then refresh the comparison;
    a comparison that fails is a warning, since the run itself is written and stays."""
    try:
        write_run(results, trace_tmp, out, slug)
    except OSError as err:
        raise UsageError(f"could not write {out / slug} ({err}); the previous results there "
                         "are untouched") from None
    finally:
        shutil.rmtree(trace_tmp, ignore_errors=True)
    progress(f"wrote {out / slug} in {time.perf_counter() - started:.1f} s")
    try:
        compared = render_comparison(out, load_reference())
    except (UsageError, OSError) as err:
        print(f"build_tables.py: warning: the comparison of every GPU was not refreshed ({err}); "
              "fix that, then run python build_tables.py --render-only", file=sys.stderr)
    else:
        if compared:
            progress(f"rendered {compared} from every GPU's results.json under {out}")
