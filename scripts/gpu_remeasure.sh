#!/usr/bin/env bash
# The re-measurement of issues 29 and 30 on a lent GPU, one call per argument:
#
#   bash scripts/gpu_remeasure.sh a      # run A, the committed one: python build_tables.py --all --ncu
#                                        # (docs/generated/<gpu> and compare/), then issue 52's
#                                        # --fixes collections (two, as time allows) on the same host
#   bash scripts/gpu_remeasure.sh tests  # the GPU test pass, part 1: the pages' blocks, the shapes,
#                                        # the pages (test_snippets, test_shapes, test_pages)
#   bash scripts/gpu_remeasure.sh cli    # part 2: test_cli (its end-to-end runs take 60-100 s each)
#   bash scripts/gpu_remeasure.sh b      # rerun B: only its results.json, to data/reruns/<gpu>/b/
#   bash scripts/gpu_remeasure.sh c      # reruns C to J (c ... j): the same, to data/reruns/<gpu>/<x>/
#                                        # (issue 39: the site's verdicts are decided across run A and
#                                        # its reruns, the run as the unit, so more runs decide more)
#
# Each call leaves ONE file under $OUT (the device returns at most 8): run-<arg>.tar.gz with
# what the run wrote, its log and status.txt (each command's exit status and seconds).
# Unpack it in the repository root: tar -xzf run-a.tar.gz (it holds repository paths, and
# remeasure-logs/, which git does not need). Every command runs under `timeout`, so a call
# ends inside 9 minutes (the device's limit per command is 10).
#
# The GPU test pass needs three packages the device does not have. Once, here, in the
# repository root (they travel as wheels; name .whl in the call's carry):
#   echo /.whl/ >> .git/info/exclude   # already in .gitignore
#   python3 -m pip download --no-deps --only-binary=:all: --python-version 3.12 --implementation cp \
#     --platform manylinux_2_28_x86_64 --platform manylinux_2_17_x86_64 --platform manylinux2014_x86_64 \
#     -d .whl pytest-codeblocks==0.18.0 pymdown-extensions==13.1.2 Markdown==3.11.3 \
#     pytest-xdist==3.8.0 execnet==2.1.2
# (PyYAML, which pymdown-extensions needs, is on the device with transformers.) Then:
#   run(command="bash scripts/gpu_remeasure.sh a", carry=[".whl"], timeout_s=600)
set -u
ARG="${1:-}"
case "$ARG" in a|tests|cli|[b-j]) ;; *) echo "usage: bash scripts/gpu_remeasure.sh a|tests|cli|b..j (a rerun's letter)" >&2; exit 2;; esac
cd "$(dirname "$0")/.." || exit 1
PY="${PYTHON:-python3}"
OUT="${OUT:-/tmp/remeasure-out}"
mkdir -p "$OUT" remeasure-logs
export PYTHONUNBUFFERED=1
START=$(date +%s)
BUDGET=540  # seconds for everything in this call, packing included
STATUS=remeasure-logs/status-$ARG.txt
: > "$STATUS"

left() { echo $((BUDGET - 20 - ($(date +%s) - START))); }

step() {  # step NAME SECONDS COMMAND...: run with a timeout, log it, record its status
  local name=$1 limit=$2 t0 rc
  shift 2
  if [ "$limit" -lt 30 ]; then
    echo "$name: not run, $limit s left" | tee -a "$STATUS"
    return 1
  fi
  t0=$(date +%s)
  echo "== $name (at most $limit s): $*"
  set -o pipefail
  timeout --kill-after=10 "$limit" "$@" 2>&1 | tee "remeasure-logs/$name.log"
  rc=$?
  set +o pipefail
  echo "$name: exit $rc in $(($(date +%s) - t0)) s$([ $rc -eq 124 ] && echo ' (timed out)')" | tee -a "$STATUS"
  return $rc
}

if [ -d .whl ]; then
  "$PY" -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl \
    && export PYTHONPATH="/tmp/site${PYTHONPATH:+:$PYTHONPATH}" || echo "wheels: install failed" | tee -a "$STATUS"
fi
{ nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv;
  "$PY" -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda)'; date -u; } \
  > remeasure-logs/machine-$ARG.txt 2>&1

PATHS=(remeasure-logs)
# xdist where it travelled (.whl): the test files' tests in 8 processes
XDIST=()
"$PY" -c 'import xdist' 2>/dev/null && XDIST=(-n 8)
case "$ARG" in
  a)
    stamp=$(mktemp)
    step run-a 480 "$PY" build_tables.py --all --ncu  # about 6.5 minutes with 4 round processes
    # the folder the run wrote, named after its GPU (h200 on an H200, h100-80gb-hbm3 on an H100)
    for f in docs/generated/*/results.json; do [ "$f" -nt "$stamp" ] && PATHS+=("$(dirname "$f")"); done
    PATHS+=(docs/generated/compare)
    ;;
  tests)
    # a failure's traceback as it happens (tests/conftest.py): the time limit may kill pytest before its summary
    SDPA_FAILURES_AT_ONCE=1 step gpu-tests "$(left)" "$PY" -m pytest -q -p no:cacheprovider "${XDIST[@]}" \
      tests/test_snippets.py tests/test_shapes.py tests/test_pages.py
    ;;
  cli)
    SDPA_FAILURES_AT_ONCE=1 step gpu-tests-cli "$(left)" "$PY" -m pytest -q -p no:cacheprovider "${XDIST[@]}" tests/test_cli.py
    ;;
  [b-j])
    tmp=$(mktemp -d)
    if step "run-$ARG" 480 "$PY" build_tables.py --all --ncu --out "$tmp"; then
      # the folder the run wrote is named after its GPU: its reruns go beside that GPU's run
      SLUG=$(basename "$(dirname "$(ls "$tmp"/*/results.json | head -n 1)")")
      dest=data/reruns/$SLUG/$ARG
      mkdir -p "$dest"
      cp "$tmp/$SLUG/results.json" "$dest/results.json"
      cp -r "$tmp/$SLUG/traces" "$dest/traces"  # a collected run: its figures are derived from these
      gpu=$("$PY" -c 'import json,sys; p=json.load(open(sys.argv[1]))["provenance"]; print(p["gpu_name"], "| torch", p["torch"], "| CUDA", p["cuda"], "| cuDNN", p["cudnn"], "| driver", p["driver"])' "$dest/results.json")
      cat > "$dest/README.md" <<EOF
# Rerun ${ARG^^} on ${gpu%% |*}

- Date: $(date -u +%Y-%m-%d) (UTC)
- Command: \`python build_tables.py --all --ncu --out <a temporary folder>\`, then its
  \`$SLUG/results.json\` and \`$SLUG/traces/\` copied here (by \`bash scripts/gpu_remeasure.sh $ARG\`)
- Machine: $gpu
- Same code as the committed run in \`docs/generated/$SLUG/\`; compare them with
  \`python -m benchmarks.verdicts docs/generated/$SLUG data/reruns/$SLUG/*\`
EOF
      PATHS+=("$dest")
    fi
    rm -rf "$tmp"
    ;;
esac
# issue 52's collections on the same host, as many as the call's time leaves (about 35 s each)
case "$ARG" in a|[b-j])
  for i in 1 2; do
    [ "$(left)" -ge 80 ] || break
    step "fixes-$i" 75 "$PY" build_tables.py --fixes && PATHS+=(data/fixes)
  done;;
esac
tar -czf "$OUT/run-$ARG.tar.gz" "${PATHS[@]}"
echo "== packed $OUT/run-$ARG.tar.gz ($(du -h "$OUT/run-$ARG.tar.gz" | cut -f1)) in $(($(date +%s) - START)) s"
cat "$STATUS"
