#!/usr/bin/env bash
# On the build machine: the self-contained libtilec.so (static MLIR/LLVM,
# needs only libc) that the Python package loads on the GPU machine,
# stripped and xz'd into .carry-py/ (git-ignored), for scripts/gpu-python.sh:
#
#   scripts/prepare-gpu-python.sh            # ~1 min incremental (build-static)
#   run(command="scripts/gpu-python.sh", carry=[".carry-py"])
#
# Separate from .carry/ because the carry limit is 64 MiB in all (the xz'd
# library is ~15 MB).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-$root/build-static}
if [ ! -f "$build/build.ninja" ]; then  # as scripts/build-static.sh configures it
  cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DMLIR_DIR="${MLIR_DIR:-/usr/lib/llvm-22/lib/cmake/mlir}" -DTILEC_STATIC=ON -DTILEC_ENABLE_TESTS=ON
fi
ninja -C "$build" -j "${JOBS:-2}" TilecShared
mkdir -p "$root/.carry-py" "$build/stripped"
strip --strip-all -o "$build/stripped/libtilec.so" "$build/lib/libtilec.so"
needed=$(LC_ALL=C readelf -d "$build/stripped/libtilec.so" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | tr '\n' ' ')
for lib in $needed; do
  case "$lib" in
    libc.so.*|libm.so.*|ld-linux*|libdl.so.*|librt.so.*|libpthread.so.*) ;;
    *) echo "error: libtilec.so needs $lib" >&2; exit 1 ;;
  esac
done
xz -6 -T"${JOBS:-2}" -c "$build/stripped/libtilec.so" > "$root/.carry-py/libtilec.so.xz.tmp"
mv -f "$root/.carry-py/libtilec.so.xz.tmp" "$root/.carry-py/libtilec.so.xz"
git -C "$root" rev-parse HEAD > "$root/.carry-py/commit"
ls -la "$root/.carry-py"
