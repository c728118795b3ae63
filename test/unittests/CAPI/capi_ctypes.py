#!/usr/bin/env python3
"""The C API from Python through ctypes (no compiled binding).

    capi_ctypes.py LIBTILEC

Loads libtilec.so, compiles a kernel to PTX in a fresh cache directory,
and checks its metadata and the disk cache hit from a second compiler. This
is the shape a Python package binds tilec with. Then a binding of an older
layout (tilec_options up to its version-2, version-3 or version-4 fields)
still creates a compiler, whose missing fields take their defaults, and a
struct_size too small for the version-1 fields is refused with a message.
"""
import ctypes
import json
import sys
import tempfile


V1_FIELDS = [("struct_size", ctypes.c_size_t),  # TILEC_C_API_VERSION 3
             ("arch", ctypes.c_char_p), ("ptx_version", ctypes.c_uint32),
             ("num_warps", ctypes.c_uint32), ("num_stages", ctypes.c_uint32),
             ("line_info", ctypes.c_int32), ("disk_cache", ctypes.c_int32),
             ("cache_dir", ctypes.c_char_p), ("dump_dir", ctypes.c_char_p),
             ("ptxas", ctypes.c_char_p), ("ptx_only", ctypes.c_int32),
             ("device", ctypes.c_int32)]
# TILEC_C_API_VERSION 2: the pass switches.
V2_FIELDS = V1_FIELDS + [
    ("use_wgmma", ctypes.c_int32), ("use_mma", ctypes.c_int32),
    ("use_tma", ctypes.c_int32), ("use_cp_async", ctypes.c_int32),
    ("warp_specialize", ctypes.c_char_p),
    ("ping_pong", ctypes.c_int32),
    ("intra_warpgroup_overlap", ctypes.c_int32),
    ("num_ctas", ctypes.c_uint32),
    ("longest_first", ctypes.c_int32),
    ("prefetch_loads", ctypes.c_int32),
    ("issue_dots_early", ctypes.c_int32),
    ("mbarrier_spin_limit", ctypes.c_int64)]


# TILEC_C_API_VERSION 3: debug and enable_fp_fusion.
V3_FIELDS = V2_FIELDS + [("debug", ctypes.c_int32),
                         ("enable_fp_fusion", ctypes.c_int32)]


# TILEC_C_API_VERSION 4: persistent.
V4_FIELDS = V3_FIELDS + [("persistent", ctypes.c_int32)]


class Options(ctypes.Structure):
    # TILEC_C_API_VERSION 5: tma_store.
    _fields_ = V4_FIELDS + [("tma_store", ctypes.c_int32)]


class OptionsV2(ctypes.Structure):
    """What a binding written for the version-2 fields mirrors."""
    _fields_ = V2_FIELDS


class OptionsV3(ctypes.Structure):
    """What a binding written for the version-3 fields mirrors."""
    _fields_ = V3_FIELDS


class OptionsV4(ctypes.Structure):
    """What a binding written for the version-4 fields mirrors."""
    _fields_ = V4_FIELDS


def struct_size(cls):
    """tilec_options.struct_size of a mirror: the end of its last field."""
    last = getattr(cls, cls._fields_[-1][0])
    return last.offset + last.size


API_VERSION = 5


SOURCE = b"""
import triton.language as tl
import triton

@triton.jit
def scale_kernel(x_ptr, n, FACTOR: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(x_ptr + offs, tl.load(x_ptr + offs, mask=mask) * FACTOR, mask=mask)
"""


def main():
    lib = ctypes.CDLL(sys.argv[1])
    # Options above is the layout of this version of tilec_options.
    assert lib.tilec_api_version() == API_VERSION, lib.tilec_api_version()
    p = ctypes.c_void_p
    lib.tilec_last_error.restype = ctypes.c_char_p
    lib.tilec_version.restype = ctypes.c_char_p
    # Any mirror of tilec_options: ctypes.byref of it.
    lib.tilec_options_init_sized.argtypes = [p, ctypes.c_size_t]
    lib.tilec_compiler_create.argtypes = [p, ctypes.POINTER(p)]
    lib.tilec_compiler_destroy.argtypes = [p]
    lib.tilec_kernel_from_source.argtypes = [p, ctypes.c_char_p,
                                             ctypes.c_size_t, ctypes.c_char_p,
                                             ctypes.c_char_p, ctypes.POINTER(p)]
    lib.tilec_kernel_destroy.argtypes = [p]
    lib.tilec_kernel_compile.argtypes = [p, ctypes.c_char_p, ctypes.POINTER(p)]
    lib.tilec_binary_destroy.argtypes = [p]
    lib.tilec_binary_metadata.argtypes = [p]
    lib.tilec_binary_metadata.restype = ctypes.c_char_p
    lib.tilec_binary_ptx.argtypes = [p, ctypes.POINTER(ctypes.c_size_t)]
    lib.tilec_binary_ptx.restype = ctypes.c_char_p
    lib.tilec_binary_from_disk_cache.argtypes = [p]

    def check(status):
        if status != 0:
            raise SystemExit("tilec error %d: %s" %
                             (status, lib.tilec_last_error().decode()))

    with tempfile.TemporaryDirectory() as cache:
        results = []
        for _ in range(2):
            opts = Options()
            check(lib.tilec_options_init_sized(ctypes.byref(opts),
                                               struct_size(Options)))
            assert opts.struct_size == struct_size(Options) == 144
            assert ctypes.sizeof(Options) == 144  # no tail padding
            assert (opts.ping_pong, opts.longest_first, opts.num_ctas,
                    opts.mbarrier_spin_limit, opts.debug,
                    opts.enable_fp_fusion, opts.persistent,
                    opts.tma_store) == (-1, 1, 1, 0, 0, 1, 0, 0)
            opts.cache_dir = cache.encode()
            opts.ptx_only = 1
            compiler, kernel, binary = p(), p(), p()
            check(lib.tilec_compiler_create(ctypes.byref(opts),
                                            ctypes.byref(compiler)))
            check(lib.tilec_kernel_from_source(compiler, SOURCE, len(SOURCE),
                                               b"scale_kernel", b"scale.tile",
                                               ctypes.byref(kernel)))
            check(lib.tilec_kernel_compile(kernel, b"*fp32:16, i32, 2.5, 512",
                                           ctypes.byref(binary)))
            size = ctypes.c_size_t()
            ptx = lib.tilec_binary_ptx(binary, ctypes.byref(size)).decode()
            meta = json.loads(lib.tilec_binary_metadata(binary))
            results.append((ptx, meta, lib.tilec_binary_from_disk_cache(binary)))
            lib.tilec_binary_destroy(binary)
            lib.tilec_kernel_destroy(kernel)
            lib.tilec_compiler_destroy(compiler)
    (ptx, meta, disk0), (ptx1, _, disk1) = results
    assert ".entry scale_kernel" in ptx, ptx[:500]
    assert ptx == ptx1
    assert (disk0, disk1) == (0, 1), (disk0, disk1)
    assert meta["name"] == "scale_kernel" and meta["num_threads"] == 128, meta
    assert [q["kind"] for q in meta["parameters"]] == \
        ["pointer", "scalar", "constexpr", "constexpr"], meta["parameters"]
    status = lib.tilec_kernel_from_source(None, b"x", 1, None, None,
                                          ctypes.byref(p()))
    assert status == 1 and b"'compiler' is null" in lib.tilec_last_error()

    # A binding of the version-2 fields: the library fills and reads only
    # those (debug and enable_fp_fusion take their defaults).
    old = OptionsV2()
    check(lib.tilec_options_init_sized(ctypes.byref(old), struct_size(OptionsV2)))
    assert old.struct_size == struct_size(OptionsV2) == 128, old.struct_size
    assert (old.num_warps, old.longest_first, old.mbarrier_spin_limit) == (4, 1, 0)
    old.ptx_only = 1
    old.disk_cache = 0
    compiler = p()
    check(lib.tilec_compiler_create(ctypes.byref(old), ctypes.byref(compiler)))
    lib.tilec_compiler_destroy(compiler)
    # A binding of the version-3 fields: persistent and tma_store take their
    # defaults.
    v3 = OptionsV3()
    check(lib.tilec_options_init_sized(ctypes.byref(v3), struct_size(OptionsV3)))
    assert v3.struct_size == struct_size(OptionsV3) == 136, v3.struct_size
    assert (v3.debug, v3.enable_fp_fusion) == (0, 1)
    v3.ptx_only = 1
    v3.disk_cache = 0
    check(lib.tilec_compiler_create(ctypes.byref(v3), ctypes.byref(compiler)))
    lib.tilec_compiler_destroy(compiler)
    # A binding of the version-4 fields (4 bytes of tail padding, no field):
    # tma_store takes its default.
    v4 = OptionsV4()
    check(lib.tilec_options_init_sized(ctypes.byref(v4), struct_size(OptionsV4)))
    assert v4.struct_size == struct_size(OptionsV4) == 140, v4.struct_size
    assert ctypes.sizeof(OptionsV4) == 144
    assert (v4.debug, v4.enable_fp_fusion, v4.persistent) == (0, 1, 0)
    v4.ptx_only = 1
    v4.disk_cache = 0
    check(lib.tilec_compiler_create(ctypes.byref(v4), ctypes.byref(compiler)))
    lib.tilec_compiler_destroy(compiler)
    # Too small for even the version-1 fields: refused, with the sizes.
    for size in (0, struct_size(OptionsV2) - 80):
        old.struct_size = size
        status = lib.tilec_compiler_create(ctypes.byref(old), ctypes.byref(compiler))
        message = lib.tilec_last_error().decode()
        assert status == 1 and compiler.value is None, (status, compiler)
        assert ("tilec_options.struct_size is %d bytes, less than the 72 of the "
                "fields of C API version 1" % size) in message, message
        old.num_warps = 7
        assert lib.tilec_options_init_sized(ctypes.byref(old), size) == 1
        assert (old.struct_size, old.num_warps) == (size, 7)  # nothing written
    print("ok: tilec %s through ctypes" % lib.tilec_version().decode())


if __name__ == "__main__":
    main()
