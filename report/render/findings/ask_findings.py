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
from .ask_common import changes, conditions, cost, kernel_time, raised, saw_first_key_only, section, unpinned_sdpa
from .ask_order import SOURCE_COMMIT, derived, shown_generations
from .registry import finding
from .shape_common import Compare


@dataclass(frozen=True)
class AskAnswer:
    """On `gpu` with `torch`: of `n` unpinned SDPA calls (not pinned, not
    nn.MultiheadAttention's own path, not compiled), how many ran each fused backend
    (`fused`: (backend, count), in FUSED's order), those that ran math (`math`: each
    condition's changes, findings/ask_common.py: changes), and those that raised (`raised`)."""
    gpu: Data
    torch: Data
    n: int
    fused: tuple[tuple[str, int], ...]
    math: tuple[tuple, ...]
    raised: tuple[tuple, ...]


@finding("answer-why-not-flash")
def answer_ask(results, ref) -> AskAnswer | None:
    found = section(results)
    cs = [c for c in conditions(results) if unpinned_sdpa(c)]
    if found is None or not any(c.get("ran") for c in cs):  # a run without a GPU records no kernel
        return None
    versions = found.get("versions") or {}
    return AskAnswer(Data(versions.get("gpu_name") or results["provenance"]["gpu_name"]),
                     Data(versions.get("torch") or results["provenance"]["torch"]),
                     sum(bool(c.get("ran")) or raised(c) for c in cs),
                     tuple((b, k) for b in FUSED if (k := sum(c.get("ran") == b for c in cs))),
                     tuple(changes(results, c) for c in cs if c.get("ran") == "math"),
                     tuple(changes(results, c) for c in cs if raised(c)))


@dataclass(frozen=True)
class Generation:
    """On GPUs of `generation` (findings/ask_order.py: GENERATIONS), derived from this run's
    answers, not measured: of `n` unpinned SDPA calls the derivation holds for, how many
    would run each backend (`picks`: (backend, count), FUSED's order then math), the calls
    that would run math (`math`: their changes) and those that would not (`not_math`), and
    how many would run another backend than they ran here (`moved`)."""
    generation: str
    n: int
    picks: tuple[tuple[str, int], ...]
    math: tuple[tuple, ...]
    not_math: tuple[tuple, ...]
    moved: int


@dataclass(frozen=True)
class AskOrders:
    """The other GPU generations' picks, read off PyTorch's order at commit `commit`."""
    commit: str
    generations: tuple[Generation, ...]


@finding("answer-why-not-flash")
def answer_ask_orders(results, ref) -> AskOrders | None:
    rows = [(c, d) for c in conditions(results) if (d := derived(results, c))]
    gens = shown_generations(results)
    if not rows or not gens:
        return None
    out = []
    for g in gens:
        picks = [(c, d[g]) for c, d in rows if d[g]]
        counts = tuple((b, k) for b in (*FUSED, "math") if (k := sum(p == b for _, p in picks)))
        out.append(Generation(g, len(picks), counts,
                              tuple(changes(results, c) for c, b in picks if b == "math"),
                              tuple(changes(results, c) for c, b in picks if b != "math"),
                              sum(b != c["ran"] for c, b in picks)))
    return AskOrders(SOURCE_COMMIT, tuple(out))


@dataclass(frozen=True)
class Costs:
    """The unpinned SDPA calls that ran math, with a kernel time against their reference:
    how many took longer beyond noise (`slower`) of `n`, and the largest ratio (`worst`,
    its changes)."""
    n: int
    slower: int
    worst: tuple | None
    worst_ratio: float | None


@finding("answer-why-not-flash")
def answer_ask_cost(results, ref) -> Costs | None:
    compared = [(c, found) for c in conditions(results)
                if unpinned_sdpa(c) and c.get("ran") == "math" and not saw_first_key_only(results, c)
                and (found := cost(results, c))]
    if not compared:
        return None
    slower = [(c, cmp) for c, (_, cmp) in compared if not cmp.even and cmp.ratio > 1]
    worst = max(slower, key=lambda s: s[1].ratio, default=None)
    return Costs(len(compared), len(slower), changes(results, worst[0]) if worst else None,
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
