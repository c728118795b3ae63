#!/usr/bin/env bash
# On the GPU machine (H200, torch + triton): the Python package on the GPU.
# Needs .carry-py/ from scripts/prepare-gpu-python.sh:
#
#   run(command="scripts/gpu-python.sh", carry=[".carry-py"])
#
# 1. the Python tests (python/tests) on the GPU backend: @tilec.jit on torch
#    CUDA tensors, the seed's puzzles and weighted sum, pointwise_dynamic,
#    autotune, autograd against torch;
# 2. bench/python_launch.py: host µs per cached launch, tilec vs triton;
# 3. bench/python_pointwise.py: pointwise ops vs torch eager, % of copy
#    bandwidth.
# Logs under $OUT (python-tests.log, launch.log/json, pointwise.log/json);
# the tables are printed last. Every step runs under `timeout`; ~3 min.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=${OUT:-$root/out}
mkdir -p "$out"
lib=/tmp/tilec-py/libtilec.so
mkdir -p /tmp/tilec-py
if [ ! -f "$root/.carry-py/libtilec.so.xz" ]; then
  echo "error: no .carry-py/libtilec.so.xz (run scripts/prepare-gpu-python.sh, carry .carry-py)" >&2
  exit 1
fi
xz -dc "$root/.carry-py/libtilec.so.xz" > "$lib"
head=$(git -C "$root" rev-parse HEAD 2>/dev/null || true)
if [ -n "$head" ] && [ "$head" != "$(cat "$root/.carry-py/commit" 2>/dev/null)" ]; then
  echo "warning: .carry-py/libtilec.so is from commit $(cat "$root/.carry-py/commit" 2>/dev/null), the checkout is $head (rerun scripts/prepare-gpu-python.sh)"
fi
export TILEC_LIBRARY=$lib
export TILEC_CACHE_DIR=/tmp/tilec-py/cache
py=${PYTHON:-python3}
echo "commit $(cat "$root/.carry-py/commit" 2>/dev/null) python $($py --version 2>&1) torch $($py -c 'import torch; print(torch.__version__)') triton $($py -c 'import triton; print(triton.__version__)' 2>/dev/null)"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null
backend=$(cd "$root/python" && "$py" -c 'import tilec; print(tilec.backend())' 2>&1 | tail -1)
echo "tilec backend: $backend"
status=0
(cd "$root/python/tests" && timeout 150 "$py" -m unittest discover -s . -p 'test_*.py' -v) > "$out/python-tests.log" 2>&1
rc=$?; [ $rc -ne 0 ] && status=1
tests_line="python tests ($backend backend): $(grep -E '^(OK|FAILED)' "$out/python-tests.log" | tail -1) rc=$rc, $(grep -E '^Ran ' "$out/python-tests.log" | tail -1)"
timeout 60 "$py" "$root/bench/python_launch.py" --json "$out/launch.json" > "$out/launch.log" 2>&1 || { echo "launch benchmark failed"; status=1; }
if [ -f "$root/bench/python_pointwise.py" ]; then
  timeout 90 "$py" "$root/bench/python_pointwise.py" --json "$out/pointwise.json" > "$out/pointwise.log" 2>&1 || { echo "pointwise benchmark failed"; status=1; }
fi
echo "== failures (python-tests.log)"
grep -E -A12 '^(ERROR|FAIL):' "$out/python-tests.log" | head -80
echo "== launch"; tail -20 "$out/launch.log"
[ -f "$out/pointwise.log" ] && { echo "== pointwise"; tail -40 "$out/pointwise.log"; }
echo "$tests_line"
exit $status
