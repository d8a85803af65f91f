"""The derive step (issue 51): a collected run's figures, read off what it kept.

A run of `build_tables.py` collects (report/measure/): every profile's trace kept whole in
its traces/ folder, every timer's blocks, PyTorch's answers, provenance. Its results.json
(schema version results.COLLECTED) names, in each row that was profiled, the trace and the
record_function range it profiled: {"trace": "traces/profiles/<sha>.json.gz", "range":
"flash_fwd"}. What those traces show (kernel time, GPU span, profiled CPU time, the kernels,
their occupancy, which backend ran, TFLOP/s) is derived here, on any machine, each time a
run is loaded (results.load_results), by the analysis of report/trace/. So the analysis is
not part of a run's identity (results.code_hashes): a change to it re-derives every
committed run at once, and golden tests on the committed data guard it.

derivation.py derive(results, folder): every section's rows, from the traces under folder
sections.py   what each section keeps of a trace (the fields, the backend, the TFLOP/s)
kept.py       a row's kept trace: the path checked (inside the run's folder, one of ours),
              read once per file and process
"""
