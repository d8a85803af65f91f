"""Several runs of one GPU as one set of measurements: run A (the folder the site shows)
and the reruns committed beside it by the same measuring code (data/reruns/<gpu>/).

A run is one `build_tables.py` on a machine (each of its rounds a fresh process on that
machine). What moves between runs (another host, a slower CPU, a compiled kernel chosen
differently) is shared by the processes of one run, so a verdict that is to hold on a
rerun is decided with the run as the unit (paired.by_runs): each run gives one ratio.

`pooled` attaches, to every figure of run A that has "rounds", the rounds of the same
figure in each rerun ("run_rounds": run A's first, None where a rerun lacks the figure);
the rules read them with `run_rounds`. Run A's own figures (its medians, its rounds) are
untouched: a page shows run A's numbers and states verdicts across the runs. The result
is for rendering only and is never written back to a results.json."""
from __future__ import annotations

from .across_rounds import figures_of

RUN_ROUNDS = "run_rounds"  # render-time only (pooled): [rounds of run A, of each rerun]


def other_code(results, reruns) -> list[str]:
    """The names of the reruns ([(name, results)]) measured with other measuring code than
    the run's (provenance's code_sha256, the hash of every measuring file): their figures
    may differ for that reason alone, so they are not reruns of it and are never pooled."""
    code = (results.get("provenance") or {}).get("code_sha256")
    return [name for name, r in reruns if (r.get("provenance") or {}).get("code_sha256") != code]


def pooled(results, reruns):
    """results (run A) with RUN_ROUNDS beside every "rounds" list of a dict, holding that
    list in run A and at the same place in each rerun of `reruns` ([(name, results)], in
    order) by the same measuring code (other_code's are left out); shares every list and
    leaf with `results`, which is not changed. No such rerun: results itself."""
    other = set(other_code(results, reruns))
    same = [r for name, r in reruns if name not in other]
    return _attach(results, same) if same else results


def _attach(node, others):
    out = {}
    for key, value in node.items():
        out[key] = _attach(value, [o.get(key) if isinstance(o, dict) else None for o in others]) \
            if isinstance(value, dict) else value
    if isinstance(node.get("rounds"), list):
        out[RUN_ROUNDS] = [node["rounds"]] + [
            o["rounds"] if isinstance(o, dict) and isinstance(o.get("rounds"), list) else None for o in others]
    return out


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
