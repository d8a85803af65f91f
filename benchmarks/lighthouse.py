#!/usr/bin/env python3
"""Lighthouse's four scores for every page of the built site, both languages, as a phone
gets them. Prints figures; asserts nothing.

    python -m benchmarks.lighthouse --lighthouse /tmp/lh/node_modules/.bin/lighthouse
    python -m benchmarks.lighthouse --runs 5 --pages nb:shapes,en:shapes --json /tmp/lh.json

Lighthouse 12.2.3 is not a dependency of the project (it is large, and CI does not run it):
`npm i --prefix /tmp/lh -E lighthouse@12.2.3` puts it outside the repository. It drives
Debian's chromium (CHROME_PATH, else the first of chromium, chromium-browser,
google-chrome on PATH), with its default mobile settings: a phone's screen, simulated
slow 4G and a CPU four times slower than the machine's.

The site (default site/, built by `bash scripts/site.sh --build-only`) is served by
scripts/serve.py, which compresses as static hosts do. Each round visits every page once, in
nav order, so a change in the machine's load over the minutes a pass takes spreads over
all pages instead of landing on one. Per page it prints the median over the runs of each
score, with the lowest run's performance, and the median total blocking time; for each run
it keeps the load average before it and Lighthouse's own estimate of the machine's speed
(benchmarkIndex), since a busy machine lowers the performance score without any change to
the page (Lighthouse's docs/variability.md: the median of five runs is about twice as
stable as one run). `--json` writes every run to a new file, never over one that exists.
Exit status 0 whatever the scores; a bad argument, a missing site, Lighthouse or browser:
one line, exit 2, before any run starts.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

# `python benchmarks/lighthouse.py` puts benchmarks/ on sys.path, not the repository root
ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import yaml  # noqa: E402  (MkDocs' own dependency)

from report.text.display import LANGS  # noqa: E402
from scripts.serve import make_server  # noqa: E402

CATEGORIES = ("performance", "accessibility", "best-practices", "seo")
METRICS = {"fcp": "first-contentful-paint", "lcp": "largest-contentful-paint",
           "tbt": "total-blocking-time", "cls": "cumulative-layout-shift", "si": "speed-index"}
BROWSERS = ("chromium", "chromium-browser", "google-chrome")
TIMEOUT_S = 180  # one Lighthouse run of one page; a hung one is killed


class UsageError(Exception):
    pass


def nav_pages() -> list[str]:
    """Every page of the nav as lang:slug ("index" for Home), nav order, each language."""
    nav = yaml.safe_load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"))["nav"]
    slugs = [Path(next(iter(entry.values()))).stem for entry in nav]
    return [f"{lang}:{slug}" for lang in LANGS for slug in slugs]


def page_path(page: str) -> str:
    """nb:index -> '', en:shapes -> 'en/shapes/' (the default language is at the root)."""
    lang, slug = page.split(":")
    return ("" if lang == LANGS[0] else f"{lang}/") + ("" if slug == "index" else f"{slug}/")


def pick_pages(text: str | None) -> list[str]:
    every = nav_pages()
    if not text:
        return every
    chosen = [p.strip() for p in text.split(",") if p.strip()]
    unknown = [p for p in chosen if p not in every]
    if unknown:
        raise UsageError(f"unknown page {unknown[0]!r}: pages are lang:slug, e.g. {every[0]}, "
                         f"{every[-1]}")
    return chosen


def find_lighthouse(given: str | None) -> str:
    path = given or os.environ.get("LIGHTHOUSE") or shutil.which("lighthouse")
    if not path:
        raise UsageError("no Lighthouse: npm i --prefix /tmp/lh -E lighthouse@12.2.3, then "
                         "--lighthouse /tmp/lh/node_modules/.bin/lighthouse")
    if not (Path(path).is_file() and os.access(path, os.X_OK)):
        raise UsageError(f"--lighthouse {path}: not an executable file")
    return path


def find_browser() -> str:
    path = os.environ.get("CHROME_PATH") or next(filter(None, map(shutil.which, BROWSERS)), None)
    if not path or not Path(path).is_file():
        raise UsageError("no chromium: apt-get install chromium, or set CHROME_PATH")
    return path


def check_site(site: Path, pages: list[str]) -> None:
    missing = [p for p in pages if not (site / page_path(p) / "index.html").is_file()]
    if missing:
        raise UsageError(f"{site} has no page {missing[0]}: build it first "
                         "(bash scripts/site.sh --build-only)")


def run_once(lighthouse: str, browser: str, url: str, out: Path) -> dict:
    """One Lighthouse run: the four scores, the metrics, benchmarkIndex, the load before."""
    load = os.getloadavg()[0]
    cmd = [lighthouse, url, "--quiet", "--chrome-flags=--headless --no-sandbox",
           f"--only-categories={','.join(CATEGORIES)}", "--output=json", f"--output-path={out}"]
    done = subprocess.run(cmd, env={**os.environ, "CHROME_PATH": browser}, capture_output=True,
                          text=True, timeout=TIMEOUT_S, check=False)
    if done.returncode != 0 or not out.is_file():
        last = (done.stderr.strip().splitlines() or ["no output"])[-1]
        return {"error": f"exit {done.returncode}: {last}", "load": load}
    report = json.loads(out.read_text(encoding="utf-8"))
    audits = report["audits"]
    row = {c: round(report["categories"][c]["score"] * 100) for c in CATEGORIES}
    row.update({k: audits[a]["numericValue"] for k, a in METRICS.items()})
    row.update(load=load, benchmark_index=report["environment"].get("benchmarkIndex"),
               warnings=report.get("runWarnings", []))
    return row


def summary_line(page: str, runs: list[dict]) -> str:
    ok = [r for r in runs if "error" not in r]
    if not ok:
        return f"{page:22s} no run finished ({runs[-1]['error']})"
    med = {c: statistics.median(r[c] for r in ok) for c in CATEGORIES}
    perf = "/".join(str(r["performance"]) for r in ok)
    loads = [r["load"] for r in ok]
    bench = [r["benchmark_index"] for r in ok if r["benchmark_index"]]
    return (f"{page:22s} performance {med['performance']:5.1f} (lowest {min(r['performance'] for r in ok)}; "
            f"runs {perf})  accessibility {med['accessibility']:g}  best practices "
            f"{med['best-practices']:g}  SEO {med['seo']:g}  |  TBT {statistics.median(r['tbt'] for r in ok):.0f} ms"
            f"  load {min(loads):.1f}–{max(loads):.1f}"
            + (f"  benchmarkIndex {min(bench):.0f}–{max(bench):.0f}" if bench else "")
            + (f"  ({len(runs) - len(ok)} run(s) failed)" if len(ok) < len(runs) else ""))


def measure(site: Path, pages: list[str], runs: int, lighthouse: str, browser: str,
            work: Path) -> dict[str, list[dict]]:
    server = make_server(site, 0, "/", quiet=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_port}/"
    found: dict[str, list[dict]] = {p: [] for p in pages}
    try:
        for n in range(runs):
            for page in pages:
                row = run_once(lighthouse, browser, base + page_path(page),
                               work / f"{page.replace(':', '-')}-{n}.json")
                found[page].append(row)
                print(f"  run {n + 1}/{runs} {page}: " + (row.get("error") or
                      f"{row['performance']} {row['accessibility']} {row['best-practices']} {row['seo']}"
                      f" (load {row['load']:.1f})"), file=sys.stderr, flush=True)
    finally:
        server.shutdown()
    return found


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--site", type=Path, default=ROOT / "site", help="the built site (default site/)")
    parser.add_argument("--runs", type=int, default=5, help="runs per page (default 5)")
    parser.add_argument("--pages", help="lang:slug,... (default: every page of the nav, both languages)")
    parser.add_argument("--lighthouse", help="the lighthouse executable (else $LIGHTHOUSE, else PATH)")
    parser.add_argument("--json", type=Path, help="write every run here")
    args = parser.parse_args(argv)
    try:
        if args.runs < 1:
            raise UsageError(f"--runs {args.runs}: at least 1")
        pages = pick_pages(args.pages)
        check_site(args.site, pages)
        lighthouse, browser = find_lighthouse(args.lighthouse), find_browser()
        if args.json and not args.json.parent.is_dir():
            raise UsageError(f"--json {args.json}: no folder {args.json.parent}")
        if args.json and (args.json.exists() or args.json.is_symlink()):
            raise UsageError(f"--json {args.json}: it exists; name a new file (nothing is overwritten)")
    except UsageError as exc:
        print(f"benchmarks/lighthouse.py: {exc}", file=sys.stderr)
        return 2
    work = Path(tempfile.mkdtemp(prefix="lighthouse-"))
    try:
        found = measure(args.site, pages, args.runs, lighthouse, browser, work)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print(f"Lighthouse (mobile), {args.runs} run(s) per page, medians; served by scripts/serve.py (gzip)")
    for page, runs in found.items():
        print(summary_line(page, runs))
    ok = {p: [r for r in rs if "error" not in r] for p, rs in found.items()}
    below = [p for p, rs in ok.items() if rs and statistics.median(r["performance"] for r in rs) < 90]
    short = [p for p, rs in ok.items() if rs and any(statistics.median(r[c] for r in rs) < 100
                                                      for c in CATEGORIES[1:])]
    print(f"median performance below 90: {', '.join(below) or 'none'}; "
          f"accessibility, best practices or SEO below 100: {', '.join(short) or 'none'}")
    if args.json:
        args.json.write_text(json.dumps(found, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
