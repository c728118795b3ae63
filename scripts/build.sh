#!/usr/bin/env bash
# Configures (once) and builds tilec in build/ (or $TILEC_BUILD_DIR) with
# Ninja against Debian's LLVM/MLIR 22 shared libraries.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${TILEC_BUILD_DIR:-$root/build}
"$root/scripts/install-deps.sh"
if [ ! -f "$build/build.ninja" ]; then
  cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DMLIR_DIR=/usr/lib/llvm-22/lib/cmake/mlir
fi
cmake --build "$build" -- -j"$(nproc)" "$@"
