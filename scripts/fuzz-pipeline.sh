#!/usr/bin/env bash
# Fuzzes the whole pipeline to PTX (frontend, passes, lowering, NVPTX) with
# libFuzzer under ASan and UBSan (issue 15):
#
#   scripts/fuzz-pipeline.sh [SECONDS]     (default 3600)
#
# Builds tilec-pipeline-fuzzer (tools/tilec-pipeline-fuzzer) with clang-22
# in a full sanitizer build (cmake -DTILEC_FUZZ=ON
# -DTILEC_SANITIZE=address,undefined, in build-fuzz-pipeline/ or
# $TILEC_FUZZ_PIPELINE_BUILD_DIR: every library, so the first build is long,
# ~40 min on 2 cores), replays the regression corpus
# (test/Compiler/fuzz-pipeline-regressions), then fuzzes for SECONDS from the
# seeds of scripts/fuzz-seeds.py (tests and examples with their signatures)
# plus 200 programs of the differential tester (test/difftest). The corpus
# grows in $TILEC_FUZZ_CORPUS (default build-fuzz-pipeline/corpus) and is
# minimized (-merge=1) into build-fuzz-pipeline/corpus-min at the end. A
# crash, a hang or an error that reaches the user without a location fails
# the run and leaves the input in build-fuzz-pipeline/artifacts.
#
# Without clang-22 + libclang-rt-22-dev (or without the time for the
# build), test/difftest/pipeline_fuzz.py mutates the same seeds through
# tilec-pipeline-fuzz-replay (the same target, any compiler, no coverage
# feedback).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${TILEC_FUZZ_PIPELINE_BUILD_DIR:-$root/build-fuzz-pipeline}
seconds=${1:-3600}
if [ ! -f "$build/build.ninja" ]; then
  cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DMLIR_DIR=/usr/lib/llvm-22/lib/cmake/mlir \
    -DCMAKE_C_COMPILER=clang-22 -DCMAKE_CXX_COMPILER=clang++-22 \
    -DTILEC_FUZZ=ON -DTILEC_SANITIZE=address,undefined \
    "-DCMAKE_CXX_FLAGS_RELEASE=-O1 -gline-tables-only" \
    "-DCMAKE_C_FLAGS_RELEASE=-O1 -gline-tables-only"
fi
cmake --build "$build" --target tilec-pipeline-fuzzer -- -j"$(nproc)"
fuzzer=$build/bin/tilec-pipeline-fuzzer
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:allow_user_poisoning=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}

seeds=$build/seeds
rm -rf "$seeds"
mkdir -p "$seeds"
python3 "$root/scripts/fuzz-seeds.py" "$root" "$seeds"
py=python3
python3 -c "import numpy" 2> /dev/null || py=/usr/bin/python3
(cd "$root/test/difftest" && "$py" -W ignore -c "
import tilegen
for s in range(1, 201):
    p = tilegen.generate(s)
    open('$seeds/difftest-%d.tile' % s, 'w').write(
        '#SIG ' + p.signature() + '\n#KERNEL kernel\n' + p.source())
") || echo "no difftest seeds (needs numpy)"

# The corpus minimized at the end of the last long run (2026-12-02: 2439
# inputs from 1.09 M executions) seeds this one.
corpus_kept=$root/test/Compiler/fuzz-pipeline-corpus.tar.xz
[ -f "$corpus_kept" ] && tar xJf "$corpus_kept" -C "$seeds"
regressions=$root/test/Compiler/fuzz-pipeline-regressions
if compgen -G "$regressions/*" > /dev/null; then
  "$fuzzer" -runs=0 "$regressions"/*
fi
corpus=${TILEC_FUZZ_CORPUS:-$build/corpus}
artifacts=$build/artifacts
mkdir -p "$corpus" "$artifacts"
log=$build/fuzz.log
status=0
"$fuzzer" -max_total_time="$seconds" -timeout=60 -rss_limit_mb=6144 \
  -max_len=16384 -print_final_stats=1 -artifact_prefix="$artifacts/" \
  -dict="$root/tools/tilec-frontend/tile.dict" \
  "$corpus" "$seeds" > "$log" 2>&1 || status=$?
rm -rf "$build/corpus-min" && mkdir -p "$build/corpus-min"
"$fuzzer" -merge=1 "$build/corpus-min" "$corpus" > "$build/merge.log" 2>&1 || true
tail -n 12 "$log"
echo "minimized corpus: $(ls "$build/corpus-min" | wc -l) inputs in $build/corpus-min"
if [ $status -ne 0 ]; then
  echo "fuzzing the pipeline failed (log: $log; inputs: $artifacts)"
  exit 1
fi
echo "fuzzing the pipeline for $seconds s found no crash"
