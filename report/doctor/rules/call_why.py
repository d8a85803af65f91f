"""Why a group of SDPA calls with equal recorded inputs ran its backend: PyTorch's recorded
answer where the committed eligibility table of the trace's GPU generation (rules/asked_table.py)
holds a condition whose inputs equal the call's in everything the checks read; else the checks
the call's own inputs fail (rules/why.py, each with the recorded condition that fails the same
check, its words not quoted), said as the doctor's reading, and what the trace cannot show.
A recorded answer of another compute capability is never used.

    why_group(x, ran, cc, table_runs, bias_grad,   {why (a CallWhy: the facts), reasons, fixes,
              api, platform, training)              warning_keys, source ("table" or "rule"), asked}
    bias_grad_of(events)                           whether the trace shows a float mask's
                                                   gradient computed: True, False, "unknown"
                                                   (a bias in the backward, its grad_input_mask
                                                   not recorded) or None (no bias there)
"""
from __future__ import annotations

from dataclasses import dataclass, replace

from . import asked_table
from .why import Reason, order, orders, reasons

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
    first: str  # the first backend of the order in force (the first order where two are possible)
    reasons: tuple  # [Reason] (rules/why.py): speed reasons and warnings
    asked: dict | None  # PyTorch's recorded answer for equal inputs, where the table holds one
    table: bool  # a recorded table of this GPU generation was there to ask (whether or not a condition matched)
    firsts: tuple = ()  # the first backend of each order the trace allows (two on 9.x/10.x without a table)
    other_gpus: tuple = ()  # the compute capabilities the tables hold, where none is the trace's
    cc: tuple | None = None  # the trace's compute capability, None where it names none

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
        """The speed reasons the text lists after PyTorch's answer (the other backend is said first)."""
        return tuple(r for r in self.speed if r.key != "pinned") if self.asked else self.speed


def _with_evidence(r, run, x):
    """The reason with the recorded condition that fails the same check (asked_table.evidence):
    values["table"] = (condition, the backends it said no to, those it said yes to)."""
    found = asked_table.evidence(run, r.key, x, r.backends) if run and not r.warning else None
    if not found:
        return r
    cid, no = found
    return replace(r, values={**r.values, "table": (cid, no, tuple(b for b in r.backends if b not in no))})


def why_group(x, ran, cc=None, table_runs=None, bias_grad=None, api="sdpa", platform="cuda", training=None):
    run = asked_table.pick(table_runs, cc) if table_runs and platform == "cuda" else None
    table_order = asked_table.order(run) if run else None
    found = [_with_evidence(r, run, x) for r in reasons(x, ran, cc, table_order, bias_grad, platform)]
    cond = asked_table.match(run, x, cc, bias_grad, training) if run else None
    asked = None
    if cond is not None:
        seq = order(cc, table_order, platform)
        asked = {"by": asked_table.whose(run), "condition": cond["id"], "ran": cond.get("ran"),
                 "said": _said(cond, seq, ran)}
        fix = asked_table.fixed(run, cond) if asked_table.same_kind(cond, x, bias_grad) else None
        asked["fix"] = {"condition": fix["id"], "ran": fix.get("ran")} if fix else None
        found = [r for r in found if r.key != "not_first"]  # the table answers for these inputs
        if cond.get("ran") != ran and ran:
            # PyTorch ran another backend for equal inputs on this generation: a pin, or what the
            # trace does not record (another PyTorch or cuDNN, a build without it, a flag)
            found.append(Reason("pinned", (cond["ran"],), "select_sdp_backend", "pinned",
                                {"ran": ran, "by": asked["by"], "their": cond["ran"], "condition": cond["id"]},
                                "check_pin"))
    others = tuple(sorted({str((r.get("versions") or {}).get("compute_capability")) for r in table_runs or ()})) \
        if table_runs and run is None else ()
    seqs = orders(cc, table_order, platform)
    told = CallWhy(ran, seqs[0][0], tuple(found), asked, run is not None, tuple(dict.fromkeys(s[0] for s in seqs)),
                   others, tuple(cc) if cc else None)
    return {"why": told, "reasons": [r.key for r in found], "fixes": told.fixes,
            "warning_keys": [r.key for r in told.warnings], "source": "table" if asked else "rule", "asked": asked}
