#!/usr/bin/env python3
"""Scans and a tile transpose, tilec against Triton 3.6 in the same run
(H200). One program per row block, many programs so the GPU is full:

- cumsum: x [rows, BLOCK] fp32, out[r] = cumsum(x[r]) for BLOCK in 1024,
  4096 and 16384 (one row per program), and an affine associative_scan (a
  tuple, non-commutative) of 1024;
- sort and flip: tl.sort / tl.flip of each row (a bitonic network of
  reshapes and pair reductions);
- transpose: x [n, n] fp32/fp16 in 64x64 and 256x256 tiles, out = x.T
  through tl.trans.

Each kernel is compiled by tilec (`--tilec`) and by Triton from the same
source (test/e2e/triton_compile.py's rewrite), checked against torch in
float64 (outputs poisoned first) and timed with triton.testing.do_bench.
Prints a markdown table with GB/s (bytes read + written) and
tilec/Triton. About a minute.

    python3 bench/scan_transpose.py --tilec build-static/bin/tilec [--json out.json]
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile

import torch
import triton
import triton.testing

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "test", "e2e"))
from tilec_launch import TilecKernel  # noqa: E402
import triton_compile  # noqa: E402

TMP = tempfile.mkdtemp(prefix="scan-transpose-")

SOURCE = r'''
import triton
import triton.language as tl


@triton.jit
def _affine(a1, b1, a2, b2):
    return a1 * a2, b1 * a2 + b2


@triton.jit
def row_cumsum(x_ptr, out_ptr, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = row * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.cumsum(tl.load(x_ptr + offs), 0))


@triton.jit
def row_affine_scan(x_ptr, out_ptr, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = row * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    _, b = tl.associative_scan((x * 0.5, x), 0, _affine)
    tl.store(out_ptr + offs, b)


@triton.jit
def row_sort(x_ptr, out_ptr, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = row * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.sort(tl.load(x_ptr + offs)))


@triton.jit
def row_flip(x_ptr, out_ptr, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = row * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.flip(tl.load(x_ptr + offs), 0))


@triton.jit
def transpose(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pm = tl.program_id(0)
    pn = tl.program_id(1)
    rm = pm * BLOCK + tl.arange(0, BLOCK)
    rn = pn * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + rm[:, None] * n + rn[None, :])
    tl.store(out_ptr + rn[:, None] * n + rm[None, :], tl.trans(x))
'''


def bench(fn):
    return triton.testing.do_bench(fn, warmup=25, rep=100)


def check(out, ref, rtol, atol):
    o = out.double()
    err = (o - ref).abs()
    ok = bool(torch.isfinite(o).all()) and bool(
        (err <= atol + rtol * ref.abs()).all())
    return ok, float(err.max())


def tilec_kernel(tilec, path, kernel, sig, warps, tag):
    out = os.path.join(TMP, tag + ".cubin")
    cmd = [tilec, path, "--kernel", kernel, "--signature", sig,
           "--num-warps", str(warps), "-o", out]
    run = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    if run.returncode != 0:
        raise RuntimeError(run.stderr[-600:])
    return TilecKernel(out[:-len(".cubin")] + ".json")


def affine_ref(x):
    a, b = 0.5 * x.double(), x.double()
    out = torch.empty_like(b)
    acc = b[:, 0].clone()
    out[:, 0] = acc
    for i in range(1, x.shape[1]):
        acc = acc * a[:, i] + b[:, i]
        out[:, i] = acc
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tilec", required=True)
    ap.add_argument("--json")
    args = ap.parse_args()
    torch.manual_seed(int.from_bytes(os.urandom(4), "little"))
    triton_compile.install_tilec_alias()
    path = os.path.join(TMP, "scan_transpose.tile")
    with open(path, "w") as f:
        f.write(SOURCE)
    tpath = os.path.join(TMP, "scan_transpose_triton.py")
    with open(tpath, "w") as f:
        f.write(triton_compile.rewrite_module(SOURCE))
    tmod = triton_compile.load_module(tpath)

    rows = []
    # 16384-element rows are 32 (4 warps) or 16 (8 warps) chunks: the
    # chunk table.
    configs = [("row_cumsum", 1024, 4, 8192), ("row_cumsum", 4096, 4, 4096),
               ("row_cumsum", 4096, 8, 4096), ("row_cumsum", 16384, 4, 2048),
               ("row_cumsum", 16384, 8, 2048),
               ("row_affine_scan", 1024, 4, 8192),
               ("row_sort", 256, 4, 65536), ("row_sort", 1024, 4, 16384),
               ("row_flip", 1024, 4, 16384)]
    refs = {"row_cumsum": lambda x: torch.cumsum(x.double(), 1),
            "row_affine_scan": affine_ref,
            "row_sort": lambda x: torch.sort(x.double(), 1).values,
            "row_flip": lambda x: x.double().flip(1)}
    for kernel, block, warps, nrows in configs:
        x = torch.rand(nrows, block, device="cuda")
        out = torch.empty_like(x)
        ref = refs[kernel](x)
        r = dict(kernel=kernel, shape=f"{nrows}x{block}", dtype="fp32",
                 warps=warps)
        nbytes = 2 * x.numel() * 4
        try:
            k = tilec_kernel(args.tilec, path, kernel,
                             f"*fp32:16, *fp32:16, {block}", warps,
                             f"{kernel}_{block}_{warps}")
            launch = lambda: k((nrows, 1, 1), x, out)  # noqa: E731
            out.fill_(float("nan"))
            launch()
            torch.cuda.synchronize()
            r["tilec_ok"], r["tilec_err"] = check(out, ref, 1e-4, 1e-4)
            r["tilec_gbs"] = nbytes / bench(launch) / 1e6
        except Exception as e:  # noqa: BLE001
            r["tilec_error"] = str(e)[-300:]
        try:
            fn = getattr(tmod, kernel)
            tl_launch = lambda: fn[(nrows,)](x, out, BLOCK=block,  # noqa: E731
                                             num_warps=warps)
            out.fill_(float("nan"))
            tl_launch()
            torch.cuda.synchronize()
            r["triton_ok"], _ = check(out, ref, 1e-4, 1e-4)
            r["triton_gbs"] = nbytes / bench(tl_launch) / 1e6
        except Exception as e:  # noqa: BLE001
            r["triton_error"] = str(e)[-300:]
        rows.append(r)

    # 256x256 tiles (256 and 128 KB) go through shared memory in rounds.
    transposes = [(dtype, tdt, warps, 64)
                  for dtype, tdt in (("fp32", torch.float32), ("fp16", torch.float16))
                  for warps in (4, 8)]
    transposes += [("fp32", torch.float32, 4, 256), ("fp16", torch.float16, 4, 256)]
    for dtype, tdt, warps, block in transposes:
        n = 8192
        x = torch.randn(n, n, device="cuda").to(tdt)
        out = torch.empty_like(x)
        ref = x.double().t()
        grid = (n // block, n // block, 1)
        r = dict(kernel="transpose", shape=f"{n}x{n} / {block}x{block}",
                 dtype=dtype, warps=warps)
        nbytes = 2 * x.numel() * x.element_size()
        try:
            k = tilec_kernel(args.tilec, path, "transpose",
                             f"*{dtype}:16, *{dtype}:16, i32:16, {block}",
                             warps, f"transpose_{dtype}_{warps}_{block}")
            launch = lambda: k(grid, x, out, n)  # noqa: E731
            out.fill_(float("nan"))
            launch()
            torch.cuda.synchronize()
            r["tilec_ok"], r["tilec_err"] = check(out, ref, 0, 0)
            r["tilec_gbs"] = nbytes / bench(launch) / 1e6
        except Exception as e:  # noqa: BLE001
            r["tilec_error"] = str(e)[-300:]
        try:
            fn = tmod.transpose
            tl_launch = lambda: fn[grid[:2]](x, out, n, BLOCK=block,  # noqa: E731
                                             num_warps=warps)
            out.fill_(float("nan"))
            tl_launch()
            torch.cuda.synchronize()
            r["triton_ok"], _ = check(out, ref, 0, 0)
            r["triton_gbs"] = nbytes / bench(tl_launch) / 1e6
        except Exception as e:  # noqa: BLE001
            r["triton_error"] = str(e)[-300:]
        rows.append(r)

    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=1)
    print("\n| kernel | shape | dtype | warps | tilec pass | tilec GB/s | "
          "Triton GB/s | tilec/Triton |")
    print("|---|---|---|---|---|---|---|---|")
    for r in rows:
        t, tr = r.get("tilec_gbs"), r.get("triton_gbs")
        status = ("PASS" if r.get("tilec_ok") else
                  ("FAIL" if "tilec_gbs" in r else "ERROR"))
        print(f"| {r['kernel']} | {r['shape']} | {r['dtype']} | {r['warps']} | "
              f"{status} | {t or 0:.0f} | {tr or 0:.0f} | "
              f"{(t / tr) if t and tr else 0:.2f} |")
        for key in ("tilec_error", "triton_error"):
            if key in r:
                print(f"  {key}: {r[key]}", file=sys.stderr)
    sys.exit(0 if all(r.get("tilec_ok") for r in rows) else 1)


if __name__ == "__main__":
    main()
