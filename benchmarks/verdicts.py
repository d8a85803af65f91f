#!/usr/bin/env python3
"""Do the pages say the same thing with one run more or less? Prints sentences; asserts nothing.

    python -m benchmarks.verdicts RUN_A RERUN_B ...   # results folders (or results.json files)
    python -m benchmarks.verdicts docs/generated/h100-80gb-hbm3 data/reruns/h100-80gb-hbm3/* --lang en
    python -m benchmarks.verdicts --each RUN_A RERUN_B ...   # each run on its own

The pages decide their verdicts across a run and the reruns committed beside it, the run
as the unit (report/verdict: pooled, by_runs). So a rerun changes a page by joining that
set, and the check is: render the findings (report/render/site.py: render_all, into a
temporary folder; nothing under docs/ is written) from all the runs given, the first shown
and the others pooled as its reruns, and again with each run in turn left out (the first
remaining one shown); mask every number (with its unit, %, ×) as "#"; print every sentence
whose words are not the same in all these renderings: which say it, then each one's
sentence with its numbers. Sentences all of them say, numbers aside, are not printed; the
last line counts both. With --each, every run is rendered on its own instead (the verdicts
decided across one run's processes): what a single run would say.

Before them, one line per run: its host's pace (the small shape's eager SDPA flash call,
wall time per call: the median of its processes' medians, and its fastest block) and
whether the render pools it with the first run or leaves it out, and why (report/verdict:
pooling: other measuring code, other software versions, a host pace far off the others').
A host that was disturbed (a median far above the fastest block) moves every comparison
the CPU paces. While it renders (one rendering per run, plus one: with 100 runs, minutes),
a line on stderr says which rendering it is at. Exit status 0 whatever it finds (a bad
argument: one line, exit 2).
"""
import argparse
import re
import sys
import tempfile
from pathlib import Path

# `python benchmarks/verdicts.py` puts benchmarks/ on sys.path, not the repository root
ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from report.results import UsageError, load_reference, load_results  # noqa: E402
from report.text.display import LANGS  # noqa: E402
from report.verdict import PACE_FACTOR, host_pace, pooling  # noqa: E402

MASK = "#"
UNITS = r"(?:µs|ms|s|%|×|x|TFLOP/s|[GT]B/s|[KMG]iB|GB)(?!\w)"
# a number (sign, thousands separators of either locale, decimals) and the unit after it;
# digits inside a word (sm90, bf16, knob_7) are part of the word, not a number
NUMBER = re.compile(rf"(?<![\w.,])[−+-]?\d(?:[\d,.\u00a0\u202f]*\d)?(?![\w])(?:[ \u00a0]?{UNITS})?")
SENTENCE_END = re.compile(r"(?<=[.!?:])\s+(?=[A-ZÆØÅ\"“(`*])")


RANGE = re.compile(rf"{re.escape(MASK)}[–-]{re.escape(MASK)}")


def mask(text):
    """The text with every number, and its unit, replaced by MASK; a range of two numbers
    is one number too ("5–6%" and "5%" are the same words: a range whose ends round alike
    is written as one value)."""
    return RANGE.sub(MASK, NUMBER.sub(MASK, text))


def split_sentences(markdown):
    """The sentences of a findings file: each list item or paragraph line, split at the end
    of each sentence; the generated-file header and empty lines left out."""
    out = []
    for line in markdown.splitlines():
        line = line.strip()
        if not line or line.startswith("<!--"):
            continue
        line = re.sub(r"^[-*] ", "", line)
        out += [s.strip() for s in SENTENCE_END.split(line) if s.strip()]
    return out


def run_lines(loaded):
    """One line per run: its host's pace, and for each run after the first whether the render
    would pool it as the first run's rerun or leave it out, and why (report/verdict: pooling)."""
    names = list(loaded)
    first = loaded[names[0]]
    chosen = pooling(first, [(name, loaded[name]) for name in names[1:]])
    why = {left.name: left for left in chosen.left_out}
    lines = []
    for run, results in loaded.items():
        pace = host_pace(results)
        said = "not measured" if pace is None else f"{pace[0]:.3g} µs, fastest block {pace[1]:.3g} µs"
        if run == names[0]:
            fate = "the run shown"
        elif run not in why:
            fate = "pooled as its rerun"
        elif why[run].reason == "code":
            fate = "left out: measuring code DIFFERS from the first run"
        elif why[run].reason == "versions":
            fate = "left out: other software, " + ", ".join(f"{f} {b} against {a}" for f, a, b in why[run].versions)
        else:
            fate = f"left out: host pace more than {PACE_FACTOR:g}x from the others' median"
        lines.append(f"{run}: host pace {said} (eager flash call, small shape); {fate}")
    return lines


def rendered_findings(results, tmp, reruns=()):
    """{(file name, lang): [sentences]} of the findings one run renders (results: its
    results.json, loaded), with `reruns` ([(name, results)]) pooled as its reruns."""
    from report.render.site import render_all

    tables = Path(tmp) / "tables"
    render_all(results, load_reference(), tables, reruns=list(reruns))
    found = {}
    for path in sorted(tables.glob("*.md")):
        if "finding" not in path.name:
            continue
        name, lang = path.name.removesuffix(".md").rsplit(".", 1)
        found[(name, lang)] = split_sentences(path.read_text(encoding="utf-8"))
    return found


def renderings(loaded, each=False, progress=None):
    """{label: rendered findings}: with each, every run on its own; else all runs (the
    first shown, the rest pooled) and every set with one run left out. progress(line), where
    given, is told before each rendering (there are as many as runs, plus one)."""
    names = list(loaded)
    if each:
        sets = {name: [name] for name in names}
    else:
        sets = {"all": names, **{f"without {name}": [n for n in names if n != name] for name in names}}
    out = {}
    for i, (label, members) in enumerate(sets.items(), 1):
        if progress:
            progress(f"rendering {i} of {len(sets)}: {label} ({len(members)} runs)")
        first, rest = members[0], [(n, loaded[n]) for n in members[1:]]
        with tempfile.TemporaryDirectory(prefix="verdicts-") as tmp:
            try:
                out[label] = rendered_findings(loaded[first], tmp, rest)
            except (KeyError, TypeError, ValueError, AttributeError) as err:
                raise UsageError(f"{first} does not render ({type(err).__name__}: {err}): damaged, or "
                                 "written by another version of build_tables.py") from None
    return out


def results_file(arg):
    path = Path(arg)
    path = path / "results.json" if path.is_dir() else path
    if not path.is_file():
        raise UsageError(f"{arg}: no results.json there (give a results folder or its results.json)")
    return path


def differing(runs):
    """[(file, lang, masked sentence, {run: [its sentences with numbers]})] of every masked
    sentence that not every run says, and the count of those that every run says."""
    keys = sorted({key for found in runs.values() for key in found})
    out, same = [], 0
    for key in keys:
        by_mask = {}
        for run, found in runs.items():
            for sentence in found.get(key, []):
                by_mask.setdefault(mask(sentence), {}).setdefault(run, []).append(sentence)
        for masked, said in by_mask.items():
            counts = {len(said.get(run, [])) for run in runs}
            if len(counts) == 1:  # every run says it, as many times
                same += 1
            else:
                out.append((key[0], key[1], masked, said))
    return out, same


def report(runs, langs):
    """The printed report: each differing sentence, who says it, and its figures."""
    diffs, same = differing({run: {k: v for k, v in found.items() if k[1] in langs}
                             for run, found in runs.items()})
    lines = []
    for name, lang, masked, said in diffs:
        by = ", ".join(run + (f" ({len(s)} times)" if len(s) > 1 else "") for run, s in said.items())
        missing = [run for run in runs if run not in said]
        lines.append(f"{name}.{lang}: said by {by}" + (f", not by {', '.join(missing)}" if missing else "")
                     + f": {masked}")
        lines += [f"    {run}: {sentence}" for run, sentences in said.items() for sentence in sentences]
    lines.append(f"{len(diffs)} sentence(s) differ in words between the renderings; {same} are the same "
                 f"in every one, numbers aside ({len(runs)} renderings: {', '.join(runs)}; {', '.join(langs)})")
    return "\n".join(lines)


def _parser():
    p = argparse.ArgumentParser(prog="benchmarks/verdicts.py", description=__doc__.split("\n")[0])
    p.add_argument("folders", nargs="+", help="results folders (or results.json files): the run, then its reruns")
    p.add_argument("--lang", choices=LANGS, action="append", help="only this language (default: both)")
    p.add_argument("--each", action="store_true", help="render each run on its own, not pooled")
    return p


def main(argv=None):
    p = _parser()
    args = p.parse_args(argv)
    try:
        paths = [results_file(f) for f in args.folders]
        if len(paths) < 2:
            raise UsageError("give at least two results folders to compare")
        if len(set(args.folders)) < len(args.folders):
            raise UsageError("a folder is given twice: give each run once")
        if not args.each and len(paths) < 3:
            raise UsageError("leaving one run out of two leaves one: give at least three, or --each")
        loaded = {arg: load_results(path) for arg, path in zip(args.folders, paths, strict=True)}
        runs = renderings(loaded, args.each, progress=lambda line: print(f"verdicts.py: {line}", file=sys.stderr))
    except UsageError as err:
        print(f"verdicts.py: error: {err}", file=sys.stderr)
        return 2
    print("\n".join(run_lines(loaded)))
    print(report(runs, args.lang or list(LANGS)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
