"""Reading the --shapes points of results.json: times, their spread, rates, refusals."""
from __future__ import annotations

import re

from ..text.format import fmt_num, unit
from ..trace.stats import median

# the lines of a refusal that say nothing about why: headers and the other backends
NOT_THE_REASON = ("kernel not used because", "can't be used because", "has been runtime disabled",
                  "No available kernel", "No viable backend")
TRIGGERED = re.compile(r"\s*\(Triggered internally at [^)]*\)\.?")
MAX_REASON = 240


def points(results, family):
    shapes = results.get("shapes") or {}
    return [p for p in shapes.get("points", []) if p["family"] == family]


def ok(p):
    return p is not None and p["status"] == "ok"


def point_time(p):
    """The GPU work of one call: the sum of its kernel times (the CPU range without a GPU)."""
    return median(p.get("kernel_sum_us")) or median(p.get("cpu_time_us"))


def spread(p):
    """How far the profiled steps of a point spread: (max - min) / median."""
    s = p.get("kernel_sum_us") or p.get("cpu_time_us")
    return (s["max"] - s["min"]) / s["median"] if s and s["median"] else 0.0


def within_noise(a, b):
    """True when two points' times differ by no more than the larger of their spreads."""
    ta, tb = point_time(a), point_time(b)
    return abs(ta - tb) <= max(spread(a), spread(b)) * min(ta, tb)


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
    good = [p for p in candidates if ok(p)]
    return min(good, key=point_time) if good else None
