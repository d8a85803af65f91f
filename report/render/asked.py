"""The text of report/doctor/rules/asked.json, the trace doctor's copy of the runs' eligibility
tables (rules/asked_table.py's compact form, with its "generated, do not edit" mark)."""
from __future__ import annotations

import json

from ..doctor.rules.asked_table import FILE, compact, document, refusal_or_data

__all__ = ["FILE", "asked_json", "refusal_or_data"]


def asked_json(named_results):
    """[(slug, results)] -> the file's text, or None where no run has an eligibility table."""
    runs = [r for r in (compact(results, slug) for slug, results in named_results) if r]
    if not runs:
        return None
    return json.dumps(document(runs), indent=1, sort_keys=True, ensure_ascii=True) + "\n"
