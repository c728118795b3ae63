#!/usr/bin/env bash
# On the GPU machine (H200, through the device tool, after
# scripts/prepare-gpu-check.sh here):
#   run(command="scripts/gpu-check.sh", carry=[".carry"])
#
# Unpacks the carried static binaries, then runs test/e2e/gpu_check.sh: the
# runtime unit tests, every example compiled there by the carried tilec and
# run under a timeout against its float64 reference on fresh random inputs
# with poisoned outputs, timed against torch in the same run, plus
# compute-sanitizer memcheck on the small cases, and the language run
# checks of test/gpu-run (kernels of the lit tests run with
# `tilec run --backend gpu`, checked in Python). SKIP_GEMM=1 skips the
# GEMM benchmark. Logs go to $OUT; the table
# (DESIGN.md §6) is printed last. Exit status non-zero if anything failed.
set -u -o pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
final=${OUT:-$root/gpu-check-out}
mkdir -p "$final"
work=$(mktemp -d)
out="$work/logs"   # everything, tarred into $OUT at the end (≤ 8 files come back)
mkdir -p "$work/bin" "$work/unittests" "$out"
for tool in tilec tilec-e2e; do
  xz -dc "$root/.carry/$tool.xz" > "$work/bin/$tool" && chmod +x "$work/bin/$tool"
done
xz -dc "$root/.carry/TilecRuntimeTests.xz" > "$work/unittests/TilecRuntimeTests" &&
  chmod +x "$work/unittests/TilecRuntimeTests"
echo "commit $(cat "$root/.carry/commit" 2>/dev/null)" | tee "$out/gpu.txt"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu \
  --format=csv | tee -a "$out/gpu.txt"

status=0
# Every mbarrier wait of the compiled kernels gives up (prints where, traps)
# instead of hanging the GPU on a pipeline bug.
spin=--tilec-option=--mbarrier-spin-limit=4194304
# trans_2d and the long scans: exchanges in rounds and the scan's chunk table.
# persistent: several programs per CTA, rings and Q's buffer handed on.
memcheck_cases='small|attention_persistent_short_256|matmul_persistent_rounds|attention_bwd_tutorial|matmul_ragged|matmul_tma|_k0|_k64|_k128|matmul_grouped_wgmma|matmul_epilogue_pipelined|trans_2d|scan_1d_8192|scan_1d_16384|scan_2d_4096x2'
racecheck_cases='matmul_tma_small|attention_persistent_small|attention_bwd_tutorial|matmul_epilogue_pipelined|_k64|attention_small|attention_desc_small|matmul_grouped_wgmma|trans_2d|scan_1d_8192|scan_1d_16384|scan_2d_4096x2'
# API errors are not reported: the runtime checks every CUresult itself and
# deliberately probes one parameter past the end (cuFuncGetParamInfo) to
# check the entry's parameter count against the metadata.
echo "== memcheck (small cases)"
if command -v compute-sanitizer >/dev/null; then
  "$work/bin/tilec-e2e" --tilec "$work/bin/tilec" --artifacts "$work/memcheck" \
    --filter "$memcheck_cases" "$spin" --no-run > "$out/memcheck-compile.log" 2>&1
  timeout 150 compute-sanitizer --tool memcheck --report-api-errors no --error-exitcode 9 \
    "$work/bin/tilec-e2e" --no-compile --artifacts "$work/memcheck" \
    --filter "$memcheck_cases" > "$out/memcheck.log" 2>&1
  rc=$?
  tail -n 3 "$out/memcheck.log"
  [ $rc -eq 0 ] || { echo "memcheck: exit $rc (see memcheck.log)"; status=1; }
  # Shared-memory races between the threads of the pipelined kernels
  # (the CTA barriers around the rings, the mbarrier waits).
  echo "== racecheck (small cases)"
  timeout 240 compute-sanitizer --tool racecheck --report-api-errors no --error-exitcode 9 \
    "$work/bin/tilec-e2e" --no-compile --artifacts "$work/memcheck" \
    --filter "$racecheck_cases" > "$out/racecheck.log" 2>&1
  rc=$?
  grep -E "RACECHECK SUMMARY|ERROR SUMMARY|hazard" "$out/racecheck.log" | tail -n 3
  [ $rc -eq 0 ] || { echo "racecheck: exit $rc (see racecheck.log)"; status=1; }
fi

echo "== language run checks (test/gpu-run/*.sh: tilec run --backend gpu)"
for check in "$root"/test/gpu-run/*.sh; do
  name=$(basename "$check" .sh)
  mkdir -p "$work/gpu-run/$name"
  timeout 300 "$check" "$work/bin/tilec" "$work/gpu-run/$name" \
    > "$out/gpu-run-$name.log" 2>&1
  rc=$?
  echo "$name: $(grep -c ': ok$' "$out/gpu-run-$name.log") ok, exit $rc"
  grep -v ': ok$' "$out/gpu-run-$name.log" | head -n 20
  [ $rc -eq 0 ] || status=1
done

echo "== e2e"
E2E_TIMEOUT=200 OUT="$out" "$root/test/e2e/gpu_check.sh" "$work" "$work/bin/tilec" "$work/artifacts" "$spin" "$@" || status=1
# What matters most comes back even if the benchmark runs out of time.
cp "$out/gpu.txt" "$out/e2e.log" "$out/e2e.json" "$final/" 2>/dev/null
tar czf "$final/logs.tgz" -C "$work" logs artifacts 2>/dev/null

# The e2e run above checked the pipelined kernels with bounded spins (debug);
# the benchmark times release builds, as a user runs them.
if [ "${HOPPER_BENCH:-0}" = 1 ]; then
  echo "== Hopper async-path benchmark (bench/hopper_async.py)"
  timeout ${HOPPER_BENCH_TIMEOUT:-300} python3 "$root/bench/hopper_async.py" --tilec "$work/bin/tilec" \
    ${HOPPER_ARGS:-} --json "$final/hopper.json" > "$final/hopper.log" 2>&1 || status=1
  awk '/^\| (GEMM kernel|attention) \|/ {p = 1} p' "$final/hopper.log"
  grep -iE "error|Traceback" "$final/hopper.log" | head -5
fi
if [ "${SCAN_BENCH:-0}" = 1 ]; then
  echo "== scans and transpose vs Triton (bench/scan_transpose.py)"
  timeout ${SCAN_BENCH_TIMEOUT:-180} python3 "$root/bench/scan_transpose.py" --tilec "$work/bin/tilec" \
    --json "$final/scan.json" > "$final/scan.log" 2>&1 || status=1
  sed -n '/^| kernel/,$p' "$final/scan.log"
  grep -iE "error|Traceback" "$final/scan.log" | head -5
fi
if [ "${SKIP_GEMM:-0}" = 1 ]; then
  echo "GEMM benchmark skipped (SKIP_GEMM=1)"
  exit $status
fi
echo "== GEMM benchmark (tilec vs cuBLAS vs Triton, bench/gemm.py)"
timeout 420 python3 "$root/bench/gemm.py" --tilec "$work/bin/tilec" \
  ${GEMM_ARGS:---dtypes bf16 --fp8 --ablation} \
  --json "$final/gemm.json" > "$final/gemm.log" 2>&1 || status=1
sed -n '/^| dtype/,$p' "$final/gemm.log"
grep -i "error" "$final/gemm.log" | head -5


exit $status
