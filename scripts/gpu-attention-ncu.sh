#!/usr/bin/env bash
# On the GPU machine, after scripts/prepare-gpu-check.sh here (issue 12):
#   run(command="scripts/gpu-attention-ncu.sh", carry=[".carry"])
#
# Where the forward attention kernel spends its time: ncu (clocks left as
# they are) on one launch each of tilec (default, and each NCU_VARIANTS
# flag set), Triton 3.6 on the same source and SDPA's cuDNN backend, bf16
# HEAD_DIM 128 N_CTX 4096 unless NCU_ARGS says otherwise
# (bench/attention_once.py). NCU_SOURCE=1 adds the stall samples of every
# SASS instruction (ncu-NAME-source.csv); NCU_SKIP="triton cudnn" leaves
# those out. Full reports in $OUT; a summary last.
set -u -o pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=${OUT:-$root/gpu-ncu-out}
mkdir -p "$out"
b=$(mktemp -d)
xz -dc "$root/.carry/tilec.xz" > "$b/tilec" && chmod +x "$b/tilec"
sections="--section SpeedOfLight --section ComputeWorkloadAnalysis --section MemoryWorkloadAnalysis
  --section WarpStateStats --section SchedulerStats --section Occupancy --section LaunchStats
  ${NCU_SOURCE:+--section SourceCounters --import-source no}"
run_one() {  # name, attention_once.py arguments...
  local name=$1; shift
  timeout 120 ncu --clock-control none --nvtx --nvtx-include "profile/" -c 1 $sections \
    -o "$out/ncu-$name" python3 "$root/bench/attention_once.py" --tilec "$b/tilec" ${NCU_ARGS:-} "$@" \
    > "$out/ncu-$name.log" 2>&1
  echo "== $name (exit $?)"
  grep -E "check" "$out/ncu-$name.log"
  ncu --import "$out/ncu-$name.ncu-rep" --print-details all > "$out/ncu-$name.txt" 2>&1
  ncu --import "$out/ncu-$name.ncu-rep" --page raw --csv > "$out/ncu-$name.csv" 2>&1
  if [ -n "${NCU_SOURCE:-}" ]; then  # per-SASS-instruction stall samples
    ncu --import "$out/ncu-$name.ncu-rep" --page source --print-source sass --csv \
      > "$out/ncu-$name-source.csv" 2>&1
  fi
  grep -E "check|^  [A-Za-z_].*\(|Duration|Compute \(SM\) Throughput|Memory Throughput|L2 Cache Throughput|Executed Ipc Active|Issue Slots Busy|No Eligible|Warp Cycles Per Issued|Registers Per|Achieved Occupancy|Executed Instructions  |Stall|==ERR|Error" \
    "$out/ncu-$name.txt" | grep -v "^    ---" | head -30
}
run_one tilec --which tilec
IFS=';' read -ra sets <<< "${NCU_VARIANTS:---warp-specialize=all --ping-pong --intra-warpgroup-overlap}"
i=0
for set in "${sets[@]}"; do
  flags=()
  for f in $set; do flags+=("--flag=$f"); done
  i=$((i + 1))
  run_one "tilec-v$i" --which tilec "${flags[@]}"
done
# The SASS of each tilec variant (bf16 D128, the once_ source above).
sig="*bf16:16, *bf16:16, *bf16:16, fp32, *fp32:16, *bf16:16, i32:16, i32:16, i32:16, 1, i32:16, i32:16, i32:16, 1, i32:16, i32:16, i32:16, 1, i32:16, i32:16, i32:16, 1, i32:16, i32:16, i32:16, 128, 128, 128, 1"
src="$out/attention_bf16.tile"
sed 's/p = p.to(tl.float16)/p = p.to(v.dtype)/' "$root/examples/attention.tile" > "$src"
i=0
for set in "" "${sets[@]}"; do
  "$b/tilec" "$src" --kernel _attn_fwd --num-warps 8 --num-stages 3 --signature "$sig" $set \
    -o "$out/ncu-sass-v$i.cubin" 2> /dev/null && cuobjdump -sass "$out/ncu-sass-v$i.cubin" > "$out/ncu-sass-v$i.sass"
  rm -f "$out/ncu-sass-v$i.cubin" "$out/ncu-sass-v$i.json"
  i=$((i + 1))
done
rm -f "$src"
for other in triton cudnn; do
  [[ " ${NCU_SKIP:-} " == *" $other "* ]] || run_one $other --which $other
done
tar czf "$out/ncu-reports.tgz" -C "$out" $(cd "$out" && ls ncu-*) && rm -f "$out"/ncu-*.{txt,csv,log,ncu-rep}
