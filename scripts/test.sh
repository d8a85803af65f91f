#!/usr/bin/env bash
# Install what the project needs, build the site strictly, run the whole test suite (CPU).
# Works on a fresh machine with Python 3.11+ and apt; --help says how.
set -euo pipefail
cd "$(dirname "$0")/.."
SCRIPT=test.sh

if [ "${1:-}" = -h ] || [ "${1:-}" = --help ]; then
  cat <<'EOF'
usage: bash scripts/test.sh [PYTEST ARGS...]

Install the requirements (into the project's .venv unless Python already runs inside a
virtualenv) and, where npm is installed, Pyodide for the in-browser trace reader (npm ci),
apt-get install Debian's chromium for the browser tests when it is missing, build the site
strictly, and run pytest on tests/ with one worker per core (pytest-xdist; the tests check
that build of the site rather than make another). Arguments go to pytest: -x, -k NAME,
-n 0 for one process. Fails when pytest collects no tests.

PYTHON=/path/to/python3 picks the Python that makes .venv (default: python3; 3.11 or newer).
EOF
  exit 0
fi

source scripts/common.sh

plan_python
use_python
pip_install
npm_install

if ! command -v chromium >/dev/null 2>&1; then
  echo "== apt-get install chromium (for tests/test_browser.py)"
  apt_install chromium
fi

echo "== ruff check"
"$PY" -m ruff check . </dev/null

# the build's output is kept for the tests, which check this build rather than make another
SITE_LOG=$(mktemp "${TMPDIR:-/tmp}/sdpa-site-build-XXXXXX")
trap 'rm -f "$SITE_LOG"' EXIT
build_site
export SDPA_TEST_SITE="$PWD/site" SDPA_TEST_SITE_LOG="$SITE_LOG" SDPA_TEST_SITE_SECONDS="$SITE_SECONDS"

echo "== pytest (benchmarks/test_suite.py: pytest -q tests on every core, then the suite's figure in one line)"
PYTEST_RUNNER=benchmarks/test_suite.py run_pytest "$@"
