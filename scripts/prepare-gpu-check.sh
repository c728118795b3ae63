#!/usr/bin/env bash
# On the build machine: everything the GPU checks need, into .carry/ (git-
# ignored, carried to the device machine): static, stripped, xz'd tilec,
# tilec-e2e, the JIT example and benchmark (scripts/build-static.sh) and the
# runtime unit tests.
#
# Then, through the device tool:
#   run(command="scripts/gpu-check.sh", carry=[".carry"])
#   run(command="bench/jit-gpu.sh", carry=[".carry"])
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-$root/build-static}
"$root/scripts/build-static.sh" tilec tilec-e2e tilec-jit-example tilec-jit-bench
ninja -C "$build" -j "${JOBS:-2}" TilecRuntimeTests
strip --strip-all -o "$build/stripped/TilecRuntimeTests" "$build/unittests/TilecRuntimeTests"
xz -9 -T1 -c "$build/stripped/TilecRuntimeTests" > "$root/.carry/TilecRuntimeTests.xz"
git -C "$root" rev-parse HEAD > "$root/.carry/commit"
ls -la "$root/.carry"
