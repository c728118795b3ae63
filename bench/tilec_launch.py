"""Load and launch tilec kernels from Python through the CUDA driver API
(cuda.bindings), on torch's current stream.

    kernel = TilecKernel("out/k.json")       # reads the metadata and the cubin
    kernel(grid, a, b, c, M, N, K, ...)      # runtime parameters, in order

Pointers are torch tensors (or ints), scalars Python numbers; each is packed
in the type the metadata gives (docs/metadata.md). Hidden parameters are
built here as the C++ runtime builds them (lib/Runtime/Kernel.cpp,
lib/Runtime/PackedArguments.cpp, lib/Runtime/TensorMap.cpp):
`global_scratch` pointers (x*y*z slices of the caller's grid),
`program_grid` i32s (the caller's grid along the recipe's axis) and
`tma_descriptor` CUtensorMaps (cuTensorMapEncodeTiled, checked against the
tensor copy's rules first, encoded again only when their inputs change).
Used by the benchmarks in bench/ on the GPU machine.

The grid is launched as the runtime launches it (`launch_grid` below is
lib/Runtime/LaunchGrid.cpp's computeLaunchGrid): x in [1, 2^31-1], y and z
in [1, 65535], else ValueError and nothing is launched (an empty grid
included). A kernel whose metadata says `"persistent": true` walks the
caller's grid (X, Y, Z) itself: it is launched on the 1-D grid of
P = min(X*Y*Z, SMs * CTAs per SM) CTAs, where SMs is the device's
CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT and CTAs per SM is
cuOccupancyMaxActiveBlocksPerMultiprocessor(function, num_threads, dynamic
shared memory), at least 1, asked once when the kernel is loaded; X*Y*Z
must be at most 2^31-1 (ValueError otherwise). Block and dynamic shared
memory are those of any launch; persistent kernels have no clusters (the
metadata is refused).

How the arguments reach the kernel
----------------------------------
cuLaunchKernel's `kernelParams` is an array of N pointers, one per entry
parameter, each to the bytes of that parameter's value; the driver copies
each parameter's size (from the cubin: 128 bytes for a CUtensorMap) from
there to the parameter's place in the entry's parameter space, at the offset
and alignment the cubin records (a 64-byte aligned descriptor after one
pointer is at offset 48 on sm_90, since ptxas aligns in the constant bank
where the parameters start at 0x210). So the host copy needs no offset
arithmetic; it only has to hold the right 128 bytes.

cuda.bindings takes `kernelParams` in three forms (cuda/bindings/_lib/
utils.pxi, _HelperKernelParams): None; a `(values, types)` pair of tuples,
from which it builds the pointer array itself; or an int, used as the
`void **` address unchanged. The pair form accepts as types only ctypes
scalars, c_void_p and None (None: an object with getPtr(), such as a
CUtensorMap, or a ctypes.Structure, whose address it passes); an array type
such as `ctypes.c_byte * 128` is refused ("Unsupported type"). Passing
`(tmap, None)` would work too, but depends on those special cases, which have
changed between releases. The int form has been a plain cast in every
release, so this file builds the `void *[N]` array with ctypes, one ctypes
object per parameter (scalars in their C type, pointers as uint64, each
descriptor as 128 bytes copied from the CUtensorMap at a 64-byte aligned
address, like a C++ CUtensorMap), and passes its address. The objects live
until cuLaunchKernel has returned, which is when the driver has copied the
values.

Used on the H200 by every bench/ script that launches tilec kernels
(bench/hopper_async.py, bench/scan_transpose.py, …; bench/RESULTS.md).
"""

import ctypes
import json
import os

import torch
from cuda.bindings import driver as cu

_CTYPES = {
    "i1": ctypes.c_uint8, "i8": ctypes.c_int8, "u8": ctypes.c_uint8,
    "i16": ctypes.c_int16, "u16": ctypes.c_uint16,
    "i32": ctypes.c_int32, "u32": ctypes.c_uint32,
    "i64": ctypes.c_int64, "u64": ctypes.c_uint64,
    "fp32": ctypes.c_float, "fp64": ctypes.c_double,
}
# Scalars without a ctypes type: passed as their bits.
_BITS = {"fp16": (torch.float16, torch.int16, ctypes.c_uint16),
         "bf16": (torch.bfloat16, torch.int16, ctypes.c_uint16),
         "fp8e4nv": (getattr(torch, "float8_e4m3fn", None), torch.uint8, ctypes.c_uint8),
         "fp8e5": (getattr(torch, "float8_e5m2", None), torch.uint8, ctypes.c_uint8)}
_SIZES = {"i1": 1, "i8": 1, "u8": 1, "fp8e4nv": 1, "fp8e5": 1,
          "i16": 2, "u16": 2, "fp16": 2, "bf16": 2,
          "i32": 4, "u32": 4, "fp32": 4, "i64": 8, "u64": 8, "fp64": 8}
_INTEGER = {"i8", "i16", "i32", "i64", "u8", "u16", "u32", "u64"}
# CUtensorMapDataType per element type (as TensorMap.cpp's
# tensorMapDataType): TMA has no fp8 or signed 8/16-bit types and moves
# their bytes.
_TMA_DTYPE = {
    "fp16": "FLOAT16", "bf16": "BFLOAT16", "fp32": "FLOAT32", "fp64": "FLOAT64",
    "i32": "INT32", "u32": "UINT32", "i64": "INT64", "u64": "UINT64",
    "i16": "UINT16", "u16": "UINT16",
    "i1": "UINT8", "i8": "UINT8", "u8": "UINT8", "fp8e4nv": "UINT8", "fp8e5": "UINT8",
}
_SWIZZLE = {0: "NONE", 32: "32B", 64: "64B", 128: "128B"}
_RULE = ", as the Hopper tensor copy requires"
_TENSOR_MAP_BYTES = 128
_TENSOR_MAP_ALIGN = 64


_MAX_PROGRAMS = 0x7FFFFFFF  # 2^31 - 1


def launch_grid(grid, persistent, num_sms, ctas_per_sm):
    """The grid cuLaunchKernel gets for a launch of the 3-tuple `grid`
    (X, Y, Z), as lib/Runtime/LaunchGrid.cpp's computeLaunchGrid: `grid`
    itself, or for a persistent kernel (min(X*Y*Z, num_sms * ctas_per_sm),
    1, 1), both counts taken as at least 1. ValueError (the runtime's
    message) for an axis out of range, a zero one included, or a persistent
    grid of more than 2^31-1 programs."""
    x, y, z = grid
    if not (1 <= x <= _MAX_PROGRAMS and 1 <= y <= 65535 and 1 <= z <= 65535):
        raise ValueError(f"grid ({x}, {y}, {z}) out of range (x in [1, 2^31-1], "
                         "y and z in [1, 65535])")
    if not persistent:
        return (x, y, z)
    programs = x * y * z
    if programs > _MAX_PROGRAMS:
        raise ValueError(f"grid ({x}, {y}, {z}) has {programs} programs; a persistent "
                         "kernel takes at most 2^31-1 (it numbers them with 32-bit integers)")
    return (min(programs, max(num_sms, 1) * max(ctas_per_sm, 1)), 1, 1)


def _check(result):
    err = result[0] if isinstance(result, tuple) else result
    if err != cu.CUresult.CUDA_SUCCESS:
        _, name = cu.cuGetErrorName(err)
        raise RuntimeError(f"CUDA driver error {name}")
    if isinstance(result, tuple) and len(result) == 2:
        return result[1]
    return result[1:] if isinstance(result, tuple) else None


def _aligned_bytes(size, align):
    """A ctypes array of `size` bytes at an `align`-aligned address (it keeps
    the larger buffer it lives in alive)."""
    raw = (ctypes.c_uint8 * (size + align))()
    offset = -ctypes.addressof(raw) % align
    return (ctypes.c_uint8 * size).from_buffer(raw, offset)


def _scalar(type_name, value):
    """A ctypes object holding `value` as the kernel's `type_name` scalar."""
    if type_name in _CTYPES:
        return _CTYPES[type_name](value)
    source, view, ctype = _BITS[type_name]
    if source is None:
        raise TypeError(f"this torch has no {type_name} type")
    bits = torch.tensor([float(value)], dtype=source).view(view).item()
    return ctype(bits & ((1 << (8 * ctypes.sizeof(ctype))) - 1))


class _TmaDescriptor:
    """One `tma_descriptor` hidden parameter: its recipe, checked, and the
    last descriptor encoded with its inputs."""

    def __init__(self, kernel_name, hidden, params):
        self.name = hidden["name"]
        self.where = f"kernel '{kernel_name}': TMA descriptor '{self.name}'"
        recipe = hidden["recipe"]
        if hidden.get("bytes") != _TENSOR_MAP_BYTES or hidden.get("align", 0) < _TENSOR_MAP_ALIGN:
            raise ValueError(f"{self.where}: a tma_descriptor is 128 bytes at 64-byte alignment")
        by_name = {p["name"]: p for p in params}
        base = by_name.get(recipe["base"])
        if base is None or base["kind"] != "pointer":
            raise ValueError(f"{self.where}: 'base' {recipe['base']!r} is not a pointer parameter")
        self.base = recipe["base"]
        self.element = recipe["element"]
        if self.element not in _TMA_DTYPE:
            raise ValueError(f"{self.where}: unknown element type {self.element!r}")
        self.elem_bytes = _SIZES[self.element]
        self.non_negative = [self._value(by_name, v, f"non_negative[{i}]")
                             for i, v in enumerate(recipe.get("non_negative", []))]
        self.dims = []
        for i, dim in enumerate(recipe["dims"]):
            self.dims.append((self._value(by_name, dim["size"], f"dims[{i}].size"),
                              self._value(by_name, dim["stride"], f"dims[{i}].stride")))
        if not 1 <= len(self.dims) <= 5:
            raise ValueError(f"{self.where}: 'dims' must have 1 to 5 entries")
        self.box = [int(b) for b in recipe["box"]]
        if len(self.box) != len(self.dims) or not all(1 <= b <= 256 for b in self.box):
            raise ValueError(f"{self.where}: 'box' needs one entry from 1 to 256 per dimension")
        swizzle = recipe.get("swizzle", 0)
        if swizzle not in _SWIZZLE:
            raise ValueError(f"{self.where}: 'swizzle' must be 0, 32, 64 or 128")
        fill = recipe.get("oob_fill", "zero")
        if fill not in ("zero", "nan"):
            raise ValueError(f"{self.where}: 'oob_fill' must be 'zero' or 'nan'")
        self.dtype = getattr(cu.CUtensorMapDataType, "CU_TENSOR_MAP_DATA_TYPE_" + _TMA_DTYPE[self.element])
        self.swizzle = getattr(cu.CUtensorMapSwizzle, "CU_TENSOR_MAP_SWIZZLE_" + _SWIZZLE[swizzle])
        self.oob_fill = (cu.CUtensorMapFloatOOBfill.CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA
                         if fill == "nan" else cu.CUtensorMapFloatOOBfill.CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE)
        self.key = None
        self.bytes = _aligned_bytes(_TENSOR_MAP_BYTES, _TENSOR_MAP_ALIGN)

    def _value(self, by_name, spec, label):
        """(label, literal, 1) or (name, None, factor) for a scalar read at
        launch (a term is a number, a name or {"arg": name, "factor": f})."""
        if isinstance(spec, int) and not isinstance(spec, bool):
            return (label, spec, 1)
        if isinstance(spec, dict):
            # {"args": [names], "factor": f}: f times their product; the
            # known (constexpr) part folds into the factor.
            factor, names = int(spec["factor"]), []
            for name in spec["args"]:
                n, value, f = self._value(by_name, name, label)
                if value is None:
                    names.append(n)
                else:
                    factor *= value
            if not names:
                return (label, factor, 1)
            return ("*".join(names), None, factor)
        param = by_name.get(spec)
        if param is None or param["kind"] == "pointer":
            raise ValueError(f"{self.where}: {label} names {spec!r}, not an integer scalar or constexpr")
        if param["kind"] == "constexpr":
            value = param["value"]
            if isinstance(value, bool) or not isinstance(value, int):
                raise ValueError(f"{self.where}: {label} names constexpr {spec!r} = {value!r}, "
                                 "which is not an integer")
            return (spec, value, 1)
        if param["type"] not in _INTEGER:
            raise ValueError(f"{self.where}: {label} names {spec!r}, a {param['type']} scalar")
        return (spec, None, 1)

    @staticmethod
    def _product(values, names):
        result = 1
        for name in names.split("*"):
            result *= int(values[name])
        return result

    def resolve(self, values):
        """(base address, sizes, byte strides of dims 1..) for this launch,
        checked against the tensor copy's rules; `values` maps each source
        parameter's name to its launch value (pointers as addresses)."""
        address = values[self.base]
        if address % 16:
            raise ValueError(f"{self.where}: base {self.base} = {address:#x} is not 16-byte aligned{_RULE}")
        for name, value, factor in self.non_negative:
            value = self._product(values, name) * factor if value is None else value
            if value < 0:
                raise ValueError(f"{self.where}: {name} = {value} is negative, but the kernel's "
                                 "TMA copies were placed assuming it is not")
        sizes, strides = [], []
        empty = False
        for i, ((size_name, size, size_factor), (stride_name, stride, stride_factor)) in enumerate(self.dims):
            size = self._product(values, size_name) * size_factor if size is None else size
            stride = self._product(values, stride_name) * stride_factor if stride is None else stride
            if size == 0:  # an empty dimension: nothing is copied (as TensorMap.cpp)
                size, empty = 1, True
            if not 1 <= size <= 1 << 32:
                raise ValueError(f"{self.where}: {size_name} = {size} is not a dimension size "
                                 f"from 1 to 2^32{_RULE}")
            if i == 0:
                if stride != 1:
                    raise ValueError(f"{self.where}: {stride_name} = {stride}: the innermost "
                                     f"dimension must be contiguous (stride 1){_RULE}")
            else:
                nbytes = stride * self.elem_bytes
                if stride < 0:
                    raise ValueError(f"{self.where}: {stride_name} = {stride} elements is negative; "
                                     f"strides must be non-negative{_RULE}")
                if nbytes >= 1 << 40:
                    raise ValueError(f"{self.where}: {stride_name} = {stride} elements ({nbytes} bytes) "
                                     f"is not below 2^40 bytes{_RULE}")
                if nbytes % 16:
                    raise ValueError(f"{self.where}: {stride_name} = {stride} elements ({nbytes} bytes) "
                                     f"is not a multiple of 16 bytes{_RULE}")
                strides.append(nbytes)
            sizes.append(size)
        if empty and address == 0:
            address = 16
        return address, tuple(sizes), tuple(strides)

    def get(self, values):
        """The descriptor's 128 bytes for this launch (a 64-byte aligned ctypes
        array), encoded only when the inputs changed since the last launch."""
        key = self.resolve(values)
        if key == self.key:
            return self.bytes
        self.key = None
        address, sizes, strides = key
        rank = len(sizes)
        err, tmap = cu.cuTensorMapEncodeTiled(
            self.dtype, rank, address,
            [cu.cuuint64_t(s) for s in sizes],
            [cu.cuuint64_t(s) for s in strides],
            [cu.cuuint32_t(b) for b in self.box],
            [cu.cuuint32_t(1)] * rank,
            cu.CUtensorMapInterleave.CU_TENSOR_MAP_INTERLEAVE_NONE,
            self.swizzle,
            cu.CUtensorMapL2promotion.CU_TENSOR_MAP_L2_PROMOTION_L2_128B,
            self.oob_fill)
        if err != cu.CUresult.CUDA_SUCCESS:
            _, name = cu.cuGetErrorName(err)
            raise RuntimeError(f"{self.where}: cuTensorMapEncodeTiled failed: {name} for the "
                               f"{self.element} tensor at {address:#x}, sizes {list(sizes)}, byte strides "
                               f"{list(strides)}, box {self.box}")
        # The CUtensorMap's storage (getPtr(): the address cuTensorMapEncodeTiled
        # wrote to) holds the 128 opaque bytes.
        ctypes.memmove(self.bytes, tmap.getPtr(), _TENSOR_MAP_BYTES)
        self.key = key
        return self.bytes


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
        self.cluster = [int(d) for d in self.meta.get("cluster_dims", [1, 1, 1])]
        self.persistent = self.meta.get("persistent", False)
        if not isinstance(self.persistent, bool):
            raise ValueError(f"kernel metadata: 'persistent' must be a boolean, got {self.persistent!r}")
        if self.persistent and self.cluster != [1, 1, 1]:
            raise ValueError(f"kernel metadata: 'persistent' is true and 'cluster_dims' is "
                             f"{self.cluster}: a persistent kernel is launched as a 1-D grid of "
                             "single CTAs, so it cannot use thread-block clusters")
        self.params = [p for p in self.meta["parameters"] if p["kind"] != "constexpr"]
        self.constexprs = {p["name"]: p["value"] for p in self.meta["parameters"]
                           if p["kind"] == "constexpr"}
        # One (kind, what it needs) per hidden parameter, in order.
        self.hidden = []
        for i, h in enumerate(self.meta.get("hidden_parameters", [])):
            kind = h["recipe"]["kind"]
            label = f"hidden_parameters[{i}] ({h['name']!r})"
            where = f"kernel metadata: {label}"
            if kind == "tma_descriptor":
                self.hidden.append((kind, _TmaDescriptor(self.meta["name"], h, self.meta["parameters"])))
            elif kind == "global_scratch":
                if h["bytes"] != 8:
                    raise ValueError(f"{where}: a global_scratch pointer is 8 bytes, metadata says {h['bytes']}")
                self.hidden.append((kind, h["recipe"]))
            elif kind == "program_grid":
                if h["bytes"] != 4 or h["align"] != 4:
                    raise ValueError(f"{where}: a program_grid value is a 32-bit integer ('bytes' 4, "
                                     f"'align' 4), metadata says 'bytes' {h['bytes']}, 'align' {h['align']}")
                axis = h["recipe"].get("axis")
                if axis is None:
                    raise ValueError(f"kernel metadata: missing required field {label}: recipe: 'axis'")
                if isinstance(axis, bool) or not isinstance(axis, int):
                    raise ValueError(f"{where}: recipe: 'axis' must be an integer, got {axis!r}")
                if not 0 <= axis <= 2:
                    raise ValueError(f"{where}: recipe: 'axis' is {axis}; a grid axis is 0, 1 or 2 (x, y, z)")
                self.hidden.append((kind, axis))
            else:
                raise NotImplementedError(f"hidden parameter {h['name']!r}: recipe {kind!r}")
        self.scratch = None
        self.threads = self.meta["num_threads"]
        # A persistent kernel's launch grid needs the SMs and how many of its
        # CTAs one SM holds (after the shared-memory opt-in above, which the
        # occupancy counts), asked once, as Kernel::load does.
        self.num_sms = self.ctas_per_sm = 0
        if self.persistent:
            device = _check(cu.cuCtxGetDevice())
            self.num_sms = _check(cu.cuDeviceGetAttribute(
                cu.CUdevice_attribute.CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, device))
            self.ctas_per_sm = max(_check(cu.cuOccupancyMaxActiveBlocksPerMultiprocessor(
                self.function, self.threads, self.smem)), 1)

    def _scratch_address(self, recipe, programs):
        per_program = recipe.get("bytes_per_program", 0)
        if per_program == 0:
            return 0
        align = recipe.get("align", 1) or 1
        per_program = -(-per_program // align) * align
        need = per_program * programs + align
        if self.scratch is None or self.scratch.numel() < need:
            # Stream-ordered (torch's allocator): earlier launches on this
            # stream finish with the old buffer before its memory is reused.
            self.scratch = torch.empty(need, dtype=torch.uint8, device="cuda")
        return -(-self.scratch.data_ptr() // align) * align

    def __call__(self, grid, *args):
        if len(args) != len(self.params):
            raise TypeError(f"{self.meta['name']} takes {len(self.params)} runtime "
                            f"arguments, got {len(args)}")
        grid = tuple(int(g) for g in grid) + (1,) * (3 - len(grid))
        try:
            launched = launch_grid(grid, self.persistent, self.num_sms, self.ctas_per_sm)
        except ValueError as error:
            raise ValueError(f"kernel '{self.meta['name']}': {error}") from None
        # One ctypes object per entry parameter, in order (see the module
        # docstring); `keep` holds them until cuLaunchKernel returns.
        keep = []
        values = dict(self.constexprs)
        for p, a in zip(self.params, args):
            if p["kind"] == "pointer":
                address = a.data_ptr() if isinstance(a, torch.Tensor) else int(a)
                values[p["name"]] = address
                keep.append(ctypes.c_uint64(address))
            else:
                values[p["name"]] = a
                keep.append(_scalar(p["type"], a))
        for kind, h in self.hidden:
            if kind == "tma_descriptor":
                keep.append(h.get(values))
            elif kind == "program_grid":
                keep.append(ctypes.c_int32(grid[h]))  # the caller's grid, not `launched`
            else:
                keep.append(ctypes.c_uint64(self._scratch_address(h, grid[0] * grid[1] * grid[2])))
        params = (ctypes.c_void_p * max(len(keep), 1))(*[ctypes.addressof(v) for v in keep])
        stream = torch.cuda.current_stream().cuda_stream
        if self.cluster == [1, 1, 1]:
            _check(cu.cuLaunchKernel(self.function, launched[0], launched[1], launched[2],
                                     self.threads, 1, 1, self.smem, stream,
                                     ctypes.addressof(params) if keep else None, 0))
            return
        # A thread-block cluster (metadata `cluster_dims`): cuLaunchKernelEx
        # with the cluster-dimension launch attribute, as lib/Runtime/Kernel.cpp.
        if any(g % c for g, c in zip(grid, self.cluster)):
            raise ValueError(f"{self.meta['name']}: grid {grid} is not a multiple "
                             f"of its cluster dims {tuple(self.cluster)}")
        attr = cu.CUlaunchAttribute()
        attr.id = cu.CUlaunchAttributeID.CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION
        attr.value.clusterDim.x, attr.value.clusterDim.y, attr.value.clusterDim.z = self.cluster
        config = cu.CUlaunchConfig()
        config.gridDimX, config.gridDimY, config.gridDimZ = grid
        config.blockDimX, config.blockDimY, config.blockDimZ = self.threads, 1, 1
        config.sharedMemBytes = self.smem
        config.hStream = cu.CUstream(stream)
        config.attrs = [attr]
        config.numAttrs = 1
        _check(cu.cuLaunchKernelEx(config, self.function,
                                   ctypes.addressof(params) if keep else None, 0))
