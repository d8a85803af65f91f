"""The trace doctor's lowest layer: how a value is written (numbers.py) and a string from a
trace made inert before it reaches a terminal or a page (safe.py)."""
