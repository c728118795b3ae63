"""Host time of a cached launch: @tilec.jit vs @triton.jit on the same kernel
(the same Python function), in µs per call, same run. Also checks both
kernels' results against torch.

    python3 bench/python_launch.py [--calls N] [--json FILE]
"""

import argparse
import json
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))

import torch
import triton
import triton.language as tl

import tilec


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) + tl.load(y_ptr + offs, mask=mask), mask=mask)


@triton.jit
def many_args_kernel(a, b, c, d, e, f, n0, n1, n2, n3, alpha, beta, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n0
    x = tl.load(a + offs, mask=mask) + tl.load(b + offs, mask=mask) * alpha
    tl.store(f + offs, x * beta + n1 + n2 + n3, mask=mask)


tilec_add = tilec.jit(add_kernel.fn)
tilec_many = tilec.jit(many_args_kernel.fn)


def per_call_us(fn, calls, repeats=5):
    samples = []
    for _ in range(repeats):
        torch.cuda.synchronize()
        start = time.perf_counter()
        for _ in range(calls):
            fn()
        elapsed = time.perf_counter() - start
        torch.cuda.synchronize()
        samples.append(elapsed / calls * 1e6)
    return statistics.median(samples)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--calls", type=int, default=20000)
    parser.add_argument("--json")
    args = parser.parse_args()
    n = 4096
    x, y = torch.randn(n, device="cuda"), torch.randn(n, device="cuda")
    outs = {name: torch.full((n,), float("nan"), device="cuda") for name in ("tilec", "triton")}
    grid = (triton.cdiv(n, 1024),)
    rows = []
    cases = {
        "add (4 args + BLOCK), tuple grid": (
            lambda: tilec_add[grid](x, y, outs["tilec"], n, BLOCK=1024),
            lambda: add_kernel[grid](x, y, outs["triton"], n, BLOCK=1024)),
        "add, lambda grid": (
            lambda: tilec_add[lambda m: (triton.cdiv(m["n"], m["BLOCK"]),)](x, y, outs["tilec"], n, BLOCK=1024),
            lambda: add_kernel[lambda m: (triton.cdiv(m["n"], m["BLOCK"]),)](x, y, outs["triton"], n, BLOCK=1024)),
        "12 args (6 tensors, 4 ints, 2 floats)": (
            lambda: tilec_many[grid](x, y, x, y, x, outs["tilec"], n, 3, 5, 7, 0.5, 2.0, BLOCK=1024),
            lambda: many_args_kernel[grid](x, y, x, y, x, outs["triton"], n, 3, 5, 7, 0.5, 2.0, BLOCK=1024)),
    }
    want = x + y
    for name, (tf, rf) in cases.items():
        tf(); rf()  # compile
        torch.cuda.synchronize()
        for which in ("tilec", "triton"):
            ref = want if "add" in name else (x + y * 0.5) * 2.0 + 15
            err = (outs[which] - ref).abs().max().item()
            if not err <= 1e-5:
                raise SystemExit(f"{name}: {which} result wrong (max error {err})")
            outs[which].fill_(float("nan"))
        t_us = per_call_us(tf, args.calls)
        r_us = per_call_us(rf, args.calls)
        rows.append({"case": name, "tilec_us": t_us, "triton_us": r_us, "ratio": t_us / r_us})
    print(f"{'launch (host time per cached call)':40s} {'tilec µs':>9s} {'triton µs':>9s} {'tilec/triton':>12s}")
    for r in rows:
        print(f"{r['case']:40s} {r['tilec_us']:9.2f} {r['triton_us']:9.2f} {r['ratio']:11.2f}x")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=1)


if __name__ == "__main__":
    main()
