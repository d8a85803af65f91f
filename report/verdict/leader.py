"""Superlatives through the rule: "the lowest", "the fastest" only where it is decided."""
from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from .outcome import Verdict


@dataclass(frozen=True)
class Leader:
    """The outcome of a superlative over `candidates` (lowest figure first):
    `name` the one that `compare` orders before every other (None where none is), and
    `contenders` the candidates not ordered after the one with the lowest figure (itself
    first): where name is None, these are the ones the rule cannot tell apart from it."""
    name: object | None
    contenders: tuple
    verdicts: tuple  # the lowest's Verdict against each other candidate, in order


def leader(candidates: Sequence, compare: Callable[[object, object], Verdict | None]) -> Leader | None:
    """candidates: sorted by their figure, lowest first. compare(a, b): a's Verdict against
    b ("<": a lower, beyond the margin), or None where the two were not compared. The lowest
    is named only where it is ordered before every other candidate; None for no candidates."""
    if not candidates:
        return None
    first, rest = candidates[0], list(candidates[1:])
    verdicts = tuple(compare(first, c) for c in rest)
    contenders = (first, *(c for c, v in zip(rest, verdicts, strict=True) if v is None or v.order != "<"))
    return Leader(first if len(contenders) == 1 else None, contenders, verdicts)
