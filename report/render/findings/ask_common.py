"""What results.json's "eligibility" section (measure's "ask PyTorch why" phase) holds, read
for the page "When SDPA refuses a backend": its conditions, the backends PyTorch refused with
its own reasons, and what a condition costs against its reference.

A condition's reference is the condition its "fix" names, where that one has a kernel time;
else the fastest fused backend pinned at the plain setting of the same shape (`best_pinned`).
Two conditions' kernel times (one run each, a few profiled steps) are compared by
report/verdict's `by_points` (shape_common.compare_times), the rule of every one-run point.
Nothing here names a condition: which conditions exist, what ran and why come from the data.
"""
from __future__ import annotations

from ...rows import with_kernel_time
from ...variants import FUSED
from .shape_common import Compare, compare_times

ASKED = ("flash", "efficient", "cudnn")  # the backends PyTorch is asked about, in can_use's order
PLAIN = {"mask": "none", "layout": "contiguous", "enable_gqa": False, "is_causal": False, "api": "sdpa"}


def section(results) -> dict | None:
    """results["eligibility"] where it has conditions, else None (a run without the phase,
    or one whose phase recorded only its error)."""
    found = results.get("eligibility")
    return found if isinstance(found, dict) and found.get("conditions") else None


def conditions(results) -> list[dict]:
    found = section(results)
    return list(found["conditions"]) if found else []


def by_id(results) -> dict[str, dict]:
    return {c["id"]: c for c in conditions(results)}


def kernel_time(c) -> float | None:
    """A condition's median kernel time, µs, or None where it has none."""
    k = c.get("kernel_time_us") or {}
    return k.get("median") or None


def point(c) -> dict:
    """The condition as a point report/verdict's by_points reads: its median and the range
    of its profiled steps."""
    k = c["kernel_time_us"]
    steps = k.get("steps") or [k["median"]]
    return with_kernel_time({"median": k["median"], "min": min(steps), "max": max(steps)})


def refused(c) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """((backend, PyTorch's reasons, word for word), ...) for each asked backend can_use_*
    answered False for, in ASKED's order; a check that raised instead of answering gives
    its error as the reason."""
    asked = c.get("can_use") or {}
    return tuple((b, (*(asked[b].get("reasons") or ()), *([asked[b]["error"]] if asked[b].get("error") else [])))
                 for b in ASKED if b in asked and not asked[b].get("ok"))


def skipped(c) -> bool:
    """The phase's time ran out before this condition: it holds only its setting and why."""
    return "setting" in c and "can_use" not in c and "ran" not in c


def raised(c) -> bool:
    """The condition's call raised (not: it was skipped)."""
    return bool(c.get("error")) and not skipped(c)


def _plain(c, shape) -> bool:
    s = c.get("setting") or {}
    return (all(s.get(k) == v for k, v in PLAIN.items()) and not s.get("dropout")
            and s.get("head_dim") == (shape or {}).get("head_dim"))


def best_pinned(results, shape_name) -> dict | None:
    """The fastest condition of the shape pinned to a fused backend that ran it, at the
    plain setting (no mask, contiguous 4-D, no dropout, no GQA, not causal, the shape's head
    dimension) in the dtype of the shape's plain unpinned condition; None without one."""
    shape = ((section(results) or {}).get("shapes") or {}).get(shape_name)
    here = [c for c in conditions(results) if c.get("shape") == shape_name and _plain(c, shape)]
    dtypes = {c["setting"].get("dtype") for c in here if c["setting"].get("pinned") is None}
    pinned = [c for c in here if c["setting"].get("pinned") in FUSED and c.get("ran") == c["setting"]["pinned"]
              and not c.get("error") and kernel_time(c) and (not dtypes or c["setting"].get("dtype") in dtypes)]
    return min(pinned, key=kernel_time, default=None)


def reference(results, c) -> dict | None:
    """What condition c is compared with: its fix where that has a kernel time, else the
    best pinned fused backend of its shape, for a plain SDPA call only (nn.MultiheadAttention's
    time holds its projections, a compiled function's whatever Inductor fused); None where it
    is that one itself, or has none."""
    fix = by_id(results).get(c.get("fix"))
    if fix is not None and kernel_time(fix):
        ref = fix
    elif (c.get("setting") or {}).get("api") == "sdpa":
        ref = best_pinned(results, c.get("shape"))
    else:
        return None
    return None if ref is None or ref["id"] == c["id"] else ref


def work(results, c) -> float | None:
    """The attention work of c's call, as the product the two matrix products scale with
    (batch × query heads × queries × keys × head dim), or None where it cannot be told from
    the setting (nested inputs: the tokens per sequence; nn.MultiheadAttention's
    projections)."""
    shape = ((section(results) or {}).get("shapes") or {}).get(c.get("shape")) or {}
    s = c.get("setting") or {}
    if s.get("layout") == "nested_jagged" or not str(s.get("api", "sdpa")).startswith(("sdpa", "compiled")):
        return None
    dims = [shape.get("batch"), shape.get("heads"), shape.get("seq_q"), shape.get("seq_k"), s.get("head_dim")]
    if not all(isinstance(x, int) and x > 0 for x in dims):
        return None
    return float(dims[0] * dims[1] * dims[2] * dims[3] * dims[4])


def work_ratio(results, c, ref) -> float | None:
    """c's work over ref's (work), 1.0 where equal (also two calls of one API, shape and head
    dim, nn.MultiheadAttention's among them), None where either cannot be told."""
    sc, sr = c.get("setting") or {}, ref.get("setting") or {}
    same_call = c.get("shape") == ref.get("shape") and all(sc.get(k) == sr.get(k) for k in ("api", "head_dim"))
    if same_call and "nested_jagged" not in (sc.get("layout"), sr.get("layout")):
        return 1.0
    a, b = work(results, c), work(results, ref)
    return None if a is None or b is None else a / b


def cost(results, c) -> tuple[dict, Compare] | None:
    """(the reference, c's kernel time against it by by_points: c over the reference), or
    None where either has no kernel time."""
    ref = reference(results, c)
    if ref is None or not kernel_time(c):
        return None
    return ref, compare_times(point(c), point(ref))


def saw_first_key_only(results, c) -> bool:
    """A causal call with fewer queries than keys whose recorded check found its output
    exactly the first key's value, not the output with every key: a decode query that saw
    one key of its cache (top-left alignment). Its result is wrong for decoding, so no
    speed is shown for it."""
    shape = ((section(results) or {}).get("shapes") or {}).get(c.get("shape")) or {}
    check = c.get("check") or {}
    first, everything = check.get("max_abs_diff_vs_first_value"), check.get("max_abs_diff_vs_not_causal")
    return (shape.get("seq_q", 0) < shape.get("seq_k", 0) and first == 0
            and isinstance(everything, int | float) and everything > 0)


def unpinned_sdpa(c) -> bool:
    """An SDPA call left to choose its backend: not pinned, not nn.MultiheadAttention's own
    path, not a compiled function."""
    s = c.get("setting") or {}
    return s.get("api") == "sdpa" and s.get("pinned") is None


def changes(results, c) -> tuple[tuple, ...]:
    """What c's setting changes from a plain call of the plain shape, as data a page words
    (render/ask_words.py): ("decode", seq_q, seq_k), ("dtype", name), ("head_dim", n),
    ("gqa", kv_heads, heads), ("mask", name), ("causal",), ("layout", name),
    ("dropout", p), ("api", name) for a call that is not a plain SDPA call, ("pinned",
    backend); ("plain",) where it changes nothing."""
    shapes = (section(results) or {}).get("shapes") or {}
    shape, s = shapes.get(c.get("shape")) or {}, c.get("setting") or {}
    out = []
    if shape.get("seq_q", 0) < shape.get("seq_k", 0):
        out.append(("decode", shape["seq_q"], shape["seq_k"]))
    if s.get("dtype") and s["dtype"] != "bfloat16":
        out.append(("dtype", s["dtype"]))
    if s.get("head_dim") and s["head_dim"] != shape.get("head_dim"):
        out.append(("head_dim", s["head_dim"]))
    if s.get("enable_gqa"):
        out.append(("gqa", s.get("kv_heads"), shape.get("heads")))
    if s.get("mask") not in (None, "none"):
        out.append(("mask", s["mask"]))
    if s.get("is_causal"):
        out.append(("causal",))
    if s.get("layout") not in (None, "contiguous"):
        out.append(("layout", s["layout"]))
    if s.get("dropout"):
        out.append(("dropout", s["dropout"]))
    if s.get("api") not in (None, "sdpa"):
        out.append(("api", s["api"]))
    if s.get("pinned"):
        out.append(("pinned", s["pinned"]))
    return tuple(out) or (("plain",),)
