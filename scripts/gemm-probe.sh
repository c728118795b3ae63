#!/usr/bin/env bash
# On the GPU machine: run(command="scripts/gemm-probe.sh", carry=[".carry/probe"])
# after building the variants under .carry/probe (see bench/gemm_probe.py).
# Times every variant against Triton's block-pointer and descriptor kernels,
# dumps both compilers' SASS, and profiles one launch of each with ncu when
# the hardware counters can be read (NCU_KERNELS="" skips that). Full output
# in $OUT.
set -u -o pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=${OUT:-$root/probe-out}
mkdir -p "$out"
cd "$root"
timeout 240 python3 bench/gemm_probe.py --variants .carry/probe --dump "$out/probe" ${PROBE_ARGS:-} \
  > "$out/probe.log" 2>&1
echo "probe exit $?"
if command -v ncu > /dev/null; then
  for k in ${NCU_KERNELS-tilec/s3 triton/block_ptr triton/descriptor}; do
    f="$out/ncu_${k//\//_}.txt"
    timeout 150 ncu --clock-control none --section SpeedOfLight --section WarpStateStats \
      --section SchedulerStats --section Occupancy -k regex:matmul -c 1 \
      python3 bench/gemm_probe.py --once "$k" --variants .carry/probe ${PROBE_ARGS:-} > "$f" 2>&1
    echo "== ncu $k (exit $?)"
    grep -E "Duration|Compute \(SM\) Throughput|Memory Throughput|Issued Ipc|No Eligible|Warp Cycles Per Issued|Registers Per|Achieved Occupancy|==ERR|Error" "$f" | head -12
  done
fi
cat "$out/probe.log"
