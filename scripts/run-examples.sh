#!/usr/bin/env bash
# The main job: builds tilec, compiles every kernel in examples/ to PTX and a
# cubin (ptxas -arch=sm_90a) and prints a table (kernel, registers, shared
# memory, notable instructions); when a GPU is present the kernels also run
# and are checked against a float64 reference, with timings. Without a CUDA
# driver or device they run on the CPU backend instead (tilec run --backend
# cpu, --cpu-fallback) and fill the check columns; the output says so.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${TILEC_BUILD_DIR:-$root/build}
"$root/scripts/build.sh" tilec tilec-e2e
exec "$build/bin/tilec-e2e" --tilec "$build/bin/tilec" \
  --artifacts "$build/examples" --cpu-fallback "$@"
