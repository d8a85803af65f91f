"""The diagnosis: attention.py (SDPA per backend, with why.py, asked_table.py, call_why.py and
mha.py), diagnose.py (the first screen's pace and findings, one rule per remedy in remedies.py),
facts.py (the typed facts rules return; output/said.py words them)."""
