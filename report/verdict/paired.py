"""The one verdict rule for paired measurements: is A faster than B, and by how much?

The unit of replication is the process. build_tables.py measures in rounds, each a fresh
Python process (measure/round_processes.py): what moves between processes (a compiled
kernel's choice, the CPU's pace, where the allocator puts a tensor) is the variance that
decides whether a verdict repeats, and pairs from one process share it. Within a process
the pairs only say how precisely that process measured: the 90 pairs of three processes
are three observations, not ninety (issue 39: a pooled interval of 1.12x-1.14x in one run,
the processes' own ratios 0.76 / 0.90 / 1.12 in another).

Input: for each process (round), the ratios of the pairs measured in it, B's time over A's
(a pair is one block of A and the block of B beside it, in the same process and thread, so
the machine's drift moves both and cancels in the ratio); `pair_ratios` reads them off a
group of results.json's "pairs" (measure/pairs.py). Kernel time is not paired call by
call: `by_round_medians` gives the rule one ratio per process, its median of B over A's.

The rule:
1. Each process gives one ratio, the median of its pairs' ratios (robust to a pair an
   interrupt lengthened).
2. The interval is Student's t interval, at CONFIDENCE (95 %), of the mean of the log of
   those ratios, with n - 1 degrees of freedom for n processes; the ratio stated is its
   centre, the geometric mean of the processes' ratios. Assumed: the processes are
   independent, and the log of a process's ratio varies about a common mean roughly as a
   normal variable does (with 4 processes, t is 3.18 where the normal's 1.96 would be).
3. MARGIN (5 %, a stated choice) is the smallest gap that counts: within 1/1.05 to 1.05,
   A and B are "the same". The outcome is one of three:
   - an order ("<": A faster, ">": B faster) where the whole interval lies beyond the margin
     on one side;
   - "the same within ±5 %" where the whole interval lies inside the margin;
   - undecided otherwise (the interval reaches both inside and beyond the margin, or fewer
     than 2 processes give no interval), with that reason: the runs cannot tell, and more
     processes would.
No verdict rests on one process, on the pairs' count, or on how the rounds happen to fall
either side of 1.

Across runs (by_runs; across_runs.py): where reruns by the same measuring code are
committed beside the run, the unit is the run, one level up. The processes of one run share
its machine (its CPU's pace above all: the small shape's eager call took a median 25 µs on
one lent host and 45 µs on another, issue 39), so they are not independent of each other
across runs. Each run gives one ratio, the geometric mean of its processes' ratios, and
steps 2 and 3 are read off the runs' ratios instead (n - 1 degrees of freedom for n runs).
A comparison the CPU paces, near the margin on one host and beyond it on another, is then
undecided, not "faster" in one run and undecided in the next."""
from __future__ import annotations

import math
import statistics

from ..rows import gpu_work
from .across_rounds import paired_rounds, round_values
from .across_runs import run_rounds
from .one_run import spread
from .outcome import Verdict
from .student_t import t_quantile

CONFIDENCE = 0.95  # of the interval across processes
MIN_EFFECT = 0.05  # the margin: a ratio within 1 / 1.05 to 1.05 is "the same"


def _valid(ratios):
    return [float(r) for r in ratios if isinstance(r, (int, float)) and math.isfinite(r) and r > 0]


def process_interval(ratios, confidence=CONFIDENCE):
    """(centre, lo, hi): the geometric mean of one ratio per process and its Student t
    interval at `confidence` (n - 1 degrees of freedom); lo = hi = centre for one process
    (no interval: the caller leaves it undecided); None for none."""
    logs = [math.log(r) for r in ratios]
    n = len(logs)
    if not n:
        return None
    mean = statistics.fmean(logs)
    if n < 2:
        return math.exp(mean), math.exp(mean), math.exp(mean)
    half = t_quantile(n - 1, confidence) * statistics.stdev(logs) / math.sqrt(n)
    return math.exp(mean), math.exp(mean - half), math.exp(mean + half)


def decide(lo, hi, processes, minimum=MIN_EFFECT):
    """(order, same, reason) of an interval lo-hi of B / A over `processes` processes:
    an order where it lies wholly beyond the margin, same where wholly inside it, else
    undecided with its reason ("processes": fewer than 2; "margin": it reaches both inside
    and beyond the margin)."""
    if processes < 2:
        return None, False, "processes"
    edge = math.log1p(minimum)
    if math.log(lo) > edge:
        return "<", False, None
    if math.log(hi) < -edge:
        return ">", False, None
    if -edge <= math.log(lo) and math.log(hi) <= edge:
        return None, True, None
    return None, False, "margin"


def by_pairs(rounds, minimum=MIN_EFFECT, confidence=CONFIDENCE) -> Verdict:
    """The verdict on A against B from the per-process lists of pair ratios (B / A): each
    process's median ratio, their geometric mean (median_ratio) and its interval (interval,
    at `confidence`) across processes, decided against the margin (decide). `processes`:
    how many processes gave a ratio; noise: the margin."""
    per_process = [statistics.median(r) for r in (_valid(rnd) for rnd in rounds) if r]
    if not per_process:
        return Verdict(None, None, None, rule="pairs", reason="processes")
    centre, lo, hi = process_interval(per_process, confidence)
    order, same, reason = decide(lo, hi, len(per_process), minimum)
    return Verdict(order, None, None, minimum, interval=(lo, hi), rule="pairs",
                   confidence=confidence, median_ratio=centre, same=same, reason=reason,
                   processes=len(per_process), pairs=sum(len(_valid(r)) for r in rounds))


def _geomean(values):
    return math.exp(statistics.fmean(math.log(v) for v in values))


def by_runs(runs, minimum=MIN_EFFECT, confidence=CONFIDENCE) -> Verdict:
    """The verdict across runs: `runs` holds, for each run, its per-process lists of pair
    ratios (B / A), as by_pairs takes them. Runs without a ratio are left out; with one run
    left, by_pairs on its processes. Otherwise each run's ratio (run_ratios) is the geometric
    mean of its processes' median ratios, and the interval and the decision are across those
    run ratios, the run as the unit; run_ratios keeps the runs' order, None for a run without
    a ratio; `runs` counts those with one, `processes` and `pairs` count all runs'."""
    kept = [[r for r in (_valid(rnd) for rnd in run or []) if r] for run in runs]
    present = [run for run in kept if run]
    if len(present) < 2:
        return by_pairs(present[0] if present else [], minimum, confidence)
    run_ratios = tuple(_geomean([statistics.median(r) for r in run]) if run else None for run in kept)
    found = [r for r in run_ratios if r is not None]
    centre, lo, hi = process_interval(found, confidence)
    order, same, reason = decide(lo, hi, len(found), minimum)
    return Verdict(order, None, None, minimum, interval=(lo, hi), rule="pairs", confidence=confidence,
                   median_ratio=centre, same=same, reason=reason,
                   processes=sum(len(run) for run in present), pairs=sum(len(r) for run in present for r in run),
                   runs=len(found), run_ratios=run_ratios)


def decided(ratios, minimum=MIN_EFFECT, confidence=CONFIDENCE):
    """(order, same) that the rule comes to on one ratio per unit (process or run)."""
    _, lo, hi = process_interval(ratios, confidence)
    return decide(lo, hi, len(ratios), minimum)[:2]


def without_each_run(run_ratios, minimum=MIN_EFFECT, confidence=CONFIDENCE):
    """[(order, same)] the rule comes to with each run in turn left out of `run_ratios`
    (one ratio per run, by_runs; None for a run without one, left out), decided on the
    others; [] for fewer than 3 runs (leaving one out leaves no interval)."""
    run_ratios = tuple(r for r in run_ratios if r is not None)  # runs without the comparison
    if len(run_ratios) < 3:
        return []
    return [decided(run_ratios[:i] + run_ratios[i + 1:], minimum, confidence) for i in range(len(run_ratios))]


def pair_ratios(group, a, b):
    """Per-round lists of the pair ratios b / a of one group of results.json's "pairs"
    (measure/pairs.py): each pair's block of b over the block of a measured beside it
    ("blocks_us", µs per call, one per pair in the order measured; any two entries of a
    group pair up, the reference among them). Rounds that failed or lack either are left
    out; a pair where either block is missing or not positive is left out."""
    out = []
    for rnd in (group or {}).get("rounds") or []:
        blocks = rnd.get("blocks_us") if isinstance(rnd, dict) and "error" not in rnd else None
        if not blocks or a not in blocks or b not in blocks:
            continue
        out.append([y / x for x, y in zip(blocks[a], blocks[b], strict=False)
                    if isinstance(x, (int, float)) and isinstance(y, (int, float)) and x > 0 and y > 0])
    return [r for r in out if r]


def run_pair_ratios(group, a, b):
    """pair_ratios in each run of a group (across_runs.run_rounds: run A's alone where no
    reruns are pooled): [per-run lists of per-round lists of b / a]."""
    return [pair_ratios({"rounds": rounds}, a, b) if rounds else [] for rounds in run_rounds(group)]


def by_group(group, a, b, minimum=MIN_EFFECT) -> Verdict:
    """The rule on entries a and b of one pair group, across the runs pooled into it
    (by_runs; by_pairs on one run's processes where it holds one run): "<" where a is faster."""
    return by_runs(run_pair_ratios(group, a, b), minimum)


def round_ratios(a_rounds, b_rounds):
    """One ratio per process (round) of two figures measured in the same rounds, b's median
    over a's, as by_pairs takes them ([[ratio], ...]); rounds where either is missing left out."""
    return [[b / a] for a, b, _, _ in paired_rounds(a_rounds or [], b_rounds or []) if a > 0]


def by_round_medians(a_rounds, b_rounds, minimum=MIN_EFFECT) -> Verdict:
    """The same rule for kernel time: one ratio per process (round), b's median over a's,
    rounds where either is missing left out."""
    return by_pairs(round_ratios(a_rounds, b_rounds), minimum)


def by_run_round_medians(a_runs, b_runs, minimum=MIN_EFFECT) -> Verdict:
    """by_round_medians in each run (across_runs.runs_of: [rounds' figures per run]), decided
    across the runs (by_runs)."""
    return by_runs([round_ratios(a, b) for a, b in zip(a_runs, b_runs, strict=False)], minimum)


def by_unpaired_runs(a_runs, b_runs, minimum=MIN_EFFECT, confidence=CONFIDENCE) -> Verdict:
    """Two figures never measured together (two GPUs): nothing is paired, the run is the
    unit. a_runs, b_runs: [the rounds' figures of each run] (across_runs.runs_of); each run
    gives one value, the geometric mean of its rounds' medians. The ratio b / a is the ratio
    of the two sides' geometric means, its interval Welch's t across both sides' runs
    (degrees of freedom Welch-Satterthwaite, rounded down), decided against the margin like
    every paired verdict; fewer than two runs on a side: no interval, undecided
    ("processes"). `runs`: the smaller side's count; `processes`: both sides' runs."""
    def values(runs):
        return [_geomean(v) for run in runs or [] if (v := round_values(run or []))]
    la, lb = ([math.log(x) for x in values(r) if x > 0] for r in (a_runs, b_runs))
    if not la or not lb:
        return Verdict(None, None, None, minimum, rule="runs_unpaired", reason="processes")
    centre = math.exp(statistics.fmean(lb) - statistics.fmean(la))
    a, b, na, nb = math.exp(statistics.fmean(la)), math.exp(statistics.fmean(lb)), len(la), len(lb)
    if min(na, nb) < 2:
        return Verdict(None, a, b, minimum, interval=(centre, centre), rule="runs_unpaired", confidence=confidence,
                       median_ratio=centre, reason="processes", processes=na + nb, runs=min(na, nb))
    sa, sb = statistics.variance(la) / na, statistics.variance(lb) / nb
    if sa + sb == 0:
        half = 0.0
    else:
        df = (sa + sb) ** 2 / (sa ** 2 / (na - 1) + sb ** 2 / (nb - 1))
        half = t_quantile(max(1, int(df)), confidence) * math.sqrt(sa + sb)
    lo, hi = centre * math.exp(-half), centre * math.exp(half)
    order, same, reason = decide(lo, hi, min(na, nb), minimum)
    return Verdict(order, a, b, minimum, interval=(lo, hi), rule="runs_unpaired", confidence=confidence,
                   median_ratio=centre, same=same, reason=reason, processes=na + nb, runs=min(na, nb))


def by_points(a, b, minimum=MIN_EFFECT) -> Verdict:
    """Two shape points' kernel times (one run, one process each, no rounds): an order only
    where the gap, taken from the smaller median, is beyond the larger spread of their
    profiled steps (one_run.spread) and the ratio beyond the margin; "the same within ±5 %"
    only where the gap and that spread both lie inside the margin; else undecided (reason
    "spread"), noise then the furthest of the spread and the gap (how far apart the two may
    lie). A figure with no steps (a cited one) has no spread."""
    fa, fb = gpu_work(a), gpu_work(b)
    ratio = fb["median"] / fa["median"]
    noise = max(spread(fa), spread(fb))
    beyond = abs(fa["median"] - fb["median"]) > noise * min(fa["median"], fb["median"])
    called = beyond and abs(math.log(ratio)) > math.log1p(minimum)
    order = ("<" if ratio > 1 else ">") if called else None
    same = not called and noise <= minimum and abs(math.log(ratio)) <= math.log1p(minimum)
    reach = minimum if same else max(noise, abs(ratio - 1), minimum)  # undecided: how far they may lie apart
    return Verdict(order, fa["median"], fb["median"], reach, rule="points", same=same,
                   reason=None if called or same else "spread")
