"""Reading the --shapes points of results.json: times, their spread, rates, refusals."""
from __future__ import annotations

import re

from ..schema import Results, ShapePoint
from ..text.display import BACKEND_NAMES
from ..text.format import fmt_num, unit
from .extra_tables import point_time

# the lines of a refusal that say nothing about why: headers and the other backends
NOT_THE_REASON = ("kernel not used because", "can't be used because", "has been runtime disabled",
                  "No available kernel", "No viable backend")
TRIGGERED = re.compile(r"\s*\(Triggered internally at [^)]*\)\.?")
MAX_REASON = 240


def points(results: Results, family: str) -> list[ShapePoint]:
    shapes = results.get("shapes") or {}
    return [p for p in shapes.get("points", []) if p["family"] == family]


def backend_name(name):
    """The name of a backend that ran ("flash", "cuDNN"), read off the trace."""
    return BACKEND_NAMES.get(name, name)


def ran_suffix(p):
    """" (cuDNN)": the backend unpinned SDPA ran at a point, from the trace; "" if unknown."""
    return f" ({backend_name(p['backend_ran'])})" if p.get("backend_ran") else ""


def point_ok(p: ShapePoint | None) -> bool:
    return p is not None and p["status"] == "ok"


def gb_per_s(p):
    """Bytes a call must at least move (Q, K, V read, the output written) per second."""
    return p["io_bytes"] / (point_time(p) * 1e-6) / 1e9


def tflops(p):
    """Floating-point operations of the allowed (query, key) pairs per second."""
    return p["flops"] / (point_time(p) * 1e-6) / 1e12


def fmt_gbs(x, lang):
    return unit(fmt_num(x, lang, 0), "GB/s", lang)


def refusal_line(reason):
    """The one line of a refusal that says why (SDPA's warning), without where it was raised."""
    parts = [TRIGGERED.sub("", part).strip() for part in (reason or "").split(" | ")]
    parts = [part for part in parts if part]
    useful = [part for part in parts if not any(n in part for n in NOT_THE_REASON)]
    line = (useful or parts or ["?"])[0]
    return line if len(line) <= MAX_REASON else line[:MAX_REASON - 1] + "…"


def grouped(pts):
    """{(q_len, batch): {variant: {kv_len: point}}} for decode points, in measuring order."""
    out = {}
    for p in pts:
        out.setdefault((p["q_len"], p["batch"]), {}).setdefault(p["variant"], {})[p["kv_len"]] = p
    return out


def fastest(candidates):
    """The point with the shortest time among those that ran, or None."""
    good = [p for p in candidates if point_ok(p)]
    return min(good, key=point_time) if good else None
