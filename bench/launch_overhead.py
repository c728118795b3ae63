#!/usr/bin/env python3
"""Host time of one launch of a cached kernel: tilec's JIT against Triton's.

    python3 bench/launch_overhead.py --tilec-bench PATH [--launches N] [--repeats R]

The same kernel (a vector add of 1024 fp32 elements, one program), the same
protocol on both sides: after warm-up launches (the kernel compiled and
loaded), time batches of 200 launches with a host clock and synchronize
between batches, so that the launch queue never fills and the time measured
is the host's, not the GPU's. Triton: `add_kernel[(1,)](x, y, out, n,
BLOCK=1024)` from Python on torch tensors. tilec: tilec-jit-bench
--launch-only (C++ `Kernel::launch(grid, stream, x, y, out, n, 1024)`, and
`runtime::Kernel::launch` alone for reference). Each side is run R times; the
medians are printed, with the ratio. Needs a GPU, torch and triton.
"""
import argparse
import re
import statistics
import subprocess
import sys
import time

import torch
import triton
import triton.language as tl


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, x + y, mask=mask)


BATCH = 200


def triton_us_per_launch(launches):
    n = 1024
    x = torch.randn(n, device="cuda")
    y = torch.randn(n, device="cuda")
    out = torch.empty_like(x)
    grid = (1,)
    for _ in range(BATCH):
        add_kernel[grid](x, y, out, n, BLOCK=1024)
    torch.cuda.synchronize()
    assert torch.equal(out, x + y)
    total, done = 0.0, 0
    while done < launches:
        start = time.perf_counter()
        for _ in range(BATCH):
            add_kernel[grid](x, y, out, n, BLOCK=1024)
        total += time.perf_counter() - start
        done += BATCH
        torch.cuda.synchronize()
    return 1e6 * total / done


def tilec_us_per_launch(bench, launches):
    run = subprocess.run([bench, "--launch-only", "--launches", str(launches)],
                         capture_output=True, text=True, timeout=300)
    if run.returncode != 0:
        sys.exit("tilec-jit-bench failed:\n" + run.stdout + run.stderr)
    jit = re.search(r"Kernel::launch \(JIT, cached\):\s+([0-9.]+)", run.stdout)
    raw = re.search(r"runtime::Kernel::launch \(no JIT\):\s+([0-9.]+)",
                    run.stdout)
    if not jit or not raw:
        sys.exit("unexpected tilec-jit-bench output:\n" + run.stdout)
    return float(jit.group(1)), float(raw.group(1))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tilec-bench", required=True)
    parser.add_argument("--launches", type=int, default=20000)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()

    print("GPU: %s, torch %s, triton %s" % (torch.cuda.get_device_name(),
                                            torch.__version__,
                                            triton.__version__))
    tri, jit, raw = [], [], []
    for _ in range(args.repeats):
        tri.append(triton_us_per_launch(args.launches))
        j, r = tilec_us_per_launch(args.tilec_bench, args.launches)
        jit.append(j)
        raw.append(r)
    t, j, r = (statistics.median(v) for v in (tri, jit, raw))
    print("\nhost time of one launch of a cached kernel (median of %d runs of "
          "%d launches)\n" % (args.repeats, args.launches))
    print("| launcher | us per launch | Triton / this |")
    print("|---|---|---|")
    print("| Triton %s, `add_kernel[(1,)](...)` from Python | %.2f | 1.00 |"
          % (triton.__version__, t))
    print("| tilec JIT, `Kernel::launch(grid, stream, ...)` from C++ | %.2f | "
          "%.1f |" % (j, t / j))
    print("| tilec runtime alone, `runtime::Kernel::launch` | %.2f | %.1f |"
          % (r, t / r))
    print("\nall runs (us): triton %s, tilec %s, runtime %s" %
          (["%.2f" % v for v in tri], ["%.2f" % v for v in jit],
           ["%.2f" % v for v in raw]))
    print("tilec target: <= 5 us: %s" % ("PASS" if j <= 5 else "FAIL"))
    return 0 if j <= 5 else 1


if __name__ == "__main__":
    sys.exit(main())
