"""Reading a torch.profiler (Kineto) Chrome trace: pure Python, no torch.

reading/   the one reader of the trace format (stream.py: a file streamed into a compact
           Trace of events.py's Events; msgspec_decoder.py, kineto_layout.py: its ways to
           read a batch of events), used by measurement and by the trace doctor alike
names      kernel names, kinds and which SDPA backend they belong to
stats      median/min/max/mean of a list (the summary every time is stored as)
analyze    per-forward figures for the ranges of one record_function name, on the reader's
           Events: what a measurement adds (steps by record_function range, the causes of kernels)
causes     which step of attention a kernel serves
kernel_occupancy  our occupancy for each kernel, from the trace's device properties

A reader's own trace (--explain, trace-doctor) is opened and explained by report/doctor/,
which reads it with reading/ too: the committed figures come from the code a reader runs on
the same trace. The move to one reader changed measuring code (the code hash results.json
records): the committed run is to be re-measured with it.
"""
