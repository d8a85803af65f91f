"""Reading the --shapes points of results.json: times, their spread, rates, refusals."""
from __future__ import annotations

import re

from ..schema import Results, ShapePoint
from ..text.format import fmt_num, unit
from ..trace.stats import differ, spread
from ..variants import BACKEND_NAMES
from .extra_tables import point_figure, point_time

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


def within_noise(a, b):
    """True when two points' times do not differ beyond noise (trace/stats.py: differ)."""
    return not differ(point_figure(a), point_figure(b))


def wall_figure(p):
    """A point's wall time as the noise rule compares it (trace/stats.py: differ). A wall
    time of one timer run has no spread of its own (an IQR of one run is 0): then its
    spread is the larger of the point's host overhead's and kernel time's, the two that
    set the pace of back-to-back calls."""
    wall = dict(p["wall_time_us"])
    if (wall.get("runs") or 0) < 2:
        wall["spread_pct"] = 100 * max(spread(p[k]) for k in ("host_time_us", "kernel_sum_us") if p.get(k)) \
            if any(p.get(k) for k in ("host_time_us", "kernel_sum_us")) else 0.0
    return wall


def walls_differ(a, b):
    """True when two points' wall times differ beyond noise (wall_figure, differ)."""
    return differ(wall_figure(a), wall_figure(b))


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
