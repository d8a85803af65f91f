#!/usr/bin/env bash
# Install the requirements, build the site strictly into site/, and serve it on
# http://127.0.0.1:PORT/ (python -m http.server, the same static files a host would serve).
#   --build-only   stop after the build
#   --no-install   skip pip install
#   --port=N       port to serve on (default 8000)
# For live editing, `mkdocs serve` works too (it re-runs the notebook on every change).
set -euo pipefail
cd "$(dirname "$0")/.."

PYTHON=${PYTHON:-python3}
build_only=0
install=1
port=8000
for arg in "$@"; do
  case "$arg" in
    --build-only) build_only=1 ;;
    --no-install) install=0 ;;
    --port=*) port="${arg#--port=}" ;;
    -h|--help) sed -n '2,8p' "$0"; exit 0 ;;
    *) echo "unknown argument: $arg (see --help)" >&2; exit 2 ;;
  esac
done

export PIP_DISABLE_PIP_VERSION_CHECK=1
export NO_MKDOCS_2_WARNING=1

if [ "$install" -eq 1 ]; then
  "$PYTHON" -m pip install --quiet -r requirements.txt
fi
"$PYTHON" -m mkdocs build --strict --site-dir site
if [ "$build_only" -eq 1 ]; then
  exit 0
fi
echo "Serving site/ at http://127.0.0.1:$port/ (nb) and http://127.0.0.1:$port/en/ (en); Ctrl-C stops"
exec "$PYTHON" -m http.server --bind 127.0.0.1 --directory site "$port"
