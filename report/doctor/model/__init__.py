"""What ran, as the trace shows it: timeline.py (activities, launches, streams, the GPU's busy
stretches), idle.py (idle time by cause per stream and per range), intervals.py and
searches.py (sweeps and O(log n) searches), kernel_rows.py, communication.py, gemm_shapes.py,
sdpa_inputs.py, short_names.py, platform_words.py, and result_types.py (the typed result)."""
