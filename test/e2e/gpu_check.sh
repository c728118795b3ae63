#!/usr/bin/env bash
# The GPU check (DESIGN.md §6), for the device machine. Runs the runtime's
# unit tests, then every e2e case under a timeout, with torch baselines, and
# prints the table last. Exit code: non-zero if anything failed.
#
#   test/e2e/gpu_check.sh BUILD_DIR COMPILER [ARTIFACTS_DIR] [extra tilec-e2e options]
#
# BUILD_DIR holds unittests/TilecRuntimeTests and bin/tilec-e2e, built on the
# build machine (carry them). COMPILER is the tilec executable (a static
# build: the dynamic one needs libLLVM), "none" to reuse the artifacts already
# in ARTIFACTS_DIR (compiled on the build machine and carried), or
# test/e2e/triton_compile.py to compile the examples with Triton instead.
# Logs and JSON go to $OUT (or ./gpu-check-out).
set -u -o pipefail
build=${1:?usage: gpu_check.sh BUILD_DIR COMPILER [ARTIFACTS_DIR] [options]}
compiler=${2:?usage: gpu_check.sh BUILD_DIR COMPILER [ARTIFACTS_DIR] [options]}
artifacts=${3:-out/e2e}
shift $(( $# < 3 ? $# : 3 ))
out=${OUT:-gpu-check-out}
mkdir -p "$out"
here=$(cd "$(dirname "$0")" && pwd)
status=0

echo "== runtime unit tests"
timeout 120 "$build/unittests/TilecRuntimeTests" 2>&1 | tee "$out/unittests.log" | tail -n 25 || status=1

echo "== torch baselines"
e2e="$build/bin/tilec-e2e"
"$e2e" --describe "$out/cases.json" "$@"
baseline=()
if timeout 200 python3 "$here/torch_baseline.py" "$out/cases.json" > "$out/torch.json" 2> "$out/torch.log"; then
  baseline=(--baseline "$out/torch.json")
else
  echo "torch baselines failed (see torch.log); ratios left empty"
  tail -n 5 "$out/torch.log"
fi

echo "== e2e cases"
if [ "$compiler" = none ]; then
  compile=(--no-compile)
else
  compile=(--tilec "$compiler")
fi
timeout ${E2E_TIMEOUT:-1500} "$e2e" "${compile[@]}" --artifacts "$artifacts" --repeat 20 \
  "${baseline[@]}" --json "$out/e2e.json" "$@" 2>&1 | tee "$out/e2e.log" || status=1
exit $status
