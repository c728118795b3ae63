#!/usr/bin/env bash
# The JIT on the GPU machine (H200), after scripts/prepare-gpu-check.sh here:
#
#   run(command="bench/jit-gpu.sh", carry=[".carry"])
#
# 1. examples/jit: the C++ example twice, in two processes sharing a fresh
#    cache: the first compiles (there, with the GPU machine's ptxas), the
#    second reads the disk cache; each launches twice and checks the result.
# 2. tilec-jit-bench: cold compiles with stage times, the in-memory hit, warm
#    loads (with the module load), launch overhead.
# 3. bench/launch_overhead.py: tilec's launch against Triton's.
# 4. Line tables: a cubin compiled there by the carried tilec, disassembled
#    with nvdisasm --print-line-info (SASS mapped to .tile lines).
# Logs in $OUT (jit-gpu.log); exit status non-zero if a step failed.
set -u -o pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=${OUT:-$root/jit-gpu-out}
mkdir -p "$out"
work=$(mktemp -d)
for tool in tilec tilec-jit-example tilec-jit-bench; do
  xz -dc "$root/.carry/$tool.xz" > "$work/$tool" && chmod +x "$work/$tool" || {
    echo "missing .carry/$tool.xz: run scripts/prepare-gpu-check.sh first"; exit 1; }
done
export TILEC_CACHE_DIR="$work/cache"
cd "$root"
status=0
{
  echo "commit $(cat .carry/commit 2>/dev/null)"
  nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
  echo "== 1. example, first process (empty cache)"
  timeout 120 "$work/tilec-jit-example" || status=1
  echo "== 1. example, second process (disk cache)"
  timeout 120 "$work/tilec-jit-example" || status=1
  echo "== 2. tilec-jit-bench"
  timeout 300 "$work/tilec-jit-bench" --compiles 5 || status=1
  echo "== 3. launch overhead against Triton"
  timeout 600 python3 bench/launch_overhead.py --tilec-bench "$work/tilec-jit-bench" || status=1
  echo "== 4. line tables in the SASS"
  nvdisasm=$(command -v nvdisasm || echo /usr/local/cuda/bin/nvdisasm)
  "$work/tilec" examples/vector_add.tile \
    --signature "*fp32:16, *fp32:16, *fp32:16, i32, 1024" -o "$work/va.cubin" &&
    "$nvdisasm" --print-line-info "$work/va.cubin" |
    grep -m 12 -E "line [0-9]+|LDG|STG" || status=1
} 2>&1 | tee "$out/jit-gpu.log"
exit $status
