"""Reading a torch.profiler (Kineto) Chrome trace: pure Python, no torch.

names      kernel names, kinds and which SDPA backend they belong to
stats      median/min/max/mean of a list
analyze    per-forward figures for the ranges of one record_function name
causes     which step of attention a kernel serves
kernel_occupancy  our occupancy for each kernel, from the trace's device properties
explain    --explain: a reader's own trace, in words
"""
