"""Where the repository's parts are, for every layer."""
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SNIPPETS = ROOT / "snippets"
PACKAGE = ROOT / "report"
DEFAULT_OUT = ROOT / "docs" / "generated"
COMPARE = "compare"  # <out>/compare/tables/: every GPU side by side; never a GPU's folder
REFERENCE = ROOT / "data" / "hf_blog_a100.json"
SCRATCH_OUT = ROOT / "build-out"  # CPU runs: git-ignored, never published
