"""Where the repository's parts are, for every layer."""
import re
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent  # report/ in a clone; sdpa_trace_doctor/ where pip installed it
ROOT = PACKAGE.parent
# snippets/ beside report/ in a clone; pip installs it inside the package (pyproject.toml's package-dir)
SNIPPETS = PACKAGE / "_snippets" if (PACKAGE / "_snippets").is_dir() else ROOT / "snippets"
DEFAULT_OUT = ROOT / "docs" / "generated"
COMPARE = "compare"  # <out>/compare/tables/: every GPU side by side; never a GPU's folder
# a results folder's name, as build_tables.py writes it (--slug); staging (.h200-x) and .old never match
SLUG = re.compile(r"[a-z0-9][a-z0-9-]*")
MAX_SLUG = 64  # characters of that name: its staging folder and .old stay below NAME_MAX (255)
REFERENCE = ROOT / "data" / "hf_blog_a100.json"
FIXES = ROOT / "data" / "fixes"  # <gpu>/<collection>.json.gz: each refusal beside its fix (collect/fix_collector.py)
RERUNS = ROOT / "data" / "reruns"  # <gpu>/<run>/results.json: reruns committed beside a GPU's run
# the real model's trace the page "Read your own trace" walks through: one of the test corpus
# (benchmarks/record_traces.py, cut by benchmarks/cut_trace.py), beside its manifest.json
MODEL_TRACE = ROOT / "tests" / "fixtures" / "corpus" / "sdpa_infer.json.gz"
SCRATCH_OUT = ROOT / "build-out"  # CPU runs: git-ignored, never published
