"""The reading written out in the language asked for: said.py fills the sentences of
words_en.py and words_nb.py from the rules' facts; text_report.py (the first screen) and
text_detail.py (the detail) are what --explain prints, svg.py with svg_pieces.py the timeline
of one profiled step. The JSON result is model/result_types.py's to_json."""
