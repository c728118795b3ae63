#!/usr/bin/env bash
# Build statically linked, stripped tilec and tilec-e2e for the GPU machine
# (Ubuntu 24.04, no LLVM/MLIR installed) and xz them into .carry/.
#
#   scripts/build-static.sh            # tilec + tilec-e2e
#   scripts/build-static.sh tilec-opt  # other targets instead
#
# Environment: BUILD_DIR (default build-static), JOBS (default 2: the build
# machine is shared), XZ_LEVEL (default -9), MLIR_DIR (default Debian's
# /usr/lib/llvm-22/lib/cmake/mlir).
#
# Output:
#   build-static/bin/<tool>        unstripped, as linked
#   build-static/stripped/<tool>   stripped
#   .carry/<tool>.xz               xz of the stripped binary (git-ignored)
#
# Idempotent and incremental: CMake is configured only once (re-run by ninja
# when a CMakeLists changes), ninja and ccache rebuild only what changed, and
# .carry/<tool>.xz is rewritten only when it does not already hold the
# stripped binary (strip is re-run each time; it is cheap).
#
# The build keeps TILEC_ENABLE_TESTS=ON because the tilec-e2e target lives
# under test/e2e; only the named targets are built, so no unit test or lit
# dependency is compiled. The static link itself is cmake/TilecStatic.cmake.
#
# On the GPU machine: xz -dc .carry/tilec.xz > tilec && chmod +x tilec
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD_DIR="${BUILD_DIR:-$ROOT/build-static}"
JOBS="${JOBS:-2}"
XZ_LEVEL="${XZ_LEVEL:--9}"
MLIR_DIR="${MLIR_DIR:-/usr/lib/llvm-22/lib/cmake/mlir}"
CARRY="$ROOT/.carry"
if [ "$#" -gt 0 ]; then TARGETS=("$@"); else TARGETS=(tilec tilec-e2e); fi

if [ ! -f "$BUILD_DIR/build.ninja" ]; then
  cmake -S "$ROOT" -B "$BUILD_DIR" -G Ninja \
    -DCMAKE_BUILD_TYPE=Release \
    -DMLIR_DIR="$MLIR_DIR" \
    -DTILEC_STATIC=ON \
    -DTILEC_ENABLE_TESTS=ON
fi

for t in "${TARGETS[@]}"; do
  if ! ninja -C "$BUILD_DIR" -t query "$t" >/dev/null 2>&1; then
    echo "error: target '$t' is not defined in $BUILD_DIR" \
         "(missing sources, TilecRuntime skipped for lack of cuda.h/nlohmann-json?)" >&2
    exit 1
  fi
done

ninja -C "$BUILD_DIR" -j "$JOBS" "${TARGETS[@]}"

mkdir -p "$BUILD_DIR/stripped" "$CARRY"
size() { stat -c %s "$1"; }
printf '%-12s %12s %12s %12s\n' tool raw stripped xz
for t in "${TARGETS[@]}"; do
  bin="$BUILD_DIR/bin/$t"
  stripped="$BUILD_DIR/stripped/$t"
  carried="$CARRY/$t.xz"
  strip --strip-all -o "$stripped" "$bin"
  # Re-compress only when the carried file is not already this binary.
  if ! { [ -f "$carried" ] && xz -dc "$carried" 2>/dev/null | cmp -s - "$stripped"; }; then
    xz "$XZ_LEVEL" -T1 -c "$stripped" > "$carried.tmp"
    mv -f "$carried.tmp" "$carried"
  fi
  printf '%-12s %12s %12s %12s\n' "$t" "$(size "$bin")" "$(size "$stripped")" "$(size "$carried")"
done

# A binary for the GPU machine must not need anything from LLVM/MLIR, z3 or
# the shared libstdc++ / libgcc_s.
status=0
for t in "${TARGETS[@]}"; do
  needed="$(LC_ALL=C readelf -d "$BUILD_DIR/stripped/$t" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | tr '\n' ' ')"
  echo "$t needs: $needed"
  for lib in $needed; do
    case "$lib" in
      libc.so.*|libm.so.*|ld-linux*|libdl.so.*|librt.so.*|libpthread.so.*|libz.so.*|libzstd.so.*) ;;
      *) echo "error: $t needs $lib" >&2; status=1 ;;
    esac
  done
done
exit "$status"
