"""The quantile of Student's t distribution, for the interval across processes (paired.py).

The standard library has no t distribution: its two-sided quantile is found by bisection on
the distribution function, integrated from the density with Simpson's rule. Deterministic
(the same words on every machine), and checked against the printed tables in
tests/test_verdict.py (df 3: 3.182 at 95 %)."""
from __future__ import annotations

import functools
import math


def _density(t, df):
    log_c = math.lgamma((df + 1) / 2) - math.lgamma(df / 2) - 0.5 * math.log(df * math.pi)
    return math.exp(log_c - (df + 1) / 2 * math.log1p(t * t / df))


def _mass(x, df, steps=2000):
    """P(0 <= T <= x) for x >= 0: Simpson's rule over an even number of steps."""
    h = x / steps
    inner = sum((4 if i % 2 else 2) * _density(i * h, df) for i in range(1, steps))
    return h / 3 * (_density(0.0, df) + inner + _density(x, df))


@functools.lru_cache(maxsize=64)
def t_quantile(df: int, confidence: float) -> float:
    """t such that P(-t <= T <= t) = confidence for T with df degrees of freedom (df >= 1)."""
    if df < 1 or not 0 < confidence < 1:
        raise ValueError(f"t_quantile needs df >= 1 and 0 < confidence < 1, not {df}, {confidence}")
    target, lo, hi = confidence / 2, 0.0, 1.0
    while _mass(hi, df) < target:
        lo, hi = hi, 2 * hi
    for _ in range(60):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if _mass(mid, df) < target else (lo, mid)
    return (lo + hi) / 2
