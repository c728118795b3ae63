#!/usr/bin/env python3
"""The Hopper async path on the H200 (issue 11's benchmark table): tilec
against cuBLAS / scaled_dot_product_attention and Triton 3.6 running the
same source with the same specialization, in one run.

GEMM (fp32 accumulation, 128x256x64 blocks, 8 warps, 3 stages, grouped
program order GROUP_SIZE_M = 8, for tilec and Triton alike):
  - Triton's tutorial 03 kernel as it is (examples/matmul_grouped.tile:
    pointer arithmetic, rows and columns wrapping with % M and % N, the K
    mask), fp16 4096^3 and 8192^3, and bf16 4095x4097x4099 (no TMA or
    cp.async possible: odd rows are 2-byte aligned);
  - the block-pointer kernel (examples/matmul.tile), fp16 and bf16 8192^3.
Triton compiles the same file (test/e2e/triton_compile.py rewrites tilec's
spellings; the tutorial's @triton.autotune decorator is dropped so both run
the one configuration). Integer arguments are specialized as Triton's JIT
does (:16 when divisible by 16, 1 as a constant).

Attention (tutorial 06 forward, Z=4 H=16, N_CTX 1024/4096/8192, HEAD_DIM 64
and 128, causal and not): the block-pointer kernel (examples/attention.tile)
in fp16 and in bf16 (P cast to V's type instead of fp16: the one line
changed, for both compilers) and in fp8 e5m2 (Q, K, V and Out, V stored
transposed as the tutorial does on Hopper; checked at 0.5 absolute plus
0.25 relative and rel-L2 0.1 against SDPA on the fp8 values), the descriptor kernel
(examples/attention_descriptor.tile, descriptors made in the kernel) in
fp16; 128 x 64 blocks for HEAD_DIM 64, 128 x 128 for 128, 8 warps, 3
stages (2 where 3 do not fit, for both); against SDPA with the flash and
the cuDNN backend forced. Outputs are checked against SDPA-flash's (2e-2
absolute, rel-L2 5e-3; bf16 8e-2 and 2e-2); GEMMs against float64.

Attention backward (tutorial 06's _attn_bwd_preprocess and _attn_bwd,
examples/attention_backward.tile, causal, fp16, Z=4 H=16): both kernels
per launch for tilec and Triton (32/128/128/32 blocks, 5 stages, the
tutorial's; its 4 warps, and 8), against causal SDPA's backward with the flash and the
cuDNN backend forced; dQ, dK, dV checked against SDPA-flash's (rel-L2 <
1e-2 each); FLOPs counted as the tutorial does (2.5 forward passes).

Ablation (the seed's table, issue 12): the fp16 block-pointer GEMM 4096^3
(128x256x64, 8 warps) and the bf16 block-pointer attention forward (D 128,
N_CTX 4096, non-causal, 128x128, 8 warps), each compiled with one Hopper
feature more per row: every dot on CUDA cores (FMA; --disable-wgmma
--disable-mma) -> mma.sync (--disable-wgmma) -> wgmma with its operands
stored to shared memory from registers, one stage (--disable-tma
--disable-cp-async --num-stages 1) -> + TMA (--disable-cp-async, one stage)
-> + pipelining (3 stages, --warp-specialize=off: the default compile
before warp specialization became the default), then the rows given with
--ablation-extra 'LABEL=FLAGS' (e.g. warp specialization, clusters). Each row is
checked like the others; TFLOP/s and the ratio to the row before.

Every output is poisoned (NaN) before the checked launch; inputs are fresh
uniform random numbers. Times: triton.testing.do_bench medians.

    python3 bench/hopper_async.py --tilec path/to/tilec [--json out.json]
        [--sections gemm,attention,attention_bwd,ablation] [--quick]
        [--ablation-extra 'LABEL=FLAGS' ...] [--tilec-option=--warp-specialize=all]
        [--attention-filter 'block bf16 D128'] [--attention-bwd-source FILE.tile]
"""

import argparse
import json
import math
import os
import re
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

DTYPES = {"fp16": torch.float16, "bf16": torch.bfloat16}
RTOL = {"fp16": 2e-3, "bf16": 1e-2}
TMP = tempfile.mkdtemp(prefix="hopper-")
# Extra options of every tilec compile (--tilec-option).
TILEC_OPTIONS = []


def entry(value):
    return "i32:16" if value % 16 == 0 else ("1" if value == 1 else "i32")


# --single-launch: every timed launch runs once, untimed, so that a profiler
# (ncu -k regex:NAME --launch-skip S -c C) sees a fixed launch order.
SINGLE_LAUNCH = False


def bench(fn):
    if SINGLE_LAUNCH:
        fn()
        torch.cuda.synchronize()
        return None
    return triton.testing.do_bench(fn, warmup=25, rep=100)


def drop_autotune(source):
    """The source without its @triton.autotune(...) decorator."""
    start = source.find("@triton.autotune(")
    if start < 0:
        return source
    depth, i = 0, source.index("(", start)
    while True:
        depth += {"(": 1, ")": -1}.get(source[i], 0)
        i += 1
        if depth == 0:
            break
    return source[:start] + source[i:].lstrip("\n")


def variant(path, replacements=(), tag=""):
    """A copy of an example with textual replacements (for both compilers)."""
    with open(path) as f:
        source = f.read()
    for old, new in replacements:
        if old not in source:
            raise ValueError(f"{old!r} not in {path}")
        source = source.replace(old, new)
    out = os.path.join(TMP, tag + os.path.basename(path))
    with open(out, "w") as f:
        f.write(source)
    return out


def triton_kernel(path, name):
    with open(path) as f:
        source = drop_autotune(f.read())
    out = os.path.join(TMP, os.path.basename(path) + ".triton.py")
    with open(out, "w") as f:
        f.write(triton_compile.rewrite_module(source))
    return getattr(triton_compile.load_module(out), name)


def tilec_kernel(tilec, path, kernel, sig, warps, stages, tag, flags=()):
    out = os.path.join(TMP, tag + ".cubin")
    cmd = [tilec, path, "--kernel", kernel, "--signature", sig, "--num-warps",
           str(warps), "--num-stages", str(stages), "-o", out, *TILEC_OPTIONS, *flags]
    run = subprocess.run(cmd, capture_output=True, text=True)
    if run.returncode != 0:
        raise RuntimeError(run.stderr[-600:])
    return TilecKernel(out[:-len(".cubin")] + ".json"), run.stderr


def check(out, ref, rtol, atol, l2):
    o = out.double()
    err = (o - ref).abs()
    ok = bool(torch.isfinite(o).all()) and bool((err <= atol + rtol * ref.abs()).all())
    rel_l2 = float(torch.linalg.norm(o - ref) / torch.linalg.norm(ref))
    return ok and rel_l2 < l2, float(err.max()), rel_l2


def timed(launch, out, ref, rtol, atol, l2=5e-3):
    """(ok, max err, rel L2, ms) of a launch, output poisoned first."""
    if out.element_size() == 1:
        out.view(torch.uint8).fill_(0x7F)  # e5m2 NaN
    else:
        out.fill_(float("nan"))
    launch()
    torch.cuda.synchronize()
    ok, err, rel_l2 = check(out, ref, rtol, atol, l2)
    return ok, err, rel_l2, bench(launch)


GEMM_CFG = dict(BLOCK_SIZE_M=128, BLOCK_SIZE_N=256, BLOCK_SIZE_K=64, GROUP_SIZE_M=8)


def gemm_rows(args):
    rows = []
    tutorial = os.path.join(ROOT, "examples", "matmul_grouped.tile")
    blockptr = os.path.join(ROOT, "examples", "matmul.tile")
    tri_tutorial = triton_kernel(tutorial, "matmul_kernel")
    tri_blockptr = triton_kernel(blockptr, "matmul_kernel")
    cases = [("tutorial 03 (pointers)", "fp16", 4096, 4096, 4096),
             ("tutorial 03 (pointers)", "fp16", 8192, 8192, 8192),
             ("tutorial 03 (pointers)", "bf16", 4095, 4097, 4099),
             ("block pointers, grouped", "fp16", 8192, 8192, 8192),
             ("block pointers, grouped", "bf16", 8192, 8192, 8192)]
    if args.quick:
        cases = cases[:1] + cases[2:4]
    c = GEMM_CFG
    for name, dtype, m, n, k in cases:
        tdt = DTYPES[dtype]
        a = torch.empty(m, k, device="cuda", dtype=tdt).uniform_(-1, 1)
        b = torch.empty(k, n, device="cuda", dtype=tdt).uniform_(-1, 1)
        ref = a.double() @ b.double()
        row = dict(kernel=name, dtype=dtype, shape=f"{m}x{n}x{k}")
        grid = (triton.cdiv(m, c["BLOCK_SIZE_M"]) * triton.cdiv(n, c["BLOCK_SIZE_N"]),)
        pointers = name.startswith("tutorial")
        out_dtype = torch.float16 if pointers else torch.float32
        out = torch.empty(m, n, device="cuda", dtype=out_dtype)
        rtol = max(RTOL[dtype], 1e-3 if pointers else 0)
        atol = rtol * math.sqrt(k / 3.0)
        try:
            if pointers:
                sig = (f"*{dtype}:16, *{dtype}:16, *fp16:16, {entry(m)}, {entry(n)}, {entry(k)}, "
                       f"{entry(k)}, 1, {entry(n)}, 1, {entry(n)}, 1, 128, 256, 64, 8, ''")
                kern, log = tilec_kernel(args.tilec, tutorial, "matmul_kernel", sig, 8, 3,
                                         f"t03_{dtype}_{m}")
                launch = lambda: kern(grid, a, b, out, m, n, k, k, n, n)
            else:
                sig = (f"*{dtype}:16, *{dtype}:16, *fp32:16, {entry(m)}, {entry(n)}, {entry(k)}, "
                       f"{entry(k)}, 1, {entry(n)}, 1, {entry(n)}, 1, 128, 256, 64, 8")
                kern, log = tilec_kernel(args.tilec, blockptr, "matmul_kernel", sig, 8, 3,
                                         f"bp_{dtype}_{m}")
                launch = lambda: kern(grid, a, b, out, m, n, k, k, n, n)
            ok, err, rel, ms = timed(launch, out, ref, rtol, atol)
            row.update(tilec_ok=ok, max_err=err, rel_l2=rel, tilec_ms=ms,
                       registers=kern.meta["ptxas"]["registers"],
                       remarks=[l for l in log.splitlines() if "remark" in l][:3])
        except Exception as e:
            row["tilec_error"] = str(e)[-600:]
        try:
            if pointers:
                tri = lambda: tri_tutorial[grid](a, b, out, m, n, k, a.stride(0), a.stride(1),
                                                 b.stride(0), b.stride(1), out.stride(0),
                                                 out.stride(1), ACTIVATION="", num_warps=8,
                                                 num_stages=3, **c)
            else:
                tri = lambda: tri_blockptr[grid](a, b, out, m, n, k, a.stride(0), a.stride(1),
                                                 b.stride(0), b.stride(1), out.stride(0),
                                                 out.stride(1), BLOCK_M=128, BLOCK_N=256,
                                                 BLOCK_K=64, GROUP_SIZE_M=8, num_warps=8,
                                                 num_stages=3)
            ok, _, _, ms = timed(tri, out, ref, rtol, atol)
            row.update(triton_ok=ok, triton_ms=ms)
        except Exception as e:
            row["triton_error"] = str(e)[-400:]
        row["cublas_ms"] = bench(lambda: torch.matmul(a, b))
        flops = 2.0 * m * n * k
        for key in ("tilec", "triton", "cublas"):
            if row.get(f"{key}_ms"):
                row[f"{key}_tflops"] = flops / row[f"{key}_ms"] / 1e9
        rows.append(row)
        print(json.dumps(row), flush=True)
        del a, b, ref, out
        torch.cuda.empty_cache()
    return rows


def sdpa(backend, q, k, v, causal, scale):
    from torch.nn.attention import SDPBackend, sdpa_kernel
    kind = {"flash": SDPBackend.FLASH_ATTENTION, "cudnn": SDPBackend.CUDNN_ATTENTION}[backend]
    with sdpa_kernel([kind]):
        return torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=causal,
                                                                scale=scale)


def attention_rows(args):
    rows = []
    Z, H = 4, 16
    block = os.path.join(ROOT, "examples", "attention.tile")
    block_bf16 = variant(block, [("p = p.to(tl.float16)", "p = p.to(v.dtype)")], "bf16_")
    desc = os.path.join(ROOT, "examples", "attention_descriptor.tile")
    kernels = {("block", "fp16"): block, ("block", "bf16"): block_bf16,
               ("block", "fp8"): block, ("descriptor", "fp16"): desc}
    tri = {key: triton_kernel(path, "_attn_fwd") for key, path in kernels.items()}
    triton.set_allocator(lambda size, align, stream:
                         torch.empty(size, dtype=torch.int8, device="cuda"))
    sm_scale = 0.5
    n_ctxs = [1024, 4096] if args.quick else [1024, 4096, 8192]
    for (version, dtype), path in kernels.items():
        fp8 = dtype == "fp8"
        tdt = torch.float16 if fp8 else DTYPES[dtype]
        for d in (64, 128):
            bm, bn = 128, (64 if d == 64 else 128)
            for causal in (False, True):
                stage = 3 if causal else 1
                for n_ctx in n_ctxs:
                    name = (f"{version} {dtype} D{d} {'causal' if causal else 'non-causal'} "
                            f"N{n_ctx}")
                    if not re.search(args.attention_filter, name):
                        continue
                    q, k, v = (torch.empty(Z, H, n_ctx, d, device="cuda", dtype=tdt).normal_()
                               for _ in range(3))
                    if fp8:
                        # The tutorial's fp8 inputs: e5m2, V stored transposed
                        # (N_CTX contiguous: the K-major B of the second dot).
                        q, k = q.to(torch.float8_e5m2), k.to(torch.float8_e5m2)
                        v = v.transpose(2, 3).contiguous().to(torch.float8_e5m2).transpose(2, 3)
                        ref = sdpa("flash", q.half(), k.half(), v.half().contiguous(), causal,
                                   sm_scale).double()
                        o = torch.empty(Z, H, n_ctx, d, device="cuda", dtype=torch.float8_e5m2)
                    else:
                        ref = sdpa("flash", q, k, v, causal, sm_scale).double()
                        o = torch.empty_like(q)
                    lse = torch.empty(Z * H, n_ctx, device="cuda", dtype=torch.float32)
                    # bf16 keeps 8 bits: P and Out round 8x coarser than fp16;
                    # e5m2 keeps 3 (P and Out round by up to 2^-3 relative
                    # each, so large outputs also get 2^-2 of their size:
                    # 0.5 absolute alone failed one draw in ~20 rows for
                    # tilec and Triton alike).
                    rtol, atol, l2 = {"fp16": (0, 2e-2, 5e-3), "bf16": (0, 8e-2, 2e-2),
                                      "fp8": (0.25, 0.5, 0.1)}[dtype]
                    grid = (triton.cdiv(n_ctx, bm), Z * H, 1)
                    row = dict(kernel=version, dtype=dtype, N_CTX=n_ctx, HEAD_DIM=d,
                               causal=causal, blocks=f"{bm}x{bn}")
                    flops = 4.0 * Z * H * n_ctx * n_ctx * d * (0.5 if causal else 1.0)
                    if version == "block":
                        sdt = "fp8e5" if fp8 else dtype
                        st = ", ".join([entry(H * n_ctx * d), entry(n_ctx * d), entry(d), "1"])
                        vst = ", ".join([entry(H * n_ctx * d), entry(n_ctx * d), "1", entry(n_ctx)]
                                        ) if fp8 else st
                        sig = (f"*{sdt}:16, *{sdt}:16, *{sdt}:16, fp32, *fp32:16, *{sdt}:16, "
                               + ", ".join([st, st, vst, st]) +
                               f", {entry(Z)}, {entry(H)}, {entry(n_ctx)}, {d}, {bm}, {bn}, {stage}")
                        s4 = [H * n_ctx * d, n_ctx * d, d]
                        v4 = [H * n_ctx * d, n_ctx * d, n_ctx] if fp8 else s4
                        run_args = [q, k, v, sm_scale, lse, o] + s4 * 2 + v4 + s4 + [Z, H, n_ctx]
                        tri_args = ([q, k, v, sm_scale, lse, o] + [x for t in (q, k, v, o) for x in t.stride()]
                                    + [Z, H, n_ctx])
                        tri_kw = dict(HEAD_DIM=d, BLOCK_M=bm, BLOCK_N=bn, STAGE=stage)
                    else:
                        sig = (f"fp32, *fp32:16, {entry(Z)}, {entry(H)}, *fp16:16, *fp16:16, *fp16:16, "
                               f"*fp16:16, {entry(n_ctx)}, {d}, {bm}, {bn}, 0, {stage}, 0, 1")
                        run_args = [sm_scale, lse, Z, H, q, k, v, o, n_ctx]
                        tri_args = run_args
                        tri_kw = dict(HEAD_DIM=d, BLOCK_M=bm, BLOCK_N=bn, FP8_OUTPUT=False,
                                      STAGE=stage, warp_specialize=False, IS_HOPPER=True)
                    try:
                        kern, log = tilec_kernel(args.tilec, path, "_attn_fwd", sig, 8, 3,
                                                 f"attn_{version}_{dtype}_{d}_{int(causal)}_{n_ctx}")
                        ok, err, rel, ms = timed(lambda: kern(grid, *run_args), o, ref, rtol, atol, l2)
                        row.update(tilec_ok=ok, max_err=err, rel_l2=rel, tilec_ms=ms,
                                   registers=kern.meta["ptxas"]["registers"],
                                   remarks=[l for l in log.splitlines() if "remark" in l][:2])
                    except Exception as e:
                        row["tilec_error"] = str(e)[-600:]
                    for stages in (3, 2):
                        try:
                            launch = lambda: tri[(version, dtype)][grid](*tri_args, **tri_kw, num_warps=8,
                                                                         num_stages=stages)
                            ok, _, _, ms = timed(launch, o, ref, rtol, atol, l2)
                            row.update(triton_ok=ok, triton_ms=ms, triton_stages=stages)
                            break
                        except Exception as e:
                            row["triton_error"] = str(e)[-300:]
                    for backend in ("flash", "cudnn"):
                        try:
                            row[f"sdpa_{backend}_ms"] = bench(
                                lambda: sdpa(backend, q, k, v, causal, sm_scale))
                        except Exception as e:
                            row[f"sdpa_{backend}_error"] = str(e)[-200:]
                    for key in ("tilec", "triton", "sdpa_flash", "sdpa_cudnn"):
                        if row.get(f"{key}_ms"):
                            row[f"{key}_tflops"] = flops / row[f"{key}_ms"] / 1e9
                    rows.append(row)
                    print(json.dumps(row), flush=True)
                    del q, k, v, o, ref
                    torch.cuda.empty_cache()
    return rows


# Block shapes of the one-sweep backward (BLOCK_N a multiple of BLOCK_M;
# 64/64 ran at 0.67x and 0.97x of 64/128 in run A, thirteenth session):
# (BLOCK_M, BLOCK_N, warps, extra tilec flags, their tag); Triton runs
# those without flags.
ATOMIC_CONFIGS = [(64, 128, 8, (), ""),
                  (64, 128, 8, ("--ptx-version=80",), "_ptx80"),
                  (64, 128, 8, ("--warp-specialize=off",), "_nows"),
                  (64, 128, 8, ("--warp-specialize=all",), "_ws")]


def atomic_tag(bm, bn, warps, flags, suffix):
    return f"atomic_{bm}_{bn}_w{warps}{suffix}"


def attention_bwd_rows(args):
    """Tutorial 06's backward (examples/attention_backward.tile, causal):
    the preprocess and _attn_bwd, for tilec and Triton on the same source
    (the tutorial's 32/128/128/32 blocks, 4 warps, 5 stages), against
    causal SDPA's backward with each backend forced. Gradients are checked
    against SDPA-flash's (rel-L2 < 1e-2 each)."""
    rows = []
    Z, H, sm_scale = 4, 16, 0.5
    rcp_ln2 = 1.4426950408889634
    path = args.attention_bwd_source or os.path.join(ROOT, "examples", "attention_backward.tile")
    tri_pre = triton_kernel(path, "_attn_bwd_preprocess")
    tri_bwd = triton_kernel(path, "_attn_bwd")
    atomic_path = (args.attention_bwd_atomic_source or
                   os.path.join(ROOT, "examples", "attention_backward_atomic.tile"))
    tri_atomic = triton_kernel(atomic_path, "_attn_bwd_atomic")
    tri_conv = triton_kernel(atomic_path, "_attn_bwd_dq_convert")
    n_ctxs = [1024, 4096] if args.quick else [1024, 4096, 8192]
    for d in (64, 128):
        for n_ctx in n_ctxs:
            if not re.search(args.attention_filter, f"backward fp16 D{d} causal N{n_ctx}"):
                continue
            row = dict(kernel="backward", dtype="fp16", N_CTX=n_ctx, HEAD_DIM=d, causal=True,
                       blocks="32/128/128/32")
            shape = (Z, H, n_ctx, d)
            q, k, v = (torch.empty(shape, device="cuda", dtype=torch.float16).normal_(0, 0.5)
                       .requires_grad_() for _ in range(3))
            do = torch.randn(shape, device="cuda", dtype=torch.float16)
            outs = {}
            for backend in ("flash", "cudnn"):
                try:
                    outs[backend] = sdpa(backend, q, k, v, True, sm_scale)
                except Exception as e:
                    row[f"sdpa_{backend}_error"] = str(e)[-200:]
            o = outs["flash"].detach()
            ref = [g.double() for g in torch.autograd.grad(outs["flash"], (q, k, v), do,
                                                           retain_graph=True)]
            with torch.no_grad():
                s = torch.matmul(q.float(), k.float().transpose(2, 3)) * sm_scale
                s.masked_fill_(torch.ones(n_ctx, n_ctx, device="cuda", dtype=torch.bool)
                               .triu(1), float("-inf"))
                lse = (torch.logsumexp(s, -1) * rcp_ln2).reshape(Z * H, n_ctx).contiguous()
                del s
                arg_k = (k * (sm_scale * rcp_ln2)).detach()
                qd, vd = q.detach(), v.detach()
            delta = torch.empty(Z * H, n_ctx, device="cuda", dtype=torch.float32)
            grads = [torch.empty_like(qd) for _ in range(3)]
            pre_grid, grid = (n_ctx // 128, Z * H, 1), (n_ctx // 128, 1, Z * H)

            def check_grads():
                errs = [float(torch.linalg.norm(g.double() - r) / torch.linalg.norm(r))
                        for g, r in zip(grads, ref)]
                return all(e < 1e-2 for e in errs), max(errs)

            def timed_pair(launch):
                for g in grads:
                    g.fill_(float("nan"))
                launch()
                torch.cuda.synchronize()
                ok, err = check_grads()
                return ok, err, bench(launch)

            flops = 2.5 * 4.0 * Z * H * n_ctx * n_ctx * d * 0.5
            sig_pre = (f"*fp16:16, *fp16:16, *fp32:16, {entry(Z)}, {entry(H)}, "
                       f"{entry(n_ctx)}, 128, {d}")
            sig = ("*fp16:16, *fp16:16, *fp16:16, fp32, *fp16:16, *fp16:16, *fp16:16, "
                   f"*fp16:16, *fp32:16, *fp32:16, {entry(H * n_ctx * d)}, {entry(n_ctx * d)}, "
                   f"{entry(d)}, 1, {entry(H)}, {entry(n_ctx)}, 32, 128, 128, 32, 2, {d}")
            # The tutorial's 4 warps, then 8 (two warpgroups share the
            # 128-row dK, dV and dQ accumulators) for both compilers.
            pre = None
            for warps in ((4, 8) if "tutorial" in args.attention_bwd_kernels else ()):
                tag = "" if warps == 4 else f"_w{warps}"
                try:
                    if pre is None:
                        pre, _ = tilec_kernel(args.tilec, path, "_attn_bwd_preprocess", sig_pre,
                                              4, 3, f"bwdpre_{d}_{n_ctx}")
                    bwd, log = tilec_kernel(args.tilec, path, "_attn_bwd", sig, warps, 5,
                                            f"bwd_{d}_{n_ctx}_{warps}")

                    def launch():
                        pre(pre_grid, o, do, delta, Z, H, n_ctx)
                        bwd(grid, qd, arg_k, vd, sm_scale, do, *grads, lse, delta,
                            H * n_ctx * d, n_ctx * d, d, H, n_ctx)
                    ok, err, ms = timed_pair(launch)
                    row.update({f"tilec{tag}_ok": ok, f"rel_l2{tag}": err, f"tilec{tag}_ms": ms,
                                f"registers{tag}": bwd.meta["ptxas"]["registers"],
                                f"spills{tag}": bwd.meta["ptxas"].get("spill_stores")})
                    if warps == 4:
                        row["remarks"] = [l for l in log.splitlines() if "remark" in l][:2]
                except Exception as e:
                    row[f"tilec{tag}_error"] = str(e)[-600:]
                try:
                    def tri_launch():
                        tri_pre[pre_grid](o, do, delta, Z, H, n_ctx, BLOCK_M=128, HEAD_DIM=d)
                        tri_bwd[grid](qd, arg_k, vd, sm_scale, do, *grads, lse, delta,
                                      *qd.stride(), H, n_ctx, BLOCK_M1=32, BLOCK_N1=128,
                                      BLOCK_M2=128, BLOCK_N2=32, BLK_SLICE_FACTOR=2,
                                      HEAD_DIM=d, num_warps=warps, num_stages=5)
                    ok, _, ms = timed_pair(tri_launch)
                    row.update({f"triton{tag}_ok": ok, f"triton{tag}_ms": ms})
                except Exception as e:
                    row[f"triton{tag}_error"] = str(e)[-300:]
            # FlashAttention-2's one sweep (examples/attention_backward_atomic.tile):
            # five products a pair of blocks instead of the tutorial's seven,
            # dQ added into an fp32 buffer; several block shapes for both
            # compilers (the best of each is compared).
            dq_acc = torch.empty(shape, device="cuda", dtype=torch.float32)
            n_el = Z * H * n_ctx * d
            sig_conv = f"*fp32:16, *fp16:16, {entry(n_el)}, 1024"
            conv_grid = ((n_el + 1023) // 1024, 1, 1)
            one_sweep = ATOMIC_CONFIGS if "one-sweep" in args.attention_bwd_kernels else []
            for bm, bn, warps, flags, suffix in one_sweep:
                tag = atomic_tag(bm, bn, warps, flags, suffix)
                sig_atomic = ("*fp16:16, *fp16:16, *fp16:16, fp32, *fp16:16, *fp32:16, *fp16:16, "
                              f"*fp16:16, *fp32:16, *fp32:16, {entry(H * n_ctx * d)}, "
                              f"{entry(n_ctx * d)}, {entry(d)}, 1, {entry(H)}, {entry(n_ctx)}, "
                              f"{bm}, {bn}, {d}, 1")
                atomic_grid = (n_ctx // bn, 1, Z * H)
                try:
                    if pre is None:
                        pre, _ = tilec_kernel(args.tilec, path, "_attn_bwd_preprocess", sig_pre,
                                              4, 3, f"bwdpre_{d}_{n_ctx}")
                    bwd, _ = tilec_kernel(args.tilec, atomic_path, "_attn_bwd_atomic", sig_atomic,
                                          warps, 3, f"bwd{tag}_{d}_{n_ctx}", flags)
                    conv, _ = tilec_kernel(args.tilec, atomic_path, "_attn_bwd_dq_convert",
                                           sig_conv, 4, 1, f"bwdconv_{d}_{n_ctx}")

                    def launch():
                        pre(pre_grid, o, do, delta, Z, H, n_ctx)
                        dq_acc.zero_()
                        bwd(atomic_grid, qd, arg_k, vd, sm_scale, do, dq_acc, grads[1], grads[2],
                            lse, delta, H * n_ctx * d, n_ctx * d, d, H, n_ctx)
                        conv(conv_grid, dq_acc, grads[0], n_el)
                    ok, err, ms = timed_pair(launch)
                    row.update({f"{tag}_ok": ok, f"rel_l2_{tag}": err, f"{tag}_ms": ms,
                                f"registers_{tag}": bwd.meta["ptxas"]["registers"],
                                f"spills_{tag}": bwd.meta["ptxas"].get("spill_stores")})
                except Exception as e:
                    row[f"{tag}_error"] = str(e)[-600:]
                if flags:
                    continue
                try:
                    def tri_atomic_launch():
                        tri_pre[pre_grid](o, do, delta, Z, H, n_ctx, BLOCK_M=128, HEAD_DIM=d)
                        dq_acc.zero_()
                        tri_atomic[atomic_grid](qd, arg_k, vd, sm_scale, do, dq_acc, grads[1],
                                                grads[2], lse, delta, *qd.stride(), H, n_ctx,
                                                BLOCK_M=bm, BLOCK_N=bn, HEAD_DIM=d, CAUSAL=True,
                                                num_warps=warps, num_stages=3)
                        tri_conv[conv_grid](dq_acc, grads[0], n_el, BLOCK=1024)
                    ok, _, ms = timed_pair(tri_atomic_launch)
                    row.update({f"triton_{tag}_ok": ok, f"triton_{tag}_ms": ms})
                    # How Triton adds dQ (its PTX's atom/red forms).
                    compiled = tri_atomic[atomic_grid](
                        qd, arg_k, vd, sm_scale, do, dq_acc, grads[1], grads[2], lse, delta,
                        *qd.stride(), H, n_ctx, BLOCK_M=bm, BLOCK_N=bn, HEAD_DIM=d, CAUSAL=True,
                        num_warps=warps, num_stages=3)
                    forms = re.findall(r"\b(?:red|atom)\.[a-z0-9_.:]+", compiled.asm.get("ptx", ""))
                    row[f"triton_{tag}_atomics"] = {f: forms.count(f) for f in sorted(set(forms))}
                except Exception as e:
                    row[f"triton_{tag}_error"] = str(e)[-300:]
            for backend, out in outs.items():
                try:
                    row[f"sdpa_{backend}_ms"] = bench(
                        lambda: torch.autograd.grad(out, (q, k, v), do, retain_graph=True))
                except Exception as e:
                    row[f"sdpa_{backend}_error"] = str(e)[-200:]
            atomic_tags = [atomic_tag(*c) for c in ATOMIC_CONFIGS]
            for key in ("tilec", "tilec_w8", "triton", "triton_w8", "sdpa_flash", "sdpa_cudnn",
                        *atomic_tags, *(f"triton_{t}" for t in atomic_tags)):
                if row.get(f"{key}_ms"):
                    row[f"{key}_tflops"] = flops / row[f"{key}_ms"] / 1e9
            rows.append(row)
            print(json.dumps(row), flush=True)
            del q, k, v, do, outs, o, ref, grads, lse, arg_k, qd, vd, delta, dq_acc
            torch.cuda.empty_cache()
    return rows


ABLATION = [("naive (FMA on CUDA cores)", ["--disable-wgmma", "--disable-mma"], 1),
            ("mma.sync", ["--disable-wgmma"], 1),
            ("wgmma (operands stored from registers)", ["--disable-tma", "--disable-cp-async"], 1),
            ("+ TMA", ["--disable-cp-async"], 1),
            ("+ pipelining (3 stages)", ["--warp-specialize=off"], 3)]


def ablation_rows(args):
    """One Hopper feature more per row, on one GEMM and one attention."""
    steps = list(ABLATION)
    for extra in args.ablation_extra or []:
        label, _, flags = extra.partition("=")
        steps.append((label, flags.split(), 3))
    rows = []
    m = n = k = 4096
    a = torch.empty(m, k, device="cuda", dtype=torch.float16).uniform_(-1, 1)
    b = torch.empty(k, n, device="cuda", dtype=torch.float16).uniform_(-1, 1)
    ref = a.double() @ b.double()
    out = torch.empty(m, n, device="cuda", dtype=torch.float32)
    grid = (triton.cdiv(m, 128) * triton.cdiv(n, 256),)
    sig = (f"*fp16:16, *fp16:16, *fp32:16, {entry(m)}, {entry(n)}, {entry(k)}, "
           f"{entry(k)}, 1, {entry(n)}, 1, {entry(n)}, 1, 128, 256, 64, 8")
    path = os.path.join(ROOT, "examples", "matmul.tile")
    for label, flags, stages in steps:
        row = dict(section="ablation", kernel="GEMM fp16 4096^3", step=label, flags=" ".join(flags))
        try:
            kern, _ = tilec_kernel(args.tilec, path, "matmul_kernel", sig, 8, stages,
                                   f"abl_gemm_{len(rows)}", flags)
            ok, err, rel, ms = timed(lambda: kern(grid, a, b, out, m, n, k, k, n, n), out, ref,
                                     2e-3, 2e-3 * math.sqrt(k / 3.0))
            row.update(tilec_ok=ok, rel_l2=rel, tilec_ms=ms, tilec_tflops=2.0 * m * n * k / ms / 1e9,
                       registers=kern.meta["ptxas"]["registers"])
        except Exception as e:
            row["tilec_error"] = str(e)[-400:]
        rows.append(row)
        print(json.dumps(row), flush=True)
    del a, b, ref, out
    Z, H, n_ctx, d, bm, bn, sm_scale = 4, 16, 4096, 128, 128, 128, 0.5
    path = variant(os.path.join(ROOT, "examples", "attention.tile"),
                   [("p = p.to(tl.float16)", "p = p.to(v.dtype)")], "abl_bf16_")
    q, kk, v = (torch.empty(Z, H, n_ctx, d, device="cuda", dtype=torch.bfloat16).normal_()
                for _ in range(3))
    ref = sdpa("flash", q, kk, v, False, sm_scale).double()
    o = torch.empty_like(q)
    lse = torch.empty(Z * H, n_ctx, device="cuda", dtype=torch.float32)
    st = ", ".join([entry(H * n_ctx * d), entry(n_ctx * d), entry(d), "1"])
    sig = (f"*bf16:16, *bf16:16, *bf16:16, fp32, *fp32:16, *bf16:16, " + ", ".join([st] * 4) +
           f", {entry(Z)}, {entry(H)}, {entry(n_ctx)}, {d}, {bm}, {bn}, 1")
    s4 = [H * n_ctx * d, n_ctx * d, d]
    run_args = [q, kk, v, sm_scale, lse, o] + s4 * 4 + [Z, H, n_ctx]
    grid = (triton.cdiv(n_ctx, bm), Z * H, 1)
    flops = 4.0 * Z * H * n_ctx * n_ctx * d
    for label, flags, stages in steps:
        row = dict(section="ablation", kernel="attention bf16 D128 N4096", step=label,
                   flags=" ".join(flags))
        try:
            kern, _ = tilec_kernel(args.tilec, path, "_attn_fwd", sig, 8, stages,
                                   f"abl_attn_{len(rows)}", flags)
            ok, err, rel, ms = timed(lambda: kern(grid, *run_args), o, ref, 0, 8e-2, 2e-2)
            row.update(tilec_ok=ok, rel_l2=rel, tilec_ms=ms, tilec_tflops=flops / ms / 1e9,
                       registers=kern.meta["ptxas"]["registers"])
        except Exception as e:
            row["tilec_error"] = str(e)[-400:]
        rows.append(row)
        print(json.dumps(row), flush=True)
    del q, kk, v, o, ref
    torch.cuda.empty_cache()
    return rows


def fmt(v):
    return f"{v:.1f}" if v else "-"


def ratio(x, y):
    return f"{x / y:.2f}" if x and y else "-"


def status(r):
    return "PASS" if r.get("tilec_ok") else ("FAIL" if "tilec_ms" in r else "ERROR")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--tilec", required=True)
    parser.add_argument("--json")
    parser.add_argument("--sections", default="gemm,attention,attention_bwd")
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--ablation-extra", action="append",
                        help="an ablation row after pipelining: 'LABEL=tilec flags'")
    parser.add_argument("--attention-bwd-source", default="",
                        help="the backward kernels' .tile file, for both compilers "
                             "(default: examples/attention_backward.tile)")
    parser.add_argument("--attention-bwd-atomic-source", default="",
                        help="the one-sweep kernels' .tile file, for both compilers "
                             "(default: examples/attention_backward_atomic.tile)")
    parser.add_argument("--attention-bwd-kernels", default="tutorial,one-sweep",
                        help="which backward kernels the attention_bwd section runs: "
                             "tutorial (examples/attention_backward.tile) and/or one-sweep "
                             "(examples/attention_backward_atomic.tile)")
    parser.add_argument("--attention-filter", default="",
                        help="only the attention rows whose name matches (a regex "
                             "over 'block|descriptor fp16|bf16|fp8 D64|D128 "
                             "causal|non-causal N1024...', and 'backward fp16 "
                             "D64|D128 causal N1024...' for the backward)")
    parser.add_argument("--tilec-option", action="append", default=[],
                        help="pass this option to every tilec compile (repeatable), "
                             "e.g. --tilec-option=--warp-specialize=all")
    parser.add_argument("--single-launch", action="store_true",
                        help="run each timed launch once, untimed (times print as '-'): "
                             "a fixed launch order for ncu")
    args = parser.parse_args()
    global SINGLE_LAUNCH
    TILEC_OPTIONS.extend(args.tilec_option)
    SINGLE_LAUNCH = args.single_launch
    torch.manual_seed(int.from_bytes(os.urandom(4), "little"))
    triton_compile.install_tilec_alias()
    sections = args.sections.split(",")
    gemm = gemm_rows(args) if "gemm" in sections else []
    attention = attention_rows(args) if "attention" in sections else []
    attention += attention_bwd_rows(args) if "attention_bwd" in sections else []
    ablation = ablation_rows(args) if "ablation" in sections else []
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"gemm": gemm, "attention": attention, "ablation": ablation}, f, indent=1)
    print()
    if gemm:
        print("| GEMM kernel | dtype | M x N x K | pass | regs | tilec TFLOP/s | cuBLAS | Triton "
              "| tilec/cuBLAS | tilec/Triton |")
        print("|---|---|---|---|---|---|---|---|---|---|")
        for r in gemm:
            t, c, tr = r.get("tilec_tflops"), r.get("cublas_tflops"), r.get("triton_tflops")
            print(f"| {r['kernel']} | {r['dtype']} | {r['shape']} | {status(r)} | "
                  f"{r.get('registers', '-')} | {fmt(t)} | {fmt(c)} | "
                  f"{fmt(tr) if r.get('triton_ok', True) else 'WRONG'} | {ratio(t, c)} | {ratio(t, tr)} |")
    if attention:
        print()
        print("| attention | dtype | N_CTX | D | causal | pass | regs | tilec TFLOP/s | Triton | "
              "SDPA flash | SDPA cuDNN | tilec/Triton | tilec/flash | tilec/cuDNN |")
        print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
        for r in attention:
            t, tr = r.get("tilec_tflops"), r.get("triton_tflops")
            fl, cd = r.get("sdpa_flash_tflops"), r.get("sdpa_cudnn_tflops")
            print(f"| {r['kernel']} | {r['dtype']} | {r['N_CTX']} | {r['HEAD_DIM']} | "
                  f"{'yes' if r['causal'] else 'no'} | {status(r)} | {r.get('registers', '-')} | "
                  f"{fmt(t)} | {fmt(tr)} | {fmt(fl)} | {fmt(cd)} | {ratio(t, tr)} | "
                  f"{ratio(t, fl)} | {ratio(t, cd)} |")
    backward = [r for r in attention if r["kernel"] == "backward"]
    if backward:
        print()
        print("| backward (causal fp16) | N_CTX | D | tilec 4 warps | tilec 8 warps | spills 4/8 | "
              "Triton 4 warps | Triton 8 warps | SDPA flash | SDPA cuDNN | best tilec / best "
              "Triton | best tilec / best SDPA |")
        print("|---|---|---|---|---|---|---|---|---|---|---|---|")
        for r in backward:
            def ok_tflops(key):
                return r.get(f"{key}_tflops") if r.get(f"{key}_ok", True) else None
            t4, t8 = ok_tflops("tilec"), ok_tflops("tilec_w8")
            tr4, tr8 = ok_tflops("triton"), ok_tflops("triton_w8")
            fl, cd = r.get("sdpa_flash_tflops"), r.get("sdpa_cudnn_tflops")
            best = lambda *xs: max((x for x in xs if x), default=None)
            print(f"| backward | {r['N_CTX']} | {r['HEAD_DIM']} | "
                  f"{fmt(t4) if r.get('tilec_ok') else 'FAIL'} | "
                  f"{fmt(t8) if r.get('tilec_w8_ok') else 'FAIL'} | "
                  f"{r.get('spills', '-')}/{r.get('spills_w8', '-')} | {fmt(tr4)} | {fmt(tr8)} | "
                  f"{fmt(fl)} | {fmt(cd)} | {ratio(best(t4, t8), best(tr4, tr8))} | "
                  f"{ratio(best(t4, t8), best(fl, cd))} |")
        print()
        print("| one-sweep backward (atomic dQ) | N_CTX | D | best tilec | its blocks | spills | "
              "best Triton (same source) | its blocks | SDPA cuDNN | tilec / Triton | "
              "tilec / cuDNN |")
        print("|---|---|---|---|---|---|---|---|---|---|---|")
        for r in backward:
            def best_of(prefix):
                found = [(r[f"{prefix}{atomic_tag(*c)}_tflops"], atomic_tag(*c))
                         for c in ATOMIC_CONFIGS
                         if r.get(f"{prefix}{atomic_tag(*c)}_ok")
                         and f"{prefix}{atomic_tag(*c)}_tflops" in r]
                return max(found, default=(None, "-"))
            (a, at), (ta, tat) = best_of(""), best_of("triton_")
            cd = r.get("sdpa_cudnn_tflops")
            print(f"| one-sweep | {r['N_CTX']} | {r['HEAD_DIM']} | {fmt(a) if a else 'FAIL'} | "
                  f"{at[len('atomic_'):]} | {r.get('spills_' + at, '-')} | "
                  f"{fmt(ta) if ta else 'FAIL'} | {tat[len('atomic_'):]} | {fmt(cd)} | "
                  f"{ratio(a, ta)} | {ratio(a, cd)} |")
        print()
        print("| one-sweep config | N_CTX | D | " + " | ".join(
            atomic_tag(*c)[len("atomic_"):] for c in ATOMIC_CONFIGS) + " | Triton: " + " | ".join(
            atomic_tag(*c)[len("atomic_"):] for c in ATOMIC_CONFIGS if not c[3]) + " |")
        print("|---|---|---|" + "---|" * (len(ATOMIC_CONFIGS) +
                                        sum(1 for c in ATOMIC_CONFIGS if not c[3])))
        for r in backward:
            cells = [fmt(r.get(f"{atomic_tag(*c)}_tflops")) if r.get(f"{atomic_tag(*c)}_ok")
                     else "FAIL" for c in ATOMIC_CONFIGS]
            tcells = [fmt(r.get(f"triton_{atomic_tag(*c)}_tflops"))
                      if r.get(f"triton_{atomic_tag(*c)}_ok") else "FAIL"
                      for c in ATOMIC_CONFIGS if not c[3]]
            print(f"| one-sweep | {r['N_CTX']} | {r['HEAD_DIM']} | " + " | ".join(cells) +
                  " | " + " | ".join(tcells) + " |")
    if ablation:
        print()
        print("| ablation | step | tilec flags | pass | regs | TFLOP/s | x previous row |")
        print("|---|---|---|---|---|---|---|")
        prev = {}
        for r in ablation:
            t = r.get("tilec_tflops")
            print(f"| {r['kernel']} | {r['step']} | `{r['flags'] or '(default)'}` | {status(r)} | "
                  f"{r.get('registers', '-')} | {fmt(t)} | {ratio(t, prev.get(r['kernel']))} |")
            prev[r["kernel"]] = t
    failed = any(not r.get("tilec_ok") for r in gemm + attention + ablation)
    failed = failed or any(not r.get("tilec_w8_ok") for r in backward)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
