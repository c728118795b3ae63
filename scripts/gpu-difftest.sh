#!/usr/bin/env bash
# Differential testing on the GPU machine (issue 15), after
# scripts/prepare-gpu-check.sh on the build machine:
#   run(command="scripts/gpu-difftest.sh", carry=[".carry"])
#
# Random tile programs (test/difftest) checked against their float64 /
# exact-integer references on tilec's CPU and GPU backends (DIFFTEST_COUNT,
# default 2000, over DIFFTEST_JOBS jobs, default one per core), on Triton
# 3.6 for the first DIFFTEST_TRITON_COUNT (default 600; Triton's compiles
# are slower), and DIFFTEST_MEMCHECK programs (default 40) on the GPU backend
# under compute-sanitizer memcheck. Disagreements are reduced (at most 4) and
# saved under $OUT/cases (JSON for `difftest.py replay`, and the .tile).
#
# The tilec stage uses the batch runner (difftest.py --runner batch): each
# job keeps one `tilec run --batch` process per backend, so a program costs
# its compile and launch, not a process start and a CUDA context. With one
# process per program (DIFFTEST_RUNNER=process) the H200 machine checked
# 1849 programs in 473 s with 24 jobs (~6 s per program per job, most of it
# process and context start); the batch runner needs ~0.3 s of CPU compile
# per program on the build machine's cores, so 2000 programs should take
# ~1-2 minutes on 16 cores (the log's "time" lines say where it went).
# Each stage has a time limit (the tilec batch stops starting programs
# after DIFFTEST_TIME_LIMIT s, default 300; Triton's after
# DIFFTEST_TRITON_TIME_LIMIT, default 60; memcheck after 25 s: the counts
# are what fit); with the defaults the whole run stays under 9 minutes even
# when every limit is reached, one 10-minute device call. Memcheck runs one
# process per program (--error-exitcode pins a report to its program).
# Logs and JSON go to $OUT; the tables are printed last.
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
tlimit=${DIFFTEST_TIME_LIMIT:-300}
ttlimit=${DIFFTEST_TRITON_TIME_LIMIT:-60}
runner=${DIFFTEST_RUNNER:-batch}
jobs=${DIFFTEST_JOBS:-$(nproc)}
dt="python3 -W ignore $root/test/difftest/difftest.py"
python3 -c "import numpy" || { echo "difftest needs numpy"; exit 1; }
status=0
echo "== tilec cpu + gpu: $count programs from seed $seed, $jobs jobs, $runner runner"
timeout $((tlimit + 80)) $dt run --tilec "$tilec" --backends cpu,gpu --seed "$seed" --count "$count" \
  --jobs "$jobs" --runner "$runner" --time-limit "$tlimit" --timeout 30 --reduce --max-reduce 4 --reduce-time 30 \
  --save-dir "$out/cases" --work "$work/tilec" --json "$out/tilec.json" \
  > "$out/tilec.log" 2> "$out/tilec.err" || status=1
echo "== triton on the first $tcount of the same programs"
timeout $((ttlimit + 40)) $dt run --tilec "$tilec" --backends triton --seed "$seed" --count "$tcount" \
  --jobs "$jobs" --time-limit "$ttlimit" --timeout 30 --work "$work/triton" \
  --json "$out/triton.json" > "$out/triton.log" 2> "$out/triton.err" || status=1
if command -v compute-sanitizer > /dev/null && [ "$mcount" -gt 0 ]; then
  echo "== memcheck: $mcount programs on the gpu backend"
  timeout 60 $dt run --tilec "$tilec" --backends gpu --seed "$seed" --count "$mcount" \
    --jobs "$jobs" --runner process --time-limit 25 --timeout 30 --work "$work/memcheck" \
    --wrap "compute-sanitizer --tool memcheck --report-api-errors no --error-exitcode 9" \
    --json "$out/memcheck.json" > "$out/memcheck.log" 2> "$out/memcheck.err" || status=1
fi
tar czf "$out/difftest-work.tgz" -C "$work" --exclude=bin . 2> /dev/null
for log in tilec triton memcheck; do
  [ -f "$out/$log.log" ] || continue
  echo "== $log"
  grep -v "^backend\|^cpu \|^gpu \|^triton \|^programs tried\|^reduced seed\|^triton alone\|^time " "$out/$log.log" | head -n 15
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
  [ -f "$out/$log.log" ] && grep "^backend\|^cpu \|^gpu \|^triton \|^programs tried\|^reduced seed\|^triton alone\|^time " "$out/$log.log"
done
exit $status
