#!/usr/bin/env bash
# Differential testing on the GPU machine (issue 15), after
# scripts/prepare-gpu-check.sh on the build machine:
#   run(command="scripts/gpu-difftest.sh", carry=[".carry"])
#
# Random tile programs (test/difftest) checked against their float64 /
# exact-integer references on tilec's CPU and GPU backends (DIFFTEST_COUNT,
# default 2000, compiles spread over every core), on Triton 3.6 for the
# first DIFFTEST_TRITON_COUNT (default 600; Triton's compiles are slower),
# and DIFFTEST_MEMCHECK programs (default 40) on the GPU backend under
# compute-sanitizer memcheck. Disagreements are reduced (at most 10) and
# saved under $OUT/cases (JSON for `difftest.py replay`, and the .tile).
# Each stage has a time limit (the tilec batch stops starting programs
# after DIFFTEST_TIME_LIMIT s, default 120; Triton's after
# DIFFTEST_TRITON_TIME_LIMIT, default 50; memcheck after 25 s: the counts are
# what fit); with the defaults the whole run stays under 5 minutes, and
# DIFFTEST_TIME_LIMIT=400 DIFFTEST_TRITON_TIME_LIMIT=60 fits 2000 programs
# in one 10-minute device call. Logs and
# JSON go to $OUT; the tables are printed last.
set -u -o pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=${OUT:-$root/gpu-difftest-out}
mkdir -p "$out"
work=$(mktemp -d)
if [ -f "$root/.carry/tilec.xz" ]; then
  mkdir -p "$work/bin"
  xz -dc "$root/.carry/tilec.xz" > "$work/bin/tilec" && chmod +x "$work/bin/tilec"
  tilec=$work/bin/tilec
else
  tilec=${TILEC:-$root/build/bin/tilec}
fi
seed=${DIFFTEST_SEED:-100000}
count=${DIFFTEST_COUNT:-2000}
tcount=${DIFFTEST_TRITON_COUNT:-600}
mcount=${DIFFTEST_MEMCHECK:-40}
tlimit=${DIFFTEST_TIME_LIMIT:-120}
ttlimit=${DIFFTEST_TRITON_TIME_LIMIT:-50}
jobs=${DIFFTEST_JOBS:-$(nproc)}
dt="python3 -W ignore $root/test/difftest/difftest.py"
python3 -c "import numpy" || { echo "difftest needs numpy"; exit 1; }
status=0
echo "== tilec cpu + gpu: $count programs from seed $seed, $jobs jobs"
timeout $((tlimit + 80)) $dt run --tilec "$tilec" --backends cpu,gpu --seed "$seed" --count "$count" \
  --jobs "$jobs" --time-limit "$tlimit" --timeout 30 --reduce --max-reduce 4 --reduce-time 30 \
  --save-dir "$out/cases" --work "$work/tilec" --json "$out/tilec.json" \
  > "$out/tilec.log" 2> "$out/tilec.err" || status=1
echo "== triton on the first $tcount of the same programs"
timeout $((ttlimit + 40)) $dt run --tilec "$tilec" --backends triton --seed "$seed" --count "$tcount" \
  --jobs "$jobs" --time-limit "$ttlimit" --timeout 30 --work "$work/triton" \
  --json "$out/triton.json" > "$out/triton.log" 2> "$out/triton.err" || status=1
if command -v compute-sanitizer > /dev/null && [ "$mcount" -gt 0 ]; then
  echo "== memcheck: $mcount programs on the gpu backend"
  timeout 60 $dt run --tilec "$tilec" --backends gpu --seed "$seed" --count "$mcount" \
    --jobs "$jobs" --time-limit 25 --timeout 30 --work "$work/memcheck" \
    --wrap "compute-sanitizer --tool memcheck --report-api-errors no --error-exitcode 9" \
    --json "$out/memcheck.json" > "$out/memcheck.log" 2> "$out/memcheck.err" || status=1
fi
tar czf "$out/difftest-work.tgz" -C "$work" --exclude=bin . 2> /dev/null
for log in tilec triton memcheck; do
  [ -f "$out/$log.log" ] || continue
  echo "== $log"
  grep -v "^backend\|^cpu \|^gpu \|^triton \|^programs tried\|^reduced seed\|^triton alone" "$out/$log.log" | head -n 15
  tail -n 3 "$out/$log.err" | grep -i "traceback\|error" | head -n 3
done
# Triton's disagreements on programs both tilec backends got right are
# Triton's (or the reference's): listed for docs/.
python3 - "$out/tilec.json" "$out/triton.json" <<'PY' || true
import json, sys
try:
    a = {r["seed"]: r.get("results", {}) for r in json.load(open(sys.argv[1]))["results"]}
    b = {r["seed"]: r.get("results", {}) for r in json.load(open(sys.argv[2]))["results"]}
except (OSError, ValueError, KeyError) as e:
    print("no cross-check:", e); sys.exit(0)
both = [s for s in b if s in a]
alone = [s for s in both if b[s].get("triton", ["ok"])[0] not in ("ok", "skip")
         and all(v[0] == "ok" for v in a[s].values())]
tilec_only = [s for s in both if b[s].get("triton", ["skip"])[0] == "ok"
              and any(v[0] != "ok" for v in a[s].values())]
print("cross-check on %d programs run by all three: Triton alone fails %d %s; tilec fails where Triton is right %d %s"
      % (len(both), len(alone), alone[:10], len(tilec_only), tilec_only[:10]))
PY
echo
echo "== summary"
for log in tilec triton memcheck; do
  [ -f "$out/$log.log" ] && grep "^backend\|^cpu \|^gpu \|^triton \|^programs tried\|^reduced seed\|^triton alone" "$out/$log.log"
done
exit $status
