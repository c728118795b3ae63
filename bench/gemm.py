#!/usr/bin/env python3
"""GEMM on the H200: tilec vs cuBLAS (torch.matmul) vs Triton running the same
block-pointer kernel source (examples/matmul.tile), and Triton's
tensor-descriptor variant of it (bench/triton_descriptor_matmul.py), in one run.

Runs on the GPU machine (scripts/gpu-check.sh calls it with the carried
static tilec). For every shape: fresh random inputs in [-1, 1), the output
poisoned with NaN, checked against a float64 reference (torch on the GPU) with
the pass rule of DESIGN.md §6 (every element within atol + rtol·|ref| and
rel-L2 < rtol; rtol 2e-3 for fp16, 1e-2 for bf16, atol = rtol·sqrt(K/3)), then
timed (triton.testing.do_bench, median) for tilec, cuBLAS and Triton.
The kernel stores C in fp32 (tilec and Triton); cuBLAS returns the input dtype.
Block sizes: the shapes with enough 128x256 tiles to fill the GPU twice use
Triton's Hopper tutorial configuration; smaller and skinny shapes try a few
(`configs`) and each compiler gets its fastest passing one, as an autotuner
would give it. The timed tilec kernels are release builds (no bounded
mbarrier spin); pass --tilec-args=--mbarrier-spin-limit=N to time debug ones.

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
from triton_descriptor_matmul import matmul_descriptor_kernel  # noqa: E402

EXAMPLE = os.path.join(ROOT, "examples", "matmul.tile")
DTYPES = {"fp16": torch.float16, "bf16": torch.bfloat16}
RTOL = {"fp16": 2e-3, "bf16": 1e-2}


def shapes(quick):
    if quick:
        return [(1024, 1024, 1024), (4095, 4097, 4099)]
    return [(1024, 1024, 1024), (2048, 2048, 2048), (4096, 4096, 4096),
            (8192, 8192, 8192), (4095, 4097, 4099),
            (16, 8192, 8192), (64, 8192, 8192), (128, 8192, 8192)]


BIG = dict(BLOCK_M=128, BLOCK_N=256, BLOCK_K=64, GROUP_SIZE_M=8, num_warps=8, num_stages=3)
# The same with a fourth stage (192 KB of rings): a producer warpgroup
# (tilec's default for it) runs further ahead.
BIG4 = dict(BIG, num_stages=4)
MEDIUM = dict(BLOCK_M=128, BLOCK_N=128, BLOCK_K=64, GROUP_SIZE_M=8, num_warps=8, num_stages=4)
SMALL = dict(BLOCK_M=64, BLOCK_N=128, BLOCK_K=64, GROUP_SIZE_M=1, num_warps=4, num_stages=4)
NUM_SMS = 132


def config(m, n, k):
    """Triton's Hopper tutorial configuration (the ablation uses it)."""
    return BIG


def configs(m, n, k):
    """Candidate block sizes: 128x256 (3 or 4 stages) alone when it gives at
    least two waves of CTAs; otherwise also smaller blocks, which give more
    CTAs. tilec and Triton each run their fastest."""
    tiles = math.ceil(m / 128) * math.ceil(n / 256)
    if tiles >= 2 * NUM_SMS:
        return [BIG, BIG4]
    return [BIG, BIG4, MEDIUM, SMALL] if m > 64 else [SMALL, MEDIUM]


def cfg_name(cfg):
    return (f"{cfg['BLOCK_M']}x{cfg['BLOCK_N']}x{cfg['BLOCK_K']} w{cfg['num_warps']} "
            f"s{cfg['num_stages']}")


def entry(value):
    return "i32:16" if value % 16 == 0 else "i32"


def compile_tilec(tilec, dtype, m, n, k, cfg, outdir, extra, b_col_major=False):
    """examples/matmul.tile for row-major A and C; B row-major or, with
    b_col_major, column-major (stride_bk = 1, stride_bn = K)."""
    b_strides = f"1, {entry(k)}" if b_col_major else f"{entry(n)}, 1"
    sig = (f"*{dtype}:16, *{dtype}:16, *fp32:16, {entry(m)}, {entry(n)}, {entry(k)}, "
           f"{entry(k)}, 1, {b_strides}, {entry(n)}, 1, "
           f"{cfg['BLOCK_M']}, {cfg['BLOCK_N']}, {cfg['BLOCK_K']}, {cfg['GROUP_SIZE_M']}")
    out = os.path.join(outdir, f"mm_{dtype}_{m}_{n}_{k}_{cfg['BLOCK_M']}x{cfg['BLOCK_N']}"
                               f"w{cfg['num_warps']}s{cfg['num_stages']}.cubin")
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


def grid(m, n, cfg):
    return (triton.cdiv(m, cfg["BLOCK_M"]) * triton.cdiv(n, cfg["BLOCK_N"]),)


def fastest(make, candidates, c, ref, rtol, k):
    """Compiles and checks each candidate configuration (output poisoned with
    NaN first), times the ones that pass, returns the fastest (or the last
    error). make(cfg) -> (launch, info)."""
    best = {}
    for cfg in candidates:
        try:
            launch, info = make(cfg)
            c.fill_(float("nan"))
            launch()
            torch.cuda.synchronize()
            ok, max_rel, rel_l2 = check(c, ref, rtol, k)
            ms = triton.testing.do_bench(launch, warmup=25, rep=100)
        except Exception as e:  # report and go on with the other candidates
            best.setdefault("error", str(e)[-400:])
            continue
        if "ms" not in best or (ok, -ms) > (best["ok"], -best["ms"]):
            best.update(cfg=cfg, ok=ok, ms=ms, max_rel=max_rel, rel_l2=rel_l2, info=info)
            best.pop("error", None)
    return best


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--tilec", required=True)
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--json")
    parser.add_argument("--dtypes", default="bf16,fp16")
    parser.add_argument("--tilec-args", default="", help="extra tilec flags for every compile")
    parser.add_argument("--tilec-stages", type=int, default=0,
                        help="tilec's num_stages instead of the configuration's")
    parser.add_argument("--shapes", default="",
                        help="MxNxK,... instead of the default (or --quick) shapes")
    parser.add_argument("--fp8", action="store_true",
                        help="also fp8 e4m3 GEMM (B column-major) against torch._scaled_mm")
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
    triton.set_allocator(lambda size, align, stream:
                         torch.empty(size, dtype=torch.int8, device="cuda"))
    rows = []
    failed = False
    for dtype in args.dtypes.split(","):
        tdt = DTYPES[dtype]
        for (m, n, k) in ([tuple(int(x) for x in s.split("x")) for s in args.shapes.split(",")]
                          if args.shapes else shapes(args.quick)):
            a = torch.empty(m, k, device="cuda", dtype=tdt).uniform_(-1, 1)
            b = torch.empty(k, n, device="cuda", dtype=tdt).uniform_(-1, 1)
            ref = a.double() @ b.double()
            row = dict(dtype=dtype, M=m, N=n, K=k)
            flops = 2.0 * m * n * k
            c = torch.empty((m, n), device="cuda", dtype=torch.float32)

            def tilec_run(cfg):
                if args.tilec_stages:
                    cfg = dict(cfg, num_stages=args.tilec_stages)
                kern = compile_tilec(args.tilec, dtype, m, n, k, cfg, outdir,
                                     args.tilec_args.split())
                g = grid(m, n, cfg)
                return (lambda: kern(g, a, b, c, m, n, k, a.stride(0), b.stride(0), c.stride(0)),
                        dict(registers=kern.meta["ptxas"]["registers"],
                             spills=kern.meta["ptxas"]["spill_stores"]))

            def triton_run(cfg):
                return (lambda: triton_kernel[grid(m, n, cfg)](
                    a, b, c, m, n, k, a.stride(0), a.stride(1), b.stride(0), b.stride(1),
                    c.stride(0), c.stride(1), **cfg), {})

            def descriptor_run(cfg):
                return (lambda: matmul_descriptor_kernel[grid(m, n, cfg)](
                    a, b, c, m, n, k, a.stride(0), b.stride(0), c.stride(0), **cfg), {})

            for key, make in (("tilec", tilec_run), ("triton", triton_run),
                              ("triton_desc", descriptor_run)):
                best = fastest(make, configs(m, n, k), c, ref, RTOL[dtype], k)
                if best.get("error"):
                    row[f"{key}_error"] = best["error"]
                if "ms" in best:
                    row[f"{key}_ms"] = best["ms"]
                    row[f"{key}_config"] = cfg_name(best["cfg"])
                if key == "tilec":
                    row.update(tilec_ok=best.get("ok", False), max_rel=best.get("max_rel"),
                               rel_l2=best.get("rel_l2"), **best.get("info", {}))
                    failed |= not best.get("ok", False)
                elif "ms" in best and not best["ok"]:
                    row[f"{key}_wrong"] = True  # Triton's own result missed the reference
            row["cublas_ms"] = triton.testing.do_bench(lambda: torch.matmul(a, b), warmup=25, rep=100)
            for key in ("tilec", "cublas", "triton", "triton_desc"):
                if f"{key}_ms" in row:
                    row[f"{key}_tflops"] = flops / row[f"{key}_ms"] / 1e9
            rows.append(row)
            print(json.dumps(row), flush=True)
    print()
    print("| dtype | M x N x K | pass | max rel err | rel L2 | regs | tilec blocks | tilec TFLOP/s "
          "| cuBLAS TFLOP/s | Triton TFLOP/s | Triton desc. TFLOP/s | tilec/cuBLAS | tilec/Triton "
          "| tilec/Triton desc. |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        t, c_ = r.get("tilec_tflops"), r.get("cublas_tflops")
        # A Triton result that missed the reference has no speed to compare.
        tr = None if r.get("triton_wrong") else r.get("triton_tflops")
        td = None if r.get("triton_desc_wrong") else r.get("triton_desc_tflops")
        fmt = lambda v: f"{v:.1f}" if v else "-"
        ratio = lambda x, y: f"{x / y:.2f}" if x and y else "-"
        status = "PASS" if r.get("tilec_ok") else ("FAIL" if "tilec_ms" in r else "ERROR")
        print(f"| {r['dtype']} | {r['M']}x{r['N']}x{r['K']} | {status} | {r.get('max_rel') or 0:.2e} | "
              f"{r.get('rel_l2') or 0:.2e} | {r.get('registers', '-')} | {r.get('tilec_config', '-')} | "
              f"{fmt(t)} | {fmt(c_)} | {'WRONG' if r.get('triton_wrong') else fmt(tr)} | "
              f"{'WRONG' if r.get('triton_desc_wrong') else fmt(td)} | {ratio(t, c_)} | "
              f"{ratio(t, tr)} | {ratio(t, td)} |")
    fp8 = run_fp8(args, triton_kernel) if args.fp8 else []
    failed |= any(not r.get("tilec_ok") for r in fp8)
    ablation = run_ablation(args) if args.ablation else []
    failed |= any(not r.get("ok") for r in ablation)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"gemm": rows, "fp8": fp8, "ablation": ablation}, f, indent=1)
    sys.exit(1 if failed else 0)


FP8 = dict(BLOCK_M=128, BLOCK_N=256, BLOCK_K=128, GROUP_SIZE_M=8, num_warps=8, num_stages=3)


def run_fp8(args, triton_kernel):
    """fp8 e4m3 A (row-major) x B (column-major: the K-major order wgmma
    reads 8-bit B in) -> fp32, against torch._scaled_mm with per-tensor
    scales of 1.0 (cuBLAS; bf16 output when fp32 is refused) and Triton's
    run of the same block-pointer kernel; checked against float64."""
    outdir = tempfile.mkdtemp(prefix="fp8-")
    f8 = torch.float8_e4m3fn
    one = torch.tensor(1.0, device="cuda")
    rows = []
    for (m, n, k) in [(4096, 4096, 4096), (8192, 8192, 8192)]:
        cfg = FP8
        a = torch.empty(m, k, device="cuda").uniform_(-1, 1).to(f8)
        b = torch.empty(n, k, device="cuda").uniform_(-1, 1).to(f8).t()  # K x N, column-major
        ref = a.double() @ b.double()
        c = torch.empty((m, n), device="cuda", dtype=torch.float32)
        flops = 2.0 * m * n * k
        g = grid(m, n, cfg)
        row = dict(M=m, N=n, K=k, config=cfg_name(cfg))
        try:
            kern = compile_tilec(args.tilec, "fp8e4nv", m, n, k, cfg, outdir,
                                 args.tilec_args.split(), b_col_major=True)
            launch = lambda: kern(g, a, b, c, m, n, k, a.stride(0), b.stride(1), c.stride(0))
            c.fill_(float("nan"))
            launch()
            torch.cuda.synchronize()
            ok, max_rel, rel_l2 = check(c, ref, 1e-2, k)
            row.update(tilec_ok=ok, max_rel=max_rel, rel_l2=rel_l2,
                       registers=kern.meta["ptxas"]["registers"],
                       tilec_ms=triton.testing.do_bench(launch, warmup=25, rep=100))
        except Exception as e:
            row["tilec_error"] = str(e)[-400:]
        for out_dtype in (torch.float32, torch.bfloat16):
            try:
                mm = lambda: torch._scaled_mm(a, b, scale_a=one, scale_b=one, out_dtype=out_dtype)
                mm()
                row["cublas_ms"] = triton.testing.do_bench(mm, warmup=25, rep=100)
                row["cublas_out"] = str(out_dtype)
                break
            except Exception as e:
                row["cublas_error"] = str(e)[-300:]
        try:
            trun = lambda: triton_kernel[g](a, b, c, m, n, k, a.stride(0), a.stride(1),
                                            b.stride(0), b.stride(1), c.stride(0), c.stride(1), **cfg)
            c.fill_(float("nan"))
            trun()
            torch.cuda.synchronize()
            row["triton_ok"] = check(c, ref, 1e-2, k)[0]
            row["triton_ms"] = triton.testing.do_bench(trun, warmup=25, rep=100)
        except Exception as e:
            row["triton_error"] = str(e)[-300:]
        for key in ("tilec", "cublas", "triton"):
            if f"{key}_ms" in row:
                row[f"{key}_tflops"] = flops / row[f"{key}_ms"] / 1e9
        rows.append(row)
        print(json.dumps(row), flush=True)
    print()
    print("| fp8 e4m3 M x N x K | pass | max rel err | regs | tilec TFLOP/s | torch._scaled_mm TFLOP/s "
          "| Triton TFLOP/s | tilec/cuBLAS | tilec/Triton |")
    print("|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        t, c_, tr = r.get("tilec_tflops"), r.get("cublas_tflops"), r.get("triton_tflops")
        fmt = lambda v: f"{v:.1f}" if v else "-"
        ratio = lambda x, y: f"{x / y:.2f}" if x and y else "-"
        status = "PASS" if r.get("tilec_ok") else ("FAIL" if "tilec_ms" in r else "ERROR")
        print(f"| {r['M']}x{r['N']}x{r['K']} | {status} | {r.get('max_rel') or 0:.2e} | "
              f"{r.get('registers', '-')} | {fmt(t)} | {fmt(c_)} | {fmt(tr)} | {ratio(t, c_)} | "
              f"{ratio(t, tr)} |")
    return rows


ABLATIONS = [
    ("all on (TMA + wgmma + pipeline + warp specialization)", []),
    ("+ 4 stages", ["--num-stages", "4"]),
    ("+ clusters of 2 CTAs, B multicast (--num-ctas 2)", ["--num-ctas=2"]),
    ("+ 4 stages + clusters of 2", ["--num-stages", "4", "--num-ctas=2"]),
    ("--warp-specialize=off", ["--warp-specialize=off"]),
    ("--num-stages 1", ["--num-stages", "1"]),
    ("--disable-tma", ["--disable-tma"]),
    ("--disable-wgmma (mma.sync)", ["--disable-wgmma"]),
    ("--disable-wgmma --disable-mma (FMA)", ["--disable-wgmma", "--disable-mma"]),
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
