"""The reader of torch.profiler's trace format: the doctor reads with it today; measurement
(report/trace/analyze.py) moves onto it with its next re-measurement (report/trace/__init__.py)."""
