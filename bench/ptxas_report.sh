#!/bin/bash
# ptxas's view of the kernels bench/hopper_async.py times, without a GPU:
# each compiled to PTX at the benchmark's signature (N_CTX 4096, Z=4,
# H=16, integers specialized as Triton's JIT does) and assembled with
# `ptxas -arch=sm_90a -v`; prints a markdown table of registers, spill
# stores and ptxas's performance warnings (C75xx: wgmma serialized or
# waited for). Signatures mirror hopper_async.py (attention_rows,
# attention_bwd_rows, gemm_rows); keep them in step.
#
#   bench/ptxas_report.sh [TILEC] [OUTDIR]
#
# TILEC defaults to build/bin/tilec, OUTDIR (the PTX and logs) to a fresh
# temporary directory. Compare two compilers by running it with each.
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
T=${1:-$ROOT/build/bin/tilec}
O=${2:-$(mktemp -d)}
PTXAS=${PTXAS:-/usr/local/cuda/bin/ptxas}
E=$ROOT/examples
mkdir -p "$O"
entry() { if [ $(($1 % 16)) -eq 0 ]; then echo "i32:16"; elif [ "$1" -eq 1 ]; then echo 1; else echo i32; fi; }
H=16; N=4096; Z=4
echo "| kernel | registers | spill stores (bytes) | ptxas warnings |"
echo "|---|---:|---:|---|"
report() {
  local name=$1; shift
  if ! "$T" "$@" --emit ptx -o "$O/$name.ptx" > "$O/$name.log" 2>&1; then
    echo "| $name | compile failed ($O/$name.log) | | |"; return
  fi
  local out regs spills warn
  out=$("$PTXAS" -arch=sm_90a -v "$O/$name.ptx" -o "$O/$name.cubin" 2>&1)
  regs=$(echo "$out" | grep -o 'Used [0-9]* registers' | awk '{print $2}' | paste -sd, -)
  spills=$(echo "$out" | grep -o '[0-9]* bytes spill stores' | awk '{s += $1} END {print s + 0}')
  warn=$(echo "$out" | grep -o 'C75[0-9]*' | sort -u | paste -sd' ' -)
  echo "| $name | $regs | $spills | ${warn:-none} |"
}
# Tutorial 06 forward, block pointers, fp16 (STAGE 1: non-causal, 3: causal).
for d in 64 128; do
  bn=$([ $d = 64 ] && echo 64 || echo 128)
  st="$(entry $((H * N * d))), $(entry $((N * d))), $(entry $d), 1"
  for stage in 1 3; do
    report "attn_fwd_d${d}_stage$stage" "$E/attention.tile" --kernel _attn_fwd --num-warps 8 --num-stages 3 \
      --signature "*fp16:16, *fp16:16, *fp16:16, fp32, *fp32:16, *fp16:16, $st, $st, $st, $st, $(entry $Z), $(entry $H), $(entry $N), $d, 128, $bn, $stage"
  done
done
# Backward: tutorial 06's _attn_bwd (4 and 8 warps, 5 stages) and the one sweep.
for d in 64 128; do
  s="$(entry $((H * N * d))), $(entry $((N * d))), $(entry $d), 1, $(entry $H), $(entry $N)"
  for w in 4 8; do
    report "attn_bwd_tutorial_d${d}_w$w" "$E/attention_backward.tile" --kernel _attn_bwd --num-warps $w --num-stages 5 \
      --signature "*fp16:16, *fp16:16, *fp16:16, fp32, *fp16:16, *fp16:16, *fp16:16, *fp16:16, *fp32:16, *fp32:16, $s, 32, 128, 128, 32, 2, $d"
  done
  for flags in "" "--warp-specialize=off" "--warp-specialize=all"; do
    report "attn_bwd_one_sweep_d${d}${flags:+_${flags#--warp-specialize=}}" "$E/attention_backward_atomic.tile" \
      --kernel _attn_bwd_atomic --num-warps 8 --num-stages 3 $flags \
      --signature "*fp16:16, *fp16:16, *fp16:16, fp32, *fp16:16, *fp32:16, *fp16:16, *fp16:16, *fp32:16, *fp32:16, $s, 64, 128, $d, 1"
  done
done
# GEMM: tutorial 03 (pointers, grouped order) fp16 4096^3 and bf16
# 4095x4097x4099; block pointers bf16 8192^3.
m=4096; e=$(entry $m)
report gemm_tutorial03_fp16_4096 "$E/matmul_grouped.tile" --kernel matmul_kernel --num-warps 8 --num-stages 3 \
  --signature "*fp16:16, *fp16:16, *fp16:16, $e, $e, $e, $e, 1, $e, 1, $e, 1, 128, 256, 64, 8, ''"
report gemm_tutorial03_bf16_odd "$E/matmul_grouped.tile" --kernel matmul_kernel --num-warps 8 --num-stages 3 \
  --signature "*bf16:16, *bf16:16, *fp16:16, i32, i32, i32, i32, 1, i32, 1, i32, 1, 128, 256, 64, 8, ''"
report gemm_block_ptr_bf16_8192 "$E/matmul.tile" --kernel matmul_kernel --num-warps 8 --num-stages 3 \
  --signature "*bf16:16, *bf16:16, *fp32:16, i32:16, i32:16, i32:16, i32:16, 1, i32:16, 1, i32:16, 1, 128, 256, 64, 8"
echo
echo "PTX and logs: $O"
