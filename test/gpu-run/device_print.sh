#!/usr/bin/env bash
# tl.device_print and tl.device_assert on the GPU, for the lead's GPU machine
# (no FileCheck there). Usage:
#
#   test/gpu-run/device_print.sh TILEC_BINARY WORKDIR
#
# Runs the kernels of test/ExecutionEngine/Inputs/device-print.tile (the
# CPU test's, test/ExecutionEngine/device-print.tile) with
# `tilec run --backend gpu`, sorts the printed lines (GPU threads print in
# any order) and compares them with the expected set, computed here in
# python3. Prints one `name: ok` or `name: FAIL ...` line per check; exits
# non-zero when any check fails.
set -u
if [ $# -ne 2 ]; then
  echo "usage: $0 TILEC_BINARY WORKDIR" >&2
  exit 2
fi
TILEC=$1
WORK=$2
SRC=$(cd "$(dirname "$0")/../ExecutionEngine/Inputs" && pwd)/device-print.tile
mkdir -p "$WORK"

run() { # name, then tilec run arguments; output in $WORK/name.out, status in .rc
  local name=$1
  shift
  timeout 60 "$TILEC" run "$SRC" --backend gpu "$@" >"$WORK/$name.out" 2>&1
  echo $? >"$WORK/$name.rc"
}

run print_1d --kernel print_1d --signature "*i32, 16" --grid 2 --buffer-size 16
run print_2d --kernel print_2d --signature "*fp32, 2, 4" --grid 1 --buffer-size 8
run print_2d_big --kernel print_2d --signature "*fp32, 32, 16" --grid 1 --buffer-size 512
run print_hex --kernel print_hex --signature "*i32, 4" --grid 1 --buffer-size 4
run print_scalar --kernel print_scalar --signature "*i32, i32" --grid 2 --buffer-size 2 --arg n=7
run print_1d_w8 --kernel print_1d --signature "*i32, 1024" --grid 1 --buffer-size 1024 --num-warps 8
run assert_fires --kernel assert_fires --signature "*i32, 8" --grid 2 --buffer-size 8 --debug
run assert_off --kernel assert_fires --signature "*i32, 8" --grid 2 --buffer-size 8
run assert_holds --kernel assert_holds --signature "*i32, i32, 8" --grid 2 --buffer-size 8 --arg n=3 --debug

WORK="$WORK" timeout 60 python3 - <<'PY'
import os, sys

work = os.environ["WORK"]
failed = False


def result(name):
    with open(os.path.join(work, name + ".out"), errors="replace") as f:
        out = f.read()
    with open(os.path.join(work, name + ".rc")) as f:
        rc = int(f.read().strip() or "1")
    return out, rc


def report(name, ok, why=""):
    global failed
    if ok:
        print(f"{name}: ok")
    else:
        failed = True
        print(f"{name}: FAIL {why}")


def width(n):
    import math
    return math.ceil(math.log10(n)) if n > 0 else 0


def idx(coord, shape):
    return ", ".join(f"{c:{width(s)}d}" if width(s) else f"{c}" for c, s in zip(coord, shape))


def check_lines(name, expected):
    out, rc = result(name)
    if rc != 0:
        report(name, False, f"exit status {rc}: {out.strip()[-2000:]}")
        return
    got = sorted(l for l in out.splitlines() if l.startswith("pid ("))
    want = sorted(expected)
    if got == want:
        report(name, True)
        return
    missing = [l for l in want if l not in got][:5]
    extra = [l for l in got if l not in want][:5]
    report(name, False, f"{len(got)} lines, expected {len(want)}; missing {missing}; unexpected {extra}")


# print_1d: v = offs * 3 - 5 + pid * 100, prefix " v: ".
def print_1d(block, grid):
    return [f"pid ({p}, 0, 0) idx ({idx([i], [block])}) v: {i * 3 - 5 + p * 100}"
            for p in range(grid) for i in range(block)]


check_lines("print_1d", print_1d(16, 2))
check_lines("print_1d_w8", print_1d(1024, 1))


# print_2d: f = row * 0.5 + col, "%f".
def print_2d(m, n):
    return [f"pid (0, 0, 0) idx ({idx([r, c], [m, n])}) f: {r * 0.5 + c:f}"
            for r in range(m) for c in range(n)]


check_lines("print_2d", print_2d(2, 4))
check_lines("print_2d_big", print_2d(32, 16))

# print_hex: u16 offs * 4097 and f16 offs + 1, both as 0x%04x.
f16 = {1: 0x3C00, 2: 0x4000, 3: 0x4200, 4: 0x4400}
check_lines("print_hex",
            [f"pid (0, 0, 0) idx ({i}) hex: (operand 0) 0x{(i * 4097) & 0xFFFF:04x}" for i in range(4)] +
            [f"pid (0, 0, 0) idx ({i}) hex: (operand 1) 0x{f16[i + 1]:04x}" for i in range(4)])

# print_scalar: one line per program for each print (thread 0 only).
check_lines("print_scalar",
            [l for p in range(2) for l in (f"pid ({p}, 0, 0) idx () scalar: {7 + p}",
                                           f"pid ({p}, 0, 0) no operands",
                                           f"pid ({p}, 0, 0) idx () py: {2 * p}")])

# assert_fires: elements 6 and 7 fail in both programs; the launch fails.
out, rc = result("assert_fires")
needle = "Assertion `offs < 6` failed"
n = sum(1 for l in out.splitlines() if needle in l and "device-print.tile:47" in l and "assert_fires" in l)
report("assert_fires", rc != 0 and n >= 1,
       f"exit status {rc}, {n} assertion lines; output: {out.strip()[-2000:]}")

out, rc = result("assert_off")
report("assert_off", rc == 0 and "Assertion" not in out, f"exit status {rc}; output: {out.strip()[-2000:]}")

out, rc = result("assert_holds")
report("assert_holds", rc == 0 and "Assertion" not in out, f"exit status {rc}; output: {out.strip()[-2000:]}")

sys.exit(1 if failed else 0)
PY
