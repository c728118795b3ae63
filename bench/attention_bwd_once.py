#!/usr/bin/env python3
"""One launch of tutorial 06's backward kernel, for ncu (issue 12).

examples/attention_backward.tile's _attn_bwd (causal fp16, Z=4 H=16, the
tutorial's 32/128/128/32 blocks, 5 stages) compiled by tilec, launched
twice: a warm-up, then the one to profile. TILEC `triton` launches Triton's
compile of the same source instead (same blocks, warps and stages); with
DUMP_DIR set it also writes Triton's TTGIR, LLVM IR, PTX and cubin there.

  python3 bench/attention_bwd_once.py TILEC HEAD_DIM N_CTX NUM_WARPS [tilec flags...]
  ncu --kernel-name _attn_bwd --launch-skip 1 --launch-count 1 \
      --section SpeedOfLight --section WarpStateStats \
      python3 bench/attention_bwd_once.py build/bin/tilec 128 4096 8
"""
import os, sys
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import torch
import hopper_async as h

tilec, d, n_ctx, warps = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
h.TILEC_OPTIONS.extend(sys.argv[5:])
Z, H, sm_scale = 4, 16, 0.5
path = os.path.join(h.ROOT, "examples", "attention_backward.tile")
shape = (Z, H, n_ctx, d)
q, k, v, o, do = (torch.randn(shape, device="cuda", dtype=torch.float16) for _ in range(5))
lse = torch.randn(Z * H, n_ctx, device="cuda", dtype=torch.float32)
delta = torch.empty(Z * H, n_ctx, device="cuda", dtype=torch.float32)
grads = [torch.empty_like(q) for _ in range(3)]
sig_pre = f"*fp16:16, *fp16:16, *fp32:16, {h.entry(Z)}, {h.entry(H)}, {h.entry(n_ctx)}, 128, {d}"
sig = ("*fp16:16, *fp16:16, *fp16:16, fp32, *fp16:16, *fp16:16, *fp16:16, "
       f"*fp16:16, *fp32:16, *fp32:16, {h.entry(H * n_ctx * d)}, {h.entry(n_ctx * d)}, "
       f"{h.entry(d)}, 1, {h.entry(H)}, {h.entry(n_ctx)}, 32, 128, 128, 32, 2, {d}")
if tilec == "triton":
    h.triton_compile.install_tilec_alias()
    tri_pre = h.triton_kernel(path, "_attn_bwd_preprocess")
    tri_bwd = h.triton_kernel(path, "_attn_bwd")
    tri_pre[(n_ctx // 128, Z * H, 1)](o, do, delta, Z, H, n_ctx, BLOCK_M=128, HEAD_DIM=d)
    for _ in range(2):
        compiled = tri_bwd[(n_ctx // 128, 1, Z * H)](
            q, k, v, sm_scale, do, *grads, lse, delta, *q.stride(), H, n_ctx,
            BLOCK_M1=32, BLOCK_N1=128, BLOCK_M2=128, BLOCK_N2=32, BLK_SLICE_FACTOR=2,
            HEAD_DIM=d, num_warps=warps, num_stages=5)
    torch.cuda.synchronize()
    print("registers", compiled.n_regs, "spills", compiled.n_spills, "launched twice")
    if os.environ.get("DUMP_DIR"):  # Triton's IR and PTX, to read beside tilec's
        for key in ("ttgir", "llir", "ptx"):
            with open(os.path.join(os.environ["DUMP_DIR"], f"triton_bwd_d{d}_w{warps}.{key}"), "w") as f:
                f.write(compiled.asm[key])
        with open(os.path.join(os.environ["DUMP_DIR"], f"triton_bwd_d{d}_w{warps}.cubin"), "wb") as f:
            f.write(compiled.asm["cubin"])
    sys.exit(0)
pre, _ = h.tilec_kernel(tilec, path, "_attn_bwd_preprocess", sig_pre, 4, 3, "pre")
bwd, _ = h.tilec_kernel(tilec, path, "_attn_bwd", sig, warps, 5, "bwd")
pre((n_ctx // 128, Z * H, 1), o, do, delta, Z, H, n_ctx)
for _ in range(2):
    bwd((n_ctx // 128, 1, Z * H), q, k, v, sm_scale, do, *grads, lse, delta,
        H * n_ctx * d, n_ctx * d, d, H, n_ctx)
torch.cuda.synchronize()
print("registers", bwd.meta["ptxas"]["registers"], "launched twice")
