/*===- tilec.h - The C API of tilec --------------------------------*- C -*-===*
 *
 * Part of tilec, under the Apache License v2.0 with LLVM Exceptions.
 *
 *===----------------------------------------------------------------------===*
 *
 * The embedded compiler in plain C (C99), for C programs and for bindings
 * (Python ctypes, Rust, ...) that cannot use a C++ ABI; docs/c-api.md. The
 * same core as the C++ API (include/tilec/JIT/JIT.h), in libtilec.so:
 *
 *   tilec_options opts;
 *   tilec_options_init(&opts);             (defaults, and opts.struct_size)
 *   tilec_compiler *c;
 *   if (tilec_compiler_create(&opts, &c) != TILEC_SUCCESS)
 *     fprintf(stderr, "%s\n", tilec_last_error());
 *   tilec_kernel *k;
 *   tilec_kernel_from_source(c, src, strlen(src), "add_kernel", "a.tile", &k);
 *   tilec_arg args[] = {tilec_arg_pointer(x, TILEC_FP32), ...,
 *                       tilec_arg_i32(n), tilec_arg_i32(1024)};
 *   tilec_kernel_launch(k, blocks, 1, 1, stream, args, 5);  (JIT: compile once)
 *
 *   tilec_binary *b;                         (or AOT: artifacts, no GPU)
 *   tilec_kernel_compile(k, "*fp32:16, *fp32:16, *fp32:16, i32, 1024", &b);
 *   size_t n; const void *cubin = tilec_binary_cubin(b, &n);
 *
 * Conventions: every function that can fail returns a tilec_status and, on
 * failure, sets a message for the calling thread (tilec_last_error). Handles
 * are created by *_create / *_from_* / *_compile / *_load and released with
 * the matching *_destroy; strings returned by accessors live as long as the
 * handle. Kernels, binaries and modules keep their compiler alive. Nothing
 * aborts or throws across this API.
 *
 *===----------------------------------------------------------------------===*/

#ifndef TILEC_C_TILEC_H
#define TILEC_C_TILEC_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Bumped when a struct below changes layout (2: tilec_options gained the
 * pass switches, after `device`; 3: tilec_options starts with struct_size
 * and gained debug and enable_fp_fusion at its end; 4: tilec_options gained
 * persistent at its end; 5: tilec_options gained tma_store at its end).
 * Since version 3, tilec_options only grows at its end and the library
 * takes one of any earlier layout from version 3 on by its struct_size (the
 * fields past it take their defaults), so a program built for an older
 * version keeps working with a newer library. A program or binding built
 * for version 1 or 2 (no struct_size) must be rebuilt. */
#define TILEC_C_API_VERSION 5

/* ===--- Status ---------------------------------------------------------=== */

typedef enum tilec_status {
  TILEC_SUCCESS = 0,
  /** A null handle or pointer, invalid options, arguments that do not fit. */
  TILEC_ERROR_INVALID_ARGUMENT = 1,
  /** The source does not parse or the kernel does not compile: the message
   * holds the diagnostics (file:line:col, source line, caret). */
  TILEC_ERROR_COMPILE = 2,
  /** No CUDA driver or device, or a load or launch failed. */
  TILEC_ERROR_CUDA = 3,
  /** A file could not be read. */
  TILEC_ERROR_IO = 4
} tilec_status;

/** The message of the last failed call on this thread ("" if none); valid
 * until the next call that fails on this thread. */
const char *tilec_last_error(void);

/** tilec's version, e.g. "0.1.0". */
const char *tilec_version(void);

/** The C API version libtilec was built with (TILEC_C_API_VERSION). */
int tilec_api_version(void);

/* ===--- Compiler -------------------------------------------------------=== */

/** A pass switch whose default is decided per loop (tilec_options'
 * ping_pong and intra_warpgroup_overlap): as `tilec --ping-pong` left unset,
 * given (`--ping-pong`) and `--ping-pong=false`. */
typedef enum tilec_switch {
  TILEC_SWITCH_AUTO = -1, /**< Where the compiler finds it pays (default). */
  TILEC_SWITCH_OFF = 0,   /**< Never. */
  TILEC_SWITCH_ON = 1     /**< Wherever it can (remarks say where not). */
} tilec_switch;

/** Compiler options; set with tilec_options_init, then change fields. NULL
 * strings take the defaults. Meaning as in include/tilec/JIT/Options.h.
 * Every field from arch to line_info, the pass switches, debug,
 * enable_fp_fusion, persistent and tma_store are part of the kernel cache
 * key (docs/cache.md). */
typedef struct tilec_options {
  /** Since TILEC_C_API_VERSION 3: the bytes of the fields the caller knows,
   * from the start of the struct to the end of its last field (not sizeof:
   * tail padding is no field), TILEC_OPTIONS_STRUCT_SIZE as the caller was
   * compiled; tilec_options_init sets it. The library reads only the fields
   * that lie wholly within it; the others take their defaults. At least
   * TILEC_OPTIONS_STRUCT_SIZE_V1 (else tilec_compiler_create refuses the
   * options, TILEC_ERROR_INVALID_ARGUMENT), at most this library's
   * TILEC_OPTIONS_STRUCT_SIZE (a larger one, from a program built for a
   * newer tilec, is refused the same way). */
  size_t struct_size;

  /* The fields of TILEC_C_API_VERSION 1. */
  const char *arch;     /**< GPU architecture: "sm_90a". */
  uint32_t ptx_version; /**< PTX ISA version * 10: 81. */
  uint32_t num_warps;   /**< Warps per program: 4. */
  uint32_t num_stages;  /**< Software-pipelining depth: 3. */
  int32_t line_info;    /**< .loc line tables in PTX/cubin: 1. */
  int32_t disk_cache;   /**< Use the disk cache: 1. */
  const char *cache_dir; /**< NULL: $TILEC_CACHE_DIR, else ~/.cache/tilec. */
  const char *dump_dir;  /**< NULL: $TILEC_DUMP_DIR (unset: no dumps). */
  const char *ptxas;     /**< NULL: $TILEC_PTXAS, /usr/local/cuda, PATH. */
  int32_t ptx_only;      /**< Never run ptxas (load PTX): 0. */
  int32_t device;        /**< CUDA device ordinal for launches: 0. */

  /* Since TILEC_C_API_VERSION 2: the pass switches, `tilec`'s flags of the
   * same names (docs/cli.md). */
  int32_t use_wgmma;    /**< Dots on wgmma: 1 (0: --disable-wgmma). */
  int32_t use_mma;      /**< Other dots on mma.sync: 1 (0: --disable-mma). */
  int32_t use_tma;      /**< TMA copies of wgmma operands: 1 (0:
                             --disable-tma). */
  int32_t use_cp_async; /**< cp.async copies of wgmma operands: 1 (0:
                             --disable-cp-async). */
  /** Which pipelined TMA loops get a producer warpgroup: "off",
   * "requested", "auto", "all" (--warp-specialize); NULL: "auto". */
  const char *warp_specialize;
  /** tilec_switch: the two consumer warpgroups of a warp-specialized loop
   * take turns at the tensor cores (--ping-pong): TILEC_SWITCH_AUTO. */
  int32_t ping_pong;
  /** tilec_switch: a loop's last dot (attention's P V) is issued one
   * iteration late, under the next softmax (--intra-warpgroup-overlap;
   * AUTO: in warp-specialized loops): TILEC_SWITCH_AUTO. */
  int32_t intra_warpgroup_overlap;
  /** CTAs per thread-block cluster along grid axis 0, 1, 2, 4 or 8, with
   * TMA multicast (--num-ctas): 1. */
  uint32_t num_ctas;
  int32_t longest_first;    /**< Longest programs first (--longest-first): 1. */
  int32_t prefetch_loads;   /**< Small loads one iteration ahead
                                 (--prefetch-loads): 1. */
  int32_t issue_dots_early; /**< Dots moved up behind the dot before them
                                 (--issue-dots-early): 1. */
  /** > 0: every mbarrier wait traps after this many polls instead of
   * hanging (--mbarrier-spin-limit, for debugging): 0. */
  int64_t mbarrier_spin_limit;

  /* Since TILEC_C_API_VERSION 3. */
  /** Debug mode, Triton's debug=True (`tilec --debug`): tl.device_assert
   * and assert on run-time values check their condition on the device. A
   * kernel's @jit(debug=...) overrides it; TRITON_DEBUG=1 in the
   * environment turns it on too: 0. */
  int32_t debug;
  /** A floating-point multiply and the add of its product may fuse into
   * one fma.rn (one rounding instead of two), Triton's enable_fp_fusion: 1
   * (0: every multiply and add rounds on its own, --disable-fp-fusion). */
  int32_t enable_fp_fusion;

  /* Since TILEC_C_API_VERSION 4. */
  /** Make kernels persistent: each CTA loops over programs of the grid and
   * the runtime launches as many CTAs as the GPU runs at once
   * (--persistent): 0. */
  int32_t persistent;

  /* Since TILEC_C_API_VERSION 5. */
  /** Store a tensor-core kernel's 2-d output tiles through shared memory
   * with TMA where the staging buffer fits (tilegpu-store-via-tma;
   * --tma-store): 0. */
  int32_t tma_store;
} tilec_options;

/** The struct_size of a tilec_options whose last field is `last_field`:
 * the end of that field. */
#define TILEC_OPTIONS_SIZE_THROUGH(last_field)                                 \
  (offsetof(tilec_options, last_field) +                                       \
   sizeof(((tilec_options *)0)->last_field))
/** The struct_size of the fields tilec_options had in version 1 (arch to
 * device; 72 bytes on LP64): the smallest the library takes. */
#define TILEC_OPTIONS_STRUCT_SIZE_V1 TILEC_OPTIONS_SIZE_THROUGH(device)
/** ... with the pass switches of version 2 (to mbarrier_spin_limit). */
#define TILEC_OPTIONS_STRUCT_SIZE_V2                                           \
  TILEC_OPTIONS_SIZE_THROUGH(mbarrier_spin_limit)
/** ... with debug and enable_fp_fusion, version 3. */
#define TILEC_OPTIONS_STRUCT_SIZE_V3 TILEC_OPTIONS_SIZE_THROUGH(enable_fp_fusion)
/** ... with persistent, version 4 (140 bytes on LP64, 4 less than
 * sizeof(tilec_options) had then: its tail padding is no field). */
#define TILEC_OPTIONS_STRUCT_SIZE_V4 TILEC_OPTIONS_SIZE_THROUGH(persistent)
/** ... with tma_store, version 5: all of them (144 bytes on LP64, equal to
 * sizeof(tilec_options): no tail padding). */
#define TILEC_OPTIONS_STRUCT_SIZE_V5 TILEC_OPTIONS_SIZE_THROUGH(tma_store)
/** The struct_size of this header's tilec_options (tilec_options_init's). */
#define TILEC_OPTIONS_STRUCT_SIZE TILEC_OPTIONS_STRUCT_SIZE_V5

/** Fills the first `struct_size` bytes of `options` with the defaults of
 * the fields that lie wholly within them, zeroes the rest of those bytes
 * and sets options->struct_size = struct_size. For bindings that mirror
 * tilec_options (ctypes, Rust): they pass the end of the last field they
 * mirror. TILEC_ERROR_INVALID_ARGUMENT, writing nothing, for a NULL
 * `options` or a `struct_size` below TILEC_OPTIONS_STRUCT_SIZE_V1; also
 * for one above this library's TILEC_OPTIONS_STRUCT_SIZE (a binding made
 * for a newer tilec), after filling the struct all the same, so that
 * tilec_compiler_create then refuses it with the same message. */
tilec_status tilec_options_init_sized(tilec_options *options,
                                      size_t struct_size);

/** Fills `options` with the defaults, struct_size included (this header's
 * TILEC_OPTIONS_STRUCT_SIZE). Cannot fail for a non-NULL `options`. */
static inline void tilec_options_init(tilec_options *options) {
  (void)tilec_options_init_sized(options, TILEC_OPTIONS_STRUCT_SIZE);
}

typedef struct tilec_compiler tilec_compiler;

/** Creates a compiler (cheap: MLIR is set up by the first compilation)
 * with `options` (NULL: the defaults). TILEC_ERROR_INVALID_ARGUMENT, with
 * the message, for a `struct_size` out of range (see tilec_options) and for
 * a value `tilec` would refuse (num_ctas = 3, ping_pong = 2, ...). */
tilec_status tilec_compiler_create(const tilec_options *options,
                                   tilec_compiler **compiler);
/** Releases the caller's reference (kernels made from it stay usable). */
void tilec_compiler_destroy(tilec_compiler *compiler);

/** Cache counters of a compiler (tilec::jit::CacheStats). */
typedef struct tilec_cache_stats {
  uint64_t source_hits, source_misses;
  uint64_t memory_hits, disk_hits, compiles;
  uint64_t disk_corrupt, disk_store_errors;
  uint64_t loads;
} tilec_cache_stats;

tilec_status tilec_compiler_stats(const tilec_compiler *compiler,
                                  tilec_cache_stats *stats);

/* ===--- Kernels --------------------------------------------------------=== */

typedef struct tilec_kernel tilec_kernel;

/** The kernel `kernel_name` (NULL or "": the only one) of `size` bytes of
 * source text named `file_name` (NULL: "<source>") in diagnostics and line
 * tables. Parses only; compilation happens per specialization. */
tilec_status tilec_kernel_from_source(tilec_compiler *compiler,
                                      const char *source, size_t size,
                                      const char *kernel_name,
                                      const char *file_name,
                                      tilec_kernel **kernel);
/** The same from a file. */
tilec_status tilec_kernel_from_file(tilec_compiler *compiler, const char *path,
                                    const char *kernel_name,
                                    tilec_kernel **kernel);
void tilec_kernel_destroy(tilec_kernel *kernel);

const char *tilec_kernel_name(const tilec_kernel *kernel);
size_t tilec_kernel_num_parameters(const tilec_kernel *kernel);
/** NULL for an index out of range. */
const char *tilec_kernel_parameter_name(const tilec_kernel *kernel,
                                        size_t index);
/** 1 if the parameter is annotated tl.constexpr, else 0. */
int tilec_kernel_parameter_is_constexpr(const tilec_kernel *kernel,
                                        size_t index);

/* ===--- Arguments ------------------------------------------------------=== */

/** Element and scalar types (the signature names). */
typedef enum tilec_type {
  TILEC_I1 = 0, TILEC_I8, TILEC_I16, TILEC_I32, TILEC_I64,
  TILEC_U8, TILEC_U16, TILEC_U32, TILEC_U64,
  TILEC_FP16, TILEC_BF16, TILEC_FP32, TILEC_FP64, TILEC_FP8E4NV, TILEC_FP8E5
} tilec_type;

/** What kind of value a scalar type holds (tilec_type_kind_of). */
typedef enum tilec_type_kind {
  TILEC_TYPE_KIND_BOOL = 0,     /**< i1. */
  TILEC_TYPE_KIND_SIGNED = 1,   /**< i8, i16, i32, i64. */
  TILEC_TYPE_KIND_UNSIGNED = 2, /**< u8, u16, u32, u64. */
  TILEC_TYPE_KIND_FLOAT = 3     /**< fp16, bf16, fp32, fp64, fp8e4nv, fp8e5. */
} tilec_type_kind;

/* The table of scalar types, as the compiler has it (ScalarTypes.def), for
 * bindings that must not spell it again. The tilec_type values are
 * 0 .. tilec_type_count() - 1; every function below answers NULL, 0 or -1
 * for a value out of that range. */

/** Number of scalar types. */
size_t tilec_type_count(void);
/** The name signatures and metadata use: "i1", "u8", "fp32", "fp8e4nv". */
const char *tilec_type_name(int32_t type);
/** The attribute of `triton.language` that names it: "int1", "uint8",
 * "float32", "bfloat16", "float8e4nv". */
const char *tilec_type_language_name(int32_t type);
/** Bits of a value: 1 for i1, 8 for fp8e4nv, 32 for fp32. */
uint32_t tilec_type_bits(int32_t type);
/** Bytes of one element in memory and of a by-value parameter (i1 takes
 * one byte). */
size_t tilec_type_size(int32_t type);
/** Its tilec_type_kind, or -1. */
int32_t tilec_type_kind_of(int32_t type);
/** Explicit mantissa bits of a float type (23 for fp32, 3 for fp8e4nv); 0
 * for an integer type. */
uint32_t tilec_type_mantissa_bits(int32_t type);
/** The tilec_type whose tilec_type_name is `name`, or -1 (also for NULL). */
int32_t tilec_type_from_name(const char *name);

typedef enum tilec_arg_kind {
  TILEC_ARG_POINTER = 0, /**< `bits` is a device address of `type` elements. */
  TILEC_ARG_INT = 1,     /**< `bits` is the integer (two's complement). */
  TILEC_ARG_FLOAT = 2,   /**< `number` is the value (or `bits`, if `raw`). */
  TILEC_ARG_BOOL = 3,    /**< `bits` is 0 or 1. */
  TILEC_ARG_STRING = 4   /**< `text` (constexpr parameters only). */
} tilec_arg_kind;

/** One launch argument, one per kernel parameter in order (trailing
 * parameters with literal defaults may be left out). Specialization follows
 * Triton's JIT (docs/jit-api.md). */
typedef struct tilec_arg {
  int32_t kind;     /**< tilec_arg_kind. */
  int32_t type;     /**< tilec_type: pointee, or the scalar's type. */
  uint64_t bits;    /**< Address, integer, bool, or raw bits. */
  double number;    /**< A float's value (kind FLOAT, raw 0). */
  const char *text; /**< A string (kind STRING), NUL-terminated. */
  int32_t raw;      /**< 1: a FLOAT/INT given as raw bits of `type`. */
} tilec_arg;

static inline tilec_arg tilec_arg_make(int32_t kind, int32_t type,
                                       uint64_t bits) {
  tilec_arg a;
  a.kind = kind;
  a.type = type;
  a.bits = bits;
  a.number = 0;
  a.text = 0;
  a.raw = 0;
  return a;
}
static inline tilec_arg tilec_arg_pointer(uint64_t address, tilec_type type) {
  return tilec_arg_make(TILEC_ARG_POINTER, type, address);
}
static inline tilec_arg tilec_arg_i32(int32_t v) {
  return tilec_arg_make(TILEC_ARG_INT, TILEC_I32, (uint64_t)(int64_t)v);
}
static inline tilec_arg tilec_arg_i64(int64_t v) {
  return tilec_arg_make(TILEC_ARG_INT, TILEC_I64, (uint64_t)v);
}
static inline tilec_arg tilec_arg_u32(uint32_t v) {
  return tilec_arg_make(TILEC_ARG_INT, TILEC_U32, v);
}
static inline tilec_arg tilec_arg_u64(uint64_t v) {
  return tilec_arg_make(TILEC_ARG_INT, TILEC_U64, v);
}
static inline tilec_arg tilec_arg_bool(int v) {
  return tilec_arg_make(TILEC_ARG_BOOL, TILEC_I1, v ? 1 : 0);
}
static inline tilec_arg tilec_arg_f32(float v) {
  tilec_arg a = tilec_arg_make(TILEC_ARG_FLOAT, TILEC_FP32, 0);
  a.number = v;
  return a;
}
static inline tilec_arg tilec_arg_f64(double v) {
  tilec_arg a = tilec_arg_make(TILEC_ARG_FLOAT, TILEC_FP64, 0);
  a.number = v;
  return a;
}
/** A scalar by its raw bits (fp16, bf16, fp8 values). */
static inline tilec_arg tilec_arg_bits(tilec_type type, uint64_t bits) {
  tilec_arg a = tilec_arg_make(
      type >= TILEC_FP16 ? TILEC_ARG_FLOAT : TILEC_ARG_INT, type, bits);
  a.raw = 1;
  return a;
}
static inline tilec_arg tilec_arg_string(const char *text) {
  tilec_arg a = tilec_arg_make(TILEC_ARG_STRING, TILEC_I8, 0);
  a.text = text;
  return a;
}

/** The signature a launch with `args` compiles, as a string to free with
 * tilec_string_destroy. */
tilec_status tilec_kernel_specialize(const tilec_kernel *kernel,
                                     const tilec_arg *args, size_t num_args,
                                     char **signature);
void tilec_string_destroy(char *string);

/** JIT launch: specializes `args`, compiles or finds the kernel the first
 * time (memory, then disk cache), loads it, and queues a launch of
 * grid_x * grid_y * grid_z programs on `stream` (a CUstream; NULL: the
 * legacy default stream). */
tilec_status tilec_kernel_launch(const tilec_kernel *kernel, uint32_t grid_x,
                                 uint32_t grid_y, uint32_t grid_z,
                                 void *stream, const tilec_arg *args,
                                 size_t num_args);

/* ===--- Binaries (compiled specializations) ----------------------------=== */

typedef struct tilec_binary tilec_binary;

/** Compiles (or finds in the caches) the kernel for `signature` (Triton's
 * AOT form). Needs no GPU. */
tilec_status tilec_kernel_compile(const tilec_kernel *kernel,
                                  const char *signature,
                                  tilec_binary **binary);
void tilec_binary_destroy(tilec_binary *binary);

const char *tilec_binary_signature(const tilec_binary *binary);
/** The cache key, 64 hex digits. */
const char *tilec_binary_cache_key(const tilec_binary *binary);
/** The metadata JSON (docs/metadata.md). */
const char *tilec_binary_metadata(const tilec_binary *binary);
/** PTX text (NUL-terminated); `size` (may be NULL) gets its length. */
const char *tilec_binary_ptx(const tilec_binary *binary, size_t *size);
/** The cubin, or NULL (size 0) when kernels are kept as PTX. */
const void *tilec_binary_cubin(const tilec_binary *binary, size_t *size);
/** What ptxas -v printed ("" without a cubin). */
const char *tilec_binary_ptxas_log(const tilec_binary *binary);
/** 1 if read from the disk cache, 0 if compiled by this process. */
int tilec_binary_from_disk_cache(const tilec_binary *binary);

typedef enum tilec_stage {
  TILEC_STAGE_FRONTEND = 0, TILEC_STAGE_PASSES, TILEC_STAGE_LLVM,
  TILEC_STAGE_PTX, TILEC_STAGE_PTXAS,
  TILEC_STAGE_TOTAL, /**< The five above. */
  TILEC_STAGE_DISK   /**< Reading the disk-cache entry. */
} tilec_stage;

/** Seconds spent in `stage` making the binary (0 for the compile stages of a
 * disk-cache hit). */
double tilec_binary_stage_seconds(const tilec_binary *binary,
                                  tilec_stage stage);

/* ===--- Modules (binaries loaded on the device) ------------------------=== */

typedef struct tilec_module tilec_module;

/** Loads `binary` (its cubin, else its PTX) on the compiler's device.
 * TILEC_ERROR_INVALID_ARGUMENT when the device cannot run it (more shared
 * memory or threads per block than it has), TILEC_ERROR_CUDA when the
 * driver fails. */
tilec_status tilec_binary_load(tilec_compiler *compiler,
                               const tilec_binary *binary,
                               tilec_module **module);
/** Queues a launch with one argument per kernel parameter, as for
 * tilec_kernel_launch; the arguments of parameters the binary was
 * specialized on (constexprs) are ignored. A pointer to elements of another
 * type than the binary's parameter is TILEC_ERROR_INVALID_ARGUMENT. */
tilec_status tilec_module_launch(tilec_module *module, uint32_t grid_x,
                                 uint32_t grid_y, uint32_t grid_z,
                                 void *stream, const tilec_arg *args,
                                 size_t num_args);
/** The lean launch for bindings that cache a specialization: one 64-bit
 * word per kernel parameter, in order, as tilec_module_launch's arguments:
 * a pointer's address, or a scalar's bits in the low bytes, little-endian
 * (an fp32's IEEE bits, an i32 sign- or zero-extended); the words of
 * parameters the binary was specialized on (constexprs, integers given as
 * `1`) are ignored. Checks and errors as tilec_module_launch. */
tilec_status tilec_module_launch_words(tilec_module *module, uint32_t grid_x,
                                       uint32_t grid_y, uint32_t grid_z,
                                       void *stream, const uint64_t *words,
                                       size_t num_words);
/** tilec_module_launch_words with everything in one array (one argument
 * to convert for bindings such as ctypes): packet[0] = grid_x | grid_y << 32,
 * packet[1] = grid_z, packet[2] = the stream (a CUstream, 0: the legacy
 * default stream), then `num_words` words from packet[3]. */
tilec_status tilec_module_launch_packet(tilec_module *module,
                                        const uint64_t *packet,
                                        size_t num_words);
void tilec_module_destroy(tilec_module *module);

/* ===--- The CPU backend (docs/cpu-backend.md) --------------------------=== */

typedef struct tilec_cpu_kernel tilec_cpu_kernel;

/** Compiles the kernel for `signature` (Triton's AOT form) for the host CPU
 * (the CPU pipeline, LLVM -O3 and MLIR's ORC JIT; not cached on disk).
 * Needs no GPU. Errors as tilec_kernel_compile's (TILEC_ERROR_COMPILE with
 * located diagnostics). */
tilec_status tilec_kernel_compile_cpu(const tilec_kernel *kernel,
                                      const char *signature,
                                      tilec_cpu_kernel **cpu_kernel);
/** Runs grid_x * grid_y * grid_z programs on `threads` host threads (0: one
 * per hardware thread) and returns when all are done. One argument per
 * kernel parameter, as for tilec_module_launch (constexprs ignored);
 * pointers are host addresses. A kernel that reads or writes out of bounds
 * is undefined behaviour (the CLI's `tilec run --sanitize` finds it). */
tilec_status tilec_cpu_kernel_launch(tilec_cpu_kernel *cpu_kernel,
                                     uint32_t grid_x, uint32_t grid_y,
                                     uint32_t grid_z, const tilec_arg *args,
                                     size_t num_args, uint32_t threads);
/** tilec_cpu_kernel_launch with one 64-bit word per kernel parameter, as
 * tilec_module_launch_words. */
tilec_status tilec_cpu_kernel_launch_words(tilec_cpu_kernel *cpu_kernel,
                                           uint32_t grid_x, uint32_t grid_y,
                                           uint32_t grid_z,
                                           const uint64_t *words,
                                           size_t num_words, uint32_t threads);
/** tilec_cpu_kernel_launch_words with one array, as
 * tilec_module_launch_packet (packet[2] is the thread count). */
tilec_status tilec_cpu_kernel_launch_packet(tilec_cpu_kernel *cpu_kernel,
                                            const uint64_t *packet,
                                            size_t num_words);
/** The signature it was compiled for. */
const char *tilec_cpu_kernel_signature(const tilec_cpu_kernel *cpu_kernel);
void tilec_cpu_kernel_destroy(tilec_cpu_kernel *cpu_kernel);

#ifdef __cplusplus
}
#endif

#endif /* TILEC_C_TILEC_H */
