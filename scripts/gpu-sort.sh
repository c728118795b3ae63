#!/usr/bin/env bash
# On the GPU machine (after scripts/prepare-gpu-check.sh here, like
# scripts/gpu-check.sh):
#   run(command="scripts/gpu-sort.sh", carry=[".carry"])
#
# Only the tl.sort / tl.topk / tl.gather / tl.histogram cases
# (examples/ops/sort_ops.tile, test/e2e/cases/SortCases.cpp): compiled there
# by the carried tilec, run under a timeout on fresh random inputs with
# poisoned outputs, checked exactly against the reference. About a minute.
# Logs go to $OUT; the e2e table is printed last.
set -u -o pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
final=${OUT:-$root/gpu-sort-out}
mkdir -p "$final"
work=$(mktemp -d)
mkdir -p "$work/bin"
for tool in tilec tilec-e2e; do
  xz -dc "$root/.carry/$tool.xz" > "$work/bin/$tool" && chmod +x "$work/bin/$tool"
done
timeout 180 "$work/bin/tilec-e2e" --tilec "$work/bin/tilec" \
  --artifacts "$work/artifacts" --filter 'sort_ops' --repeat 20 \
  --json "$final/sort.json" > "$final/sort.log" 2>&1
status=$?
grep -E '^(PASS|FAIL)|^\||^summary' "$final/sort.log"
exit $status
