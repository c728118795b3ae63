#!/usr/bin/env python3
"""GEMM on the H200: tilec vs cuBLAS (torch.matmul) vs Triton running the same
block-pointer kernel source (examples/matmul.tile), in one run.

Runs on the GPU machine (scripts/gpu-check.sh calls it with the carried
static tilec). For every shape: fresh random inputs in [-1, 1), the output
poisoned with NaN, checked against a float64 reference (torch on the GPU) with
the pass rule of DESIGN.md §6 (every element within atol + rtol·|ref| and
rel-L2 < rtol; rtol 2e-3 for fp16, 1e-2 for bf16, atol = rtol·sqrt(K/3)), then
timed (triton.testing.do_bench, median) for tilec, cuBLAS and Triton.
The kernel stores C in fp32 (tilec and Triton); cuBLAS returns the input dtype.

    python3 bench/gemm.py --tilec path/to/tilec [--quick] [--json out.json]
"""

import argparse
import json
import math
import os
import subprocess
import sys
import tempfile

import torch
import triton
import triton.testing

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(ROOT, "test", "e2e"))
from tilec_launch import TilecKernel  # noqa: E402
import triton_compile  # noqa: E402

EXAMPLE = os.path.join(ROOT, "examples", "matmul.tile")
DTYPES = {"fp16": torch.float16, "bf16": torch.bfloat16}
RTOL = {"fp16": 2e-3, "bf16": 1e-2}


def shapes(quick):
    if quick:
        return [(1024, 1024, 1024), (4095, 4097, 4099)]
    return [(1024, 1024, 1024), (2048, 2048, 2048), (4096, 4096, 4096),
            (8192, 8192, 8192), (4095, 4097, 4099),
            (16, 8192, 8192), (64, 8192, 8192), (128, 8192, 8192)]


def config(m, n, k):
    """Block sizes: Triton's Hopper tutorial config for big shapes."""
    if m <= 64:
        return dict(BLOCK_M=64, BLOCK_N=128, BLOCK_K=64, GROUP_SIZE_M=1, num_warps=4, num_stages=4)
    return dict(BLOCK_M=128, BLOCK_N=256, BLOCK_K=64, GROUP_SIZE_M=8, num_warps=8, num_stages=3)


def entry(value):
    return "i32:16" if value % 16 == 0 else "i32"


def compile_tilec(tilec, dtype, m, n, k, cfg, outdir, extra):
    sig = (f"*{dtype}:16, *{dtype}:16, *fp32:16, {entry(m)}, {entry(n)}, {entry(k)}, "
           f"{entry(k)}, 1, {entry(n)}, 1, {entry(n)}, 1, "
           f"{cfg['BLOCK_M']}, {cfg['BLOCK_N']}, {cfg['BLOCK_K']}, {cfg['GROUP_SIZE_M']}")
    out = os.path.join(outdir, f"mm_{dtype}_{m}_{n}_{k}.cubin")
    cmd = [tilec, EXAMPLE, "--kernel", "matmul_kernel", "--signature", sig,
           "--num-warps", str(cfg["num_warps"]), "--num-stages", str(cfg["num_stages"]),
           "-o", out] + extra
    subprocess.run(cmd, check=True, capture_output=True, text=True)
    return TilecKernel(out[:-len(".cubin")] + ".json")


def check(c, ref, rtol, k):
    atol = rtol * math.sqrt(k / 3.0)
    c64 = c.double()
    finite = bool(torch.isfinite(c64).all())
    err = (c64 - ref).abs()
    ok_elems = bool((err <= atol + rtol * ref.abs()).all())
    rel_l2 = float(torch.linalg.norm(c64 - ref) / torch.linalg.norm(ref))
    max_rel = float((err / ref.abs().clamp_min(atol)).max())
    return finite and ok_elems and rel_l2 < rtol, max_rel, rel_l2


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--tilec", required=True)
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--json")
    parser.add_argument("--dtypes", default="bf16,fp16")
    parser.add_argument("--tilec-args", default="", help="extra tilec flags for every compile")
    parser.add_argument("--ablation", action="store_true",
                        help="also time bf16 4096^3 and 8192^3 with each Hopper feature turned off")
    args = parser.parse_args()
    torch.manual_seed(int.from_bytes(os.urandom(4), "little"))
    outdir = tempfile.mkdtemp(prefix="gemm-")
    # Triton runs the same source, with tilec's spellings rewritten
    # (test/e2e/triton_compile.py).
    triton_source = os.path.join(outdir, "matmul_triton.py")
    with open(EXAMPLE) as f, open(triton_source, "w") as out:
        out.write(triton_compile.rewrite_module(f.read()))
    triton_compile.install_tilec_alias()
    triton_kernel = triton_compile.load_module(triton_source).matmul_kernel
    rows = []
    failed = False
    for dtype in args.dtypes.split(","):
        tdt = DTYPES[dtype]
        for (m, n, k) in shapes(args.quick):
            cfg = config(m, n, k)
            a = torch.empty(m, k, device="cuda", dtype=tdt).uniform_(-1, 1)
            b = torch.empty(k, n, device="cuda", dtype=tdt).uniform_(-1, 1)
            ref = a.double() @ b.double()
            grid = (triton.cdiv(m, cfg["BLOCK_M"]) * triton.cdiv(n, cfg["BLOCK_N"]),)
            row = dict(dtype=dtype, M=m, N=n, K=k, config=cfg)
            flops = 2.0 * m * n * k
            try:
                kern = compile_tilec(args.tilec, dtype, m, n, k, cfg, outdir,
                                     args.tilec_args.split())
                c = torch.full((m, n), float("nan"), device="cuda", dtype=torch.float32)
                launch = lambda: kern(grid, a, b, c, m, n, k, a.stride(0), b.stride(0), c.stride(0))
                launch()
                torch.cuda.synchronize()
                ok, max_rel, rel_l2 = check(c, ref, RTOL[dtype], k)
                row.update(tilec_ok=ok, max_rel=max_rel, rel_l2=rel_l2,
                           registers=kern.meta["ptxas"]["registers"],
                           spills=kern.meta["ptxas"]["spill_stores"])
                failed |= not ok
                row["tilec_ms"] = triton.testing.do_bench(launch, warmup=25, rep=100)
            except Exception as e:  # report and go on with the other shapes
                row["tilec_error"] = str(e)[-400:]
                failed = True
            row["cublas_ms"] = triton.testing.do_bench(lambda: torch.matmul(a, b), warmup=25, rep=100)
            try:
                ct = torch.empty((m, n), device="cuda", dtype=torch.float32)
                trun = lambda: triton_kernel[grid](a, b, ct, m, n, k, a.stride(0), a.stride(1),
                                                   b.stride(0), b.stride(1), ct.stride(0), ct.stride(1),
                                                   **cfg)
                trun()
                row["triton_ms"] = triton.testing.do_bench(trun, warmup=25, rep=100)
            except Exception as e:
                row["triton_error"] = str(e)[-400:]
            for key in ("tilec", "cublas", "triton"):
                if f"{key}_ms" in row:
                    row[f"{key}_tflops"] = flops / row[f"{key}_ms"] / 1e9
            rows.append(row)
            print(json.dumps(row), flush=True)
    print()
    print("| dtype | M x N x K | pass | max rel err | rel L2 | regs | tilec TFLOP/s | cuBLAS TFLOP/s | Triton TFLOP/s | tilec/cuBLAS | tilec/Triton |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        t, c_, tr = r.get("tilec_tflops"), r.get("cublas_tflops"), r.get("triton_tflops")
        fmt = lambda v: f"{v:.1f}" if v else "-"
        ratio = lambda x, y: f"{x / y:.2f}" if x and y else "-"
        status = "PASS" if r.get("tilec_ok") else ("FAIL" if "tilec_ok" in r else "ERROR")
        print(f"| {r['dtype']} | {r['M']}x{r['N']}x{r['K']} | {status} | {r.get('max_rel', 0):.2e} | "
              f"{r.get('rel_l2', 0):.2e} | {r.get('registers', '-')} | {fmt(t)} | {fmt(c_)} | {fmt(tr)} | "
              f"{ratio(t, c_)} | {ratio(t, tr)} |")
    ablation = run_ablation(args) if args.ablation else []
    failed |= any(not r.get("ok") for r in ablation)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"gemm": rows, "ablation": ablation}, f, indent=1)
    sys.exit(1 if failed else 0)


ABLATIONS = [
    ("all on (TMA + wgmma + pipeline)", []),
    ("--num-stages 1", ["--num-stages", "1"]),
    ("--disable-tma", ["--disable-tma"]),
    ("--disable-wgmma", ["--disable-wgmma"]),
]


def run_ablation(args):
    """The same kernel and block sizes with one Hopper feature off at a time
    (checked against the float64 reference too)."""
    outdir = tempfile.mkdtemp(prefix="ablation-")
    rows = []
    for (m, n, k) in [(4096, 4096, 4096), (8192, 8192, 8192)]:
        cfg = config(m, n, k)
        a = torch.empty(m, k, device="cuda", dtype=torch.bfloat16).uniform_(-1, 1)
        b = torch.empty(k, n, device="cuda", dtype=torch.bfloat16).uniform_(-1, 1)
        ref = a.double() @ b.double()
        grid = (triton.cdiv(m, cfg["BLOCK_M"]) * triton.cdiv(n, cfg["BLOCK_N"]),)
        cublas = triton.testing.do_bench(lambda: torch.matmul(a, b), warmup=25, rep=100)
        for name, flags in ABLATIONS:
            row = dict(shape=f"{m}x{n}x{k}", variant=name, ok=False)
            try:
                sub = os.path.join(outdir, name.replace(" ", "_").replace("-", "").replace("(", "").replace(")", "").replace("+", ""))
                os.makedirs(sub, exist_ok=True)
                kern = compile_tilec(args.tilec, "bf16", m, n, k, cfg, sub,
                                     args.tilec_args.split() + flags)
                c = torch.full((m, n), float("nan"), device="cuda", dtype=torch.float32)
                launch = lambda: kern(grid, a, b, c, m, n, k, a.stride(0), b.stride(0), c.stride(0))
                launch()
                torch.cuda.synchronize()
                ok, _, _ = check(c, ref, RTOL["bf16"], k)
                ms = triton.testing.do_bench(launch, warmup=10, rep=100)
                row.update(ok=ok, ms=ms, tflops=2.0 * m * n * k / ms / 1e9,
                           vs_cublas=cublas / ms,
                           registers=kern.meta["ptxas"]["registers"],
                           spills=kern.meta["ptxas"]["spill_stores"])
            except Exception as e:
                row["error"] = str(e)[-300:]
            rows.append(row)
            print(json.dumps(row), flush=True)
    print()
    print("| bf16 shape | variant | pass | TFLOP/s | vs cuBLAS | regs |")
    print("|---|---|---|---|---|---|")
    for r in rows:
        status = "PASS" if r["ok"] else ("FAIL" if "ms" in r else "ERROR")
        t = f"{r['tflops']:.1f}" if "tflops" in r else "-"
        v = f"{r['vs_cublas']:.2f}" if "vs_cublas" in r else "-"
        print(f"| {r['shape']} | {r['variant']} | {status} | {t} | {v} | {r.get('registers', '-')} |")
    return rows


if __name__ == "__main__":
    main()
