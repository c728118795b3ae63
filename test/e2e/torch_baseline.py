#!/usr/bin/env python3
"""Times PyTorch doing what each tilec-e2e case's kernel does.

    tilec-e2e --describe cases.json
    torch_baseline.py cases.json > torch.json
    tilec-e2e --repeat 20 --baseline torch.json ...

Reads the case list written by `tilec-e2e --describe` (names, families,
sizes, dtypes) and prints a JSON object {case name: median microseconds},
measured with triton.testing.do_bench (L2 flushed before each run, as the
harness does). Cases whose family has no torch counterpart here are left out
(their ratio column stays empty). Notes on fairness:
  - matmul: cuBLAS fp16 x fp16 with fp32 output when torch supports
    out_dtype, else fp16 output (said on stderr);
  - batched matmul: tf32 allowed, as Triton's default fp32 dot uses it;
  - weighted_sum_bwd: grad_x = outer(grad_y, w) and the full grad_w = x^T
    grad_y (torch does not need the per-tile partials);
  - conv2d: pad bottom/right then a valid conv2d (the puzzle's semantics).
"""

import json
import sys

import torch
import torch.nn.functional as F
from triton.testing import do_bench


def rand(*shape, dtype=torch.float32, lo=-1.0, hi=1.0):
    return (torch.rand(*shape, device="cuda", dtype=torch.float32)
            * (hi - lo) + lo).to(dtype)


def make(case):
    """Returns a zero-argument function doing the case's work in torch."""
    family, s = case["family"], case["sizes"]
    if family == "vector_add":
        x, y = rand(s["n"]), rand(s["n"])
        out = torch.empty_like(x)
        return lambda: torch.add(x, y, out=out)
    if family == "constant_add":
        x = rand(s["N0"])
        return lambda: x + 10.0
    if family == "outer_add":
        x, y = rand(s["N0"]), rand(s["N1"])
        return lambda: x[None, :] + y[:, None]
    if family == "outer_mul_relu":
        x, y = rand(s["N0"]), rand(s["N1"])
        return lambda: torch.relu(x[None, :] * y[:, None])
    if family == "outer_mul_relu_bwd":
        x, dz = rand(s["N1"], s["N0"]), rand(s["N1"], s["N0"])
        y = rand(s["N1"])
        return lambda: torch.where(x * y[:, None] > 0, y[:, None] * dz, 0.0)
    if family == "long_sum":
        x = rand(s["N0"], s["T"])
        return lambda: x.sum(1)
    if family in ("long_softmax", "softmax"):
        rows = s.get("rows", s.get("N0"))
        cols = s.get("cols", s.get("T"))
        dtype = torch.float16 if case["dtype"] == "fp16" else torch.float32
        x = rand(rows, cols, dtype=dtype, lo=-4, hi=4)
        return lambda: torch.softmax(x, dim=-1)
    if family == "flash_attention":
        q, k, v = rand(s["N0"], lo=-3, hi=3), rand(s["T"]), rand(s["T"])
        return lambda: torch.softmax(q[:, None] * k[None, :], dim=1) @ v
    if family == "conv2d":
        x = rand(s["N0"], 1, s["H"], s["W"])
        k = rand(1, 1, s["KH"], s["KW"])
        pad = (0, s["KW"] - 1, 0, s["KH"] - 1)
        return lambda: F.conv2d(F.pad(x, pad), k)
    if family == "batched_matmul":
        x = rand(s["N2"], s["N0"], s["MID"])
        y = rand(s["N2"], s["MID"], s["N1"])
        return lambda: torch.bmm(x, y)
    if family == "matmul":
        a = rand(s["M"], s["K"], dtype=torch.float16)
        b = rand(s["K"], s["N"], dtype=torch.float16)
        try:
            torch.mm(a, b, out_dtype=torch.float32)
            return lambda: torch.mm(a, b, out_dtype=torch.float32)
        except (TypeError, RuntimeError):
            print("torch_baseline: %s: torch.mm has no out_dtype here; "
                  "timing fp16 output" % case["name"], file=sys.stderr)
            return lambda: torch.mm(a, b)
    if family == "layer_norm":
        dtype = torch.float16 if case["dtype"] == "fp16" else torch.float32
        x = rand(s["M"], s["N"], dtype=dtype, lo=-2, hi=2)
        w = rand(s["N"], dtype=dtype, lo=0.5, hi=1.5)
        b = rand(s["N"], dtype=dtype)
        return lambda: F.layer_norm(x, (s["N"],), w, b, 1e-5)
    if family in ("matmul_fp16", "matmul_leaky_relu"):
        a = rand(s["M"], s["K"], dtype=torch.float16)
        b = rand(s["K"], s["N"], dtype=torch.float16)
        if family == "matmul_leaky_relu":
            return lambda: F.leaky_relu(torch.mm(a, b), 0.01)
        return lambda: torch.mm(a, b)
    if family in ("attention", "attention_causal"):
        shape = (s["Z"], s["H"], s["N_CTX"], s["HEAD_DIM"])
        q = rand(*shape, dtype=torch.float16, lo=-2, hi=2)
        k = rand(*shape, dtype=torch.float16, lo=-2, hi=2)
        v = rand(*shape, dtype=torch.float16)
        causal = family == "attention_causal"
        return lambda: F.scaled_dot_product_attention(q, k, v, is_causal=causal,
                                                      scale=0.3)
    if family == "attention_bwd_preprocess":
        shape = (s["Z"], s["H"], s["N_CTX"], s["HEAD_DIM"])
        o = rand(*shape, dtype=torch.float16)
        do = rand(*shape, dtype=torch.float16)
        return lambda: (o.float() * do.float()).sum(-1)
    if family == "attention_bwd":
        # The backward of causal SDPA (its default backend): the same
        # gradients, with its own preprocess inside.
        shape = (s["Z"], s["H"], s["N_CTX"], s["HEAD_DIM"])
        q, k, v = (rand(*shape, dtype=torch.float16).requires_grad_() for _ in range(3))
        o = F.scaled_dot_product_attention(q, k, v, is_causal=True, scale=0.5)
        do = rand(*shape, dtype=torch.float16)
        return lambda: torch.autograd.grad(o, (q, k, v), do, retain_graph=True)
    if family == "descriptor_scale":
        x = rand(s["M"], s["N"])
        out = torch.empty(s["M"], s["N"], device="cuda", dtype=torch.float16)
        return lambda: out.copy_(x * 1.5)
    if family == "matmul_epilogue":
        a = rand(s["M"], s["K"], dtype=torch.float16)
        b = rand(s["K"], s["N"], dtype=torch.float16)
        bias = rand(s["N"])
        return lambda: (torch.relu(torch.mm(a, b).float() + bias).half(), a.float().sum(1))
    if family == "quantize_fp8":
        x = rand(s["n"], lo=-600, hi=600)
        return lambda: x.to(torch.float8_e4m3fn)
    if family == "weighted_sum_fwd":
        x, w = rand(s["ROWS"], s["D"]), rand(s["D"])
        return lambda: torch.mv(x, w)
    if family == "weighted_sum_bwd":
        x, w, gy = rand(s["ROWS"], s["D"]), rand(s["D"]), rand(s["ROWS"])
        return lambda: (torch.outer(gy, w), torch.mv(x.t(), gy))
    return None


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: torch_baseline.py CASES.json  (from tilec-e2e "
                 "--describe)")
    torch.backends.cuda.matmul.allow_tf32 = True
    with open(sys.argv[1]) as f:
        cases = json.load(f)
    results = {}
    for case in cases:
        fn = make(case)
        if fn is None:
            print("torch_baseline: no torch version of family '%s' (%s)"
                  % (case["family"], case["name"]), file=sys.stderr)
            continue
        fn()
        torch.cuda.synchronize()
        ms = do_bench(fn, warmup=25, rep=100, return_mode="median")
        results[case["name"]] = round(ms * 1000.0, 3)
        print("torch_baseline: %-40s %10.1f us" % (case["name"], ms * 1000),
              file=sys.stderr)
        del fn
        torch.cuda.empty_cache()
    json.dump(results, sys.stdout, indent=2)
    print()


if __name__ == "__main__":
    main()
