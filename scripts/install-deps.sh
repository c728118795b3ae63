#!/usr/bin/env bash
# Installs what tilec needs on Debian 12 (idempotent: apt is only called when
# a package is missing). LLVM/MLIR 22 come from Debian's packages; the CUDA
# toolkit (ptxas) is expected at /usr/local/cuda and is optional: without it
# tilec still emits PTX and the cubin step is skipped with a message.
# clang-22 and libclang-rt-22-dev are for the frontend's libFuzzer smoke run
# in scripts/test.sh. chromium (headless) opens the --dump-ir report's page
# in test/Compiler/dump-ir-html.test (skipped without it). python3-numpy and
# python3-torch (CPU torch 1.13) are for the Python package's tests (python/)
# and the differential tester, lld-22 for the static build of
# scripts/prepare-gpu-check.sh.
set -euo pipefail

packages=(
  cmake ninja-build g++ ccache python3 git
  llvm-22-dev libmlir-22-dev mlir-22-tools llvm-22-tools
  libgtest-dev nlohmann-json3-dev zlib1g-dev libzstd-dev
  clang-22 libclang-rt-22-dev chromium
  python3-numpy python3-torch python3-pip lld-22
)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "installing: ${missing[*]}"
  sudo_cmd=()
  [ "$(id -u)" -ne 0 ] && sudo_cmd=(sudo)
  "${sudo_cmd[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq "${missing[@]}"
fi
