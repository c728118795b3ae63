#!/usr/bin/env bash
# On the GPU machine, after scripts/prepare-gpu-check.sh here (issue 12):
#   run(command="scripts/gpu-attention-variants.sh", carry=[".carry"])
#
# FlashAttention-3's techniques one by one on tutorial 06's forward kernel:
#   default   the compiler's defaults (head dim 128: a producer warpgroup,
#             ping-pong and the overlap; head dim 64: the pipelined kernel)
#   pipelined the pipelined kernel (no producer warpgroup)
#   lf-off    the defaults but the launch order (--longest-first=false:
#             causal attention's programs start in program_id order)
#   ov        + --intra-warpgroup-overlap (P V issued under the next softmax)
#   ws        --warp-specialize=all (a producer warpgroup, setmaxnreg) alone
#   ws-pp     + --ping-pong (the two consumer warpgroups take turns)
#   ws-ov     --warp-specialize=all --intra-warpgroup-overlap
#   ws-pp-ov  both
#   mc, ov-mc, ws-ov-mc, ws-pp-ov-mc
#             + --num-ctas 2: clusters of two CTAs, K and V multicast
#             (head dim 128 only; its e2e checks run the D128 cases)
# First every attention e2e case of each variant in CHECK_VARIANTS
# (scripts/gpu-warp-specialize.sh with its flags: bounded mbarrier spins, a 20 s kernel
# timeout, a turn never passed hangs on its bar.sync), with the sanitizers
# on attention_small; then the attention table of bench/hopper_async.py
# for the block-pointer kernel (ATTN_FILTER, default bf16) once per
# variant in ATTN_VARIANTS, each against Triton and SDPA in the same run.
# TILEC_XZ names another tilec binary (xz) for the tables. Logs in $OUT (a
# subfolder per checked variant); tables last.
set -u -o pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=${OUT:-$root/gpu-attention-out}
mkdir -p "$out"
status=0
flags_of() {
  case $1 in
    default) echo "" ;;
    pipelined) echo "--warp-specialize=off" ;;
    lf-off) echo "--longest-first=false" ;;
    ov) echo "--warp-specialize=off --intra-warpgroup-overlap" ;;
    ws) echo "--warp-specialize=all --ping-pong=false --intra-warpgroup-overlap=false" ;;
    ws-pp) echo "--warp-specialize=all --ping-pong --intra-warpgroup-overlap=false" ;;
    ws-ov) echo "--warp-specialize=all --ping-pong=false --intra-warpgroup-overlap" ;;
    ws-pp-ov) echo "--warp-specialize=all --ping-pong --intra-warpgroup-overlap" ;;
    mc) echo "--num-ctas=2" ;;
    ov-mc) echo "--warp-specialize=off --intra-warpgroup-overlap --num-ctas=2" ;;
    ws-ov-mc) echo "--warp-specialize=all --ping-pong=false --intra-warpgroup-overlap --num-ctas=2" ;;
    ws-pp-ov-mc) echo "--warp-specialize=all --ping-pong --intra-warpgroup-overlap --num-ctas=2" ;;
    *) echo "unknown variant $1" >&2; return 1 ;;
  esac
}
for variant in ${CHECK_VARIANTS-ov ws-pp-ov}; do
  echo "== e2e and sanitizers, $variant"
  WS_FLAGS="$(flags_of "$variant")" WS_CASES="${WS_CASES:-attention}" WS_BENCH=0 \
    WS_SANITIZE_CASES="${SANITIZE_CASES:-^attention_small\$}" \
    OUT="$out/$variant" "$root/scripts/gpu-warp-specialize.sh" || status=1
done
b=$(mktemp -d)
xz -dc "${TILEC_XZ:-$root/.carry/tilec.xz}" > "$b/tilec" && chmod +x "$b/tilec"
filter=${ATTN_FILTER:-block bf16}
variants=${ATTN_VARIANTS:-default pipelined ov ws ws-pp ws-ov ws-pp-ov}
for variant in $variants; do
  opts=()
  for f in $(flags_of "$variant"); do opts+=("--tilec-option=$f"); done
  timeout "${ATTN_BENCH_TIMEOUT:-150}" python3 "$root/bench/hopper_async.py" --tilec "$b/tilec" \
    --quick --sections attention --attention-filter "$filter" "${opts[@]}" \
    --json "$out/attn-$variant.json" > "$out/attn-$variant.log" 2>&1 || status=1
done
for variant in $variants; do
  echo "== attention, $variant"
  grep -E "^\|" "$out/attn-$variant.log"
  tail -3 "$out/attn-$variant.log" | grep -i "error\|traceback"
done
exit $status
