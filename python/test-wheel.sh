#!/usr/bin/env bash
# Builds the wheel (pip wheel ./python, with $TILEC_LIBRARY / $TILEC_TOOL or
# the checkout's build), installs it into a temporary directory and runs
# `python -m tilec` and the @tilec.jit tests against the installed package
# (not the checkout). Exit 77 (CTest: skipped) without pip or numpy. ~15 s.
set -euo pipefail
py=${1:-python3}
here=$(cd "$(dirname "$0")" && pwd)
if ! "$py" -m pip --version > /dev/null 2>&1 || ! "$py" -c "import numpy" 2> /dev/null; then
  echo "wheel test skipped: $py has no pip or no numpy (apt-get install python3-pip python3-numpy)"
  exit 77
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$py" -m pip wheel --no-deps --no-build-isolation -q -w "$tmp/dist" "$here"
"$py" -m pip install --no-deps --no-index -q --target "$tmp/site" "$tmp"/dist/tilec-*.whl
unset TILEC_LIBRARY TILEC_TOOL
export PYTHONPATH=$tmp/site TILEC_TEST_INSTALLED=1
cd "$tmp"
"$py" -m tilec --python-version | tee "$tmp/version"
grep -q "library $tmp/site/tilec/_lib/libtilec.so" "$tmp/version"
"$py" -m tilec --version
cd "$here/tests"
"$py" -m unittest test_jit
