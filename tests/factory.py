"""Results for the tests, in the shape report/schema.py gives results.json: the site's run
(the committed run mkdocs.yml's extra.gpu picks), and made-up rows, points and sections
built from a few figures; and trace events given odd values (odd_value), for the trace
reader. A library for the tests (tests import it; it imports no test module).

    from factory import row, results, site_run, stats
    r = results({"flash": row(100.0), "cudnn": row(90.0, spread=0.3)})   # a made-up run
    r = site_run()                                                        # the real one, a copy
"""
from __future__ import annotations

import copy
import functools
import json
import shutil
from pathlib import Path

from pagecode import committed_gpu, shown_run

from report.results import load_results
from report.schema import (
    FirstCallsRow,
    HostStats,
    Kernel,
    OverheadRow,
    Results,
    ShapePoint,
    Stats,
    SweepPoint,
    VariantRow,
    Wall,
)
from report.variants import SHAPES_GPU

SITE_RUN = shown_run(committed_gpu())[1]  # the site's run's folder (docs/generated/<extra.gpu>/)
FIXTURES = Path(__file__).resolve().parent / "fixtures" / "h200"  # traces recorded on an NVIDIA H200
# the smallest CPU run of build_tables.py that measures everything it measures on a CPU
SMALL_CPU = ["--device", "cpu", "--batch", "1", "--heads", "2", "--seq-len", "64", "--head-dim", "32",
             "--dtype", "float32", "--steps", "3", "--timer-seconds", "0.01", "--host-calls", "5"]
# the session's CPU run (conftest.py: cpu_run, once a session): the measuring path end to end,
# the default 4 rounds (fresh processes), 6 pairs in each (not 30: the time of a CPU run is
# its pairs), read by every test that checks what a run measures and writes
CPU_RUN = SMALL_CPU + ["--variants", "naive,math,efficient,auto", "--host-calls", "80", "--pairs", "6"]
# for a test that checks what a run does beside its rounds and pairs: one fresh process, not
# four, and 2 pairs in it (cpu_run checks the rounds and pairs themselves)
ONE_SHORT_ROUND = ["--rounds", "1", "--pairs", "2"]


@functools.cache
def _site_run():
    # loaded, its figures derived from its traces: written out again (a test's made-up run),
    # it is a run that stores its figures, schema version 1, and needs no traces beside it
    return {**load_results(SITE_RUN / "results.json"), "schema_version": 1}


def copy_run(folder, source=SITE_RUN):
    """A copy of a run's folder as its figures need it: results.json and the traces they are
    derived from (report/derive/)."""
    folder.mkdir(parents=True, exist_ok=True)
    shutil.copy(source / "results.json", folder / "results.json")
    shutil.copytree(source / "traces", folder / "traces", dirs_exist_ok=True)
    return folder


def site_run() -> Results:
    """A copy of the site's run, its figures derived (schema version 1: written out, it
    needs no traces), to change as a test needs."""
    return copy.deepcopy(_site_run())


def stats(median, spread=0.02, n=50) -> Stats:
    """A stats summary whose min and max lie `spread` (a fraction) either side of median."""
    return {"median": median, "min": median * (1 - spread), "max": median * (1 + spread), "mean": median, "n": n}


def wall(median) -> Wall:
    return {"median": median, "iqr": 0.01 * median, "runs": 5, "calls_per_run": 20}


def kernel(short_name="flash_fwd_kernel", avg_us=10.0, kind="kernel", per_forward=1.0, **extra) -> Kernel:
    return {"name": f"void {short_name}<...>(...)", "short_name": short_name, "kind": kind,
            "launched_by": "cudaLaunchKernel", "aten_op": "aten::x", "aten_stack": ["aten::x"], "cause": "other",
            "calls": 50, "total_us": 50 * avg_us * per_forward, "per_forward": per_forward, "avg_us": avg_us,
            "block": [128, 1, 1], "grid": [1, 32, 8], **extra}


def host(median, per_small_op=None, spread_pct=5.0, small_op_us=7.0) -> HostStats:
    """A host-overhead figure: median µs per call, per_small_op its count in small ops."""
    per_op = per_small_op if per_small_op is not None else median / small_op_us
    return {**stats(median), "quarters": [median] * 4, "spread_pct": spread_pct, "calls": 400, "slices": 40,
            "warm": 3, "per_small_op": {**stats(per_op), "quarters": [per_op] * 4, "spread_pct": spread_pct},
            "small_op_us": {**stats(small_op_us), "quarters": [small_op_us * 0.9, small_op_us, small_op_us,
                                                               small_op_us * 1.1], "spread_pct": 10.0},
            "first_calls": {"after_wait": stats(3.0), "after_switch": stats(2.0)}, "gpu_kept_busy": 1.0}


def row(kernel_us, span_us=None, spread=0.02, cpu_us=30.0, wall_us=None, host_us=None, backend_ran=None,
        kernels=None, **extra) -> VariantRow:
    """A variant that ran: its kernel time (median µs over the steps, `spread` either side),
    its GPU span (kernel time plus 10 % unless given), and the rest made up to match."""
    span = span_us if span_us is not None else kernel_us * 1.1
    return {"status": "ok", "reason": None, "first_call_ms": 2.0, "rel_error": 2e-3, "peak_extra_mib": 16.0,
            "wall_time_us": wall(wall_us if wall_us is not None else max(span, host_us or 0.0) * 1.05),
            "cpu_time_us": stats(cpu_us), "cuda_time_us": stats(span, spread), "kernel_sum_us": stats(kernel_us, spread),
            "gpu_activities_per_forward": stats(1), "steps": 50,
            "kernels": kernels if kernels is not None else [kernel(avg_us=kernel_us)],
            "backend_ran": backend_ran, "tflops": 100.0,
            "host_time_us": host(host_us) if host_us is not None else None, **extra}


def refused(status="unsupported", reason="No available kernel. Aborting execution.") -> VariantRow:
    """A variant that did not run."""
    return {"status": status, "reason": reason}


def results(variants=None, gpu="NVIDIA H200", **sections) -> Results:
    """A made-up run of the seed's shape on `gpu` with these variant rows and sections."""
    return {"schema_version": 1, "generated_by": "tests/factory.py",
            "provenance": {"gpu_name": gpu, "driver": "580.0", "cuda": "13.0", "cudnn": "9.19.0",
                           "torch": "2.11.0", "date": "2026-12-01", "command": "python build_tables.py"},
            "config": {"batch": 8, "heads": 16, "seq_len": 1024, "head_dim": 64, "dtype": "bfloat16",
                       "causal": True, "steps": 50},
            "roof": {"shape": [8192, 8192, 8192], "dtype": "bfloat16", "tflops": 700.0, "median_ms": 1.5},
            "variants": dict(variants or {}), **sections}


def sweep_point(variant, seq_len, kernel_us, head_dim=64, backend_ran=None, status="ok", spread=0.02) -> SweepPoint:
    if status != "ok":
        return {"variant": variant, "seq_len": seq_len, "head_dim": head_dim, "batch": 8, "heads": 16,
                "status": status, "reason": "out of memory" if status == "oom" else "No available kernel."}
    return {"variant": variant, "batch": 8, "heads": 16, "seq_len": seq_len, "head_dim": head_dim, "status": "ok",
            "backend_ran": backend_ran, "cuda_time_us": stats(kernel_us * 1.1, spread),
            "cpu_time_us": stats(30.0), "kernel_sum_us": stats(kernel_us, spread), "wall_time_us": wall(kernel_us),
            "peak_extra_mib": seq_len / 64, "tflops": seq_len / 10}


def sweep(points, seq_lens=None, head_dims=(64,)):
    return {"batch": 8, "heads": 16, "dtype": "bfloat16", "steps": 5,
            "seq_lens": list(seq_lens or sorted({p["seq_len"] for p in points})), "head_dims": list(head_dims),
            "points": list(points)}


def overhead_row(kernel_us, eager_us, graph_us=None) -> OverheadRow:
    return {"status": "ok", "kernel_sum_us": stats(kernel_us), "cuda_time_us": stats(kernel_us * 1.1),
            "cpu_time_us": stats(eager_us), "eager_wall_us": wall(eager_us),
            "graph_wall_us": wall(graph_us) if graph_us is not None else None}


def overhead(rows_by_shape):
    """rows_by_shape: {"seed" | "small": {variant: overhead_row(...)}}."""
    shapes = {"seed": {"batch": 8, "heads": 16, "seq_len": 1024, "head_dim": 64},
              "small": {"batch": 1, "heads": 16, "seq_len": 256, "head_dim": 64}}
    return {"shapes": {s: shapes[s] for s in rows_by_shape}, "rows": dict(rows_by_shape)}


def first_calls_row(first_ms, again_ms=0.1, new_shape_ms=None, new_again_ms=0.1) -> FirstCallsRow:
    return {"status": "ok", "first_in_process_ms": first_ms, "same_shape_again_ms": again_ms,
            "first_new_shape_ms": new_shape_ms if new_shape_ms is not None else first_ms / 2,
            "new_shape_again_ms": new_again_ms}


def first_calls(rows):
    return {"new_shape": {"batch": 8, "heads": 16, "seq_len": 2048, "head_dim": 64}, "rows": dict(rows)}


def backward(rows):
    return {"config": {"batch": 8, "heads": 16, "seq_len": 1024, "head_dim": 64}, "rows": dict(rows)}


# --------------------------------------------------------------------------- --shapes


def shape_row(kernel_us, ran, host_us=None, grid=(1, 32, 8), wall_us=None, mem=100.0):
    """The figures of one shape point that ran, kernel time `kernel_us`, backend `ran`."""
    r = row(kernel_us, spread=0.01, cpu_us=host_us or 30.0, host_us=host_us, backend_ran=ran,
            wall_us=wall_us or max(kernel_us, host_us or 0.0) * 1.05,
            kernels=[kernel(f"{ran}_fwd_kernel", kernel_us, grid=list(grid))], peak_extra_mib=mem)
    r["gpu_activities_per_forward"] = stats(2)
    return r


def shape_point(family, variant, shape, figures) -> ShapePoint:
    """A point of `family` at `shape` (batch, heads, lengths, window): its sizes, then the
    figures (shape_row(...) or refused(...))."""
    from report.measure.shape_runs import sizes

    return {"family": family, "variant": variant, **shape, **sizes(shape, 2, variant), **figures}


def shape_results():
    """The site's run with made-up --shapes points: flash wins decode, auto runs
    flash, cuDNN refuses a short query, batch 32 at 128k is skipped, math runs out of
    memory at the longest prompt, efficient refuses grouped-query attention."""
    from report.measure.shape_runs import sizes

    pts = []
    for q_len, batch in SHAPES_GPU["decode_runs"]:
        for kv in SHAPES_GPU["decode_kv_lens"]:
            shape = {"batch": batch, "q_heads": 32, "kv_heads": 32, "q_len": q_len, "kv_len": kv,
                     "head_dim": 128, "window": None}
            kv_bytes = sizes(shape, 2)["kv_bytes"]
            for v in ("auto", "math", "flash", "efficient", "cudnn"):
                if batch == 32 and kv == 131072:
                    pts.append(shape_point("decode", v, shape, {"status": "skipped",
                                                                 "reason": "K and V would take 64.0 GiB"}))
                    continue
                if v == "cudnn" and q_len == 4:
                    pts.append(shape_point("decode", v, shape, refused(reason=(
                        "cuDNN attention kernel not used because: | cuDNN attention does not support this "
                        "mask. (Triggered internally at /x/sdp_utils.cpp:9.) | No available kernel. "
                        "Aborting execution."))))
                    continue
                t_us = kv_bytes / 3.5e12 * 1e6 * {"math": 6, "efficient": 1.4, "cudnn": 1.2}.get(v, 1.0) + 6
                if v == "auto" and q_len == 4:
                    t_us *= 1.3  # unpinned slower than flash here, beyond the 2 % spread
                host_us = {"math": 120.0, "auto": 40.0}.get(v, 35.0) if batch == 1 else None
                pts.append(shape_point("decode", v, shape, shape_row(t_us, {"auto": "flash"}.get(v, v), host_us,
                                                                     grid=(1, 32, 4 if kv < 8192 else 64))))
    for s in SHAPES_GPU["prefill_lens"]:
        shape = {"batch": 1, "q_heads": 32, "kv_heads": 32, "q_len": s, "kv_len": s, "head_dim": 128,
                 "window": None}
        flops = sizes(shape, 2)["flops"]
        for v in ("auto", "math", "flash", "efficient", "cudnn"):
            if v == "math" and s == 32768:
                pts.append(shape_point("prefill", v, shape,
                                       refused("oom", "CUDA out of memory. Tried to allocate 128 GiB")))
                continue
            rate = {"math": 60, "efficient": 300, "cudnn": 560, "auto": 560}.get(v, 450) * 1e12
            pts.append(shape_point("prefill", v, shape, shape_row(flops / rate * 1e6, {"auto": "cudnn"}.get(v, v))))
    for family, q_len, kv_len, batch in (("gqa_decode", 1, 8192, 32), ("gqa_prefill", 8192, 8192, 1)):
        for kv_heads in (8, 1):
            shape = {"batch": batch, "q_heads": 32, "kv_heads": kv_heads, "q_len": q_len, "kv_len": kv_len,
                     "head_dim": 128, "window": None}
            for v in ("auto", "math", "flash", "efficient", "cudnn", "repeat_kv"):
                if v == "efficient":
                    pts.append(shape_point(family, v, shape, refused(reason=(
                        "Efficient attention does not support grouped-query attention. | No available kernel."))))
                    continue
                base_us = 300.0 if family == "gqa_decode" else 2000.0
                t_us = base_us * {"repeat_kv": 4.0, "math": 10.0}.get(v, 1.0) * (1 if kv_heads == 8 else 0.7)
                pts.append(shape_point(family, v, shape, shape_row(
                    t_us, {"auto": "flash", "repeat_kv": "flash"}.get(v, v), mem=4096.0 if v == "repeat_kv" else 16.0)))
    shape = {"batch": 1, "q_heads": 32, "kv_heads": 32, "q_len": 32768, "kv_len": 32768, "head_dim": 128,
             "window": 4096}
    for v, t_us, sparsity in (("flex_sliding", 5000.0, 85.0), ("flex_causal", 21000.0, 49.8),
                              ("auto", 16000.0, None)):
        figures = shape_row(t_us, "cudnn" if v == "auto" else None)
        if sparsity is not None:
            figures["block_sparsity_pct"] = sparsity
        pts.append(shape_point("sliding", v, shape, figures))
    out = site_run()
    out["shapes"] = {"config": {**SHAPES_GPU, "dtype": "bfloat16", "steps": 5, "timer_seconds": 0.1,
                                "host_calls": 200, "memory_share": 0.25,
                                "device_memory_bytes": int(139.8 * 2**30), "reference_rows": 16},
                     "copy_roof": {"bytes": 4 * 2**30, "median_ms": 2.0, "gb_per_s": 4295.0,
                                   "min_ms": 1.98, "max_ms": 2.05},
                     "points": pts}
    return out


# --------------------------------------------------------------------------- findings


def findings_of(module):
    """The names of the findings a module of report/render/findings defines, in order."""
    from report.render.findings import FINDINGS

    return [name for name, fn in FINDINGS.items() if fn.__module__ == module.__name__]


def found(finding, run, ref=None):
    """What a finding of a file with a template finds in the run: its fact, or None. First
    renders that fact alone through the file's template in both languages, so that every
    field the sentences read is there (StrictUndefined) and every figure has a format."""
    from report.render import prose
    from report.render.findings.registry import FILE_OF
    from report.results import load_reference

    fact = finding(run, ref if ref is not None else load_reference())
    file = FILE_OF[finding.__name__]
    for lang in ("nb", "en"):
        prose.render(file, lang, {n: (fact if n == finding.__name__ else None) for n, f in FILE_OF.items() if f == file})
    return fact


def nothing_measured():
    """A run where every variant was refused and no section was measured."""
    run = site_run()
    run["variants"] = {n: refused() for n in run["variants"]}
    for section in ("first_calls", "overhead", "backward", "sweep", "shapes", "ncu", "pairs", "exp_roof", "eligibility"):
        run.pop(section, None)
    return run


def another_gpu():
    """The site's run as if on an A100: cuDNN refused, unpinned SDPA ran flash."""
    run = site_run()
    run["provenance"]["gpu_name"] = "NVIDIA A100-SXM4-80GB"
    run["variants"]["cudnn"] = refused()
    run["variants"]["auto"]["backend_ran"] = "flash"
    return run


# a trace event's fields, and the args of a GPU activity or launch call, that --explain reads
EVENT_FIELDS = ("ph", "cat", "name", "pid", "tid", "ts", "dur", "args")
EVENT_ARGS = ("correlation", "device", "stream", "grid", "block", "registers per thread", "shared memory",
              "est. achieved occupancy %")


def odd_value(rng, events, odd, field_share):
    """One of the events (picked by rng) given a value of `odd` (picked by rng): for one of its
    EVENT_FIELDS in field_share of the picks and wherever its args are no object, else for
    one of its EVENT_ARGS."""
    e = rng.choice(events)
    if rng.random() < field_share or not isinstance(e.get("args"), dict):
        e[rng.choice(EVENT_FIELDS)] = rng.choice(odd)
    else:
        e["args"][rng.choice(EVENT_ARGS)] = rng.choice(odd)


def run_main(argv, capsys):
    """build_tables.main(argv) in this process: (its exit code, what it printed); argparse's
    exit counts as the code it gives."""
    import build_tables

    try:
        code = build_tables.main(argv)
    except SystemExit as exc:  # argparse
        code = exc.code
    return code, capsys.readouterr()


def replay_run(monkeypatch, folder):
    """build_tables.py's measuring step replaced by the run in `folder` (conftest.cpu_run):
    after the target's check, as run_measurements does, its results and a copy of its
    traces come back as a measurement returns them. For a test of what happens after the
    measuring (the write, a crash in it), which then measures nothing."""
    import shutil
    import tempfile

    from report.measure import run
    from report.results import load_results

    def replay(args, argv, out_dir, progress=print, check=None):
        load_results(folder / "results.json")  # checked as a run's is; returned as collected
        results = json.loads((folder / "results.json").read_text(encoding="utf-8"))
        slug = args.slug or folder.name
        if check is not None:
            check(slug, results["provenance"])
        traces = Path(tempfile.mkdtemp(prefix="traces-"))
        shutil.copytree(folder / "traces", traces, dirs_exist_ok=True)
        return slug, results, traces

    monkeypatch.setattr(run, "run_measurements", replay)
