#!/usr/bin/env bash
# On the device machine (one call, ~7 min): e2e of one compiler over the GPU families, then an A/B of two
# compilers in the same run on tutorial 06's backward (N_CTX 4096) and the bf16 forward (D128), then
# Triton's TTGIR/PTX/SASS of the backward beside both compilers' SASS (in $OUT/ir.tar.xz).
# Needs .carry/tilec.xz (the compiler under test), .carry/tilec-base.xz (the one to compare with; e.g.
# 6fb3c4b, the fifth session's tree) and .carry/tilec-e2e.xz, all from scripts/build-static.sh, and
# .carry/commit (what they are). The sixth session prepared it and got no machine to run it on.
set -u
echo "commit $(cat .carry/commit)"; nvidia-smi --query-gpu=name --format=csv,noheader
b=$(mktemp -d); for t in tilec tilec-base tilec-e2e; do xz -dc .carry/$t.xz > $b/$t; chmod +x $b/$t; done
timeout 130 $b/tilec-e2e --tilec $b/tilec --artifacts $b/a --filter "attention|matmul|puzzle|layer_norm|softmax|volatile|weighted|descriptor" --timeout 20 > $OUT/e2e.log 2>&1; echo "e2e rc=$?"; grep -E "^(FAIL|ERROR)|summary" $OUT/e2e.log | tail -8
for t in tilec tilec-base; do
  timeout 110 python3 bench/hopper_async.py --tilec $b/$t --quick --sections attention_bwd,attention --attention-filter "(backward fp16 D(64|128) causal N4096|block bf16 D128 (non-)?causal N4096)" > $OUT/ab-$t.log 2>&1; echo "bench $t rc=$?"; grep -E "^\|" $OUT/ab-$t.log | grep -v "^| *-"; grep -iE "error|traceback" $OUT/ab-$t.log | head -3
done
mkdir -p $b/n
for cfg in "64 4" "128 8"; do set -- $cfg
  DUMP_DIR=$b/n timeout 40 python3 bench/attention_bwd_once.py triton $1 1024 $2 > $b/n/triton-dump-$1.log 2>&1; echo "triton dump d$1 rc=$?"; tail -1 $b/n/triton-dump-$1.log
  sig="*fp16:16, *fp16:16, *fp16:16, fp32, *fp16:16, *fp16:16, *fp16:16, *fp16:16, *fp32:16, *fp32:16, i32:16, i32:16, $1, 1, i32, i32:16, 32, 128, 128, 32, 2, $1"
  for t in tilec tilec-base; do $b/$t examples/attention_backward.tile --kernel _attn_bwd --signature "$sig" --num-warps $2 --num-stages 5 -o $b/n/${t}_bwd_d$1_w$2.cubin > /dev/null 2>&1; done
done
for f in $b/n/*.cubin; do cuobjdump -sass $f > ${f%.cubin}.sass 2>&1; done
(cd $b && tar cJf $OUT/ir.tar.xz --exclude='*.cubin' n); ls -la $OUT
