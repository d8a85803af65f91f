#!/usr/bin/env bash
# Install, build the site strictly into site/, serve it on 127.0.0.1; --help says how.
set -euo pipefail
cd "$(dirname "$0")/.."
SCRIPT=site.sh

usage() {
  cat <<'EOF'
usage: bash scripts/site.sh [--gpu RUN] [--build-only] [--no-install] [--port N] [--sub-path /P/] [--dry-run]

Install the requirements (into the project's .venv unless Python already runs inside a
virtualenv) and, where npm is installed, Pyodide for the in-browser trace reader (npm ci),
build the site strictly from the committed tables into site/, and serve it
on http://127.0.0.1:8000/ with scripts/serve.py: only the files a static host would serve,
and the site's own 404.html (status 404) for a missing page.

  --gpu RUN        the run every page shows: a folder of docs/generated/ (default: extra.gpu
                   in mkdocs.yml), or the path of a results folder build_tables.py
                   wrote elsewhere, e.g. build-out/cpu (a preview); also --gpu=RUN
  --build-only     stop after the build, and say where the site is and how to open it
  --no-install     no venv creation, no pip install, no npm ci: use what is installed
  --port N         port to serve on (default 8000; 0 picks a free one); also --port=N
  --sub-path /P/   serve the site under /P/, e.g. /sdpa/, as a host's sub-folder would;
                   also --sub-path=/P/
  --dry-run        print the Python, the steps and the URL, and do nothing
  -h, --help       this help

PYTHON=/path/to/python3 picks the Python that makes .venv (default: python3; 3.11 or newer).
For live editing: .venv/bin/mkdocs serve (rebuilds on every save).
EOF
}

for arg in "$@"; do
  case "$arg" in
    -h|--help) usage; exit 0 ;;
  esac
done

build_only=0
install=1
dry_run=0
port=8000
sub_path=/
gpu=
bad_usage() { echo "$SCRIPT: $* (see --help)" >&2; exit 2; }
while [ "$#" -gt 0 ]; do
  case "$1" in
    --build-only) build_only=1 ;;
    --no-install) install=0 ;;
    --dry-run) dry_run=1 ;;
    --port=*) port="${1#--port=}" ;;
    --sub-path=*) sub_path="${1#--sub-path=}" ;;
    --gpu=*) gpu="${1#--gpu=}"; [ -n "$gpu" ] || bad_usage "--gpu needs a value" ;;
    --port|--sub-path|--gpu)
      [ "$#" -ge 2 ] || bad_usage "$1 needs a value"
      case "$1" in
        --port) port=$2 ;;
        --sub-path) sub_path=$2 ;;
        --gpu) gpu=$2 ;;
      esac
      shift
      ;;
    *) bad_usage "unknown argument: $1" ;;
  esac
  shift
done

source scripts/common.sh
plan_python
# serve.py checks the port and the sub-path now, not after a minute of building
url=$("$PYTHON" scripts/serve.py --check --port "$port" --sub-path "$sub_path" </dev/null) || exit $?
# and the run to show (hooks/gpu.py reads SDPA_GPU; the same check stops the build)
if [ -n "$gpu" ]; then
  "$PYTHON" hooks/gpu.py "$gpu" >/dev/null </dev/null || exit 2
  export SDPA_GPU=$gpu
fi
REPLACES="site/: replaced by the pages of $gpu (build again without --gpu for the committed run)"
OPEN_IT="open: python3 scripts/serve.py, then $url (or copy site/ to any web server)"

if [ "$dry_run" -eq 1 ]; then
  if [ "$install" -eq 1 ]; then
    describe_python
    echo "install: pip install -r requirements.txt"
    npm_plan
    echo "install: $NPM_PLAN"
  else
    describe_python --no-install
  fi
  echo "build: mkdocs build --strict --site-dir site${gpu:+ (showing $gpu)}"
  if [ -n "$gpu" ]; then echo "$REPLACES"; fi
  if [ "$build_only" -eq 0 ]; then echo "serve: $url"; else echo "$OPEN_IT"; fi
  exit 0
fi

port_free() {  # refuse a port that is taken now, before a build of many seconds
  "$PYTHON" scripts/serve.py --check --check-free --port "$port" --sub-path "$sub_path" </dev/null >/dev/null
}
if [ "$build_only" -eq 0 ]; then port_free || exit 1; fi

if [ "$install" -eq 1 ]; then
  use_python
  pip_install
  npm_install
else
  use_python --no-install
fi
if [ -n "$gpu" ]; then echo "$SCRIPT: $REPLACES"; fi
build_site
if [ "$build_only" -eq 1 ]; then
  echo "$SCRIPT: the site is in $(pwd)/site/"
  echo "$SCRIPT: $OPEN_IT"
  exit 0
fi
exec "$PY" scripts/serve.py --port "$port" --sub-path "$sub_path"
