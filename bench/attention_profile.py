#!/usr/bin/env python3
"""One launch each of tutorial 06's forward attention compiled by tilec (with
the given flags), by Triton 3.6 on the same source, and of SDPA's cuDNN
backend, for Nsight Compute to read the counters of (issue 12: the measured
cause of a gap). bf16, head dim 128, BLOCK_M = BLOCK_N = 128, 8 warps,
3 stages, Z = 1, H chosen so that the grid has --ctas programs. Outputs are
checked against SDPA-flash before the profiled launches.

  ncu --clock-control none --kernel-name regex:'attn|sdpa|fmha|cudnn|flash' \\
      --section SpeedOfLight --section WarpStateStats \\
      python3 bench/attention_profile.py --tilec build/bin/tilec --flags=--persistent
"""
import argparse
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import hopper_async as ha  # noqa: E402
from attention_cta_cost import SM_SCALE, ForwardCase  # noqa: E402


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--tilec", required=True)
    p.add_argument("--flags", default="", help="space-separated tilec flags")
    p.add_argument("--n-ctx", type=int, default=4096)
    p.add_argument("--ctas", type=int, default=2048, help="programs in the grid")
    p.add_argument("--causal", action="store_true")
    args = p.parse_args()
    ha.triton_compile.install_tilec_alias()
    path = ha.variant(os.path.join(ha.ROOT, "examples", "attention.tile"),
                      [("p = p.to(tl.float16)", "p = p.to(v.dtype)")], "prof_")
    case = ForwardCase(args.n_ctx, args.ctas, args.causal)
    kern, _ = ha.tilec_kernel(args.tilec, path, "_attn_fwd", case.sig, 8, 3, "prof_tilec",
                              args.flags.split())
    tri = ha.triton_kernel(path, "_attn_fwd")
    launches = {
        "tilec": lambda: kern(case.grid, *case.tilec_args()),
        "triton": lambda: tri[case.grid](*case.triton_args(), **case.triton_constexprs()),
    }
    for name, launch in launches.items():
        case.o.fill_(float("nan"))
        launch()
        torch.cuda.synchronize()
        ok, err, rel_l2 = ha.check(case.o, case.ref, 0, 8e-2, 2e-2)
        print(f"{name}: {'PASS' if ok else 'FAIL'} max err {err:.2e} rel L2 {rel_l2:.2e}")
        if not ok:
            return 1
    ha.sdpa("cudnn", case.q, case.k, case.v, args.causal, SM_SCALE)
    torch.cuda.synchronize()
    return 0


if __name__ == "__main__":
    sys.exit(main())
