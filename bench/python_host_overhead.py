"""Host time of cached calls without a GPU: µs per call of the four
pointwise_dynamic ops of python_pointwise.py, the three launches of
python_launch.py and the first of them with two pass switches as keywords,
on tiny arrays so that the kernel itself is negligible.

    TILEC_BACKEND=cpu TILEC_CPU_THREADS=1 python3 bench/python_host_overhead.py [--calls N] [--repeats R]
        the CPU backend, numpy arrays and (where torch imports) CPU tensors;
    TILEC_FAKE_CUDA=1 TILEC_LIBCUDA=.../libtilec-fake-cuda.so TILEC_PTX_ONLY=1 \\
        python3 bench/python_host_overhead.py --fake-gpu
        the GPU launch path on tilec's fake CUDA driver (test/lib/FakeCuda),
        which never touches memory, with a fixed device and stream: CPU torch
        tensors stand in for CUDA ones (the launcher's check that refuses
        them is switched off), or without torch stand-in objects with a
        shape, strides and dtype (then pointwise ops get out0=, out1=).

Also prints the C call alone (the launch packet of a cached specialization
sent to libtilec in a loop), the floor under every row. Each row is the
fastest of R timed loops (--repeats, 25) of N calls (--calls, 2000) after
a warm-up (the least disturbed by
other work on the machine).
"""

import argparse
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))

import numpy as np

import tilec
import tilec.language as tl

from pointwise_ops import abs_func, add_func, addsub_func, where_func  # noqa: E402

jitmod = sys.modules["tilec.jit"]


@tilec.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) + tl.load(y_ptr + offs, mask=mask), mask=mask)


@tilec.jit
def many_args_kernel(a, b, c, d, e, f, n0, n1, n2, n3, alpha, beta, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n0
    x = tl.load(a + offs, mask=mask) + tl.load(b + offs, mask=mask) * alpha
    tl.store(f + offs, x * beta + n1 + n2 + n3, mask=mask)


def per_call_us(fn, calls, repeats):
    for _ in range(min(calls, 200)):
        fn()
    samples = []
    for _ in range(repeats):
        start = time.perf_counter()
        for _ in range(calls):
            fn()
        samples.append((time.perf_counter() - start) / calls * 1e6)
    return min(samples)


class FakeCudaTensor:
    """What tilec reads of a torch CUDA tensor, at a made-up address."""

    _next = 0x7f0000000000

    def __init__(self, shape, dtype="float32", strides=None, address=None):
        self.shape = tuple(shape)
        self.dtype = np.dtype(dtype)
        if strides is None:
            strides, step = [], 1
            for n in reversed(self.shape):
                strides.insert(0, step)
                step *= n
        self._strides = tuple(strides)
        if address is None:
            address = FakeCudaTensor._next
            FakeCudaTensor._next += 1 << 24
        self.address = address
        self.is_cuda = True
        self.device = "cuda:0"

    def stride(self):
        return self._strides

    def data_ptr(self):
        return self.address


def pointwise_cases(make, rows, cols):
    """(name, call) of the four ops, contiguous and strided, on arrays made
    by make(shape, dtype, strided)."""
    x, z = make((rows, cols), "float32", False), make((rows, cols), "float32", False)
    y = make((cols,), "float32", False)
    c = make((rows, cols), "bool", False)
    xs, zs = make((rows, cols), "float32", True), make((rows, cols), "float32", True)
    cs = make((rows, cols), "bool", True)
    return [
        ("add (broadcast row)", "contiguous", lambda: add_func(x, y)),
        ("abs", "contiguous", lambda: abs_func(x)),
        ("where", "contiguous", lambda: where_func(c, x, z)),
        ("add, sub (2 outputs)", "contiguous", lambda: addsub_func(x, z)),
        ("add (broadcast row)", "strided", lambda: add_func(xs, y)),
        ("abs", "strided", lambda: abs_func(xs)),
        ("where", "strided", lambda: where_func(cs, xs, zs)),
        ("add, sub (2 outputs)", "strided", lambda: addsub_func(xs, zs)),
    ]


def launch_cases(x, y, out, n):
    grid = (tilec.cdiv(n, 1024),)
    return [
        ("add (4 args + BLOCK), tuple grid", lambda: add_kernel[grid](x, y, out, n, BLOCK=1024)),
        ("add, lambda grid",
         lambda: add_kernel[lambda m: (tilec.cdiv(m["n"], m["BLOCK"]),)](x, y, out, n, BLOCK=1024)),
        ("12 args (6 tensors, 4 ints, 2 floats)",
         lambda: many_args_kernel[grid](x, y, x, y, x, out, n, 3, 5, 7, 0.5, 2.0, BLOCK=1024)),
        ("add, two pass switches (longest_first=False, ...)",
         lambda: add_kernel[grid](x, y, out, n, BLOCK=1024, longest_first=False,
                                  enable_fp_fusion=False)),
    ]


def c_call_us(calls, repeats, x, y, out, n):
    """The launch packet of add_kernel's cached specialization, sent alone."""
    spec = add_kernel[(1,)](x, y, out, n, BLOCK=1024)
    lib = tilec._lib()
    fn = lib.tilec_cpu_kernel_launch_packet if spec.cpu else lib.tilec_module_launch_packet
    h, a, w = spec.handle, spec.address, spec.nwords
    return per_call_us(lambda: fn(h, a, w), calls, repeats)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--calls", type=int, default=2000)
    parser.add_argument("--repeats", type=int, default=25)
    parser.add_argument("--fake-gpu", action="store_true")
    args = parser.parse_args()
    rows, cols = 4, 64  # 256 elements: one program
    out = []
    try:
        import torch
    except ImportError:
        torch = None
    if args.fake_gpu:
        tilec.set_backend("gpu")
        jitmod._cuda_override = (lambda: 0, lambda device: 0x5000)
        if torch is not None:
            # CPU tensors stand in for CUDA ones (the fake driver never
            # touches memory): the launcher's torch path, outputs allocated.
            jitmod._check_gpu_arguments = lambda values: None
            kind = "fake GPU torch"

            def make(shape, dtype, strided):
                full = (shape[0], 2 * shape[1]) if strided else shape
                a = torch.zeros(full, dtype=getattr(torch, dtype))
                return a[:, ::2] if strided else a
            for name, layout, fn in pointwise_cases(make, rows, cols):
                out.append((kind, name, layout, per_call_us(fn, args.calls, args.repeats)))
        else:
            kind = "fake GPU"

            def make(shape, dtype, strided):
                if strided:
                    return FakeCudaTensor(shape, dtype, strides=(2 * shape[1], 2))
                return FakeCudaTensor(shape, dtype)
            o1, o2 = make((rows, cols), "float32", False), make((rows, cols), "float32", False)
            x, z = make((rows, cols), "float32", False), make((rows, cols), "float32", False)
            yv, c = make((cols,), "float32", False), make((rows, cols), "bool", False)
            for name, fn in [
                    ("add (broadcast row), out0=", lambda: add_func(x, yv, out0=o1)),
                    ("abs, out0=", lambda: abs_func(x, out0=o1)),
                    ("where, out0=", lambda: where_func(c, x, z, out0=o1)),
                    ("add, sub (2 outputs), out0= out1=", lambda: addsub_func(x, z, out0=o1, out1=o2))]:
                out.append((kind, name, "contiguous", per_call_us(fn, args.calls, args.repeats)))
        n = 4096
        x, y, o = (make((1, n), "float32", False)[0] for _ in range(3))
        for name, fn in launch_cases(x, y, o, n):
            out.append((kind, name, "", per_call_us(fn, args.calls, args.repeats)))
        out.append((kind, "C call alone (cuLaunchKernel of the fake driver)", "",
                    c_call_us(args.calls, args.repeats, x, y, o, n)))
    else:
        tilec.set_backend("cpu")
        kinds = [("numpy", None)]
        if torch is not None:
            kinds.append(("torch cpu", torch))
        else:
            print("torch not found: numpy arrays only")
        for kind, torch in kinds:
            def make(shape, dtype, strided, torch=torch):
                full = (shape[0], 2 * shape[1]) if strided else shape
                a = np.random.standard_normal(full)
                a = (a < 0) if dtype == "bool" else a.astype(dtype)
                if torch is not None:
                    a = torch.from_numpy(a)
                return a[:, ::2] if strided else a
            for name, layout, fn in pointwise_cases(make, rows, cols):
                out.append((kind, name, layout, per_call_us(fn, args.calls, args.repeats)))
            n = 256
            x, y, o = (make((n,), "float32", False) for _ in range(3))
            for name, fn in launch_cases(x, y, o, n):
                out.append((kind, name, "", per_call_us(fn, args.calls, args.repeats)))
            out.append((kind, "C call alone (tilec_cpu_kernel_launch_packet)", "",
                        c_call_us(args.calls, args.repeats, x, y, o, n)))
    print(f"{'arrays':15s} {'cached call':52s} {'layout':10s} {'µs/call':>8s}")
    for kind, name, layout, us in out:
        print(f"{kind:15s} {name:52s} {layout:10s} {us:8.2f}")


if __name__ == "__main__":
    main()
