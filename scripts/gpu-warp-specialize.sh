#!/usr/bin/env bash
# On the GPU machine, after scripts/prepare-gpu-check.sh here (issue 12):
#   run(command="scripts/gpu-warp-specialize.sh", carry=[".carry"])
#
# Warp specialization forced on (--warp-specialize=all, or WS_FLAGS) for every attention
# and matmul e2e case, with bounded mbarrier spins: numerics against
# float64, the SASS of the split kernels (USETMAXREG, UTMALDG, HGMMA),
# racecheck / synccheck / memcheck on two small split kernels, then
# bench/hopper_async.py's ablation (with a warp-specialized row) and its
# attention table with warp specialization forced on. WS_BENCH=0 skips the
# benchmark. Logs in $OUT; tables last.
set -u -o pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=${OUT:-$root/gpu-ws-out}
mkdir -p "$out"
b=$(mktemp -d)
for t in tilec tilec-e2e; do xz -dc "$root/.carry/$t.xz" > "$b/$t" && chmod +x "$b/$t"; done
echo "commit $(cat "$root/.carry/commit" 2>/dev/null)"
# WS_FLAGS: the tilec flags of the split kernels (e.g. add --ping-pong).
ws_flags=${WS_FLAGS:---warp-specialize=all}
ws=()
for f in $ws_flags; do ws+=("--tilec-option=$f"); done
spin=--tilec-option=--mbarrier-spin-limit=4194304
status=0
timeout 200 "$b/tilec-e2e" --tilec "$b/tilec" --artifacts "$b/ws" --filter "${WS_CASES:-attention|matmul}" \
  "${ws[@]}" "$spin" --timeout 20 --repeat 10 --json "$out/ws-e2e.json" > "$out/ws-e2e.log" 2>&1 || status=1
grep -E "^(FAIL|ERROR)|summary" "$out/ws-e2e.log" | head -20
echo "== SASS of split kernels"
# (attention_d128_1024 and matmul_cluster_tail: with --num-ctas, the
# multicast copies show as UTMALDG's multicast form.)
for c in matmul_tma_small attention_small attention_1024 attention_d128_1024 matmul_cluster_tail; do
  [ -f "$b/ws/$c.cubin" ] || continue
  echo "$c: $(cuobjdump -sass "$b/ws/$c.cubin" | grep -oE 'USETMAXREG[.A-Z0-9]*|HGMMA\.[0-9x]+[.A-Z0-9]*|UTMALDG(\.[0-9A-Z]+)+|BAR\.SYNC[.A-Z]*|UCGABAR[_A-Z.]*' | sort | uniq -c | tr '\n' ' ')"
done
echo "== sanitizers on split kernels"
for tool in memcheck racecheck synccheck; do
  timeout 90 compute-sanitizer --tool "$tool" --report-api-errors no --error-exitcode 9 \
    "$b/tilec-e2e" --no-compile --artifacts "$b/ws" --filter "${WS_SANITIZE_CASES:-^(attention_small|matmul_tma_small)\$}" \
    > "$out/ws-$tool.log" 2>&1
  rc=$?
  echo "$tool: exit $rc $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$out/ws-$tool.log" | tail -1)"
  [ $rc -eq 0 ] || status=1
done
if [ "${WS_BENCH:-1}" = 1 ]; then
  # The ablation compiles each row with its own flags (no global option).
  timeout 150 python3 "$root/bench/hopper_async.py" --tilec "$b/tilec" --sections ablation \
    "--ablation-extra=+ warp specialization (producer warpgroup, setmaxnreg)=--warp-specialize=all --ping-pong=false --intra-warpgroup-overlap=false" \
    "--ablation-extra=+ ping-pong of the two consumer warpgroups=--warp-specialize=all --ping-pong --intra-warpgroup-overlap=false" \
    "--ablation-extra=+ intra-warpgroup overlap (P V under the next softmax)=--warp-specialize=all --ping-pong --intra-warpgroup-overlap" \
    "--ablation-extra=+ clusters of 2 CTAs (TMA multicast of K, V / B)=--warp-specialize=all --ping-pong --intra-warpgroup-overlap --num-ctas=2" \
    --json "$out/ws-ablation.json" > "$out/ws-ablation.log" 2>&1 || status=1
  timeout "${WS_BENCH_TIMEOUT:-240}" python3 "$root/bench/hopper_async.py" --tilec "$b/tilec" --quick \
    --sections attention "${ws[@]}" \
    --json "$out/ws-hopper.json" > "$out/ws-hopper.log" 2>&1 || status=1
fi
echo "== e2e (warp-specialized)"
grep -E "^\| (attention|matmul)" "$out/ws-e2e.log" | cut -d'|' -f2,5,10,11,12 | head -50
for f in ws-ablation ws-hopper; do
  [ -f "$out/$f.log" ] && { echo "== $f"; grep -E "^\|" "$out/$f.log"; tail -3 "$out/$f.log" | grep -i "error\|traceback"; }
done
exit $status
