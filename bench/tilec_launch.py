"""Load and launch tilec kernels from Python through the CUDA driver API
(cuda.bindings), on torch's current stream.

    kernel = TilecKernel("out/k.json")       # reads the metadata and the cubin
    kernel(grid, a, b, c, M, N, K, ...)      # runtime parameters, in order

Pointers are torch tensors (or ints), scalars Python numbers; each is packed
in the type the metadata gives (docs/metadata.md). Used by the benchmarks in
bench/ on the GPU machine.
"""

import ctypes
import json
import os

import torch
from cuda.bindings import driver as cu

_CTYPES = {
    "i1": ctypes.c_int8, "i8": ctypes.c_int8, "u8": ctypes.c_uint8,
    "i16": ctypes.c_int16, "u16": ctypes.c_uint16,
    "i32": ctypes.c_int32, "u32": ctypes.c_uint32,
    "i64": ctypes.c_int64, "u64": ctypes.c_uint64,
    "fp32": ctypes.c_float, "fp64": ctypes.c_double,
}


def _check(result):
    err = result[0] if isinstance(result, tuple) else result
    if err != cu.CUresult.CUDA_SUCCESS:
        _, name = cu.cuGetErrorName(err)
        raise RuntimeError(f"CUDA driver error {name}")
    if isinstance(result, tuple) and len(result) == 2:
        return result[1]
    return result[1:] if isinstance(result, tuple) else None


class TilecKernel:
    def __init__(self, metadata_path):
        torch.cuda.init()
        torch.empty(1, device="cuda")  # the primary context, made current
        with open(metadata_path) as f:
            self.meta = json.load(f)
        here = os.path.dirname(os.path.abspath(metadata_path))
        with open(os.path.join(here, self.meta["artifacts"]["cubin"]), "rb") as f:
            image = f.read()
        self.module = _check(cu.cuModuleLoadData(image))
        self.function = _check(cu.cuModuleGetFunction(self.module, self.meta["entry"].encode()))
        self.smem = self.meta["shared_memory"]["dynamic_bytes"]
        if self.smem > 48 * 1024:
            _check(cu.cuFuncSetAttribute(
                self.function,
                cu.CUfunction_attribute.CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                self.smem))
        self.params = [p for p in self.meta["parameters"] if p["kind"] != "constexpr"]
        if self.meta.get("hidden_parameters"):
            raise NotImplementedError("hidden parameters (TMA descriptors)")
        self.threads = self.meta["num_threads"]

    def __call__(self, grid, *args):
        if len(args) != len(self.params):
            raise TypeError(f"{self.meta['name']} takes {len(self.params)} runtime "
                            f"arguments, got {len(args)}")
        values, types = [], []
        for p, a in zip(self.params, args):
            if p["kind"] == "pointer":
                values.append(a.data_ptr() if isinstance(a, torch.Tensor) else int(a))
                types.append(ctypes.c_void_p)
            else:
                values.append(a)
                types.append(_CTYPES[p["type"]])
        grid = tuple(grid) + (1,) * (3 - len(grid))
        stream = torch.cuda.current_stream().cuda_stream
        _check(cu.cuLaunchKernel(self.function, grid[0], grid[1], grid[2],
                                 self.threads, 1, 1, self.smem, stream,
                                 (tuple(values), tuple(types)), 0))
