#!/usr/bin/env bash
# The atomics lit tests (test/ExecutionEngine/atomics-*.tile, run there on
# the CPU backend) on the GPU: the same inputs, `tilec run --backend gpu`,
# the same Python checks.
#   test/gpu-run/atomics.sh TILEC WORKDIR
set -u
tilec=${1:?usage: atomics.sh TILEC WORKDIR}
work=${2:?usage: atomics.sh TILEC WORKDIR}
src=$(cd "$(dirname "$0")/../ExecutionEngine" && pwd)
status=0

# NAME CHECKER: the kernel's signature and buffers come from the test's
# `# DEFINE:` lines (%t is the case's directory).
run_case() {
  local name=$1 checker=$src/Inputs/$2 file=$src/$1.tile dir=$work/$1
  mkdir -p "$dir"
  local sig io
  sig=$(sed -n 's/^# DEFINE: %{sig} = //p' "$file")
  io=$(sed -n 's/^# DEFINE: %{io} = //p' "$file" | sed "s|%t|$dir|g")
  python3 "$checker" gen "$dir"
  # shellcheck disable=SC2086
  if ! timeout 60 "$tilec" run "$file" --backend gpu --signature "$sig" \
      --grid 4 --arg n=200 $io > "$dir/run.log" 2>&1; then
    echo "$name: FAIL (tilec run exited $?; $dir/run.log)"
    tail -n 5 "$dir/run.log"
    status=1
    return
  fi
  local result
  result=$(python3 "$checker" check "$dir")
  echo "$result" | sed "s/^/$name: /"
  grep -q "all checks passed" <<< "$result" || status=1
}

run_case atomics atomics_check.py
run_case atomics-wide atomics_wide_check.py
exit $status
