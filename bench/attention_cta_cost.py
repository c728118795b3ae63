#!/usr/bin/env python3
"""Where a forward attention CTA spends its time: a fixed cost per CTA (launch,
Q's load and the pipeline's fill, the epilogue) against a cost per iteration
(one 128 x 128 block of K and V), for tilec, Triton 3.6 and SDPA's cuDNN
backend (issue 12).

Tutorial 06's block-pointer kernel (examples/attention.tile, bf16, head dim
128, non-causal, BLOCK_M = BLOCK_N = 128, 8 warps, 3 stages) at N_CTX 2048,
4096, 8192 and 16384, with Z*H chosen so that every grid has 128 CTAs: one
round on an H100/H200 (132 SMs, one such CTA per SM). A CTA then runs
N_CTX / 128 iterations and the kernel's time is t0 + (N_CTX / 128) * t1; a
least-squares line through the four times gives t0 (µs per CTA) and t1
(µs per iteration) for each. Outputs are checked against SDPA-flash first.

  python3 bench/attention_cta_cost.py --tilec build/bin/tilec
"""
import argparse
import os
import sys

import torch
import triton

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import hopper_async as ha  # noqa: E402


HEAD_DIM, BLOCK, SM_SCALE = 128, 128, 0.5


class ForwardCase:
    """Tutorial 06 forward at one N_CTX: bf16 head dim 128, BLOCK_M = BLOCK_N
    = 128, Z = 1 and H chosen so that the grid has `ctas` programs; fresh
    normal inputs, SDPA-flash's output (float64) as the reference, and the
    launch arguments and `--signature` of the kernel (Triton's JIT
    specialization: integers divisible by 16 are `:16`, a 1 is a
    constexpr)."""

    def __init__(self, n_ctx, ctas, causal):
        e, d = ha.entry, HEAD_DIM
        self.n_ctx, self.stage = n_ctx, 3 if causal else 1
        self.Z, self.H = 1, max(1, ctas // (n_ctx // BLOCK))
        self.q, self.k, self.v = (
            torch.empty(self.Z, self.H, n_ctx, d, device="cuda", dtype=torch.bfloat16).normal_()
            for _ in range(3))
        self.ref = ha.sdpa("flash", self.q, self.k, self.v, causal, SM_SCALE).double()
        self.o = torch.empty_like(self.q)
        self.lse = torch.empty(self.Z * self.H, n_ctx, device="cuda", dtype=torch.float32)
        self.grid = (n_ctx // BLOCK, self.Z * self.H, 1)
        st = ", ".join([e(self.H * n_ctx * d), e(n_ctx * d), e(d), "1"])
        self.sig = ("*bf16:16, *bf16:16, *bf16:16, fp32, *fp32:16, *bf16:16, " +
                    ", ".join([st] * 4) + f", {e(self.Z)}, {e(self.H)}, {e(n_ctx)}, {d}, "
                    f"{BLOCK}, {BLOCK}, {self.stage}")

    def tilec_args(self):
        strides = [self.H * self.n_ctx * HEAD_DIM, self.n_ctx * HEAD_DIM, HEAD_DIM]
        dims = [x for x in (self.Z, self.H, self.n_ctx) if ha.entry(x) != "1"]
        return [self.q, self.k, self.v, SM_SCALE, self.lse, self.o, *(strides * 4), *dims]

    def triton_args(self):
        strides = [x for t in (self.q, self.k, self.v, self.o) for x in t.stride()]
        return [self.q, self.k, self.v, SM_SCALE, self.lse, self.o, *strides, self.Z, self.H,
                self.n_ctx]

    def triton_constexprs(self):
        return dict(HEAD_DIM=HEAD_DIM, BLOCK_M=BLOCK, BLOCK_N=BLOCK, STAGE=self.stage,
                    num_warps=8, num_stages=3)


def fit(xs, ys):
    n = len(xs)
    mx, my = sum(xs) / n, sum(ys) / n
    slope = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sum((x - mx) ** 2 for x in xs)
    return my - slope * mx, slope


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--tilec", required=True)
    p.add_argument("--ctas", type=int, default=128, help="CTAs per grid (one round: at most the SMs)")
    p.add_argument("--variant", action="append", default=[], metavar="NAME=FLAGS",
                   help="another tilec build of the kernel, with these space-separated flags")
    p.add_argument("--base-tilec", action="append", default=[], metavar="NAME=PATH[:FLAGS]",
                   help="another tilec binary (an earlier commit), with these space-separated flags")
    p.add_argument("--no-baselines", action="store_true", help="tilec only (no Triton, cuDNN)")
    p.add_argument("--source-variant", action="append", default=[], metavar="NAME|OLD|NEW|FLAGS",
                   help="a tilec build of the kernel with the text OLD of its source replaced "
                        "by NEW (\\n for a line break), with these space-separated flags "
                        "(to attribute a cost: e.g. the O store under an if that never holds; "
                        "its output is not checked)")
    p.add_argument("--causal", action="store_true",
                   help="the causal kernel (STAGE 3; the fit then means little, the table is the point)")
    args = p.parse_args()
    variants = {"tilec": []}
    binaries = {}
    for v in args.variant:
        name, _, flags = v.partition("=")
        variants[name] = flags.split()
    for v in args.base_tilec:
        name, _, spec = v.partition("=")
        binary, _, flags = spec.partition(":")
        variants[name] = flags.split()
        binaries[name] = binary
    ha.triton_compile.install_tilec_alias()
    path = ha.variant(os.path.join(ha.ROOT, "examples", "attention.tile"),
                      [("p = p.to(tl.float16)", "p = p.to(v.dtype)")], "cta_")
    tri = ha.triton_kernel(path, "_attn_fwd")
    paths = {name: path for name in variants}
    for v in args.source_variant:
        name, old, new, flags = v.split("|")
        variants[name] = flags.split()
        paths[name] = ha.variant(path, [(old, new.replace("\\n", "\n"))], f"cta_{name}_")
    others = [] if args.no_baselines else ["triton", "cudnn"]
    times = {key: [] for key in [*variants, *others]}
    iters = []
    print("| N_CTX | Z*H | CTAs | iterations | " + " | ".join(f"{key} µs" for key in times) + " |")
    print("|---|---|---|---|" + "---|" * len(times))
    for n_ctx in (2048, 4096, 8192, 16384):
        case = ForwardCase(n_ctx, args.ctas, args.causal)
        q, k, v, o, ref, grid = case.q, case.k, case.v, case.o, case.ref, case.grid
        row = {}
        for name, flags in variants.items():
            kern, _ = ha.tilec_kernel(binaries.get(name, args.tilec), paths[name], "_attn_fwd",
                                      case.sig, 8, 3, f"cta_{name}_{n_ctx}", flags)
            ok, _, _, ms = ha.timed(lambda: kern(grid, *case.tilec_args()), o, ref, 0, 8e-2, 2e-2)
            if not ok and paths[name] == path:
                print(f"check failed at N_CTX {n_ctx}: {name}")
                return 1
            row[name] = ms
        if others:
            tok, _, _, row["triton"] = ha.timed(
                lambda: tri[grid](*case.triton_args(), **case.triton_constexprs()),
                o, ref, 0, 8e-2, 2e-2)
            row["cudnn"] = ha.bench(lambda: ha.sdpa("cudnn", q, k, v, args.causal, SM_SCALE))
            if not tok:
                print(f"check failed at N_CTX {n_ctx}: Triton")
                return 1
        iters.append(n_ctx // BLOCK)
        for key, t in row.items():
            times[key].append(t * 1e3)
        print(f"| {n_ctx} | {grid[1]} | {grid[0] * grid[1]} | {n_ctx // BLOCK} | " +
              " | ".join(f"{row[key] * 1e3:.1f}" for key in times) + " |")
    print()
    for key, ys in times.items():
        t0, t1 = fit(iters, ys)
        print(f"{key}: {t0:.2f} µs per CTA + {t1:.3f} µs per iteration")
    return 0


if __name__ == "__main__":
    sys.exit(main())
