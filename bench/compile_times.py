#!/usr/bin/env python3
"""Cold compile time (tilec + ptxas, one core) of every e2e case (which
covers every kernel in examples/) and of blocks up to 2^16 elements.

Each kernel is compiled once to a cubin by `tilec --mlir-timing`, pinned to
one core (`taskset -c CPU`, core 0 unless `--cpu`, where available), with a fresh output directory and
no kernel cache (the CLI has none). The stage times come from tilec's
`tilec stage times (ms): ...` line; wall is the whole process. Prints every
row over the budget and the slowest ten, as a markdown table.

    bench/compile_times.py --tilec build/bin/tilec --e2e build/bin/tilec-e2e \
        [--budget 1.0] [--filter REGEX] [--cpu 0] [--json out.json]
"""

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# Blocks up to 2^16 elements, written here (the "huge block" rows).
BLOCK_KERNELS = r'''
import triton
import triton.language as tl


@triton.jit
def block_sum(x_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(out_ptr, tl.sum(tl.load(x_ptr + offs), 0))


@triton.jit
def block_add(x_ptr, y_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.load(x_ptr + offs) + tl.load(y_ptr + offs))


@triton.jit
def block_cumsum(x_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.cumsum(tl.load(x_ptr + offs), 0))


@triton.jit
def block_trans(x_ptr, out_ptr, R: tl.constexpr, C: tl.constexpr):
    rr = tl.arange(0, R)
    rc = tl.arange(0, C)
    x = tl.load(x_ptr + rr[:, None] * C + rc[None, :])
    tl.store(out_ptr + rc[:, None] * R + rr[None, :], tl.trans(x))
'''

STAGES = re.compile(
    r"tilec stage times \(ms\): frontend ([\d.]+), passes ([\d.]+), "
    r"llvm ([\d.]+), ptx ([\d.]+), ptxas ([\d.]+), total ([\d.]+)")


def block_rows(path):
    rows = []
    for bits in (10, 12, 14, 16):
        n = 1 << bits
        for warps in (4, 8):
            rows.append(dict(name="block_sum_%d_w%d" % (n, warps), file=path,
                             kernel="block_sum",
                             signature="*fp32:16, *fp32:16, %d" % n,
                             num_warps=warps, num_stages=0))
            rows.append(dict(name="block_add_%d_w%d" % (n, warps), file=path,
                             kernel="block_add",
                             signature="*fp32:16, *fp32:16, *fp32:16, %d" % n,
                             num_warps=warps, num_stages=0))
            rows.append(dict(name="block_cumsum_%d_w%d" % (n, warps),
                             file=path, kernel="block_cumsum",
                             signature="*fp32:16, *fp32:16, %d" % n,
                             num_warps=warps, num_stages=0))
        r = 1 << (bits // 2)
        rows.append(dict(name="block_trans_%dx%d_w4" % (r, n // r), file=path,
                         kernel="block_trans",
                         signature="*fp32:16, *fp32:16, %d, %d" % (r, n // r),
                         num_warps=4, num_stages=0))
    return rows


# The core compile_one pins to (--cpu).
CPU = 0


def compile_one(tilec, row, out_dir, timeout):
    cmd = []
    if shutil.which("taskset"):
        cmd += ["taskset", "-c", str(CPU)]
    cmd += [tilec, row["file"], "--kernel", row["kernel"], "--signature",
            row["signature"], "--num-warps", str(row["num_warps"]),
            "--emit", "cubin", "--mlir-timing",
            "-o", os.path.join(out_dir, row["name"] + ".cubin")]
    if row.get("num_stages"):
        cmd += ["--num-stages", str(row["num_stages"])]
    start = time.monotonic()
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True,
                              timeout=timeout)
        wall = time.monotonic() - start
        err = proc.stderr
        ok = proc.returncode == 0
    except subprocess.TimeoutExpired:
        return dict(row, wall=float(timeout), ok=False,
                    error="timed out after %d s" % timeout)
    m = STAGES.search(err)
    result = dict(row, wall=wall, ok=ok)
    if m:
        keys = ("frontend", "passes", "llvm", "ptx", "ptxas", "total")
        result.update({k: float(v) / 1e3 for k, v in zip(keys, m.groups())})
    if not ok:
        lines = [l for l in err.splitlines() if "error" in l]
        result["error"] = (lines[0] if lines else err.strip()[-300:])
    return result


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--tilec", default=os.path.join(ROOT, "build/bin/tilec"))
    ap.add_argument("--e2e", default=os.path.join(ROOT, "build/bin/tilec-e2e"))
    ap.add_argument("--budget", type=float, default=1.0)
    ap.add_argument("--timeout", type=int, default=120)
    ap.add_argument("--filter", default="")
    ap.add_argument("--no-blocks", action="store_true")
    ap.add_argument("--cpu", type=int, default=0,
                    help="the core to pin the compiles to (an idle one)")
    ap.add_argument("--json")
    args = ap.parse_args()
    global CPU
    CPU = args.cpu

    work = tempfile.mkdtemp(prefix="tilec-compile-times-")
    rows = []
    if os.path.exists(args.e2e):
        desc = os.path.join(work, "cases.json")
        subprocess.run([args.e2e, "--describe", desc], check=True,
                       capture_output=True)
        for case in json.load(open(desc)):
            case["file"] = os.path.join(ROOT, "examples", case["file"])
            rows.append(case)
    else:
        print("compile_times: no %s: e2e cases left out" % args.e2e,
              file=sys.stderr)
    if not args.no_blocks:
        path = os.path.join(work, "blocks.tile")
        with open(path, "w") as f:
            f.write(BLOCK_KERNELS)
        rows += block_rows(path)
    if args.filter:
        rows = [r for r in rows if re.search(args.filter, r["name"])]

    results = []
    for i, row in enumerate(rows):
        r = compile_one(args.tilec, row, work, args.timeout)
        results.append(r)
        print("[%d/%d] %-44s %6.2f s%s" % (
            i + 1, len(rows), r["name"], r["wall"],
            "" if r["ok"] else "  FAILED: " + r.get("error", "")),
            file=sys.stderr, flush=True)
    shutil.rmtree(work, ignore_errors=True)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=1)

    def table(title, rs):
        print("\n%s\n" % title)
        print("| kernel | warps | wall s | frontend | passes | llvm | ptx | ptxas | ok |")
        print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |")
        for r in rs:
            print("| %s | %d | %.2f | %s | %s | %s | %s | %s | %s |" % (
                r["name"], r["num_warps"], r["wall"],
                *("%.2f" % r[k] if k in r else "-"
                  for k in ("frontend", "passes", "llvm", "ptx", "ptxas")),
                "yes" if r["ok"] else "no: " + r.get("error", "")[:80]))

    slow = sorted(results, key=lambda r: -r["wall"])
    over = [r for r in slow if r["wall"] > args.budget]
    print("%d kernels compiled, %d over the %.1f s budget, %d failed; "
          "median %.2f s" % (
              len(results), len(over), args.budget,
              sum(not r["ok"] for r in results),
              sorted(r["wall"] for r in results)[len(results) // 2]
              if results else 0))
    table("Slowest ten", slow[:10])
    return 1 if over or any(not r["ok"] for r in results) else 0


if __name__ == "__main__":
    sys.exit(main())
