#!/usr/bin/env bash
# On the GPU machine, after scripts/prepare-gpu-check.sh here (issue 12):
#   run(command="scripts/gpu-ping-pong.sh", carry=[".carry"])
#
# The ping-pong of two consumer warpgroups (--ping-pong): every attention
# e2e case warp-specialized with it (scripts/gpu-warp-specialize.sh with
# WS_FLAGS, bounded mbarrier spins, a 20 s kernel timeout: a turn that is
# never passed hangs on its bar.sync), the sanitizers on the small split
# kernels, then the attention table of bench/hopper_async.py for the
# block-pointer kernel (ATTN_FILTER, default bf16) three times in one run:
# the default compile, warp-specialized, warp-specialized with ping-pong,
# each against Triton and SDPA. Logs in $OUT; tables last.
set -u -o pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=${OUT:-$root/gpu-pp-out}
mkdir -p "$out"
status=0
WS_FLAGS="--warp-specialize=all --ping-pong" WS_CASES="${WS_CASES:-attention}" WS_BENCH=0 \
  WS_SANITIZE_CASES='^attention_small$' \
  OUT="$out" "$root/scripts/gpu-warp-specialize.sh" || status=1
b=$(mktemp -d)
xz -dc "$root/.carry/tilec.xz" > "$b/tilec" && chmod +x "$b/tilec"
filter=${ATTN_FILTER:-block bf16}
for variant in default ws ws-pp; do
  case $variant in
    default) opts=() ;;
    ws) opts=(--tilec-option=--warp-specialize=all) ;;
    ws-pp) opts=(--tilec-option=--warp-specialize=all --tilec-option=--ping-pong) ;;
  esac
  timeout "${PP_BENCH_TIMEOUT:-150}" python3 "$root/bench/hopper_async.py" --tilec "$b/tilec" \
    --quick --sections attention --attention-filter "$filter" "${opts[@]}" \
    --json "$out/pp-$variant.json" > "$out/pp-$variant.log" 2>&1 || status=1
done
for variant in default ws ws-pp; do
  echo "== attention, $variant"
  grep -E "^\|" "$out/pp-$variant.log"
  tail -3 "$out/pp-$variant.log" | grep -i "error\|traceback"
done
exit $status
