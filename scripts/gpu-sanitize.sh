#!/usr/bin/env bash
# compute-sanitizer over every e2e case (issue 15), on the GPU machine after
# scripts/prepare-gpu-check.sh:
#   run(command="scripts/gpu-sanitize.sh", carry=[".carry"])
#
# memcheck, racecheck, synccheck and initcheck, each on every case of
# tilec-e2e --quick (all the kernels: the large cases are the same kernels
# as their small siblings on bigger shapes, which the tools would take
# minutes over), one case per sanitizer process, SANITIZE_JOBS (default 8)
# at a time, each under a timeout. The kernels are compiled once with a
# bounded mbarrier spin. TOOLS and CASES (a tilec-e2e --filter regex)
# narrow it; SANITIZE_TIME_LIMIT (seconds) stops starting cases after that
# long (the rest are counted as not run). A table (tool, cases, clean, with errors, failed otherwise,
# timed out) comes last; the failing cases' logs are listed above it.
# Logs go to $OUT/sanitize/.
set -u -o pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=${OUT:-$root/gpu-sanitize-out}
logs=$out/sanitize
mkdir -p "$logs"
work=$(mktemp -d)
for tool in tilec tilec-e2e; do
  xz -dc "$root/.carry/$tool.xz" > "$work/$tool" && chmod +x "$work/$tool"
done
tools=${TOOLS:-memcheck racecheck synccheck initcheck}
filter=${CASES:-.}
jobs=${SANITIZE_JOBS:-8}
per_case=${SANITIZE_TIMEOUT:-120}
command -v compute-sanitizer > /dev/null || { echo "no compute-sanitizer"; exit 1; }
spin=--tilec-option=--mbarrier-spin-limit=4194304
"$work/tilec-e2e" --quick --list --filter "$filter" 2>/dev/null | grep -v '^ ' | grep . > "$work/cases"
echo "== compiling $(wc -l < "$work/cases") cases"
timeout 240 "$work/tilec-e2e" --tilec "$work/tilec" --artifacts "$work/art" --quick \
  --filter "$filter" "$spin" --no-run > "$logs/compile.log" 2>&1 || echo "compile: exit $? (see compile.log)"
# API errors are not reported: the runtime probes one parameter past the
# end (cuFuncGetParamInfo) on purpose.
one() {  # tool case
  if [ "$(date +%s)" -ge "$deadline" ]; then
    echo "$1 $2 skip" >> "$work/results"
    return
  fi
  # Each run in its own copy of the case's artifacts: tilec-e2e writes the
  # inputs and the CPU backend's reference there, and the tools of one case
  # run at once.
  local art="$work/run/$1-$2"
  mkdir -p "$art" && cp "$work/art/$2".* "$art/"
  # (initcheck's --track-unused-memory is off by default; it takes no value)
  timeout "$per_case" compute-sanitizer --tool "$1" --report-api-errors no --error-exitcode 9 \
    "$work/tilec-e2e" --no-compile --artifacts "$art" --filter "^$2\$" \
    > "$logs/$1-$2.log" 2>&1
  echo "$1 $2 $?" >> "$work/results"
}
export -f one
deadline=$(( $(date +%s) + ${SANITIZE_TIME_LIMIT:-1000000} ))
export work logs per_case deadline
: > "$work/results"
while read -r c; do for t in $tools; do echo "$t $c"; done; done < "$work/cases" |
  xargs -P "$jobs" -L 1 bash -c 'one "$0" "$1"'
status=0
echo
for t in $tools; do
  grep "^$t " "$work/results" | while read -r tool name rc; do
    case $rc in
      0|skip) ;;
      9) echo "$tool $name: errors ($(grep -m1 -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$logs/$tool-$name.log"))" ;;
      124) echo "$tool $name: timed out after ${per_case}s" ;;
      *) echo "$tool $name: exit $rc ($(grep -m1 -iE 'fail|error' "$logs/$tool-$name.log" | cut -c1-160))" ;;
    esac
  done
done
echo
printf "%-10s %6s %6s %7s %7s %8s %8s\n" tool cases clean errors failed timeout "not run"
for t in $tools; do
  r=$(grep "^$t " "$work/results")
  n=$(grep -c . <<< "$r"); c=$(grep -c ' 0$' <<< "$r"); e=$(grep -c ' 9$' <<< "$r")
  to=$(grep -c ' 124$' <<< "$r"); sk=$(grep -c ' skip$' <<< "$r"); f=$(( n - c - e - to - sk ))
  printf "%-10s %6d %6d %7d %7d %8d %8d\n" "$t" "$n" "$c" "$e" "$f" "$to" "$sk"
  [ "$c" -eq "$n" ] || status=1
done
exit $status
