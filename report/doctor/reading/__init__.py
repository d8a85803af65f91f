"""A reader's own trace file opened for the doctor: trace_file.py checks it and opens it, read
whole (load_trace) or streamed (read_trace) by the one reader of the format, report/trace/reading/
(stream.py; msgspec_decoder.py where msgspec is installed, else kineto_layout.py's pattern, else
json; the compact events of events.py)."""
