#!/usr/bin/env bash
# tl.inline_asm_elementwise on the GPU backend: runs the three kernels of
# test/Target/inline-asm.tile with `tilec run --backend gpu` and compares
# with numpy: shift_add (pack=1, `shl.b32`/`add.u32` with a scalar
# argument), packed (Triton's test_inline_asm_packed: 4 x int8 in one
# register, pack=4) and two_outputs (Triton's
# test_inline_asm_packed_multiple_outputs: uint8 packed 4 to a register and
# fp32, two results).
#
# Usage: inline_asm.sh TILEC_BINARY WORKDIR
# Prints one `name: ok` / `name: FAIL ...` line per check; exits 1 if any
# check fails.
set -u
if [ $# -ne 2 ]; then
  echo "usage: $0 TILEC_BINARY WORKDIR" >&2
  exit 2
fi
TILEC=$1
WORK=$2/inline_asm
HERE=$(cd "$(dirname "$0")" && pwd)
KERNEL=$HERE/../Target/inline-asm.tile
rm -rf "$WORK" && mkdir -p "$WORK"
status=0

# Inputs.
if ! timeout 60 python3 - "$WORK" <<'PY'; then
import sys
import numpy as np
d = sys.argv[1]
rng = np.random.default_rng(3)
rng.integers(0, 2**32, 512, dtype=np.uint32).tofile(d + "/x.bin")
rng.integers(0, 2**32, 512, dtype=np.uint32).tofile(d + "/y.bin")
rng.integers(-128, 128, 512, dtype=np.int8).tofile(d + "/p.bin")
rng.integers(0, 256, 512, dtype=np.uint8).tofile(d + "/a.bin")
(rng.standard_normal(512) * 100).astype(np.float32).tofile(d + "/b.bin")
PY
  echo "inline_asm inputs: FAIL (python3 with numpy needed)"
  exit 1
fi

run() {  # name, then tilec run arguments
  local name=$1
  shift
  if timeout 60 "$TILEC" run "$KERNEL" --backend "${BACKEND:-gpu}" "$@" >"$WORK/$name.log" 2>&1; then
    echo "inline_asm $name run: ok"
    return 0
  fi
  echo "inline_asm $name run: FAIL (see $WORK/$name.log)"
  tail -5 "$WORK/$name.log"
  status=1
  return 1
}

run shift_add --kernel shift_add --signature "*u32, *u32, *u32, i32, 256" --grid 2 \
  --input x_ptr="$WORK/x.bin" --input y_ptr="$WORK/y.bin" --buffer z_ptr=512 \
  --output z_ptr="$WORK/z.out" --arg s=5
run packed --kernel packed --signature "*i8, *i8, 512" --grid 1 \
  --input x_ptr="$WORK/p.bin" --buffer y_ptr=512 --output y_ptr="$WORK/py.out"
run two_outputs --kernel two_outputs --signature "*u8, *fp32, *i32, *fp32, 512" --grid 1 \
  --input a_ptr="$WORK/a.bin" --input b_ptr="$WORK/b.bin" --buffer z_ptr=512 \
  --buffer w_ptr=512 --output z_ptr="$WORK/tz.out" --output w_ptr="$WORK/tw.out"

timeout 60 python3 - "$WORK" <<'PY' || status=1
import os
import sys
import numpy as np
d = sys.argv[1]
ok = True
def check(name, path, want, dtype):
    global ok
    if not os.path.exists(path):
        print("inline_asm %s: FAIL (no output)" % name)
        ok = False
        return
    got = np.fromfile(path, dtype=dtype)
    good = got.shape == want.shape and np.array_equal(got, want)
    if not good:
        bad = np.nonzero(got != want)[0] if got.shape == want.shape else []
        i = bad[0] if len(bad) else 0
        print("inline_asm %s: FAIL %d of %d differ, first at %d: got %r want %r"
              % (name, len(bad), want.size, i, got[i] if len(got) else None, want[i]))
        ok = False
    else:
        print("inline_asm %s: ok" % name)
x = np.fromfile(d + "/x.bin", dtype=np.uint32)
y = np.fromfile(d + "/y.bin", dtype=np.uint32)
check("shift_add (pack=1)", d + "/z.out", (x << np.uint32(5)) + y, np.uint32)
p = np.fromfile(d + "/p.bin", dtype=np.uint8)
check("packed int8 (pack=4)", d + "/py.out", ((p & 0x1F) << 3).astype(np.uint8), np.uint8)
a = np.fromfile(d + "/a.bin", dtype=np.uint8)
b = np.fromfile(d + "/b.bin", dtype=np.float32)
check("two outputs: uint8 -> int32", d + "/tz.out", a.astype(np.int32), np.int32)
check("two outputs: fp32 rint + 0.5", d + "/tw.out", (np.rint(b) + np.float32(0.5)).astype(np.float32), np.float32)
sys.exit(0 if ok else 1)
PY
exit $status
