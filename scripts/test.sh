#!/usr/bin/env bash
# The whole test suite (what CI runs): builds everything, then runs lit
# (dialects, passes, frontend, CLI, PTX), the unit tests, and the end-to-end
# cases (every example compiled and assembled by ptxas; run and checked
# against a float64 reference when a GPU is present, skipped with the reason
# otherwise).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${TILEC_BUILD_DIR:-$root/build}
start=$(date +%s)
"$root/scripts/build.sh"
ctest --test-dir "$build" --output-on-failure -j"$(nproc)"
echo "test suite passed in $(( $(date +%s) - start )) s"
