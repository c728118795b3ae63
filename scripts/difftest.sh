#!/usr/bin/env bash
# The CPU batch of the differential tester (test/difftest, issue 15): a
# fixed-seed batch of random tile programs through `tilec run --batch` (one
# process per job) on the CPU backend, each checked against its float64 /
# exact-integer reference, then the saved (reduced) regression cases. About
# 25 s for 200 programs on 2 cores (~30 s with --runner process). Options pass through to `difftest.py run` (e.g. --count 2000
# --seed 7 --reduce).
#
#   scripts/difftest.sh [difftest.py run options]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${TILEC_BUILD_DIR:-$root/build}
py=
for p in python3 /usr/bin/python3; do
  if "$p" -c "import numpy" 2> /dev/null; then py=$p; break; fi
done
if [ -z "$py" ]; then
  echo "difftest skipped: needs python3 with numpy (python3-numpy)"
  exit 0
fi
# The batch runner's own test (crash, timeout, restart), then the batch.
"$py" -W ignore "$root/test/difftest/test_batch_runner.py" "$build/bin/tilec"
"$py" -W ignore "$root/test/difftest/difftest.py" run --tilec "$build/bin/tilec" \
  --seed "${DIFFTEST_SEED:-1}" --count "${DIFFTEST_COUNT:-200}" --jobs "$(nproc)" "$@"
cases=("$root"/test/difftest/cases/*.json)
if [ -e "${cases[0]}" ]; then
  "$py" -W ignore "$root/test/difftest/difftest.py" replay --tilec "$build/bin/tilec" "${cases[@]}"
fi
