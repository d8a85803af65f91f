#!/usr/bin/env bash
# Install what the project needs, build the site strictly, run the whole test suite (CPU).
# Works on a fresh machine with Python 3.11, pip and apt. Extra arguments go to pytest.
set -euo pipefail
cd "$(dirname "$0")/.."

PYTHON=${PYTHON:-python3}
export PIP_DISABLE_PIP_VERSION_CHECK=1
export NO_MKDOCS_2_WARNING=1  # Material 9.8's end-of-life notice; it does not affect the build

echo "== pip install -r requirements.txt"
"$PYTHON" -m pip install --quiet -r requirements.txt

if ! command -v chromium >/dev/null 2>&1; then
  echo "== apt-get install chromium (for tests/test_browser.py)"
  sudo=""
  if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
  $sudo apt-get update -q </dev/null
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q chromium </dev/null
fi

echo "== ruff check"
"$PYTHON" -m ruff check . </dev/null

echo "== mkdocs build --strict"
"$PYTHON" -m mkdocs build --strict --site-dir site </dev/null

echo "== pytest"
set +e
"$PYTHON" -m pytest -q tests "$@" </dev/null
rc=$?
set -e
if [ "$rc" -eq 5 ]; then
  echo "pytest collected no tests: that is a failure here" >&2
  exit 1
fi
exit "$rc"
