#!/usr/bin/env bash
# Fuzzes the frontend (lexer, parser, code generator, IR verifier) with
# libFuzzer under ASan and UBSan:
#
#   scripts/fuzz-frontend.sh [SECONDS]      (default 60: the smoke run)
#
# Builds tilec-frontend-fuzzer with clang-22 (cmake -DTILEC_FRONTEND_ONLY=ON
# -DTILEC_FUZZ=ON -DTILEC_SANITIZE=address,undefined, in build-fuzz/ or
# $TILEC_FUZZ_BUILD_DIR; needs the packages clang-22 and libclang-rt-22-dev,
# which has libFuzzer), replays the regression corpus
# (test/Frontend/fuzz-regressions: every crasher found so far), then fuzzes
# for SECONDS from a seed corpus of every .tile file in examples/ and
# test/Frontend (a first line `#SIG <signature>` gives the fuzz target its
# --signature; the seeds get one from their RUN line). New interesting
# inputs go to $TILEC_FUZZ_CORPUS (default build-fuzz/corpus); a crash
# leaves crash-* / timeout-* / oom-* files in build-fuzz/artifacts and fails
# the run: minimize it (tilec-frontend-fuzzer -minimize_crash=1 FILE), fix
# the frontend, and add the input to test/Frontend/fuzz-regressions.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${TILEC_FUZZ_BUILD_DIR:-$root/build-fuzz}
seconds=${1:-60}
if [ ! -f "$build/build.ninja" ]; then
  cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DMLIR_DIR=/usr/lib/llvm-22/lib/cmake/mlir \
    -DCMAKE_C_COMPILER=clang-22 -DCMAKE_CXX_COMPILER=clang++-22 \
    -DTILEC_FRONTEND_ONLY=ON -DTILEC_FUZZ=ON \
    -DTILEC_SANITIZE=address,undefined \
    "-DCMAKE_CXX_FLAGS_RELEASE=-O1 -gline-tables-only" \
    "-DCMAKE_C_FLAGS_RELEASE=-O1 -gline-tables-only"
fi
cmake --build "$build" --target tilec-frontend-fuzzer -- -j"$(nproc)"
fuzzer=$build/bin/tilec-frontend-fuzzer
# allow_user_poisoning=0: see test/lit.cfg.py (BumpPtrAllocator slabs shared
# with the uninstrumented libMLIR.so).
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:allow_user_poisoning=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}

# The seeds: each test and example with its signature as a `#SIG` line.
seeds=$build/seeds
rm -rf "$seeds"
mkdir -p "$seeds"
python3 "$root/scripts/fuzz-seeds.py" "$root" "$seeds"

# Every input that crashed once must pass now.
regressions=$root/test/Frontend/fuzz-regressions
if compgen -G "$regressions/*" > /dev/null; then
  "$fuzzer" -runs=0 "$regressions"/*
fi

corpus=${TILEC_FUZZ_CORPUS:-$build/corpus}
artifacts=$build/artifacts
mkdir -p "$corpus" "$artifacts"
# libFuzzer's progress lines go to a log; its last lines (the final stats,
# or the crash report) are printed.
log=$build/fuzz.log
if ! "$fuzzer" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=4096 \
  -max_len=8192 -print_final_stats=1 -artifact_prefix="$artifacts/" \
  -dict="$root/tools/tilec-frontend/tile.dict" \
  "$corpus" "$seeds" > "$log" 2>&1; then
  tail -n 60 "$log"
  echo "fuzzing the frontend failed (full log: $log; crashing inputs: $artifacts)"
  exit 1
fi
tail -n 12 "$log"
echo "fuzzing the frontend for $seconds s found no crash"
