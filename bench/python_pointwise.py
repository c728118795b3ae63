"""tilec.pointwise_dynamic vs torch eager on the GPU: add with broadcast, abs,
where, a two-output op, at 2^24-2^28 fp32 elements, contiguous and strided;
% of copy bandwidth (bytes each op must move / time, over torch's copy_ of
the same element count) and the time ratio torch/tilec. Checks every result
against torch first.

    python3 bench/python_pointwise.py [--sizes 24,26,28] [--json FILE]
"""

import argparse
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))

import torch

import tilec
from tilec.testing import do_bench

from pointwise_ops import abs_func, add_func, addsub_func, where_func  # noqa: E402


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", default="24,26,28")
    parser.add_argument("--json")
    args = parser.parse_args()
    rows = []
    big_block = tilec.pointwise_dynamic(add_func.fn, is_tensor=[True, True],
                                        promotion_methods=[(0, 1, "DEFAULT")],
                                        config=dict(BLOCK=4096, num_warps=8))
    for log2 in [int(s) for s in args.sizes.split(",")]:
        n = 1 << log2
        cols = 1024
        x = torch.randn(n // cols, cols, device="cuda")
        y = torch.randn(cols, device="cuda")
        c = torch.rand(n // cols, cols, device="cuda") < 0.5
        z = torch.randn(n // cols, cols, device="cuda")
        src = torch.randn(n, device="cuda")
        dst = torch.empty_like(src)
        copy_ms = do_bench(lambda: dst.copy_(src))
        copy_gbs = 2 * n * 4 / copy_ms / 1e6
        # Strided: every other column of a twice-wider tensor.
        wide = torch.randn(n // cols, 2 * cols, device="cuda")
        xs = wide[:, ::2]
        wide2 = torch.randn(n // cols, 2 * cols, device="cuda")
        zs = wide2[:, ::2]
        cs = torch.rand(n // cols, 2 * cols, device="cuda")[:, ::2] < 0.5
        cases = [
            ("add (broadcast row)", "contiguous", lambda: add_func(x, y), lambda: x + y, 2 * n * 4 + cols * 4),
            ("add (broadcast row), BLOCK 4096/8 warps", "contiguous", lambda: big_block(x, y),
             lambda: x + y, 2 * n * 4 + cols * 4),
            ("abs", "contiguous", lambda: abs_func(x), lambda: torch.abs(x), 2 * n * 4),
            ("where", "contiguous", lambda: where_func(c, x, z), lambda: torch.where(c, x, z), n * 13),
            ("add, sub (2 outputs)", "contiguous", lambda: addsub_func(x, z), lambda: (x + z, x - z), 4 * n * 4),
            ("add (broadcast row)", "strided", lambda: add_func(xs, y), lambda: xs + y, 2 * n * 4 + cols * 4),
            ("abs", "strided", lambda: abs_func(xs), lambda: torch.abs(xs), 2 * n * 4),
            ("where", "strided", lambda: where_func(cs, xs, zs), lambda: torch.where(cs, xs, zs), n * 13),
            ("add, sub (2 outputs)", "strided", lambda: addsub_func(xs, zs), lambda: (xs + zs, xs - zs), 4 * n * 4),
        ]
        for name, layout, ours, theirs, nbytes in cases:
            got, want = ours(), theirs()
            got = got if isinstance(got, tuple) else (got,)
            want = want if isinstance(want, tuple) else (want,)
            for g, w in zip(got, want):
                if g.shape != w.shape or g.dtype != w.dtype or not torch.equal(g, w):
                    raise SystemExit(f"{name} {layout} 2^{log2}: result differs from torch")
            del got, want
            t_ms = do_bench(ours)
            r_ms = do_bench(theirs)
            rows.append({"op": name, "layout": layout, "log2_elements": log2, "tilec_ms": t_ms,
                         "torch_ms": r_ms, "tilec_pct_copy": 100 * nbytes / t_ms / 1e6 / copy_gbs,
                         "torch_pct_copy": 100 * nbytes / r_ms / 1e6 / copy_gbs,
                         "speedup_vs_torch": r_ms / t_ms, "copy_gbs": copy_gbs})
            torch.cuda.empty_cache()
        torch.cuda.empty_cache()
    print(f"{'pointwise op (fp32)':42s} {'layout':10s} {'n':>5s} {'tilec ms':>9s} {'torch ms':>9s} "
          f"{'tilec %copy':>11s} {'torch %copy':>11s} {'torch/tilec':>11s}")
    for r in rows:
        print(f"{r['op']:42s} {r['layout']:10s} 2^{r['log2_elements']:<3d} {r['tilec_ms']:9.3f} "
              f"{r['torch_ms']:9.3f} {r['tilec_pct_copy']:10.1f}% {r['torch_pct_copy']:10.1f}% "
              f"{r['speedup_vs_torch']:10.2f}x")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=1)


if __name__ == "__main__":
    main()
