#!/usr/bin/env bash
# Issue 52's collections on a lent GPU: `python build_tables.py --fixes`, N times (fresh
# processes, default 2), each into data/fixes/<gpu>/, then one file under $OUT:
# fixes-<host>.tar.gz with the collections and the log. Unpack in the repository root
# (tar -xzf fixes-*.tar.gz). Call it once per freshly started machine: the host is the
# unit a verdict is decided on (report/render/fixes.py).
#   run(command="bash scripts/gpu_fixes.sh 2", timeout_s=600)
set -u
N="${1:-2}"
case "$N" in [1-5]) ;; *) echo "usage: bash scripts/gpu_fixes.sh [1-5]" >&2; exit 2;; esac
cd "$(dirname "$0")/.." || exit 1
OUT="${OUT:-/tmp/fixes-out}"
mkdir -p "$OUT" remeasure-logs
export PYTHONUNBUFFERED=1
LOG=remeasure-logs/fixes.log
{
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv
  python3 - <<'PY'
import torch, torch.nn.attention as a, torch.nn.functional as F, inspect
print("torch", torch.__version__, "cudnn", torch.backends.cudnn.version())
print("activate_flash_attention_impl:", hasattr(a, "activate_flash_attention_impl"),
      "list_flash_attention_impls:", hasattr(a, "list_flash_attention_impls"))
try:
    import torch.nn.attention.varlen as v; print("varlen:", [n for n in dir(v) if not n.startswith("_")])
except Exception as e: print("varlen: no", e)
print("enable_gqa in sdpa:", "enable_gqa" in (F.scaled_dot_product_attention.__doc__ or ""))
PY
  for i in $(seq "$N"); do
    timeout --kill-after=10 240 python3 build_tables.py --fixes || echo "collection $i: exit $?"
  done
} 2>&1 | tee "$LOG"
HOST=$(ls data/fixes/*/ 2>/dev/null | head -1 | sed 's/.*-\([0-9a-f]*\)-[0-9]*\.json\.gz/\1/')
tar -czf "$OUT/fixes-${HOST:-none}.tar.gz" data/fixes remeasure-logs
ls -la "$OUT"
