"""Several runs of one GPU as one set of measurements: run A (the folder the site shows)
and the reruns committed beside it by the same measuring code (data/reruns/<gpu>/).

A run is one `build_tables.py` on a machine (each of its rounds a fresh process on that
machine). What moves between runs (another host, a slower CPU, a compiled kernel chosen
differently) is shared by the processes of one run, so a verdict that is to hold on a
rerun is decided with the run as the unit (paired.by_runs): each run gives one ratio.

`pooling` decides which reruns join run A, once, for every reader (the pages' verdicts,
Reproduce's table, the render's lines): a rerun of other measuring code (provenance's
code_sha256) or of other software (VERSIONS) is never pooled, nor one whose host pace
lies far outside the other runs' (PACE_FACTOR); runs whose provenance names the same
`host` are one unit. `pooled` attaches, to every figure of run A that has "rounds", the
rounds of the same figure in each unit ("run_rounds": run A's unit first, None where a
unit lacks the figure); the rules read them with `run_rounds`. Run A's own figures (its
medians, its rounds) are untouched: a page shows run A's numbers and states verdicts
across the runs. The result is for rendering only and is never written back to a
results.json."""
from __future__ import annotations

import statistics
from dataclasses import dataclass

from .across_rounds import figures_of

RUN_ROUNDS = "run_rounds"  # render-time only (pooled): [rounds of run A's unit, of each other unit]
VERSIONS = ("torch", "cuda", "cudnn", "driver")  # provenance's software versions: all the run's, or not pooled
PACE_FACTOR = 3.0  # a rerun's host pace over (or under) the other runs' median by more: left out
HOST_PACE = ("small", "flash")  # pair group and entry: an eager call the CPU paces


def _provenance(results):
    return results.get("provenance") if isinstance(results.get("provenance"), dict) else {}


def _pace_blocks(results):
    group = (((results.get("pairs") or {}).get("groups")) or {}).get(HOST_PACE[0]) or {}
    return [b for r in group.get("rounds") or []
            if isinstance(r, dict) and (b := (r.get("blocks_us") or {}).get(HOST_PACE[1]))]


def process_paces(results):
    """The small shape's eager flash call, wall time per call, in each process of a run: the
    median of its blocks; [] where the run lacks it."""
    return [statistics.median(b) for b in _pace_blocks(results)]


def host_pace(results):
    """(median, fastest) in µs of the small shape's eager flash call, wall time per call: the
    median of each process's median block, and the fastest block of all; None where the run
    lacks it. A median far above the fastest block is a host that was disturbed (another
    load, now and then), not one slower throughout: interference only adds time."""
    blocks = _pace_blocks(results)
    if not blocks:
        return None
    return statistics.median(process_paces(results)), min(min(b) for b in blocks)


def other_code(results, reruns) -> list[str]:
    """The names of the reruns ([(name, results)]) measured with other measuring code than
    the run's (provenance's code_sha256, the hash of every measuring file): their figures
    may differ for that reason alone, so they are not reruns of it and are never pooled."""
    code = _provenance(results).get("code_sha256")
    return [name for name, r in reruns if _provenance(r).get("code_sha256") != code]


def other_versions(results, rerun) -> tuple[tuple[str, object, object], ...]:
    """(field, the run's, the rerun's) for each software version of VERSIONS in which the
    rerun's provenance differs from the run's (a version one records and the other not
    differs too); () where all are the same."""
    a, b = _provenance(results), _provenance(rerun)
    return tuple((f, a.get(f), b.get(f)) for f in VERSIONS if a.get(f) != b.get(f))


@dataclass(frozen=True)
class Kept:
    """A rerun pooled with the run: its host pace (µs, None where not measured) and host."""
    name: str
    pace: float | None
    host: str | None


@dataclass(frozen=True)
class LeftOut:
    """A rerun not pooled, and why: "code" (other measuring code), "versions" (`versions`:
    (field, the run's, the rerun's)), or "pace" (its host pace `pace`, µs, against the
    median `others` of the other runs' paces, beyond PACE_FACTOR either way)."""
    name: str
    reason: str
    versions: tuple[tuple[str, object, object], ...] = ()
    pace: float | None = None
    others: float | None = None


@dataclass(frozen=True)
class Pooling:
    """Which reruns join the run. `units`: the runs pooled, as units of replication, each a
    tuple of positions in (run A, *kept): run A's unit first, runs whose provenance names the
    same host in one unit; `hosts_recorded`: how many of those runs' provenance names its host."""
    kept: tuple[Kept, ...]
    left_out: tuple[LeftOut, ...]
    units: tuple[tuple[int, ...], ...]
    hosts_recorded: int

    @property
    def runs(self) -> int:
        return 1 + len(self.kept)

    def unit_names(self, first) -> list[str]:
        """Each unit as its runs' names joined by "+", run A's name being `first`."""
        names = [first] + [k.name for k in self.kept]
        return ["+".join(names[i] for i in unit) for unit in self.units]


def _pace(results):
    found = host_pace(results)
    return found[0] if found else None


def far_off(pace, others, factor=PACE_FACTOR):
    """True where `pace` lies beyond `factor` times the median of `others` (the other runs'
    host paces), above or below; False where either is unknown."""
    if pace is None or not others:
        return False
    centre = statistics.median(others)
    return pace > factor * centre or pace < centre / factor


def pooling(results, reruns) -> Pooling:
    """The reruns ([(name, results)]) that join run `results`, and those left out with their
    reason: other measuring code first, then other software versions, then a host pace far
    off the median of every other run that remains (run A's among them), so that one odd
    run cannot move the median it is judged by."""
    left, candidates = [], []
    code = set(other_code(results, reruns))
    for name, r in reruns:
        if name in code:
            left.append(LeftOut(name, "code"))
        elif versions := other_versions(results, r):
            left.append(LeftOut(name, "versions", versions=versions))
        else:
            candidates.append((name, r, _pace(r)))
    paces = [_pace(results)] + [p for _, _, p in candidates]
    kept = []
    for i, (name, r, pace) in enumerate(candidates):
        others = [p for j, p in enumerate(paces) if j != i + 1 and p is not None]
        if far_off(pace, others):
            left.append(LeftOut(name, "pace", pace=pace, others=statistics.median(others)))
        else:
            kept.append(Kept(name, pace, _provenance(r).get("host")))
    hosts = [_provenance(results).get("host")] + [k.host for k in kept]
    units = {}
    for i, host in enumerate(hosts):
        units.setdefault(host if isinstance(host, str) else i, []).append(i)
    order = [name for name, _ in reruns]
    return Pooling(tuple(kept), tuple(sorted(left, key=lambda x: order.index(x.name))),
                   tuple(tuple(u) for u in units.values()), sum(isinstance(h, str) for h in hosts))


def pooled(results, reruns):
    """results (run A) with RUN_ROUNDS beside every "rounds" list of a dict, holding that
    list in each unit of `pooling` (run A's first; a unit of several runs, one host, holds
    their rounds one after another); shares every list and leaf with `results`, which is
    not changed. No rerun pooled: results itself."""
    chosen = pooling(results, reruns)
    if not chosen.kept:
        return results
    by_name = dict(reruns)
    runs = [results] + [by_name[k.name] for k in chosen.kept]
    return _attach(results, runs[1:], chosen.units, [_count(r) for r in runs])


def _count(results):
    """How many rounds (processes) a run has, for the place of a figure it lacks; None unknown."""
    rounds = results.get("rounds") if isinstance(results.get("rounds"), dict) else {}
    count = rounds.get("count")
    return count if isinstance(count, int) else None


def _attach(node, others, units, counts):
    out = {}
    for key, value in node.items():
        out[key] = _attach(value, [o.get(key) if isinstance(o, dict) else None for o in others], units, counts) \
            if isinstance(value, dict) else value
    if isinstance(node.get("rounds"), list):
        lists = [node["rounds"]] + [
            o["rounds"] if isinstance(o, dict) and isinstance(o.get("rounds"), list) else None for o in others]
        out[RUN_ROUNDS] = [_merged([lists[i] for i in unit], [counts[i] for i in unit]) for unit in units]
    return out


def _merged(lists, counts):
    """One unit's rounds of a figure: its runs' rounds one after another, a run without the
    figure holding its place with None for each of its rounds (so round i of one figure
    stays round i of another); None where no run has it, or a run lacks it and its count is
    unknown."""
    if len(lists) == 1:
        return lists[0]
    if all(x is None for x in lists) or any(x is None and c is None for x, c in zip(lists, counts, strict=True)):
        return None
    return [rnd for x, c in zip(lists, counts, strict=True) for rnd in (x if x is not None else [None] * c)]


def run_rounds(node):
    """[the rounds of each run] of a figure: its RUN_ROUNDS where pooled, else its own
    rounds as the one run; a run without the figure is None. [] where node has no rounds."""
    if not isinstance(node, dict):
        return []
    if isinstance(node.get(RUN_ROUNDS), list):
        return node[RUN_ROUNDS]
    return [node["rounds"]] if isinstance(node.get("rounds"), list) else []


def runs_of(row, key, part=None):
    """rounds_of (across_rounds.py) in each run: [the figure `key` (its `part`) of each of
    that run's rounds, or None for a run without the row's rounds]."""
    return [figures_of(rounds, key, part) if rounds else None for rounds in run_rounds(row)]
