"""Reading a trace file: trace_file.py opens and checks it, stream.py streams its events
(msgspec_decoder.py where msgspec is installed, else kineto_layout.py's pattern, else json)
into the compact events of events.py."""
