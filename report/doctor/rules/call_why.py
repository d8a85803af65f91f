"""Why a group of SDPA calls with equal recorded inputs ran its backend: PyTorch's recorded
answer where the committed eligibility table (rules/asked_table.py) holds the same setting, the
checks read off the inputs (rules/why.py) for the reason keys and fixes, and the
hand-written rule alone, said as such, where no condition matches.

    why_group(x, ran, cc, table_runs, bias_grad)   {why, remedy, reasons, fixes, warnings,
                                                    source ("table" or "rule"), asked}
    bias_grad_of(events)                           whether the trace shows a float mask's
                                                   gradient computed: True, False, "unknown"
                                                   (a bias in the backward, its grad_input_mask
                                                   not recorded) or None (no bias there)
"""
from __future__ import annotations

from . import asked_table
from .why import FIXES, Reason, order, reasons

RULE_NOTE = "the doctor's reading of sdp_utils.cpp (2.11): no recorded condition matches these inputs"
NO_TABLE = "the doctor's reading of sdp_utils.cpp (2.11): it holds no recorded table"
EFFICIENT_BACKWARD = "aten::_scaled_dot_product_efficient_attention_backward"


def bias_grad_of(events):
    """True where an efficient-attention backward got an attn_bias whose gradient it was asked
    for (grad_input_mask's 4th entry, its 11th input, where Kineto recorded it); "unknown"
    where a bias went through the backward but the trace does not say whether it requires grad;
    None where none did."""
    seen = None
    for e in events:
        if e.cat != "cpu_op" or e.name != EFFICIENT_BACKWARD or not e.args:
            continue
        dims = e.args.get("Input Dims")
        if not (isinstance(dims, list) and len(dims) > 4 and isinstance(dims[4], list) and dims[4]):
            continue
        concrete = e.args.get("Concrete Inputs")
        mask = concrete[10] if isinstance(concrete, list) and len(concrete) > 10 else None
        flags = [w.strip(" []") for w in mask.split(",")] if isinstance(mask, str) and mask else []
        if len(flags) == 4:
            if flags[3] == "True":
                return True
            seen = False
        elif seen is None:
            seen = "unknown"
    return seen


def _said(cond, seq, ran):
    """PyTorch's words for each fused backend before `ran` that it said no to."""
    can = cond.get("can_use") or {}
    before = seq[:seq.index(ran)] if ran in seq else seq
    return {b: list((can.get(b) or {}).get("reasons") or ()) for b in before
            if b in can and not (can.get(b) or {}).get("ok")}


def _line(r):
    return f"{'/'.join(r.backends)}: {r.check} ({r.evidence})"


def why_group(x, ran, cc=(9, 0), table_runs=None, bias_grad=None, api="sdpa"):
    run = asked_table.pick(table_runs, cc) if table_runs else None
    table_order = asked_table.order(run) if run else None
    found = reasons(x, ran, cc, table_order, bias_grad)
    cond, pin = asked_table.match(run, x, ran, api, bias_grad) if run else (None, None)
    asked = None
    if cond is not None:
        seq = order(cc, table_order)
        asked = {"by": asked_table.whose(run), "condition": cond["id"], "ran": cond.get("ran"),
                 "said": _said(cond, seq, ran), "pinned_condition": pin["id"] if pin else None}
        fix = asked_table.fixed(run, cond)
        asked["fix"] = {"condition": fix["id"], "ran": fix.get("ran")} if fix else None
        if cond.get("ran") == ran:  # PyTorch picks this backend unpinned: the table says why
            found = [r for r in found if r.key != "not_first"]
        elif cond.get("ran") and ran:
            found = [r for r in found if r.key != "not_first"]
            found.append(Reason("pinned", (cond["ran"],), "select_sdp_backend",
                                f"{ran} ran where {asked['by']} ran {cond['ran']} for the same setting "
                                f"({cond['id']}): a pin (sdpa_kernel, enable_*_sdp(False))"
                                + (f", as its condition {pin['id']} shows" if pin else ""), "unpin"))
    speed = [r for r in found if not r.warning]
    warn = [r for r in found if r.warning]
    if asked:
        said = "; ".join(f"{b}: {' '.join(words).rstrip('.') or 'no'}" for b, words in asked["said"].items())
        pinned = [r for r in speed if r.key == "pinned"]  # said first: it is why this backend ran
        why = (pinned[0].evidence if pinned else
               f"{asked['by']} ran {asked['ran']} for these inputs ({asked['condition']})") + (
            f"; it said {said}" if said else "") + (
            f"; with the fix it measured ({asked['fix']['condition']}) it ran {asked['fix']['ran']}"
            if asked["fix"] and asked["fix"]["ran"] else "")
        shown = [r for r in speed if r.key != "pinned"]
        if shown:
            why += "; the trace shows " + "; ".join(_line(r) for r in shown)
    elif speed:
        why = "; ".join(_line(r) for r in speed) + f" [{NO_TABLE if not run else RULE_NOTE}]"
    else:
        first = order(cc, table_order)[0]
        why = (f"select_sdp_backend's order picks {ran} first for these inputs" if ran == first
               else f"{ran} ran; the inputs show no check that stops the backends before it")
    fixes = [r.fix for r in speed if r.fix]
    return {"why": why, "remedy": FIXES[fixes[0]] if fixes else None,
            "reasons": [r.key for r in found], "fixes": list(dict.fromkeys(fixes)),
            "warnings": [f"{r.evidence}: {FIXES[r.fix]}" for r in warn], "warning_keys": [r.key for r in warn],
            "source": "table" if asked else "rule", "asked": asked}
