#!/usr/bin/env python3
"""--explain beside Holistic Trace Analysis (HTA) on the same traces: the idle-time breakdown
per stream and the GPU time per kernel kind. Prints both; asserts nothing; HTA is not a
requirement of this repository (pip install HolisticTraceAnalysis to run it).

    python benchmarks/compare_hta.py                       # the corpus, tests/fixtures/corpus
    python benchmarks/compare_hta.py TRACE.json.gz ...     # any traces

For each trace: --explain's idle time per stream split into host / other stream / other,
HTA's get_idle_time_breakdown (host_wait / kernel_wait / other, per stream), and each one's
compute / communication / memory GPU time (HTA's get_gpu_kernel_breakdown). HTA's
"kernel_wait" (a gap under its consecutive-kernel threshold) is part of --explain's "other";
--explain's "other stream" is part of HTA's "other".
"""
from __future__ import annotations

import shutil
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from report.trace.explain import TraceError, explain, read_trace  # noqa: E402

CORPUS = ROOT / "tests" / "fixtures" / "corpus"


def ours(path):
    found = explain(read_trace(path))
    rows = [(f"stream {s['stream']}", s["idle_us"]) for s in found["streams"]]
    return rows, found["kinds_us"]


def hta(path):
    """HTA's idle-time and kernel-type breakdowns of one trace (it reads a folder of them)."""
    from hta.trace_analysis import TraceAnalysis

    with tempfile.TemporaryDirectory() as tmp:
        shutil.copy(path, Path(tmp) / Path(path).name)
        analysis = TraceAnalysis(trace_dir=tmp)
        idle, _ = analysis.get_idle_time_breakdown(visualize=False)
        kinds, _ = analysis.get_gpu_kernel_breakdown(visualize=False)
    rows = {}
    for r in idle.to_dict("records"):
        rows.setdefault(f"stream {r['stream']}", {})[r["idle_category"]] = r["idle_time"] / 1000  # ns -> µs
    return sorted(rows.items()), {r["kernel_type"]: r["sum"] / 1000 for r in kinds.to_dict("records")}


def main(argv=None):
    paths = [Path(a) for a in (sys.argv[1:] if argv is None else argv)] or sorted(CORPUS.glob("*.json.gz"))
    try:
        import hta  # noqa: F401
        have_hta = True
    except ImportError:
        have_hta = False
        print("HTA is not installed: only --explain's figures (pip install HolisticTraceAnalysis to compare)")
    for path in paths:
        print(f"\n{path.name}")
        try:
            rows, kinds = ours(path)
        except TraceError as err:
            print(f"  --explain: {err}")
            continue
        for stream, idle in rows:
            print(f"  --explain {stream}: idle host {idle['host']:,.1f} µs, other stream {idle['stream']:,.1f} µs, "
                  f"other {idle['other']:,.1f} µs")
        print("  --explain busy: " + ", ".join(f"{k} {v:,.1f} µs" for k, v in kinds.items()))
        if have_hta:
            try:
                rows, kinds = hta(path)
            except Exception as err:  # noqa: BLE001 - HTA's own failures are a finding, not ours
                print(f"  HTA failed: {type(err).__name__}: {err}")
                continue
            for stream, idle in rows:
                print(f"  HTA {stream}: " + ", ".join(f"{k} {v:,.1f} µs" for k, v in sorted(idle.items())))
            print("  HTA kernel time: " + ", ".join(f"{k} {v:,.1f} µs" for k, v in kinds.items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
