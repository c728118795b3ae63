#!/usr/bin/env bash
# The whole test suite (what CI runs): builds everything, then runs lit
# (dialects, passes, frontend, CLI, PTX), the unit tests, and the end-to-end
# cases: every example compiled and assembled by ptxas; every example run on
# the CPU backend on fresh random inputs against its float64 reference,
# plain and under the sanitizer (tilec-e2e-cpu); on the GPU too when one is
# present, skipped with the reason otherwise.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${TILEC_BUILD_DIR:-$root/build}
start=$(date +%s)
"$root/scripts/build.sh"
ctest --test-dir "$build" --output-on-failure -j"$(nproc)"
echo "test suite passed in $(( $(date +%s) - start )) s"
