"""The findings of "When SDPA refuses a backend" (docs/why-not-flash.*.md) and the rules of
Recommendations it proves, from results.json's "eligibility" (the conditions PyTorch was
asked about: ask_common.py reads them). Each returns None in a run without that section,
and its file says "not measured in this run".

Which conditions exist, what ran and why come from the data; the recommendations look a
condition up by what its setting changes (a mask, the dtype, the head dimension), not by
its id.
"""
from __future__ import annotations

from dataclasses import dataclass

from ...variants import FUSED
from ..prose import Data
from .ask_common import conditions, cost, kernel_time, raised, section
from .registry import finding
from .shape_common import Compare


@dataclass(frozen=True)
class AskAnswer:
    """On `gpu` with `torch`: of `n` conditions, how many ran each fused backend (`fused`:
    (backend, count), in FUSED's order), those that ran math (`math`), and those whose call
    raised (`raised`)."""
    gpu: Data
    torch: Data
    n: int
    fused: tuple[tuple[str, int], ...]
    math: tuple[Data, ...]
    raised: tuple[Data, ...]


@finding("answer-why-not-flash")
def answer_ask(results, ref) -> AskAnswer | None:
    found = section(results)
    cs = conditions(results)
    if found is None or not any(c.get("ran") for c in cs):  # a run without a GPU records no kernel
        return None
    versions = found.get("versions") or {}
    return AskAnswer(Data(versions.get("gpu_name") or results["provenance"]["gpu_name"]),
                     Data(versions.get("torch") or results["provenance"]["torch"]), len(cs),
                     tuple((b, k) for b in FUSED if (k := sum(c.get("ran") == b for c in cs))),
                     tuple(Data(c["id"]) for c in cs if c.get("ran") == "math"),
                     tuple(Data(c["id"]) for c in cs if raised(c)))


@dataclass(frozen=True)
class Costs:
    """The conditions that ran math, with a kernel time against their reference: how many
    took longer beyond noise (`slower`) of `n`, and the largest ratio (`worst`, its id)."""
    n: int
    slower: int
    worst: Data | None
    worst_ratio: float | None


@finding("answer-why-not-flash")
def answer_ask_cost(results, ref) -> Costs | None:
    compared = [(c, found) for c in conditions(results) if c.get("ran") == "math" and (found := cost(results, c))]
    if not compared:
        return None
    slower = [(c, cmp) for c, (_, cmp) in compared if not cmp.even and cmp.ratio > 1]
    worst = max(slower, key=lambda s: s[1].ratio, default=None)
    return Costs(len(compared), len(slower), Data(worst[0]["id"]) if worst else None,
                 worst[1].ratio if worst else None)


@dataclass(frozen=True)
class Alignment:
    """A causal condition with fewer queries (`seq_q`) than keys (`seq_k`): how it said
    causal (`how`: "is_causal", or the mask it passed), what ran, and the check the run
    recorded on its output: the largest difference from the first key's value alone
    (`vs_first`: 0 where the query saw that key alone, as top-left alignment does) and
    from the output with no mask (`vs_all`: 0 where it saw every key); None where not
    recorded, `error` where the check failed."""
    id: Data
    how: str
    ran: str | None
    seq_q: int
    seq_k: int
    vs_first: float | None
    vs_all: float | None
    error: Data | None


def _figure(check, key):
    value = check.get(key)
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


@finding("findings-why-not-flash")
def ask_causal_alignment(results, ref) -> tuple[Alignment, ...] | None:
    shapes = (section(results) or {}).get("shapes") or {}
    out = []
    for c in conditions(results):
        shape, s = shapes.get(c.get("shape")) or {}, c.get("setting") or {}
        fewer = shape.get("seq_q", 0) < shape.get("seq_k", 0)  # fewer queries than keys
        causal = s.get("is_causal") or "causal" in str(s.get("mask"))
        if fewer and causal and (c.get("check") or c.get("check_error")):
            check = c.get("check") or {}
            out.append(Alignment(Data(c["id"]), "is_causal" if s.get("is_causal") else str(s.get("mask")),
                                 c.get("ran"), shape["seq_q"], shape["seq_k"],
                                 _figure(check, "max_abs_diff_vs_first_value"),
                                 _figure(check, "max_abs_diff_vs_not_causal"),
                                 Data(c["check_error"]) if c.get("check_error") else None))
    return tuple(out) or None


@dataclass(frozen=True)
class Rule:
    """A recommendation the conditions prove: `kind` names it; condition `id` ran `ran`;
    against its reference (`against`, which ran `against_ran`) its kernel time compared by
    by_points (`cost`, None without both times)."""
    kind: str
    id: Data
    ran: str | None
    against: Data | None
    against_ran: str | None
    cost: Compare | None


def _is_float32(s):
    return "float32" in str(s.get("dtype"))


# the recommendations, each with what its condition changes from the baseline (its setting)
RULES = (
    ("is_causal", lambda s: s.get("mask") == "causal_materialised"),
    ("dtype", lambda s: _is_float32(s) and not s.get("enable_gqa") and s.get("pinned") is None),
    ("head_dim", lambda s: (s.get("head_dim") or 0) > 256),
    ("head_dim_8", lambda s: (s.get("head_dim") or 0) % 8 != 0),
    ("gqa", lambda s: _is_float32(s) and s.get("enable_gqa")),
    ("flex", lambda s: s.get("mask") == "float_additive"),
)


@finding("finding-rec-why-not")
def rec_ask_rules(results, ref) -> tuple[Rule, ...] | None:
    out = []
    for kind, applies in RULES:
        c = next((c for c in conditions(results) if (c.get("setting") or {}).get("api") == "sdpa"
                  and c.get("shape") == "seed" and applies(c.get("setting") or {})), None)
        if c is None or not (c.get("ran") or c.get("error")):  # nothing recorded of what ran (a CPU run)
            continue
        found = cost(results, c) if kernel_time(c) else None
        against = found[0] if found else None
        out.append(Rule(kind, Data(c["id"]), c.get("ran"), Data(against["id"]) if against else None,
                        against.get("ran") if against else None, found[1] if found else None))
    return tuple(out) or None
