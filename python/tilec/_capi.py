"""ctypes binding of tilec's C API (include/tilec-c/tilec.h, docs/c-api.md).

The library is found, in order, at $TILEC_LIBRARY, in the package
(`tilec/_lib/libtilec.so`, what `pip install ./python` puts there), and in
the build trees of a checkout (`build/lib`, `build-static/lib`).
"""

import ctypes
import os
import threading

SUCCESS = 0
ERROR_INVALID_ARGUMENT = 1
ERROR_COMPILE = 2
ERROR_CUDA = 3
ERROR_IO = 4

ARG_POINTER, ARG_INT, ARG_FLOAT, ARG_BOOL, ARG_STRING = range(5)

# tilec_type_kind.
KIND_BOOL, KIND_SIGNED, KIND_UNSIGNED, KIND_FLOAT = range(4)


class ScalarType:
    """One row of the compiler's scalar-type table (tilec_type_* in the C
    API): `code` (tilec_type), `name` (the signature's, "fp32"),
    `language_name` ("float32", the triton.language attribute), `bits`,
    `size` (bytes), `kind` (KIND_*), `mantissa_bits`."""

    __slots__ = ("code", "name", "language_name", "bits", "size", "kind", "mantissa_bits")

    def __init__(self, **fields):
        for k, v in fields.items():
            setattr(self, k, v)

    def __repr__(self):
        return f"ScalarType({self.name})"


_scalar_types = None


def scalar_types():
    """The scalar types in tilec_type order, read from libtilec once."""
    global _scalar_types
    if _scalar_types is None:
        l = lib()
        _scalar_types = [
            ScalarType(code=i, name=l.tilec_type_name(i).decode(),
                       language_name=l.tilec_type_language_name(i).decode(),
                       bits=l.tilec_type_bits(i), size=l.tilec_type_size(i),
                       kind=l.tilec_type_kind_of(i),
                       mantissa_bits=l.tilec_type_mantissa_bits(i))
            for i in range(l.tilec_type_count())]
    return _scalar_types


def __getattr__(name):
    # TYPES (signature names in tilec_type order) and TYPE_CODE (name ->
    # tilec_type), from the library's table when first asked for.
    if name == "TYPES":
        return [t.name for t in scalar_types()]
    if name == "TYPE_CODE":
        return {t.name: t.code for t in scalar_types()}
    if name == "TYPE_BY_NAME":
        return {t.name: t for t in scalar_types()}
    raise AttributeError(name)


# The TILEC_C_API_VERSION whose struct layouts this module mirrors; a
# libtilec of another version is not loaded (lib()).
API_VERSION = 5

# tilec_switch (tilec_options.ping_pong, .intra_warpgroup_overlap).
SWITCH_AUTO, SWITCH_OFF, SWITCH_ON = -1, 0, 1


class Options(ctypes.Structure):
    _fields_ = [("struct_size", ctypes.c_size_t),  # Since API version 3.
                ("arch", ctypes.c_char_p), ("ptx_version", ctypes.c_uint32),
                ("num_warps", ctypes.c_uint32), ("num_stages", ctypes.c_uint32),
                ("line_info", ctypes.c_int32), ("disk_cache", ctypes.c_int32),
                ("cache_dir", ctypes.c_char_p), ("dump_dir", ctypes.c_char_p),
                ("ptxas", ctypes.c_char_p), ("ptx_only", ctypes.c_int32),
                ("device", ctypes.c_int32),
                # Since API version 2: the pass switches.
                ("use_wgmma", ctypes.c_int32), ("use_mma", ctypes.c_int32),
                ("use_tma", ctypes.c_int32), ("use_cp_async", ctypes.c_int32),
                ("warp_specialize", ctypes.c_char_p),
                ("ping_pong", ctypes.c_int32),
                ("intra_warpgroup_overlap", ctypes.c_int32),
                ("num_ctas", ctypes.c_uint32),
                ("longest_first", ctypes.c_int32),
                ("prefetch_loads", ctypes.c_int32),
                ("issue_dots_early", ctypes.c_int32),
                ("mbarrier_spin_limit", ctypes.c_int64),
                # Since API version 3.
                ("debug", ctypes.c_int32), ("enable_fp_fusion", ctypes.c_int32),
                # Since API version 4.
                ("persistent", ctypes.c_int32),
                # Since API version 5.
                ("tma_store", ctypes.c_int32)]


# tilec_options.struct_size of the mirror above (TILEC_OPTIONS_STRUCT_SIZE):
# the end of its last field (not ctypes.sizeof: tail padding is no field).
OPTIONS_STRUCT_SIZE = Options.tma_store.offset + Options.tma_store.size


class CacheStats(ctypes.Structure):
    _fields_ = [(name, ctypes.c_uint64) for name in (
        "source_hits", "source_misses", "memory_hits", "disk_hits", "compiles",
        "disk_corrupt", "disk_store_errors", "loads")]


class Arg(ctypes.Structure):
    _fields_ = [("kind", ctypes.c_int32), ("type", ctypes.c_int32),
                ("bits", ctypes.c_uint64), ("number", ctypes.c_double),
                ("text", ctypes.c_char_p), ("raw", ctypes.c_int32)]


def _candidates():
    env = os.environ.get("TILEC_LIBRARY")
    if env:
        yield env
    here = os.path.dirname(os.path.abspath(__file__))
    yield os.path.join(here, "_lib", "libtilec.so")
    root = os.path.dirname(os.path.dirname(here))  # python/tilec -> checkout
    for build in ("build", "build-static"):
        yield os.path.join(root, build, "lib", "libtilec.so")


_lib = None
_lock = threading.Lock()
_P = ctypes.c_void_p
_S = ctypes.c_int


def _declare(lib):
    sig = {
        "tilec_last_error": (ctypes.c_char_p, []),
        "tilec_version": (ctypes.c_char_p, []),
        "tilec_api_version": (ctypes.c_int, []),
        "tilec_type_count": (ctypes.c_size_t, []),
        "tilec_type_name": (ctypes.c_char_p, [ctypes.c_int32]),
        "tilec_type_language_name": (ctypes.c_char_p, [ctypes.c_int32]),
        "tilec_type_bits": (ctypes.c_uint32, [ctypes.c_int32]),
        "tilec_type_size": (ctypes.c_size_t, [ctypes.c_int32]),
        "tilec_type_kind_of": (ctypes.c_int32, [ctypes.c_int32]),
        "tilec_type_mantissa_bits": (ctypes.c_uint32, [ctypes.c_int32]),
        "tilec_type_from_name": (ctypes.c_int32, [ctypes.c_char_p]),
        "tilec_options_init_sized": (_S, [ctypes.POINTER(Options), ctypes.c_size_t]),
        "tilec_compiler_create": (_S, [ctypes.POINTER(Options), ctypes.POINTER(_P)]),
        "tilec_compiler_destroy": (None, [_P]),
        "tilec_compiler_stats": (_S, [_P, ctypes.POINTER(CacheStats)]),
        "tilec_kernel_from_source": (_S, [_P, ctypes.c_char_p, ctypes.c_size_t,
                                          ctypes.c_char_p, ctypes.c_char_p, ctypes.POINTER(_P)]),
        "tilec_kernel_from_file": (_S, [_P, ctypes.c_char_p, ctypes.c_char_p, ctypes.POINTER(_P)]),
        "tilec_kernel_destroy": (None, [_P]),
        "tilec_kernel_name": (ctypes.c_char_p, [_P]),
        "tilec_kernel_num_parameters": (ctypes.c_size_t, [_P]),
        "tilec_kernel_parameter_name": (ctypes.c_char_p, [_P, ctypes.c_size_t]),
        "tilec_kernel_parameter_is_constexpr": (ctypes.c_int, [_P, ctypes.c_size_t]),
        "tilec_kernel_specialize": (_S, [_P, ctypes.POINTER(Arg), ctypes.c_size_t,
                                         ctypes.POINTER(ctypes.c_void_p)]),
        "tilec_string_destroy": (None, [ctypes.c_void_p]),
        "tilec_kernel_compile": (_S, [_P, ctypes.c_char_p, ctypes.POINTER(_P)]),
        "tilec_binary_destroy": (None, [_P]),
        "tilec_binary_signature": (ctypes.c_char_p, [_P]),
        "tilec_binary_cache_key": (ctypes.c_char_p, [_P]),
        "tilec_binary_metadata": (ctypes.c_char_p, [_P]),
        "tilec_binary_ptx": (ctypes.c_char_p, [_P, ctypes.POINTER(ctypes.c_size_t)]),
        "tilec_binary_from_disk_cache": (ctypes.c_int, [_P]),
        "tilec_binary_load": (_S, [_P, _P, ctypes.POINTER(_P)]),
        "tilec_module_launch_words": (_S, [_P, ctypes.c_uint32, ctypes.c_uint32, ctypes.c_uint32,
                                           ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t]),
        "tilec_module_launch_packet": (_S, [_P, ctypes.c_void_p, ctypes.c_size_t]),
        "tilec_module_destroy": (None, [_P]),
        "tilec_kernel_compile_cpu": (_S, [_P, ctypes.c_char_p, ctypes.POINTER(_P)]),
        "tilec_cpu_kernel_launch_words": (_S, [_P, ctypes.c_uint32, ctypes.c_uint32, ctypes.c_uint32,
                                               ctypes.c_void_p, ctypes.c_size_t, ctypes.c_uint32]),
        "tilec_cpu_kernel_launch_packet": (_S, [_P, ctypes.c_void_p, ctypes.c_size_t]),
        "tilec_cpu_kernel_destroy": (None, [_P]),
    }
    for name, (restype, argtypes) in sig.items():
        fn = getattr(lib, name)
        fn.restype = restype
        fn.argtypes = argtypes


def lib():
    """The loaded libtilec (ImportError, with the places searched, if none)."""
    global _lib
    if _lib is not None:
        return _lib
    with _lock:
        if _lib is not None:
            return _lib
        tried = []
        for path in _candidates():
            if not os.path.exists(path):
                tried.append(path + " (missing)")
                continue
            try:
                loaded = ctypes.CDLL(path)
                _declare(loaded)
            except (OSError, AttributeError) as err:
                tried.append(f"{path} ({err})")
                continue
            version = loaded.tilec_api_version()
            if version != API_VERSION:
                # Its structs (tilec_options) are not those mirrored above.
                tried.append(f"{path} (C API version {version}, this package "
                             f"needs {API_VERSION}: rebuild it or the package)")
                continue
            _lib = loaded
            return _lib
        raise ImportError("tilec: cannot load libtilec.so; tried:\n  " + "\n  ".join(tried) +
                          "\nbuild it (scripts/build.sh) or set TILEC_LIBRARY")


def raw_function(name, restype=ctypes.c_int):
    """Another function pointer to `name`, without argtypes: called with
    ctypes objects only (c_void_p, c_size_t, arrays), it skips the
    per-argument conversion that argtypes costs (for the launch calls)."""
    l = lib()
    fn = l._FuncPtr((name, l))
    fn.restype = restype
    return fn


def last_error():
    return lib().tilec_last_error().decode("utf-8", "replace")


def default_options():
    """A tilec_options (Options) with every field at its default and
    struct_size set (tilec_options_init_sized)."""
    opts = Options()
    status = lib().tilec_options_init_sized(ctypes.byref(opts), OPTIONS_STRUCT_SIZE)
    if status:
        raise RuntimeError("tilec_options_init_sized: " + last_error())
    return opts
