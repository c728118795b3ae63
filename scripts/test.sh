#!/usr/bin/env bash
# The whole test suite (what CI runs): builds everything, then runs lit
# (dialects, passes, frontend, CLI, PTX), the unit tests, and the end-to-end
# cases: every example compiled and assembled by ptxas; every example run on
# the CPU backend on fresh random inputs against its float64 reference,
# plain and under the sanitizer (tilec-e2e-cpu); on the GPU too when one is
# present, skipped with the reason otherwise. Then 200 random programs of
# the differential tester (scripts/difftest.sh). Then the frontend under
# ASan+UBSan (scripts/sanitize-frontend.sh: a frontend-only build, ~2 min
# cold on 2 cores, and the bad-input corpus, the frontend tests and the
# examples through it; TILEC_SKIP_SANITIZE=1 skips it), then a 60 s
# libFuzzer smoke run of the frontend (scripts/fuzz-frontend.sh) when
# clang-22 and its libFuzzer runtime (libclang-rt-22-dev) are installed,
# skipped with a message otherwise.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${TILEC_BUILD_DIR:-$root/build}
start=$(date +%s)
"$root/scripts/build.sh"
ctest --test-dir "$build" --output-on-failure -j"$(nproc)"
# 200 random tile programs on the CPU backend against their references and
# the reduced regression cases (test/difftest; ~25 s on 2 cores)
"$root/scripts/difftest.sh"
if [ "${TILEC_SKIP_SANITIZE:-0}" != 1 ]; then
  "$root/scripts/sanitize-frontend.sh"
  if command -v clang++-22 > /dev/null &&
     compgen -G "/usr/lib/llvm-22/lib/clang/*/lib/linux/libclang_rt.fuzzer-x86_64.a" > /dev/null; then
    "$root/scripts/fuzz-frontend.sh" 60
  else
    echo "frontend fuzz smoke run skipped: needs clang-22 and libclang-rt-22-dev"
  fi
fi
echo "test suite passed in $(( $(date +%s) - start )) s"
