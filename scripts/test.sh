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
strictly, and run pytest on tests/ (arguments go to pytest: -x, -k NAME).
Fails when pytest collects no tests.

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

build_site

echo "== pytest (benchmarks/test_suite.py: pytest -q tests, then the suite's figure in one line)"
PYTEST_RUNNER=benchmarks/test_suite.py run_pytest "$@"
