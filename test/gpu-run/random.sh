#!/usr/bin/env bash
# tl.randint/randint4x/rand/rand4x/randn/randn4x on the GPU backend: runs
# test/ExecutionEngine/random.tile with `tilec run --backend ${BACKEND:-gpu}` for four
# seeds and checks every output with the independent Python Philox
# (test/ExecutionEngine/Inputs/philox_ref.py): integers and uniform floats
# bit for bit, normals within 2e-3 (the GPU's log is lg2.approx, as Triton's),
# and, where torch and triton run, with Triton's own tl.rand* on the same
# counters (random_triton.py).
#
# Usage: random.sh TILEC_BINARY WORKDIR
# Prints one `name: ok` / `name: FAIL ...` line per check; exits 1 if any
# check fails.
set -u
if [ $# -ne 2 ]; then
  echo "usage: $0 TILEC_BINARY WORKDIR" >&2
  exit 2
fi
TILEC=$1
WORK=$2
HERE=$(cd "$(dirname "$0")" && pwd)
KERNEL=$HERE/../ExecutionEngine/random.tile
REF=$HERE/../ExecutionEngine/Inputs/philox_ref.py
SIG="*u32, *u32, *fp32, *fp32, *fp32, *fp32, *u64, *fp32, *u32, *u32, *u32, *u32, i64, 64"
mkdir -p "$WORK"
status=0
for seed in 0 42 -1 0x123456789abcdef; do
  dir=$WORK/random-seed$seed
  rm -rf "$dir" && mkdir -p "$dir"
  args=()
  for b in int:int:128 int4:int4:512 uni:uni:128 uni4:uni4:512 nrm:nrm:128 \
           nrm4:nrm4:512 int64:int64:128 uni64:uni64:128 r7:r7:128 \
           seed32:seed32:128 cseed:cseed:128 scalar:scalar:2; do
    IFS=: read -r param file count <<<"$b"
    args+=(--buffer "${param}_ptr=$count" --output "${param}_ptr=$dir/$file.bin")
  done
  if ! timeout 60 "$TILEC" run "$KERNEL" --backend ${BACKEND:-gpu} --signature "$SIG" \
      --grid 2 "${args[@]}" --arg "seed=$seed" >"$dir/run.log" 2>&1; then
    echo "random seed=$seed run: FAIL (tilec run failed, see $dir/run.log)"
    tail -5 "$dir/run.log"
    status=1
    continue
  fi
  echo "random seed=$seed run: ok"
  out=$(timeout 60 python3 "$REF" check "$dir" "$seed" --tol 2e-3 2>&1)
  rc=$?
  echo "$out" | sed "s/^/random seed=$seed /"
  if [ $rc -ne 0 ]; then
    echo "random seed=$seed check: FAIL (exit $rc)"
    status=1
  fi
  # The same counters through Triton itself, where it can run.
  if [ "${BACKEND:-gpu}" = gpu ] && python3 -c "import torch, triton, numpy; assert torch.cuda.is_available()" 2>/dev/null; then
    out=$(timeout 60 python3 "$HERE/random_triton.py" "$dir" "$seed" 2>&1)
    rc=$?
    echo "$out" | sed "s/^/random seed=$seed /"
    if [ $rc -ne 0 ]; then
      echo "random seed=$seed triton: FAIL (exit $rc)"
      status=1
    fi
  else
    echo "random seed=$seed triton: skipped (no torch/triton/GPU)"
  fi
done
exit $status
