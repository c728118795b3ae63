#!/usr/bin/env python3
"""One launch of one forward attention kernel, for ncu (issue 12).

Tutorial 06's block-pointer kernel (examples/attention.tile, P cast to V's
dtype), Z=4 H=16, BLOCK_M 128, BLOCK_N 64 (HEAD_DIM 64) or 128, 8 warps, 3
stages, compiled by tilec (with --flag options) or Triton 3.6 on the same
source, or SDPA with the cuDNN backend; the output is checked against
SDPA-flash first (a failed check exits 1). Then `--launches` launches in
an NVTX range "profile", whose first kernel ncu profiles with

    ncu --nvtx --nvtx-include "profile/" -c 1 --section SpeedOfLight \\
        python3 bench/attention_once.py --which tilec --tilec build/bin/tilec
"""

import argparse
import os
import sys

import torch
import triton

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import hopper_async as ha  # noqa: E402


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--which", choices=("tilec", "triton", "cudnn"), required=True)
    p.add_argument("--tilec", default=os.path.join(ha.ROOT, "build", "bin", "tilec"))
    p.add_argument("--flag", action="append", default=[], help="a tilec option")
    p.add_argument("--dtype", default="bf16", choices=("fp16", "bf16"))
    p.add_argument("--head-dim", type=int, default=128)
    p.add_argument("--n-ctx", type=int, default=4096)
    p.add_argument("--causal", action="store_true")
    p.add_argument("--launches", type=int, default=2)
    args = p.parse_args()
    ha.triton_compile.install_tilec_alias()
    Z, H, d, n_ctx, sm_scale = 4, 16, args.head_dim, args.n_ctx, 0.5
    bm, bn, stage = 128, (64 if d == 64 else 128), (3 if args.causal else 1)
    path = ha.variant(os.path.join(ha.ROOT, "examples", "attention.tile"),
                      [("p = p.to(tl.float16)", "p = p.to(v.dtype)")], "once_")
    tdt = ha.DTYPES[args.dtype]
    q, k, v = (torch.empty(Z, H, n_ctx, d, device="cuda", dtype=tdt).normal_() for _ in range(3))
    ref = ha.sdpa("flash", q, k, v, args.causal, sm_scale).double()
    o = torch.empty_like(q)
    lse = torch.empty(Z * H, n_ctx, device="cuda", dtype=torch.float32)
    grid = (triton.cdiv(n_ctx, bm), Z * H, 1)
    if args.which == "tilec":
        e = ha.entry
        st = ", ".join([e(H * n_ctx * d), e(n_ctx * d), e(d), "1"])
        sig = (f"*{args.dtype}:16, *{args.dtype}:16, *{args.dtype}:16, fp32, *fp32:16, "
               f"*{args.dtype}:16, " + ", ".join([st] * 4) +
               f", {e(Z)}, {e(H)}, {e(n_ctx)}, {d}, {bm}, {bn}, {stage}")
        kern, _ = ha.tilec_kernel(args.tilec, path, "_attn_fwd", sig, 8, 3, "once", args.flag)
        s4 = [H * n_ctx * d, n_ctx * d, d]
        launch = lambda: kern(grid, q, k, v, sm_scale, lse, o, *(s4 * 4), Z, H, n_ctx)
    elif args.which == "triton":
        tri = ha.triton_kernel(path, "_attn_fwd")
        strides = [x for t in (q, k, v, o) for x in t.stride()]
        launch = lambda: tri[grid](q, k, v, sm_scale, lse, o, *strides, Z, H, n_ctx,
                                   HEAD_DIM=d, BLOCK_M=bm, BLOCK_N=bn, STAGE=stage,
                                   num_warps=8, num_stages=3)
    else:
        def launch():
            o.copy_(ha.sdpa("cudnn", q, k, v, args.causal, sm_scale))
    o.fill_(float("nan"))
    launch()
    torch.cuda.synchronize()
    rtol, atol, l2 = {"fp16": (0, 2e-2, 5e-3), "bf16": (0, 8e-2, 2e-2)}[args.dtype]
    ok, err, rel = ha.check(o, ref, rtol, atol, l2)
    print(f"{args.which}: check {'PASS' if ok else 'FAIL'} max err {err:.3g} rel L2 {rel:.3g}")
    torch.cuda.nvtx.range_push("profile")
    for _ in range(args.launches):
        launch()
    torch.cuda.synchronize()
    torch.cuda.nvtx.range_pop()
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
