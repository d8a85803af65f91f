"""Findings of a fused backend's first call, taken apart (report/measure/first_calls.py):
in one process, and where the run has them, in fresh processes, one per round."""
from __future__ import annotations

from dataclasses import dataclass

from ..extra_tables import fresh_rounds, us_range
from .registry import finding

PAYS_AGAIN = 10  # a first call this many times the same call again: it built or loaded something

Range = tuple[float, float]


@dataclass(frozen=True)
class FreshFirstCalls:
    """One backend measured in `n` fresh processes: the first call in the run's first
    process (`first_us`) and its range in the later ones (None: no later one), the same
    shape again, a new shape (sequence length `seq`) the first time and again, each a range
    over the processes; `pays`: a new shape cost over PAYS_AGAIN times its second call in
    every process; on a new thread (`thread`, None where not measured), `thread_pays` alike."""
    variant: str
    n: int
    first_us: float
    later: Range | None
    again: Range | None
    seq: int
    new_first: Range | None
    new_again: Range | None
    pays: bool
    thread: Range | None
    thread_pays: bool


@dataclass(frozen=True)
class FirstCallsInProcess:
    """One backend measured in the run's own process (older files): the first call, the same
    shape again, a new shape the first time and again; `pays` as in FreshFirstCalls."""
    variant: str
    first_us: float
    again_us: float
    seq: int
    new_first_us: float
    new_again_us: float
    pays: bool


def _fresh(name, rounds, seq) -> FreshFirstCalls:
    later = rounds[1:]
    threads = [r for r in rounds if isinstance(r.get("new_thread_first_ms"), (int, float))]
    return FreshFirstCalls(
        variant=name, n=len(rounds), first_us=rounds[0]["first_call_ms"] * 1000,
        later=us_range(later, "first_call_ms") if later else None, again=us_range(rounds, "same_shape_again_ms"),
        seq=seq, new_first=us_range(rounds, "first_new_shape_ms"), new_again=us_range(rounds, "new_shape_again_ms"),
        pays=all(r["first_new_shape_ms"] > PAYS_AGAIN * r["new_shape_again_ms"] for r in rounds),
        thread=us_range(threads, "new_thread_first_ms") if threads else None,
        thread_pays=all(r["new_thread_first_ms"] > PAYS_AGAIN * r["same_shape_again_ms"] for r in threads))


@finding("findings-first-calls")
def first_calls(results, ref) -> tuple[FreshFirstCalls | FirstCallsInProcess, ...] | None:
    section = results.get("first_calls")
    found = []
    for name, r in (section or {}).get("rows", {}).items():
        seq = section["new_shape"]["seq_len"]
        rounds = fresh_rounds(r)
        if rounds:
            found.append(_fresh(name, rounds, seq))
        elif r.get("status") == "ok" and r.get("first_in_process_ms") is not None:
            found.append(FirstCallsInProcess(
                variant=name, first_us=r["first_in_process_ms"] * 1000, again_us=r["same_shape_again_ms"] * 1000,
                seq=seq, new_first_us=r["first_new_shape_ms"] * 1000, new_again_us=r["new_shape_again_ms"] * 1000,
                pays=r["first_new_shape_ms"] > PAYS_AGAIN * r["new_shape_again_ms"]))
    return tuple(found) or None


@dataclass(frozen=True)
class PerCall:
    """The seed summary's "a new kernel for every call", against cuDNN's `n` fresh
    processes: `once` where, in every process, the same shape again cost less than a tenth
    of the first call and of a new shape's first call; each figure a range over them."""
    once: bool
    n: int
    again: Range | None
    first: Range | None
    new_first: Range | None


@finding("findings-first-calls")
def first_calls_per_call(results, ref) -> PerCall | None:
    r = ((results.get("first_calls") or {}).get("rows") or {}).get("cudnn")
    rounds = fresh_rounds(r) if r else []
    if not rounds:
        return None
    return PerCall(once=all(PAYS_AGAIN * x["same_shape_again_ms"] < min(x["first_call_ms"], x["first_new_shape_ms"])
                            for x in rounds),
                   n=len(rounds), again=us_range(rounds, "same_shape_again_ms"),
                   first=us_range(rounds, "first_call_ms"), new_first=us_range(rounds, "first_new_shape_ms"))
