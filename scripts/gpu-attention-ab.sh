#!/usr/bin/env bash
# On the device machine (one call, ~7 min): e2e of the first compiler over the GPU families, then
# tutorial 06's backward (N_CTX 4096, head dim 64 and 128) and the bf16 forward (head dim 128,
# causal and not) with each compiler named, in the same run (Triton and SDPA beside them).
# Usage: bash scripts/gpu-attention-ab.sh [COMPILER[:TILEC-OPTION]]...   (default: tilec tilec-base)
# Each COMPILER is .carry/COMPILER.xz from scripts/build-static.sh; an option after ':' is passed
# to it (e.g. tilec:--warp-specialize=requested). Needs .carry/tilec-e2e.xz and .carry/commit
# (what the compilers are). AB_FILTER: which benchmark rows. Set AB_E2E=0 to skip e2e (AB_E2E_FILTER: which cases), AB_IR=1 to also
# write Triton's TTGIR/PTX and the first compiler's SASS of the backward into $OUT/ir.tar.xz.
set -u
[ $# -eq 0 ] && set -- tilec tilec-base
echo "commit $(cat .carry/commit)"; nvidia-smi --query-gpu=name --format=csv,noheader
b=$(mktemp -d)
for spec in "$@"; do t=${spec%%:*}; [ -x $b/$t ] || { xz -dc .carry/$t.xz > $b/$t; chmod +x $b/$t; }; done
first=${1%%:*}
if [ "${AB_E2E:-1}" = 1 ]; then
  xz -dc .carry/tilec-e2e.xz > $b/tilec-e2e; chmod +x $b/tilec-e2e
  timeout 150 $b/tilec-e2e --tilec $b/$first --artifacts $b/a --filter "${AB_E2E_FILTER:-attention|matmul_tma|puzzle|descriptor}" --timeout 20 > $OUT/e2e.log 2>&1
  echo "e2e rc=$?"; grep -E "^(FAIL|ERROR)|summary" $OUT/e2e.log | tail -8
fi
for spec in "$@"; do t=${spec%%:*}; opt=""; [ "$spec" != "$t" ] && opt="--tilec-option=${spec#*:}"
  tag=$(echo "$spec" | tr -c 'A-Za-z0-9_-' _)
  timeout 110 python3 bench/hopper_async.py --tilec $b/$t $opt --quick --sections attention_bwd,attention --attention-filter "${AB_FILTER:-(backward fp16 D(64|128) causal N4096|block bf16 D128 (non-)?causal N4096)}" > $OUT/ab-$tag.log 2>&1
  echo "bench $spec rc=$?"; grep -E "^\|" $OUT/ab-$tag.log | grep -v "^| *-"; grep -iE "error|traceback" $OUT/ab-$tag.log | head -3
done
if [ "${AB_IR:-0}" = 1 ]; then
  mkdir -p $b/n
  for cfg in "64 4" "128 8"; do set -- $cfg
    DUMP_DIR=$b/n timeout 40 python3 bench/attention_bwd_once.py triton $1 1024 $2 > $b/n/triton-dump-$1.log 2>&1; echo "triton dump d$1 rc=$?"
    sig="*fp16:16, *fp16:16, *fp16:16, fp32, *fp16:16, *fp16:16, *fp16:16, *fp16:16, *fp32:16, *fp32:16, i32:16, i32:16, $1, 1, i32, i32:16, 32, 128, 128, 32, 2, $1"
    $b/$first examples/attention_backward.tile --kernel _attn_bwd --signature "$sig" --num-warps $2 --num-stages 5 -o $b/n/tilec_bwd_d$1_w$2.cubin > /dev/null 2>&1
  done
  for f in $b/n/*.cubin; do cuobjdump -sass $f > ${f%.cubin}.sass 2>&1; done
  (cd $b && tar cJf $OUT/ir.tar.xz --exclude='*.cubin' n)
fi
ls -la $OUT
