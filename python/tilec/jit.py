"""`@tilec.jit`: Triton-style kernels compiled by tilec through its C API.

A decorated function is never run by Python. Its source (the whole module it
is defined in, as written, so diagnostics point at the real file:line:col,
plus any `@tilec.jit` helpers and constants it uses from other modules) is
compiled by libtilec for each specialization of the arguments, the same
rules as Triton's JIT and tilec's C++ JIT (docs/jit-api.md):

- a torch tensor / numpy array is a pointer to its dtype; `:16` when its
  address is a multiple of 16;
- a Python int is `i32` (or `i64`, `u64` when it does not fit), `1` when it
  equals 1 (specialized away), `:16` when a multiple of 16; a float `fp32`,
  a bool `i1`;
- a `tl.constexpr` parameter is its value.

Launch: `kernel[grid](*args, BLOCK=..., num_warps=4, num_stages=3)`; `grid`
is a tuple or a function of the meta-parameters (a dict of every argument
by name). The pass switches of the `tilec` command line are keywords too
(`longest_first=False`, `ping_pong=None`, `enable_fp_fusion=False`, ...:
SWITCHES below). On the GPU
the launch goes to torch's current stream; without a GPU (or with
TILEC_BACKEND=cpu) the same call runs on tilec's CPU backend
(docs/cpu-backend.md) with numpy arrays or CPU torch tensors, synchronously.

The launch path is kept short: the specialization key is one pass over the
arguments, and each specialization caches its compiled handle and a
`struct.Struct` that packs the run-time arguments into the 64-bit words of
`tilec_module_launch_words` / `tilec_cpu_kernel_launch_words`.
"""

import ctypes
import functools
import inspect
import linecache
import os
import re
import struct
import sys
import textwrap
import threading
import types

from . import _capi


class TilecError(RuntimeError):
    """An error reported by libtilec; `message` is its text (for compile
    errors: tilec's diagnostics, file:line:col with the source line and a
    caret)."""

    def __init__(self, message, status=None):
        super().__init__(message)
        self.message = message
        self.status = status


class CompilationError(TilecError):
    """The kernel does not parse or does not compile for a specialization."""


class LaunchError(TilecError):
    """Bad launch arguments, or the driver refused the launch."""


def _raise(status, what=""):
    message = _capi.last_error()
    if what:
        message = f"{what}: {message}" if message else what
    cls = CompilationError if status == _capi.ERROR_COMPILE else LaunchError
    raise cls(message, status)


# ---------------------------------------------------------------- backends

_backend = None


def _has_cuda_device():
    try:
        cuda = ctypes.CDLL("libcuda.so.1")
    except OSError:
        return False
    if cuda.cuInit(0) != 0:
        return False
    count = ctypes.c_int(0)
    return cuda.cuDeviceGetCount(ctypes.byref(count)) == 0 and count.value > 0


def backend():
    """'gpu' or 'cpu': TILEC_BACKEND (cpu, gpu) if set, else 'gpu' when a CUDA
    driver with a device is found, else 'cpu'."""
    global _backend
    if _backend is None:
        choice = os.environ.get("TILEC_BACKEND", "").lower()
        if choice in ("cpu", "gpu"):
            _backend = choice
        elif choice in ("cuda",):
            _backend = "gpu"
        elif choice:
            raise ValueError(f"TILEC_BACKEND={choice!r}: expected 'cpu' or 'gpu'")
        else:
            _backend = "gpu" if _has_cuda_device() else "cpu"
    return _backend


def set_backend(name):
    """Overrides the backend for this process ('cpu', 'gpu', or None: detect
    again)."""
    global _backend
    if name not in (None, "cpu", "gpu"):
        raise ValueError(f"backend {name!r}: expected 'cpu' or 'gpu'")
    _backend = name


# ---------------------------------------------------------------- switches

# The pass switches: `tilec`'s flags of the same names (docs/cli.md), the
# C API's tilec_options fields, and keywords of a launch (`kernel[grid](...,
# longest_first=False)`) and of `kernel.compile`, with their defaults:
#
# - use_wgmma, use_mma, use_tma, use_cp_async: False is --disable-wgmma, ...
# - warp_specialize: "off", "requested", "auto" or "all";
# - ping_pong, intra_warpgroup_overlap: None (auto: where the compiler finds
#   it pays), True (wherever it can), False (never);
# - num_ctas: CTAs per cluster along grid axis 0, 1, 2, 4 or 8;
# - longest_first, prefetch_loads, issue_dots_early: bools;
# - persistent: a bool (False by default); True makes kernels persistent:
#   each CTA loops over programs of the grid and the runtime launches as
#   many CTAs as the GPU runs at once (--persistent);
# - tma_store: a bool (False by default); True stores a tensor-core
#   kernel's 2-d output tiles through shared memory with TMA where the
#   staging buffer fits (--tma-store);
# - mbarrier_spin_limit: > 0 makes mbarrier waits trap after that many polls;
# - enable_fp_fusion: Triton's; False (--disable-fp-fusion) rounds every
#   floating-point multiply and add on its own instead of fusing a multiply
#   and an add into one fma.
#
# Each changes the code and is part of the kernel cache key.
SWITCHES = types.MappingProxyType({
    "use_wgmma": True, "use_mma": True, "use_tma": True, "use_cp_async": True,
    "warp_specialize": "auto", "ping_pong": None, "intra_warpgroup_overlap": None,
    "num_ctas": 1, "longest_first": True, "prefetch_loads": True,
    "issue_dots_early": True, "mbarrier_spin_limit": 0, "enable_fp_fusion": True,
    "persistent": False, "tma_store": False,
})
_SWITCH_NAMES = tuple(SWITCHES)
# The defaults as _switches returns them (a tuple in _SWITCH_NAMES order).
_DEFAULT_SWITCHES = tuple(SWITCHES.values())
_WARP_SPECIALIZE_MODES = ("off", "requested", "auto", "all")


def _switches(options):
    """The pass switches of a launch's or compile's keyword `options` (a dict,
    or None), checked: a tuple in _SWITCH_NAMES order (_DEFAULT_SWITCHES when
    none is given)."""
    if not options:
        return _DEFAULT_SWITCHES
    values = []
    for name, default in SWITCHES.items():
        v = options.get(name, default)
        if name == "warp_specialize":
            if v not in _WARP_SPECIALIZE_MODES:
                raise ValueError(f"tilec: warp_specialize must be 'off', 'requested', 'auto' "
                                 f"or 'all', got {v!r}")
        elif name in ("ping_pong", "intra_warpgroup_overlap"):
            if v is not None and type(v) is not bool:
                raise TypeError(f"tilec: {name} must be None (auto), True or False, got {v!r}")
        elif name == "num_ctas":
            if type(v) is not int or v not in (1, 2, 4, 8):
                raise ValueError(f"tilec: num_ctas must be 1, 2, 4 or 8, got {v!r}")
        elif name == "mbarrier_spin_limit":
            if type(v) is not int or v < 0:
                raise ValueError(f"tilec: mbarrier_spin_limit must be an int >= 0, got {v!r}")
        elif type(v) is not bool:
            raise TypeError(f"tilec: {name} must be True or False, got {v!r}")
        values.append(v)
    return tuple(values)


# _switch_key's answers, by the keywords' names, values and the values'
# types (True == 1, but longest_first=1 is an error): a few entries, one per
# way a program spells its switches.
_switch_keys = {}
_SWITCH_KEYS_MAX = 1024


def _switch_key(extra):
    """What the generated launcher appends to its cache key for the keyword
    options `extra` (a non-empty dict) when all of them are pass switches:
    () when they are the defaults, else (_switches(extra),), the suffix
    _launch's key has. None when there is another option (stream=,
    device=, a misspelling) or an unhashable value: the generic path takes
    those (and raises for the bad ones). Bad switch values raise here, as
    _switches does."""
    memo = (*extra.items(), *map(type, extra.values()))
    try:
        return _switch_keys[memo]
    except KeyError:
        pass
    except TypeError:
        return None
    for name in extra:
        if name not in SWITCHES:
            return None
    switches = _switches(extra)
    key = () if switches == _DEFAULT_SWITCHES else (switches,)
    if len(_switch_keys) >= _SWITCH_KEYS_MAX:
        _switch_keys.clear()
    _switch_keys[memo] = key
    return key


def _set_switches(opts, switches):
    """Writes `switches` (_switches' tuple) into a tilec_options."""
    tri = {None: _capi.SWITCH_AUTO, False: _capi.SWITCH_OFF, True: _capi.SWITCH_ON}
    for name, v in zip(_SWITCH_NAMES, switches):
        if name == "warp_specialize":
            opts.warp_specialize = v.encode()
        elif name in ("ping_pong", "intra_warpgroup_overlap"):
            setattr(opts, name, tri[v])
        else:
            setattr(opts, name, int(v))


# ---------------------------------------------------------------- compilers

_compilers = {}
_compilers_lock = threading.Lock()


def _compiler(num_warps, num_stages, device=0, switches=_DEFAULT_SWITCHES):
    """The libtilec compiler for these options (one per option set: they are
    compiler options in the C API); `switches` as _switches returns them."""
    key = (num_warps, num_stages, device, switches)
    handle = _compilers.get(key)
    if handle is not None:
        return handle
    with _compilers_lock:
        handle = _compilers.get(key)
        if handle is None:
            lib = _capi.lib()
            opts = _capi.default_options()
            opts.num_warps = num_warps
            opts.num_stages = num_stages
            opts.device = device
            _set_switches(opts, switches)
            # Load PTX, never run ptxas (for the fake driver's tests, and to
            # skip ptxas while debugging).
            opts.ptx_only = os.environ.get("TILEC_PTX_ONLY", "0") == "1"
            handle = ctypes.c_void_p()
            status = lib.tilec_compiler_create(ctypes.byref(opts), ctypes.byref(handle))
            if status:
                _raise(status, "tilec_compiler_create")
            _compilers[key] = handle
    return handle


# ---------------------------------------------------------------- arguments

# Element types of tensors and arrays by dtype, filled lazily (torch and
# numpy are optional).
_DTYPES = {}

# torch's and numpy's names of a scalar type are its triton.language name
# (`float16`, `uint8`) except for these; numpy has no bfloat16 or fp8.
_FOREIGN_NAMES = {"i1": "bool", "fp8e4nv": "float8_e4m3fn", "fp8e5": "float8_e5m2"}


def foreign_dtype_name(t):
    """torch's (and numpy's) dtype name of a tilec scalar type row."""
    return _FOREIGN_NAMES.get(t.name, t.language_name)


# Signature entries of pointers, (unaligned, 16-byte aligned) by element
# type, filled with _DTYPES (every type _element_type returns has one).
_PTR_ENTRIES = {}


def _fill_dtypes():
    types = _capi.scalar_types()
    for t in types:
        _PTR_ENTRIES[t.name] = ("*" + t.name, "*" + t.name + ":16")
    try:
        import numpy as np
        for t in types:
            try:
                _DTYPES[np.dtype(foreign_dtype_name(t))] = t.name
            except TypeError:
                pass
    except ImportError:
        pass
    torch = sys.modules.get("torch")
    if torch is not None:
        for t in types:
            dt = getattr(torch, foreign_dtype_name(t), None)
            if dt is not None:
                _DTYPES[dt] = t.name


_INT32_MIN, _INT32_MAX = -(1 << 31), (1 << 31) - 1
_INT64_MIN, _INT64_MAX = -(1 << 63), (1 << 63) - 1
# struct codes of one 64-bit word per run-time argument.
_WORD = {"ptr": "Q", "i32": "q", "i64": "q", "u64": "Q", "fp32": "f4x", "i1": "?7x"}


def _element_type(v):
    dt = getattr(v, "dtype", None)
    t = _DTYPES.get(dt)
    if t is None:
        _fill_dtypes()
        t = _DTYPES.get(dt)
        if t is None:
            raise TypeError(f"tilec: unsupported element type {dt!r}")
    return t


# numpy arrays' data address without __array_interface__ (a new dict per
# call, ~0.7 µs): PyArrayObject's `data`, the first field after the object
# header (numpy's ndarraytypes.h), read by address. Used only under CPython
# and once checked against __array_interface__ on a few arrays; else None.
_numpy_reader = None


def _numpy_address_reader():
    """(numpy.ndarray, the data field's offset from id(array)), or None
    (numpy not imported, or not laid out as expected)."""
    global _numpy_reader
    if _numpy_reader is not None:
        return _numpy_reader or None
    np = sys.modules.get("numpy")
    if np is None:
        return None  # asked again once numpy is imported
    found = False
    if sys.implementation.name == "cpython":
        offset = object.__basicsize__
        read = ctypes.c_size_t.from_address
        try:
            base = np.arange(24, dtype=np.float32)
            samples = [base, base[5:], base[::-3], base.reshape(4, 6)[1:, 2:].T, np.empty(0),
                       np.zeros((3, 2), np.int8)[2]]
            found = all(read(id(a) + offset).value == a.__array_interface__["data"][0]
                        for a in samples)
        except Exception:
            found = False
    _numpy_reader = (np.ndarray, offset) if found else False
    return _numpy_reader or None


def _address(v):
    ptr = getattr(v, "data_ptr", None)
    if ptr is not None:
        return ptr()
    reader = _numpy_reader if _numpy_reader is not None else _numpy_address_reader()
    if reader and type(v) is reader[0]:
        return ctypes.c_size_t.from_address(id(v) + reader[1]).value
    ai = getattr(v, "__array_interface__", None)
    if ai is not None:
        return ai["data"][0]
    raise TypeError(f"tilec: cannot pass a {type(v).__name__} as a kernel argument "
                    "(tensors, arrays, ints, floats and bools can be)")


def _constexpr_literal(name, v):
    """A constexpr's value as a signature literal."""
    v = getattr(v, "value", v)  # tl.constexpr(3)
    if isinstance(v, bool):
        return "True" if v else "False"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        text = repr(v)
        if "inf" in text or "nan" in text:
            raise ValueError(f"tilec: constexpr {name} = {v}: infinities and NaNs cannot be constexprs")
        return text
    if isinstance(v, str):
        if "'" in v or "\\" in v:
            raise ValueError(f"tilec: constexpr {name} = {v!r}: quotes and backslashes are not allowed")
        return "'" + v + "'"
    dtype_name = getattr(v, "name", None)
    if dtype_name is not None and type(v).__name__ == "dtype":
        return "'" + dtype_name + "'"
    raise TypeError(f"tilec: constexpr {name} = {v!r}: a constexpr is an int, float, bool or str")


# ---------------------------------------------------------------- kernels


class _Specialization:
    """One compiled specialization: the handle and how to pack its run-time
    arguments."""
    __slots__ = ("signature", "handle", "packer", "words", "address", "nwords", "binary",
                 "metadata", "cpu", "pack", "nwords_c", "codes")

    def __init__(self, signature, handle, codes, cpu, binary=None, metadata=None):
        self.signature = signature
        self.handle = handle
        self.cpu = cpu
        self.codes = tuple(codes)
        self.nwords = len(codes)
        # The packet of *_launch_packet: grid x | y << 32, grid z, the stream
        # (GPU) or thread count (CPU), then one word per parameter.
        self.packer = struct.Struct("<IIQQ" + "".join(codes))
        self.words = (ctypes.c_uint64 * (3 + self.nwords))()
        self.address = ctypes.addressof(self.words)
        # What the generated launchers call: packer.pack_into(words, 0, ...),
        # and the word count as a ctypes object (_capi.raw_function).
        self.pack = functools.partial(self.packer.pack_into, self.words, 0)
        self.nwords_c = ctypes.c_size_t(self.nwords)
        self.binary = binary
        self.metadata = metadata


class KernelBase:
    """What `@tilec.jit` functions and `compile_file` kernels share: the
    source, the libtilec handles, the specialization cache and the launch."""

    def __init__(self, name, file_name, params, constexpr, defaults, do_not_specialize=()):
        self.__name__ = name
        self.name = name
        self.file_name = file_name
        self.arg_names = list(params)
        self.constexpr = list(constexpr)
        self.defaults = dict(defaults)
        self.do_not_specialize = set(do_not_specialize)
        self._index = {n: i for i, n in enumerate(self.arg_names)}
        self._handles = {}
        self._cache = {}
        self._lock = threading.Lock()
        self._source_text = None
        self._launchers = {}
        self._variants = {}
        self._specialize_flags = [n not in self.do_not_specialize for n in self.arg_names]

    # The source text compiled (set by subclasses).
    def source(self):
        raise NotImplementedError

    def _handle(self, num_warps, num_stages, device=0, switches=_DEFAULT_SWITCHES):
        key = (num_warps, num_stages, device, switches)
        handle = self._handles.get(key)
        if handle is None:
            lib = _capi.lib()
            compiler = _compiler(num_warps, num_stages, device, switches)
            text = self.source().encode("utf-8")
            handle = ctypes.c_void_p()
            status = lib.tilec_kernel_from_source(compiler, text, len(text), self.name.encode(),
                                                  self.file_name.encode(), ctypes.byref(handle))
            if status:
                _raise(status)
            self._handles[key] = handle
        return handle

    # -- binding

    def _bind(self, args, kwargs):
        """All arguments in parameter order (a list), and the launch options."""
        n = len(self.arg_names)
        if len(args) > n:
            raise TypeError(f"{self.name}() takes {n} arguments, got {len(args)}")
        values = list(args)
        if len(values) < n:
            values.extend([_MISSING] * (n - len(values)))
        options = {}
        for k, v in kwargs.items():
            i = self._index.get(k)
            if i is None:
                if k in _LAUNCH_OPTIONS:
                    options[k] = v
                    continue
                raise TypeError(f"{self.name}() got an unexpected argument {k!r}")
            if values[i] is not _MISSING:
                raise TypeError(f"{self.name}() got multiple values for argument {k!r}")
            values[i] = v
        for i, v in enumerate(values):
            if v is _MISSING:
                name = self.arg_names[i]
                if name in self.defaults:
                    values[i] = self.defaults[name]
                else:
                    raise TypeError(f"{self.name}() missing argument {name!r}")
        return values, options

    # -- specialization and launch
    #
    # Each run-time argument contributes three items to the cache key: its
    # kind (a dtype for tensors and arrays, 'i32'/'i64'/'u64'/'one'/'fp32'/
    # 'i1' for scalars), whether it is a CUDA tensor (None for others), and
    # its divisibility by 16 (address or value); a constexpr its value. The
    # generated launcher (_make_launcher) computes the same key inline.

    def _key_and_words(self, values):
        key, words = [], []
        for i, v in enumerate(values):
            if self.constexpr[i]:
                key.append(v)
                continue
            k, c, a, w = _arg_key(v, self._specialize_flags[i])
            key += (k, c, a)
            words.append(w)
        return key, words

    def _entries(self, key_items, values):
        """Signature entries and struct codes of a key's arguments."""
        entries, codes = [], []
        j = 0
        for i, v in enumerate(values):
            if self.constexpr[i]:
                entries.append(_constexpr_literal(self.arg_names[i], v))
                codes.append("8x")
                j += 1
                continue
            k, c, a = key_items[j:j + 3]
            j += 3
            if k == "one":
                entries.append("1")
                codes.append("q")
            elif k in ("i32", "i64", "u64"):
                entries.append(k + ":16" if a else k)
                codes.append("Q" if k == "u64" else "q")
            elif k == "fp32":
                entries.append("fp32")
                codes.append("f4x")
            elif k == "i1":
                entries.append("i1")
                codes.append("?7x")
            else:
                e = _PTR_ENTRIES[_element_type(v)]
                entries.append(e[1] if a else e[0])
                codes.append("Q")
        return entries, codes

    def _compile(self, entries, codes, num_warps, num_stages, device, cpu, switches):
        signature = ", ".join(entries)
        lib = _capi.lib()
        handle = self._handle(num_warps, num_stages, device, switches)
        if cpu:
            out = ctypes.c_void_p()
            status = lib.tilec_kernel_compile_cpu(handle, signature.encode(), ctypes.byref(out))
            if status:
                _raise(status)
            if os.environ.get("TILEC_CHECK_GPU_COMPILE") == "1":
                # Also compile it for the GPU (PTX, ptxas): what a CPU-only
                # test run can check of the GPU path.
                binary = ctypes.c_void_p()
                status = lib.tilec_kernel_compile(handle, signature.encode(), ctypes.byref(binary))
                if status:
                    _raise(status, "TILEC_CHECK_GPU_COMPILE")
                lib.tilec_binary_destroy(binary)
            return _Specialization(signature, out, codes, True)
        binary = ctypes.c_void_p()
        status = lib.tilec_kernel_compile(handle, signature.encode(), ctypes.byref(binary))
        if status:
            _raise(status)
        module = ctypes.c_void_p()
        status = lib.tilec_binary_load(_compiler(num_warps, num_stages, device, switches), binary,
                                       ctypes.byref(module))
        if status:
            _raise(status)
        return _Specialization(signature, module, codes, False, binary,
                               lib.tilec_binary_metadata(binary).decode())

    def compile(self, signature, target="gpu", num_warps=4, num_stages=3, **switches):
        """Compiles one signature (Triton's AOT form) without launching:
        target 'gpu' gives a `CompiledKernel` (PTX, metadata, cache key; no GPU
        needed), 'cpu' checks that it compiles for the CPU backend. The pass
        switches (SWITCHES: `longest_first=False`, ...) are keywords."""
        unknown = set(switches) - set(SWITCHES)
        if unknown:
            raise TypeError(f"{self.name}.compile() got an unexpected argument {sorted(unknown)[0]!r}")
        lib = _capi.lib()
        handle = self._handle(num_warps, num_stages, 0, _switches(switches))
        if target == "cpu":
            out = ctypes.c_void_p()
            status = lib.tilec_kernel_compile_cpu(handle, signature.encode(), ctypes.byref(out))
            if status:
                _raise(status)
            lib.tilec_cpu_kernel_destroy(out)
            return None
        binary = ctypes.c_void_p()
        status = lib.tilec_kernel_compile(handle, signature.encode(), ctypes.byref(binary))
        if status:
            _raise(status)
        return CompiledKernel(binary)

    def run(self, *args, grid, **kwargs):
        """The generic launch (`kernel[grid](...)` takes the generated fast
        path, _make_launcher, and falls back to this)."""
        values, options = self._bind(args, kwargs)
        return self._launch(grid, values, options.get("num_warps", 4),
                            options.get("num_stages", 3), options)

    def _launch(self, grid, values, num_warps, num_stages, options):
        if any(getattr(v, "_tilec_descriptor", False) for v in values):
            return self._launch_descriptors(grid, values, num_warps, num_stages, options)
        cpu = (_backend or backend()) == "cpu"
        items, words = self._key_and_words(values)
        switches = _switches(options)
        if cpu:
            device, stream = 0, None
        else:
            device, stream = _cuda_device_stream(values, options or _NO_OPTIONS)
        # The generated launcher's key (_make_launcher); other switches than
        # the defaults add themselves at the end (its _switch_key suffix).
        key = (*items, num_warps, num_stages, device)
        if switches != _DEFAULT_SWITCHES:
            key += (switches,)
        spec = self._cache.get(key)
        if spec is None:
            with self._lock:
                spec = self._cache.get(key)
                if spec is None:
                    if not cpu:
                        _check_gpu_arguments(values)
                    else:
                        _check_cpu_arguments(values)
                    entries, codes = self._entries(items, values)
                    spec = self._compile(entries, codes, num_warps, num_stages, device, cpu,
                                         switches)
                    self._cache[key] = spec
        if not isinstance(grid, tuple):
            if callable(grid):
                grid = grid(dict(zip(self.arg_names, values)))
            grid = tuple(grid)
        ng = len(grid)
        gx = grid[0]
        gy = grid[1] if ng > 1 else 1
        gz = grid[2] if ng > 2 else 1
        if gx * gy * gz == 0:
            return spec  # an empty grid runs nothing (as Triton)
        if gx > 0x7FFFFFFF or gy > 0xFFFF or gz > 0xFFFF or gx < 0 or gy < 0 or gz < 0:
            raise LaunchError(f"{self.name}: grid {tuple(grid)} out of range (x: 1 to 2^31-1, "
                              "y and z: 1 to 65535, on every backend)")
        if cpu:
            spec.packer.pack_into(spec.words, 0, gx, gy, gz, _cpu_threads(), *words)
            status = _capi.lib().tilec_cpu_kernel_launch_packet(spec.handle, spec.address, spec.nwords)
        else:
            spec.packer.pack_into(spec.words, 0, gx, gy, gz, stream or 0, *words)
            status = _capi.lib().tilec_module_launch_packet(spec.handle, spec.address, spec.nwords)
        if status:
            _raise(status, f"{self.name}[{tuple(grid)}] ({spec.signature})")
        return spec

    def _launch_descriptors(self, grid, values, num_warps, num_stages, options):
        """A launch with TensorDescriptor arguments: through the variant of
        the kernel that takes their pieces (tensor_descriptor.py)."""
        from .tensor_descriptor import expand_source
        descs = {self.arg_names[i]: v for i, v in enumerate(values)
                 if getattr(v, "_tilec_descriptor", False)}
        vkey = tuple((n, len(d.shape), tuple(d.block_shape)) for n, d in descs.items())
        variant = self._variants.get(vkey)
        if variant is None:
            text, names, constexpr = expand_source(self.source(), self.name, descs)
            variant = _SourceKernel(text, self.name, self.file_name, names, constexpr,
                                    {k: v for k, v in self.defaults.items() if k not in descs})
            self._variants[vkey] = variant
        expanded = []
        for i, v in enumerate(values):
            if self.arg_names[i] in descs:
                expanded += [v.base] + list(v.shape) + list(v.strides)
            else:
                expanded.append(v)
        return variant._launch(grid, expanded, num_warps, num_stages, options)

    def _fail(self, status, grid, spec):
        _raise(status, f"{self.name}[{tuple(grid)}] ({spec.signature})")

    def __getitem__(self, grid):
        launcher = self._launchers.get(_backend or backend())
        if launcher is None:
            launcher = self._make_launcher()
        return functools.partial(launcher, grid)

    def _make_launcher(self):
        """A launcher generated for this kernel's parameters (as Triton
        generates its binder): binds the arguments by Python's own call
        mechanism, computes the cache key inline (torch tensors, numpy
        arrays on the CPU backend, ints and floats without a function call),
        and on a hit packs the words and calls libtilec. Pass switches given
        as keywords add _switch_key's suffix to the key (a memoized lookup),
        so a cached launch with them is as short. Anything unusual (a miss,
        other keyword options such as stream= and device=) goes to _launch,
        through run for the keywords."""
        which = _backend or backend()
        cpu = which == "cpu"
        torch = sys.modules.get("torch")
        # numpy arrays only run on the CPU backend (elsewhere _launch
        # refuses them, through _ak and a miss).
        numpy = _numpy_address_reader() if cpu else None
        names = self.arg_names
        params, body, key, words = [], [], [], []
        for i, name in enumerate(names):
            v = name
            params.append(f"{v}=_D[{name!r}]" if name in self.defaults else v)
            if self.constexpr[i]:
                key.append(v)
                continue
            spec = self._specialize_flags[i]

            def aligned(w):
                return f"not {w} & 15" if spec else "False"
            branches = [(f"type({v}) is _T",
                         f"_w{i} = {v}.data_ptr(); _k{i} = {v}.dtype; _c{i} = {v}.is_cuda; "
                         f"_s{i} = {aligned(f'_w{i}')}")]
            if numpy:
                branches.append((f"type({v}) is _ND",
                                 f"_w{i} = _npa(_id({v}) + {numpy[1]}).value; _k{i} = {v}.dtype; "
                                 f"_c{i} = None; _s{i} = {aligned(f'_w{i}')}"))
            branches += [
                (f"type({v}) is int and {_INT32_MIN} <= {v} <= {_INT32_MAX}"
                 f"{' and %s != 1' % v if spec else ''}",
                 f"_w{i} = {v}; _k{i} = 'i32'; _c{i} = None; _s{i} = {aligned(v)}"),
                (f"type({v}) is float", f"_w{i} = {v}; _k{i} = 'fp32'; _c{i} = None; _s{i} = False"),
            ]
            for j, (test, then) in enumerate(branches):
                body.append(f"    {'if' if j == 0 else 'elif'} {test}:\n        {then}")
            body.append(f"    else:\n        _k{i}, _c{i}, _s{i}, _w{i} = _ak({v}, {spec})")
            key.append(f"_k{i}, _c{i}, _s{i}")
            words.append(f"_w{i}")
        meta = "{" + ", ".join(f"{n!r}: {n}" for n in names) + "}"
        values = "[" + ", ".join(names) + "]"
        if cpu:
            device, dev, tail, call = "", "0", "_THREADS", "_cpu_launch"
        else:
            device, dev, tail, call = "    _dev = _cur_dev()\n", "_dev", "_stream(_dev)", "_gpu_launch"
        packed = ", ".join([tail] + words)
        miss = f"return _self._launch(_grid, {values}, num_warps, num_stages, extra or None)"
        src = (f"def {self.name}(_grid, {', '.join(params)}{', ' if params else ''}num_warps=4, num_stages=3, **extra):\n"
               f"    if extra:\n"
               f"        _sk = _swk(extra)\n"
               f"        if _sk is None:\n"
               f"            return _self.run(*{values}, grid=_grid, num_warps=num_warps, num_stages=num_stages, **extra)\n"
               f"    else:\n"
               f"        _sk = ()\n"
               + "\n".join(body) + "\n" + device +
               f"    _spec = _get(({', '.join(key)}{', ' if key else ''}num_warps, num_stages, {dev}) + _sk)\n"
               f"    if _spec is None:\n"
               f"        {miss}\n"
               f"    if type(_grid) is not tuple:\n"
               f"        _grid = tuple(_grid({meta}) if callable(_grid) else _grid)\n"
               f"    if len(_grid) == 1:\n"
               f"        _gx = _grid[0]\n"
               f"        if not 0 < _gx <= 0x7FFFFFFF:\n"
               f"            {miss}\n"
               f"        _spec.pack(_gx, 1, 1, {packed})\n"
               f"    else:\n"
               f"        _ng = len(_grid)\n"
               f"        _gx = _grid[0]; _gy = _grid[1] if _ng > 1 else 1; _gz = _grid[2] if _ng > 2 else 1\n"
               f"        if not (0 < _gx <= 0x7FFFFFFF and 0 < _gy <= 0xFFFF and 0 < _gz <= 0xFFFF):\n"
               f"            {miss}\n"
               f"        _spec.pack(_gx, _gy, _gz, {packed})\n"
               f"    _status = {call}(_spec.handle, _spec.words, _spec.nwords_c)\n"
               f"    if _status:\n"
               f"        _self._fail(_status, _grid, _spec)\n"
               f"    return _spec\n")
        scope = {
            "_D": self.defaults, "_T": torch.Tensor if torch is not None else _NoTensor,
            "_ak": _arg_key, "_get": self._cache.get, "_self": self, "_swk": _switch_key,
            "_cpu_launch": _capi.raw_function("tilec_cpu_kernel_launch_packet"),
            "_THREADS": _cpu_threads(),
            "_gpu_launch": _capi.raw_function("tilec_module_launch_packet"),
        }
        if numpy:
            scope.update(_ND=numpy[0], _npa=ctypes.c_size_t.from_address, _id=id)
        if not cpu:
            scope["_cur_dev"], scope["_stream"] = _cuda_launch_functions()
        exec(compile(src, f"<tilec launcher of {self.name}>", "exec"), scope)
        self._launcher_source = src
        self._launchers[which] = scope[self.name]
        return scope[self.name]

    def cache_stats(self):
        """libtilec's cache counters of the default compiler (a dict)."""
        stats = _capi.CacheStats()
        _capi.lib().tilec_compiler_stats(_compiler(4, 3), ctypes.byref(stats))
        return {name: getattr(stats, name) for name, _ in stats._fields_}


class BoundLaunch:
    """`kernel[grid](*lead, *tail, num_warps=..., num_stages=...)` with the
    grid, the options and the trailing arguments fixed (ints and bools, as
    pointwise_dynamic's shapes and strides): `bound.run(lead)` launches on
    the leading arguments `lead` (a sequence).

    `lead_kinds` says, per leading argument, what the caller promises it is
    on every call: "tensor" (a torch.Tensor, always of the same dtype and
    device), "ndarray" (a numpy.ndarray, always of the same dtype), "float"
    (a Python float), "to_float" (an int, float or bool, passed as a float),
    or None (anything: keyed as the launcher keys it). With `allocators`
    (functions of no arguments), the last len(allocators) leading arguments
    are what they return on each call, and `run` is given the others and
    returns those (the one, or a tuple).

    The specialization for each key of the leading arguments (the 16-byte
    alignment of the promised arrays, the launcher's key items of the
    others; the backend and the current device) is kept with a packet of
    its own, in which the grid, the CPU thread count and the trailing words
    are packed once: a call reads the arrays' addresses, packs the leading
    words (and the stream) and calls libtilec. A key not seen yet launches
    through kernel[grid], which compiles, checks and raises as ever."""

    def __init__(self, kernel, grid, lead_kinds, tail, num_warps=4, num_stages=3, allocators=()):
        self._kernel = kernel
        self._grid = tuple(grid)
        self._tail = tuple(tail)
        self._num_warps = num_warps
        self._num_stages = num_stages
        self._entries = {}
        self._cuda = None
        kinds = tuple(lead_kinds)
        flags = tuple(kernel._specialize_flags[:len(kinds)])
        make = _bound_launch_function(kinds, flags, len(allocators))
        self.run = make(self, self._entries, *allocators)

    def _cuda_functions(self):
        self._cuda = _cuda_launch_functions()
        return self._cuda

    def _first(self, lead, key, words):
        spec = self._kernel[self._grid](*lead, *self._tail, num_warps=self._num_warps,
                                        num_stages=self._num_stages)
        if any(getattr(v, "_tilec_descriptor", False) for v in lead):
            return spec  # launched through a variant (_launch_descriptors)
        # The spec's packet layout, in a buffer of this launch's: the grid,
        # the thread count (CPU) and the trailing words packed now.
        packet = (ctypes.c_uint64 * (3 + spec.nwords))()
        g = self._grid + (1, 1)
        n = len(words)
        tail_words = [_arg_key(v, flag)[3] for v, flag, const in
                      zip(self._tail, self._kernel._specialize_flags[n:],
                          self._kernel.constexpr[n:]) if not const]
        spec.packer.pack_into(packet, 0, g[0], g[1], g[2], _cpu_threads() if spec.cpu else 0,
                              *words, *tail_words)
        lead_codes = "".join(spec.codes[:n])
        if spec.cpu:
            pack = functools.partial(struct.Struct("<" + lead_codes).pack_into, packet, 24)
            call = _capi.raw_function("tilec_cpu_kernel_launch_packet")
        else:
            pack = functools.partial(struct.Struct("<Q" + lead_codes).pack_into, packet, 16)
            call = _capi.raw_function("tilec_module_launch_packet")
        self._entries[key] = (spec.handle, packet, spec.nwords_c, pack, call, spec)
        return spec


_bound_launch_functions = {}


def _bound_launch_function(kinds, flags, n_alloc):
    """The maker of BoundLaunch's `run` for these leading kinds, specialize
    flags and number of allocated arguments: generated once per pattern,
    with the kinds' checks left out; make(self, entries, *allocators)."""
    fn = _bound_launch_functions.get((kinds, flags, n_alloc))
    if fn is not None:
        return fn
    numpy = _numpy_address_reader()
    n = len(kinds)
    names = [f"a{i}" for i in range(n)]
    given, made = names[:n - n_alloc], names[n - n_alloc:]
    lines = []
    if given:
        lines.append(f"        {', '.join(given)}{',' if len(given) == 1 else ''} = lead")
    for i, name in enumerate(made):
        lines.append(f"        {name} = _alloc{i}()")
    key, words = ["_be", "_dev"], []
    for i, (kind, flag) in enumerate(zip(kinds, flags)):
        a = names[i]
        if kind == "tensor":
            lines.append(f"        _w{i} = {a}.data_ptr()")
        elif kind == "ndarray" and numpy:
            lines.append(f"        _w{i} = _npa(_id({a}) + {numpy[1]}).value")
        elif kind == "ndarray":
            lines.append(f"        _w{i} = _address({a})")
        elif kind == "float":
            lines.append(f"        _w{i} = {a}")
        elif kind == "to_float":
            lines.append(f"        _w{i} = {a} = float({a})")
        else:
            lines.append(f"        _k{i}, _c{i}, _s{i}, _w{i} = _ak({a}, {flag})")
            key += [f"_k{i}", f"_c{i}", f"_s{i}"]
        if kind in ("tensor", "ndarray") and flag:
            key.append(f"not _w{i} & 15")
        words.append(f"_w{i}")
    w = ", ".join(words)
    result = made[0] if n_alloc == 1 else "(" + ", ".join(made) + ("," if n_alloc else "") + ")"
    if n_alloc == 0:
        result = "_e[5]"
    first_result = result if n_alloc else "_spec"
    src = (f"def make(self, _entries{''.join(f', _alloc{i}' for i in range(n_alloc))}):\n"
           "    def run(lead):\n" + "\n".join(lines) + "\n"
           "        _be = _J._backend or _backend()\n"
           "        if _be == 'cpu':\n"
           "            _dev = 0\n"
           "        else:\n"
           "            _dev = (self._cuda or self._cuda_functions())[0]()\n"
           f"        _key = ({', '.join(key)},)\n"
           "        _e = _entries.get(_key)\n"
           "        if _e is None:\n"
           f"            _spec = self._first(({', '.join(names)}{',' if n == 1 else ''}), _key, [{w}])\n"
           f"            return {first_result}\n"
           "        if _be == 'cpu':\n"
           f"            _e[3]({w})\n"
           "        else:\n"
           f"            _e[3](self._cuda[1](_dev){', ' if w else ''}{w})\n"
           "        _status = _e[4](_e[0], _e[1], _e[2])\n"
           "        if _status:\n"
           "            self._kernel._fail(_status, self._grid, _e[5])\n"
           f"        return {result}\n"
           "    return run\n")
    scope = {"_J": sys.modules[__name__], "_backend": backend, "_ak": _arg_key,
             "_address": _address, "_npa": ctypes.c_size_t.from_address, "_id": id}
    exec(compile(src, "<tilec bound launch>", "exec"), scope)
    fn = scope["make"]
    fn.source = src
    _bound_launch_functions[(kinds, flags, n_alloc)] = fn
    return fn


_MISSING = object()
_NO_OPTIONS = {}
_LAUNCH_OPTIONS = {"num_warps", "num_stages", "stream", "device", *SWITCHES}


def _cpu_threads():
    try:
        return int(os.environ.get("TILEC_CPU_THREADS", "0"))
    except ValueError:
        return 0


_torch_cuda = None


class _NoTensor:
    """Stands for torch.Tensor in generated launchers when torch is not
    imported (no object has this type)."""


def _arg_key(v, specialize):
    """(kind, is-CUDA, divisible by 16, word) of a run-time argument; see
    KernelBase._key_and_words."""
    t = type(v)
    if t is bool:
        return "i1", None, False, v
    if t is int:
        if specialize and v == 1:
            return "one", None, False, 1
        if _INT32_MIN <= v <= _INT32_MAX:
            k = "i32"
        elif _INT64_MIN <= v <= _INT64_MAX:
            k = "i64"
        elif 0 <= v < (1 << 64):
            k = "u64"
        else:
            raise OverflowError(f"tilec: the integer argument {v} does not fit in 64 bits")
        return k, None, specialize and not v & 15, v
    if t is float:
        return "fp32", None, False, v
    if v is None:
        raise TypeError("tilec: None is not a kernel argument")
    if getattr(v, "_tilec_descriptor", False):
        return "desc", None, False, 0  # never cached: _launch expands it
    p = _address(v)
    _element_type(v)  # a TypeError for unsupported dtypes
    return v.dtype, getattr(v, "is_cuda", None), specialize and not p & 15, p


def _check_gpu_arguments(values):
    for v in values:
        if getattr(v, "is_cuda", True) is False:
            raise LaunchError("tilec: a CPU tensor was passed to a GPU launch "
                              "(TILEC_BACKEND=cpu runs kernels on the CPU)")
        if type(v).__module__ == "numpy":
            raise LaunchError("tilec: numpy arrays run on the CPU backend only")


def _check_cpu_arguments(values):
    for v in values:
        if getattr(v, "is_cuda", False) is True:
            raise LaunchError("tilec: a CUDA tensor was passed to a CPU-backend launch "
                              f"(the backend is '{backend()}'; TILEC_BACKEND selects it)")


# (current_device(), raw_stream(device)) of GPU launches; tests without a GPU
# set it to stand-ins (test_gpu_fake.py, on tilec's fake CUDA driver).
_cuda_override = None


def _cuda_functions():
    global _torch_cuda
    if _cuda_override is not None:
        return _cuda_override
    if _torch_cuda is None:
        import torch
        _torch_cuda = (torch.cuda.current_device, torch._C._cuda_getCurrentRawStream)
    return _torch_cuda


def _cuda_launch_functions():
    """(current device, raw stream of a device) for generated launchers:
    _cuda_functions(), with torch.cuda.current_device() replaced by
    torch._C._cuda_getDevice, which skips its per-call lazy-init check,
    once CUDA is initialized."""
    cur_dev, stream = _cuda_functions()
    if _cuda_override is None:
        import torch
        fast = getattr(torch._C, "_cuda_getDevice", None)
        if fast is not None and torch.cuda.is_initialized():
            cur_dev = fast
    return cur_dev, stream


def _cuda_device_stream(values, options):
    """The device index and raw CUstream of a GPU launch: torch's current
    device and stream (or options['device'], options['stream'])."""
    current_device, raw_stream = _cuda_functions()
    device = options.get("device")
    if device is None:
        device = current_device()
    stream = options.get("stream")
    if stream is None:
        stream = raw_stream(device)
    return device, stream


class CompiledKernel:
    """One compiled GPU specialization (tilec_binary): `signature`,
    `cache_key` (64 hex digits), `metadata` (a dict, docs/metadata.md),
    `asm['ptx']`, `from_disk_cache`."""

    def __init__(self, binary):
        import json
        lib = _capi.lib()
        self._binary = binary
        self.signature = lib.tilec_binary_signature(binary).decode()
        self.cache_key = lib.tilec_binary_cache_key(binary).decode()
        self.metadata = json.loads(lib.tilec_binary_metadata(binary).decode())
        size = ctypes.c_size_t()
        self.asm = {"ptx": lib.tilec_binary_ptx(binary, ctypes.byref(size)).decode()}
        self.from_disk_cache = bool(lib.tilec_binary_from_disk_cache(binary))

    def __del__(self):
        try:
            _capi.lib().tilec_binary_destroy(self._binary)
        except Exception:
            pass


# ---------------------------------------------------------------- @jit


def _is_constexpr_annotation(annotation):
    if annotation is inspect.Parameter.empty:
        return False
    if isinstance(annotation, str):
        return annotation.split(".")[-1] == "constexpr"
    return getattr(annotation, "__name__", "") == "constexpr"


_PRELUDE = "import triton\nimport triton.language as tl\nimport tilec\n"


def _code_names(code):
    names = set(code.co_names)
    for const in code.co_consts:
        if inspect.iscode(const):
            names |= _code_names(const)
    return names


class JITFunction(KernelBase):
    """A `@tilec.jit` kernel or helper."""

    def __init__(self, fn, do_not_specialize=(), debug=None, noinline=None):
        sig = inspect.signature(fn)
        params, constexpr, defaults = [], [], {}
        for p in sig.parameters.values():
            params.append(p.name)
            constexpr.append(_is_constexpr_annotation(p.annotation))
            if p.default is not inspect.Parameter.empty:
                defaults[p.name] = p.default
        dns = [params[d] if isinstance(d, int) else d for d in do_not_specialize]
        try:
            file_name = inspect.getsourcefile(fn) or "<source>"
        except TypeError:
            file_name = "<source>"
        super().__init__(fn.__name__, file_name, params, constexpr, defaults, dns)
        self.fn = fn
        self.__doc__ = fn.__doc__
        self.__module__ = fn.__module__
        self.__qualname__ = getattr(fn, "__qualname__", fn.__name__)
        # The module's text as it is now (the code Python runs), so that a
        # later edit of the file never compiles other code than this.
        # A kernel defined inside a function is not in the module's top
        # level, which is what the frontend compiles: it is compiled from its
        # own text (dedented) instead, with a prelude.
        self._module_text = None
        self._own_text = None
        lines = linecache.getlines(file_name) if file_name != "<source>" else []
        if lines and "<locals>" not in self.__qualname__:
            self._module_text = "".join(lines)
        else:
            try:
                self._own_text = textwrap.dedent(inspect.getsource(fn))
            except (OSError, TypeError):
                self._own_text = None

    def __call__(self, *args, **kwargs):
        raise RuntimeError(f"{self.name} is a @tilec.jit kernel: launch it as "
                           f"{self.name}[grid](...); it cannot be called from Python")

    def _own_source(self):
        if self._module_text is not None:
            return self._module_text
        if self._own_text is None:
            raise CompilationError(f"tilec: the source of {self.name} is not available "
                                   "(define kernels in a file)")
        return self._own_text

    def source(self):
        """The text compiled: the defining module (or, without a file, a
        prelude and the function), then what it uses from elsewhere: @jit
        helpers of other modules and constants defined outside its module."""
        if self._source_text is not None:
            return self._source_text
        base = self._own_source()
        if self._module_text is None:
            base = _PRELUDE + base
        texts = [base]
        seen = {id(self)}
        defined = set()
        todo = [self]
        while todo:
            f = todo.pop()
            names = {name: f.fn.__globals__.get(name) for name in _code_names(f.fn.__code__)}
            # Closure variables (kernels and constants of an enclosing function).
            for name, cell in zip(f.fn.__code__.co_freevars, f.fn.__closure__ or ()):
                try:
                    names[name] = cell.cell_contents
                except ValueError:
                    pass
            for name in sorted(names):
                obj = names[name]
                if isinstance(obj, JITFunction):
                    if id(obj) in seen:
                        continue
                    seen.add(id(obj))
                    todo.append(obj)
                    # In the compiled module text already, unless it comes
                    # from elsewhere or this kernel is compiled on its own.
                    if (self._module_text is None or obj._module_text is None
                            or obj.file_name != self.file_name):
                        try:
                            texts.append(textwrap.dedent(inspect.getsource(obj.fn)))
                        except (OSError, TypeError):
                            raise CompilationError(f"tilec: the source of helper {obj.name} "
                                                   "is not available")
                elif name not in defined and _is_constant(obj) and not re.search(
                        r"^" + re.escape(name) + r"\s*(:[^=\n]*)?=", base, re.M):
                    defined.add(name)
                    texts.append(f"{name}: tl.constexpr = {_constexpr_source(obj)}\n")
        self._source_text = "\n\n".join(texts)
        return self._source_text


def _is_constant(obj):
    if type(obj).__name__ == "constexpr":
        obj = getattr(obj, "value", obj)
    return type(obj) in (int, float, bool)


def _constexpr_source(obj):
    obj = getattr(obj, "value", obj)
    return repr(obj)


def jit(fn=None, *, do_not_specialize=(), debug=None, noinline=None, **_ignored):
    """`@tilec.jit` / `@tilec.jit(do_not_specialize=[...])`."""
    def wrap(f):
        return JITFunction(f, do_not_specialize=do_not_specialize, debug=debug, noinline=noinline)
    if fn is not None:
        return wrap(fn)
    return wrap


class _SourceKernel(KernelBase):
    """A kernel of a given source text (descriptor variants)."""

    def __init__(self, text, name, file_name, params, constexpr, defaults):
        super().__init__(name, file_name, params, constexpr, defaults)
        self._text = text

    def source(self):
        return self._text


class FileKernel(KernelBase):
    """A kernel of a `.tile` (or Triton `.py`) file: `compile_file`."""

    def __init__(self, path, kernel=None):
        with open(path, encoding="utf-8") as f:
            self._text = f.read()
        lib = _capi.lib()
        handle = ctypes.c_void_p()
        text = self._text.encode("utf-8")
        status = lib.tilec_kernel_from_source(_compiler(4, 3), text, len(text),
                                              (kernel or "").encode(), path.encode(),
                                              ctypes.byref(handle))
        if status:
            _raise(status)
        name = lib.tilec_kernel_name(handle).decode()
        count = lib.tilec_kernel_num_parameters(handle)
        params = [lib.tilec_kernel_parameter_name(handle, i).decode() for i in range(count)]
        constexpr = [bool(lib.tilec_kernel_parameter_is_constexpr(handle, i)) for i in range(count)]
        super().__init__(name, path, params, constexpr, {})
        self._handles[(4, 3, 0, _DEFAULT_SWITCHES)] = handle

    def source(self):
        return self._text


def compile_file(path, kernel=None):
    """The kernel `kernel` (None: the only one) of a `.tile` file, launched
    like a `@tilec.jit` function: `k = tilec.compile_file("add.tile");
    k[grid](x, y, out, n, BLOCK_SIZE=1024)`."""
    return FileKernel(os.fspath(path), kernel)
