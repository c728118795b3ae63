#!/usr/bin/env bash
# The frontend under AddressSanitizer and UndefinedBehaviorSanitizer: builds
# only the lexer, parser, code generator and `tile` dialect, with the
# tilec-frontend driver (cmake -DTILEC_FRONTEND_ONLY=ON
# -DTILEC_SANITIZE=address,undefined, in build-sanitize/ or
# $TILEC_SANITIZE_BUILD_DIR), then runs lit on test/Frontend with
# tilec-frontend standing in for `tilec --emit tile`: the whole bad-input
# corpus (test/Frontend/errors), the frontend's IR tests and every kernel in
# examples/ (test/Frontend/examples.test). Any sanitizer report, crash or
# assertion fails the run. Assertions are on (no -DNDEBUG).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${TILEC_SANITIZE_BUILD_DIR:-$root/build-sanitize}
start=$(date +%s)
"$root/scripts/install-deps.sh"
if [ ! -f "$build/build.ninja" ]; then
  cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DMLIR_DIR=/usr/lib/llvm-22/lib/cmake/mlir \
    -DTILEC_FRONTEND_ONLY=ON -DTILEC_SANITIZE=address,undefined \
    "-DCMAKE_CXX_FLAGS_RELEASE=-O1 -g1" "-DCMAKE_C_FLAGS_RELEASE=-O1 -g1"
fi
cmake --build "$build" -- -j"$(nproc)"
built=$(date +%s)
lit=$(command -v lit || echo /usr/lib/llvm-22/bin/lit)
"$lit" -sv "$build/test/Frontend"
echo "frontend sanitizer run passed (build $((built - start)) s, tests $(( $(date +%s) - built )) s)"
