"""The collect step (issue 51's direction): what a GPU observes, raw, and nothing it could
compute later. A collection is one JSON file: its protocol version, the collecting code's
identity (the sha256 of its files, `identity.collect_hashes`), the host it ran on and the
software versions, and the raw figures (every block of every pair, one call's profiler trace
as exported, each result's error against float64). Everything said about it (ratios,
verdicts, the kernels and which backend ran, read from the trace by report/trace/reading/) is
derived at render time (report/render/fixes.py), on any machine, so a change to the analysis
re-derives every committed collection and voids none.

`fix_collector.py`: each refusal of SDPA's beside its own fix, at the same work (issue 52).
`machine.py`: which machine and software a collection ran on.
Only this layer and report/measure/ import torch."""
