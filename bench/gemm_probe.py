#!/usr/bin/env python3
"""Where does tilec's GEMM lose time against Triton? Experiments on the H200.

For one shape and dtype (default bf16 8192^3, the benchmark's 128x256x64,
8-warp, 3-stage configuration) this times, in one process and with the same
inputs:
  - every tilec kernel variant found under --variants DIR (each a directory
    with the metadata JSON and cubin that `tilec -o DIR/mm.cubin` writes; the
    variants are built on the build machine, e.g. with other --num-stages or
    from hand-edited PTX), each checked against the float64 reference first;
  - Triton 3.6 running examples/matmul.tile (block pointers) and the same
    kernel written with tensor descriptors;
and writes what each compiler produced (Triton's TTGIR, PTX and SASS; the
SASS of every tilec cubin) under --dump DIR for side-by-side reading.

    python3 bench/gemm_probe.py --variants .carry/probe --dump $OUT/probe

With --once NAME it launches only that kernel once (for ncu).
"""

import argparse
import glob
import json
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
from gemm import check, RTOL  # noqa: E402
from triton_descriptor_matmul import matmul_descriptor_kernel  # noqa: E402

DTYPES = {"fp16": torch.float16, "bf16": torch.bfloat16}


def dump_triton(compiled, outdir, name):
    os.makedirs(outdir, exist_ok=True)
    for key in ("ttgir", "ptx"):
        if key in compiled.asm:
            with open(os.path.join(outdir, f"{name}.{key}"), "w") as f:
                f.write(compiled.asm[key])
    cubin = os.path.join(outdir, f"{name}.cubin")
    with open(cubin, "wb") as f:
        f.write(compiled.asm["cubin"])
    sass(cubin, os.path.join(outdir, f"{name}.sass"))
    meta = {k: getattr(compiled.metadata, k, None) for k in ("num_warps", "num_stages", "shared")}
    meta["n_regs"] = getattr(compiled, "n_regs", None)
    meta["n_spills"] = getattr(compiled, "n_spills", None)
    return meta


def sass(cubin, out):
    try:
        text = subprocess.run(["cuobjdump", "-sass", cubin], capture_output=True,
                              text=True, timeout=60).stdout
        with open(out, "w") as f:
            f.write(text)
    except Exception as e:  # keep going without the disassembly
        print(f"cuobjdump {cubin}: {e}")


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--variants", default=os.path.join(ROOT, ".carry", "probe"))
    p.add_argument("--dump")
    p.add_argument("--dtype", default="bf16")
    p.add_argument("--shape", default="8192,8192,8192")
    p.add_argument("--once", help="launch only this kernel once (for ncu)")
    args = p.parse_args()
    m, n, k = (int(v) for v in args.shape.split(","))
    cfg = dict(BLOCK_M=128, BLOCK_N=256, BLOCK_K=64, GROUP_SIZE_M=8)
    launch_cfg = dict(num_warps=8, num_stages=3)
    torch.manual_seed(int.from_bytes(os.urandom(4), "little"))
    dt = DTYPES[args.dtype]
    a = torch.empty(m, k, device="cuda", dtype=dt).uniform_(-1, 1)
    b = torch.empty(k, n, device="cuda", dtype=dt).uniform_(-1, 1)
    ref = None if args.once else a.double() @ b.double()
    grid = (triton.cdiv(m, cfg["BLOCK_M"]) * triton.cdiv(n, cfg["BLOCK_N"]),)
    flops = 2.0 * m * n * k
    triton.set_allocator(lambda size, align, stream: torch.empty(size, dtype=torch.int8, device="cuda"))

    kernels = {}
    for meta in sorted(glob.glob(os.path.join(args.variants, "*", "*.json"))):
        kern = TilecKernel(meta)
        kernels["tilec/" + os.path.basename(os.path.dirname(meta))] = (
            lambda kern=kern, c=None: (lambda c: kern(grid, a, b, c, m, n, k, a.stride(0), b.stride(0), c.stride(0))),
            kern)
    tmp = tempfile.mkdtemp(prefix="probe-")
    src = os.path.join(tmp, "matmul_triton.py")
    with open(os.path.join(ROOT, "examples", "matmul.tile")) as f, open(src, "w") as out:
        out.write(triton_compile.rewrite_module(f.read()))
    triton_compile.install_tilec_alias()
    block_ptr = triton_compile.load_module(src).matmul_kernel
    kernels["triton/block_ptr"] = (
        lambda: (lambda c: block_ptr[grid](a, b, c, m, n, k, a.stride(0), a.stride(1), b.stride(0),
                                           b.stride(1), c.stride(0), c.stride(1), **cfg, **launch_cfg)),
        None)
    kernels["triton/descriptor"] = (
        lambda: (lambda c: matmul_descriptor_kernel[grid](a, b, c, m, n, k, a.stride(0), b.stride(0),
                                                          c.stride(0), **cfg, **launch_cfg)),
        None)

    if args.once:
        c = torch.empty(m, n, device="cuda", dtype=torch.float32)
        kernels[args.once][0]()(c)
        torch.cuda.synchronize()
        return

    cublas_ms = triton.testing.do_bench(lambda: torch.matmul(a, b), warmup=25, rep=200)
    print(f"{args.dtype} {m}x{n}x{k}; cuBLAS {flops / cublas_ms / 1e9:.1f} TFLOP/s")
    print("| kernel | pass | regs | ms | TFLOP/s | vs cuBLAS |")
    print("|---|---|---|---|---|---|")
    rows = []
    compiled = {}
    for name, (make, kern) in kernels.items():
        row = dict(kernel=name)
        try:
            c = torch.full((m, n), float("nan"), device="cuda", dtype=torch.float32)
            run = make()
            compiled[name] = run(c)
            torch.cuda.synchronize()
            ok, max_rel, rel_l2 = check(c, ref, RTOL[args.dtype], k)
            ms = triton.testing.do_bench(lambda: run(c), warmup=25, rep=200)
            regs = kern.meta["ptxas"]["registers"] if kern else "-"
            row.update(ok=ok, ms=ms, tflops=flops / ms / 1e9, regs=regs)
            print(f"| {name} | {'PASS' if ok else 'FAIL'} | {regs} | {ms:.3f} | "
                  f"{flops / ms / 1e9:.1f} | {cublas_ms / ms:.2f} |", flush=True)
        except Exception as e:
            row["error"] = str(e)[-300:]
            print(f"| {name} | ERROR {row['error'][-120:]!r} | | | | |", flush=True)
        rows.append(row)
    if args.dump:
        os.makedirs(args.dump, exist_ok=True)
        for name in ("triton/block_ptr", "triton/descriptor"):
            try:  # a Triton launch returns its CompiledKernel
                rows.append(dict(kernel=name, meta=dump_triton(compiled[name], args.dump,
                                                                name.replace("/", "_"))))
            except Exception as e:
                print(f"dump {name}: {e}")
        for meta in glob.glob(os.path.join(args.variants, "*", "*.cubin")):
            sass(meta, os.path.join(args.dump, "tilec_" + os.path.basename(os.path.dirname(meta)) + ".sass"))
        with open(os.path.join(args.dump, "probe.json"), "w") as f:
            json.dump(rows, f, indent=1, default=str)


if __name__ == "__main__":
    main()
