"""report/doctor/rules/asked.json: the committed runs' eligibility tables (results.json's
"eligibility", what PyTorch said about each backend on the GPU), kept as package data of the
trace doctor, which installs without docs/ (report/doctor/rules/asked_table.py reads it). Written by
build_tables.py when it renders the committed folder (docs/generated/), never by hand.

    asked_text(out)           the file's text from every results folder of `out` with an
                              eligibility table, or None where none has one
    write_asked(out, target)  writes it (a temporary file, then a rename); the path, or None;
                              UsageError where the doctor would refuse it (asked_table's caps:
                              too many runs for its size cap), the file left as it was
"""
from __future__ import annotations

import os
from pathlib import Path

from ..render.asked import FILE, asked_json, refusal_or_data
from ..results import UsageError, load_results
from .folders import result_folders


def asked_text(out):
    return asked_json([(folder.name, load_results(folder / "results.json")) for folder in result_folders(out)])


def write_asked(out, target=FILE):
    """The tables of `out`'s runs into `target`; a run without a table leaves it as it is."""
    text = asked_text(out)
    if text is None:
        return None
    target = Path(target)
    tmp = target.with_name(f".{target.name}.tmp")
    tmp.write_text(text, encoding="utf-8")
    try:
        refusal_or_data(tmp)  # what the doctor's load() checks: never a file it would refuse
    except ValueError as why:
        tmp.unlink()
        raise UsageError(f"{target}: {why}") from None
    os.replace(tmp, target)
    return target
