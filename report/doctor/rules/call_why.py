"""Why a group of SDPA calls with equal recorded inputs ran its backend: PyTorch's recorded
answer where the committed eligibility table (rules/asked_table.py) holds the same setting, the
checks read off the inputs (rules/why.py) for the reason keys and fixes, and the
hand-written rule alone, said as such, where no condition matches.

    why_group(x, ran, cc, table_runs, bias_grad)   {why (a CallWhy: the facts), reasons, fixes,
                                                    warning_keys, source ("table" or "rule"), asked}
    bias_grad_of(events)                           whether the trace shows a float mask's
                                                   gradient computed: True, False, "unknown"
                                                   (a bias in the backward, its grad_input_mask
                                                   not recorded) or None (no bias there)
"""
from __future__ import annotations

from dataclasses import dataclass

from . import asked_table
from .why import Reason, order, reasons

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


@dataclass(frozen=True)
class CallWhy:
    """Why one group of calls ran its backend, as facts (output/said.py words it)."""
    ran: str
    first: str  # the first backend of the order in force
    reasons: tuple  # [Reason] (rules/why.py): speed reasons and warnings
    asked: dict | None  # PyTorch's recorded answer for the same setting, where the table holds one
    table: bool  # a recorded table was there to ask (whether or not a condition matched)

    @property
    def speed(self):
        return tuple(r for r in self.reasons if not r.warning)

    @property
    def warnings(self):
        return tuple(r for r in self.reasons if r.warning)

    @property
    def fixes(self):
        return list(dict.fromkeys(r.fix for r in self.speed if r.fix))

    @property
    def shown(self):
        """The speed reasons the text lists after PyTorch's answer (the pin is said first)."""
        return tuple(r for r in self.speed if r.key != "pinned") if self.asked else self.speed


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
                                "pinned_shown" if pin else "pinned",
                                {"ran": ran, "by": asked["by"], "their": cond["ran"], "condition": cond["id"],
                                 "pin": pin["id"] if pin else None}, "unpin"))
    told = CallWhy(ran, order(cc, table_order)[0], tuple(found), asked, run is not None)
    return {"why": told, "reasons": [r.key for r in found], "fixes": told.fixes,
            "warning_keys": [r.key for r in told.warnings], "source": "table" if asked else "rule", "asked": asked}
