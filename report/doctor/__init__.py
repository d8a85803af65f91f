"""The trace doctor: a reader's own torch.profiler trace, read and explained (`trace-doctor`,
`build_tables.py --explain`, the in-browser reader of "Read your own trace"). Standard library
only (msgspec where installed); no torch but --ask-torch's one function.

Its layers, each importing only from those below it (tests/test_layers.py checks the order):

    shown/     how a value is written: numbers (µs, %, significant digits), a string from the
               trace made inert (safe.py)
    reading/   the file: opened and checked (trace_file.py); the format itself is read by
               report/trace/reading/, the one reader measurement uses too (stream.py, with
               msgspec_decoder.py and kineto_layout.py, into the events kept: events.py)
    model/     what ran: the GPU's timeline and why it idled (timeline.py, idle.py), intervals
               and searches, kernel rows and occupancy, communication, recorded shapes and
               SDPA inputs, the kernels' short names, the words of NVIDIA's and AMD's traces,
               and the typed result (result_types.py)
    rules/     the diagnosis: attention per backend and why (attention.py, why.py,
               asked_table.py with asked.json, call_why.py, mha.py), the pace and findings
               (diagnose.py, remedies.py), and the typed facts they return (facts.py)
    output/    the words: one catalog of sentences per language (words_en.py, words_nb.py),
               filled from the rules' facts (said.py); the text (text_report.py, text_detail.py)
               and the SVG timeline (svg.py, svg_pieces.py)
    explain.py the reading in one call: explain_file, explain_path, explain, report
    cli.py     the command (trace-doctor, build_tables.py --explain), ask_torch.py its --ask-torch
"""
