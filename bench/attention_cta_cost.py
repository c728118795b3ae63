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
    p.add_argument("--no-baselines", action="store_true", help="tilec only (no Triton, cuDNN)")
    p.add_argument("--source-variant", action="append", default=[], metavar="NAME=FLAGS",
                   help="a tilec build of the kernel with its epilogue's division by l_i "
                        "written as a product with 1 / l_i, with these flags")
    p.add_argument("--causal", action="store_true",
                   help="the causal kernel (STAGE 3; the fit then means little, the table is the point)")
    args = p.parse_args()
    variants = {"tilec": []}
    for v in args.variant:
        name, _, flags = v.partition("=")
        variants[name] = flags.split()
    ha.triton_compile.install_tilec_alias()
    path = ha.variant(os.path.join(ha.ROOT, "examples", "attention.tile"),
                      [("p = p.to(tl.float16)", "p = p.to(v.dtype)")], "cta_")
    tri = ha.triton_kernel(path, "_attn_fwd")
    recip_path = ha.variant(os.path.join(ha.ROOT, "examples", "attention.tile"),
                            [("p = p.to(tl.float16)", "p = p.to(v.dtype)"),
                             ("acc = acc / l_i[:, None]", "acc = acc * (1.0 / l_i)[:, None]")],
                            "cta_recip_")
    paths = {name: path for name in variants}
    for v in args.source_variant:
        name, _, flags = v.partition("=")
        variants[name] = flags.split()
        paths[name] = recip_path
    d, bm, bn, sm_scale, e = 128, 128, 128, 0.5, ha.entry
    others = [] if args.no_baselines else ["triton", "cudnn"]
    times = {key: [] for key in [*variants, *others]}
    iters = []
    print("| N_CTX | Z*H | CTAs | iterations | " + " | ".join(f"{key} µs" for key in times) + " |")
    print("|---|---|---|---|" + "---|" * len(times))
    for n_ctx in (2048, 4096, 8192, 16384):
        Z, H = 1, max(1, args.ctas // (n_ctx // bm))
        q, k, v = (torch.empty(Z, H, n_ctx, d, device="cuda", dtype=torch.bfloat16).normal_()
                   for _ in range(3))
        ref = ha.sdpa("flash", q, k, v, args.causal, sm_scale).double()
        o = torch.empty_like(q)
        lse = torch.empty(Z * H, n_ctx, device="cuda", dtype=torch.float32)
        grid = (n_ctx // bm, Z * H, 1)
        st = ", ".join([e(H * n_ctx * d), e(n_ctx * d), e(d), "1"])
        sig = ("*bf16:16, *bf16:16, *bf16:16, fp32, *fp32:16, *bf16:16, " + ", ".join([st] * 4) +
               f", {e(Z)}, {e(H)}, {e(n_ctx)}, {d}, {bm}, {bn}, {3 if args.causal else 1}")
        s4 = [H * n_ctx * d, n_ctx * d, d]
        dims = [x for x in (Z, H, n_ctx) if e(x) != "1"]  # a 1 is a constexpr
        row = {}
        for name, flags in variants.items():
            kern, _ = ha.tilec_kernel(args.tilec, paths[name], "_attn_fwd", sig, 8, 3,
                                      f"cta_{name}_{n_ctx}", flags)
            ok, _, _, ms = ha.timed(lambda: kern(grid, q, k, v, sm_scale, lse, o, *(s4 * 4), *dims),
                                    o, ref, 0, 8e-2, 2e-2)
            if not ok:
                print(f"check failed at N_CTX {n_ctx}: {name}")
                return 1
            row[name] = ms
        if others:
            strides = [x for t in (q, k, v, o) for x in t.stride()]
            tok, _, _, row["triton"] = ha.timed(
                lambda: tri[grid](q, k, v, sm_scale, lse, o, *strides, Z, H, n_ctx,
                                  HEAD_DIM=d, BLOCK_M=bm, BLOCK_N=bn, STAGE=3 if args.causal else 1,
                                  num_warps=8, num_stages=3), o, ref, 0, 8e-2, 2e-2)
            row["cudnn"] = ha.bench(lambda: ha.sdpa("cudnn", q, k, v, args.causal, sm_scale))
            if not tok:
                print(f"check failed at N_CTX {n_ctx}: Triton")
                return 1
        iters.append(n_ctx // bn)
        for key, t in row.items():
            times[key].append(t * 1e3)
        print(f"| {n_ctx} | {Z * H} | {grid[0] * grid[1]} | {n_ctx // bn} | " +
              " | ".join(f"{row[key] * 1e3:.1f}" for key in times) + " |")
    print()
    for key, ys in times.items():
        t0, t1 = fit(iters, ys)
        print(f"{key}: {t0:.2f} µs per CTA + {t1:.3f} µs per iteration")
    return 0


if __name__ == "__main__":
    sys.exit(main())
