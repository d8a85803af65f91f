"""The reading written out: text_report.py (what --explain prints) and svg.py with svg_pieces.py
(the timeline of one profiled step). The JSON result is model/result_types.py's to_json."""
