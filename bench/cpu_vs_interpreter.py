#!/usr/bin/env python3
"""tilec's CPU backend against Triton's interpreter, on the same kernels.

Runs examples/softmax.tile (1024 x 1024 fp32, one program per row) and
examples/matmul.tile (512^3, fp16 inputs, fp32 accumulator and output,
64 x 64 x 32 blocks, GROUP_SIZE_M 8) twice on the same machine:

  - with Triton's interpreter (TRITON_INTERPRET=1, set by this script before
    triton is imported): the kernel executed op by op in numpy, on CPU torch
    tensors; the module is rewritten for Triton exactly as
    test/e2e/triton_compile.py does (tilec imports, module constexprs);
  - with `tilec run --backend cpu` (JIT-compiled for the host, programs in
    parallel on --threads workers), once on 1 thread (the interpreter uses
    one) and once on every hardware thread.

Both outputs are checked against torch (tilec's are read back with
`--input`/`--output` files holding the same inputs), the kernel-execution
times are medians over --repeat runs after one warm-up (tilec's compile time
is reported separately; the interpreter has none), and a markdown table is
printed (and written to --out). Needs triton (3.x) and torch; no GPU.

    python3 bench/cpu_vs_interpreter.py --tilec build/bin/tilec \\
        --out bench/cpu_vs_interpreter.md
"""

import argparse
import importlib.util
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

os.environ["TRITON_INTERPRET"] = "1"

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def load_triton_compile():
    path = os.path.join(ROOT, "test", "e2e", "triton_compile.py")
    spec = importlib.util.spec_from_file_location("triton_compile", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def fix_interpreter_index(triton):
    """Triton 3.6's interpreter holds a scalar kernel argument as a 1-element
    1-d numpy array and turns it into a Python int with int(array), which
    NumPy 2.4 refuses ("only 0-dimensional arrays can be converted to Python
    scalars"), so any loop whose bound comes from an argument
    (`tl.range(0, tl.cdiv(K, BLOCK_K))`) fails there. Give the interpreter's
    tensors an __index__ that reads the one element. Returns whether the
    interpreter's hook was found."""
    import numpy as np
    from triton.runtime import interpreter
    patch = getattr(interpreter, "_patch_lang_tensor", None)
    if patch is None:
        return False

    def patched(tensor, *args, **kwargs):
        result = patch(tensor, *args, **kwargs)
        tensor.__index__ = lambda self: int(np.asarray(self.handle.data).reshape(-1)[0])
        return result

    interpreter._patch_lang_tensor = patched
    return True


def load_kernel(triton_compile, tile_file, kernel, workdir):
    """The kernel of examples/<tile_file>, as Triton (interpreted) sees it."""
    with open(os.path.join(ROOT, "examples", tile_file)) as f:
        source = f.read()
    rewritten = os.path.join(workdir, tile_file.replace(".tile", ".py"))
    with open(rewritten, "w") as f:
        f.write(triton_compile.rewrite_module(source))
    triton_compile.install_tilec_alias()
    return getattr(triton_compile.load_module(rewritten), kernel)


def time_interpreter(run, repeat):
    run()  # warm-up (first call sets the interpreter up)
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def run_tilec(tilec, tile_file, signature, grid, args, inputs, outputs,
              threads, repeat):
    """Runs `tilec run` and returns (median seconds, compile seconds)."""
    command = [tilec, "run", os.path.join(ROOT, "examples", tile_file),
               "--signature", signature, "--grid", grid, "--backend", "cpu",
               "--repeat", str(repeat), "--threads", str(threads)]
    for name, value in args.items():
        command += ["--arg", "%s=%s" % (name, value)]
    for name, path in inputs.items():
        command += ["--input", "%s=%s" % (name, path)]
    for name, path in outputs.items():
        command += ["--output", "%s=%s" % (name, path)]
    result = subprocess.run(command, capture_output=True, text=True)
    if result.returncode != 0:
        sys.exit("tilec run failed:\n%s\n%s" % (" ".join(command),
                                                result.stderr))
    median = re.search(r"median ([0-9.]+) ms", result.stdout)
    compile_ = re.search(r"passes ([0-9.]+) ms, LLVM -O3 \+ JIT ([0-9.]+) ms",
                         result.stdout)
    if not median or not compile_:
        sys.exit("cannot read tilec run's output:\n" + result.stdout)
    return (float(median.group(1)) / 1e3,
            (float(compile_.group(1)) + float(compile_.group(2))) / 1e3,
            " ".join(command))


def softmax_bench(torch, triton_compile, tilec, workdir, threads, repeat,
                  interp_repeat):
    rows = cols = 1024
    torch.manual_seed(0)
    x = torch.randn(rows, cols, dtype=torch.float32) * 4
    y = torch.empty_like(x)
    kernel = load_kernel(triton_compile, "softmax.tile", "softmax_kernel",
                         workdir)

    def run():
        kernel[(rows,)](y, x, x.stride(0), y.stride(0), cols, BLOCK_SIZE=1024)

    seconds = time_interpreter(run, interp_repeat)
    expected = torch.softmax(x.double(), dim=1)
    interp_error = (y.double() - expected).abs().max().item()

    x_path = os.path.join(workdir, "softmax_x.bin")
    y_path = os.path.join(workdir, "softmax_y.bin")
    x.numpy().tofile(x_path)
    torch.zeros_like(x).numpy().tofile(y_path)
    tilec_runs = []
    for t in threads:
        median, compile_s, command = run_tilec(
            tilec, "softmax.tile", "*fp32:16, *fp32:16, i32:16, i32:16, "
            "i32:16, 1024", str(rows),
            {"input_row_stride": cols, "output_row_stride": cols,
             "n_cols": cols},
            {"input_ptr": x_path, "output_ptr": y_path},
            {"output_ptr": y_path}, t, repeat)
        out = torch.from_file(y_path, size=rows * cols,
                              dtype=torch.float32).view(rows, cols)
        error = (out.double() - expected).abs().max().item()
        tilec_runs.append((t, median, compile_s, error, command))
    return ("softmax 1024×1024 fp32", seconds, interp_error, tilec_runs)


def matmul_bench(torch, triton_compile, tilec, workdir, threads, repeat,
                 interp_repeat):
    m = n = k = 512
    bm, bn, bk, group = 64, 64, 32, 8
    torch.manual_seed(0)
    a = torch.randn(m, k, dtype=torch.float16)
    b = torch.randn(k, n, dtype=torch.float16)
    c = torch.empty(m, n, dtype=torch.float32)
    kernel = load_kernel(triton_compile, "matmul.tile", "matmul_kernel",
                         workdir)
    grid = ((m + bm - 1) // bm) * ((n + bn - 1) // bn)

    def run():
        kernel[(grid,)](a, b, c, m, n, k, a.stride(0), a.stride(1),
                        b.stride(0), b.stride(1), c.stride(0), c.stride(1),
                        BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=bk,
                        GROUP_SIZE_M=group)

    seconds = time_interpreter(run, interp_repeat)
    expected = a.double() @ b.double()
    interp_error = (c.double() - expected).abs().max().item()

    paths = {name: os.path.join(workdir, "matmul_%s.bin" % name)
             for name in ("a", "b", "c")}
    a.numpy().tofile(paths["a"])
    b.numpy().tofile(paths["b"])
    torch.zeros_like(c).numpy().tofile(paths["c"])
    tilec_runs = []
    for t in threads:
        median, compile_s, command = run_tilec(
            tilec, "matmul.tile",
            "*fp16:16, *fp16:16, *fp32:16, i32:16, i32:16, i32:16, i32:16, 1, "
            "i32:16, 1, i32:16, 1, %d, %d, %d, %d" % (bm, bn, bk, group),
            str(grid),
            {"M": m, "N": n, "K": k, "stride_am": k, "stride_bk": n,
             "stride_cm": n},
            {"a_ptr": paths["a"], "b_ptr": paths["b"], "c_ptr": paths["c"]},
            {"c_ptr": paths["c"]}, t, repeat)
        out = torch.from_file(paths["c"], size=m * n,
                              dtype=torch.float32).view(m, n)
        error = (out.double() - expected).abs().max().item()
        tilec_runs.append((t, median, compile_s, error, command))
    return ("matmul 512³ fp16→fp32 (64×64×32 blocks)", seconds, interp_error,
            tilec_runs)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tilec", required=True, help="the tilec binary")
    parser.add_argument("--threads", type=int, default=os.cpu_count(),
                        help="threads of the parallel tilec run (default: "
                             "all)")
    parser.add_argument("--repeat", type=int, default=20,
                        help="timed tilec launches (default 20)")
    parser.add_argument("--interp-repeat", type=int, default=3,
                        help="timed interpreter runs (default 3)")
    parser.add_argument("--out", help="also write the table here")
    options = parser.parse_args()

    import torch
    import triton
    print("interpreter __index__ fix:", fix_interpreter_index(triton))
    triton_compile = load_triton_compile()
    threads = [1] if options.threads == 1 else [1, options.threads]
    with tempfile.TemporaryDirectory() as workdir:
        results = []
        for bench in (softmax_bench, matmul_bench):
            try:
                results.append(bench(torch, triton_compile, options.tilec, workdir,
                                     threads, options.repeat, options.interp_repeat))
            except Exception as e:  # report, and keep the other kernel's row
                print("%s failed: %r" % (bench.__name__, e))

    lines = [
        "| kernel | Triton interpreter | tilec CPU, 1 thread | speedup | "
        "tilec CPU, %d threads | speedup | tilec compile | max abs err "
        "(interp / tilec) |" % threads[-1],
        "|---|---|---|---|---|---|---|---|",
    ]
    for name, interp, interp_error, runs in results:
        one = runs[0]
        many = runs[-1]
        lines.append(
            "| %s | %.1f ms | %.2f ms | %.0f× | %.2f ms | %.0f× | %.0f ms | "
            "%.1e / %.1e |" % (name, interp * 1e3, one[1] * 1e3,
                              interp / one[1], many[1] * 1e3,
                              interp / many[1], one[2] * 1e3, interp_error,
                              max(r[3] for r in runs)))
    table = "\n".join(lines)
    header = ("triton %s, torch %s, %d hardware threads; medians: "
              "interpreter over %d runs, tilec over %d launches (after one "
              "warm-up each)\n" % (triton.__version__, torch.__version__,
                                   os.cpu_count(), options.interp_repeat,
                                   options.repeat))
    print(header)
    print(table)
    for _, _, _, runs in results:
        for run in runs:
            print("  " + run[4])
    if options.out:
        with open(options.out, "w") as f:
            f.write(header + "\n" + table + "\n")


if __name__ == "__main__":
    main()
