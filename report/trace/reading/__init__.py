"""The one reader of torch.profiler's trace format, used by measurement (report/trace/analyze.py) and the doctor."""
