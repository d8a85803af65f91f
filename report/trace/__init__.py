"""Reading a torch.profiler (Kineto) Chrome trace: pure Python, no torch.

names      kernel names, kinds and which SDPA backend they belong to
stats      median/min/max/mean of a list (the summary every time is stored as)
analyze    per-forward figures for the ranges of one record_function name
causes     which step of attention a kernel serves
kernel_occupancy  our occupancy for each kernel, from the trace's device properties
reading/   the reader of the trace format (stream.py, events.py, msgspec_decoder.py,
           kineto_layout.py), which the trace doctor reads a reader's trace with

A reader's own trace (--explain, trace-doctor) is report/doctor/'s.

Two readers of one format: analyze.py reads the traces a measurement records (events as
dicts, already in memory), reading/ any reader's trace (streamed, older Kineto's and
ROCm's names folded into today's). They are to become one reader, reading/, so that the
committed figures come from the code a reader runs on the same trace; analyze.py then keeps
only what a measurement adds (steps by record_function range, the causes of kernels).
"""
