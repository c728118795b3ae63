/*===- capi_test.c - The C API from C -----------------------------------===*
 *
 * Part of tilec, under the Apache License v2.0 with LLVM Exceptions.
 *
 *===--------------------------------------------------------------------===*
 *
 * Compiled as C99 (so the header is checked to be C): compiles a kernel to
 * PTX, reads its artifacts, then launches it through the JIT path and
 * through a loaded binary, against the fake driver (TILEC_LIBCUDA, set by
 * CTest), and checks the errors. Prints "ok" and exits 0 on success.
 *
 *===--------------------------------------------------------------------===*/

#include "tilec-c/tilec.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK(cond)                                                            \
  do {                                                                         \
    if (!(cond)) {                                                             \
      fprintf(stderr, "%s:%d: check failed: %s\nlast error: %s\n", __FILE__,   \
              __LINE__, #cond, tilec_last_error());                            \
      exit(1);                                                                 \
    }                                                                          \
  } while (0)

static const char *source =
    "import triton\n"
    "import triton.language as tl\n"
    "\n"
    "@triton.jit\n"
    "def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):\n"
    "    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)\n"
    "    mask = offs < n\n"
    "    x = tl.load(x_ptr + offs, mask=mask)\n"
    "    y = tl.load(y_ptr + offs, mask=mask)\n"
    "    tl.store(out_ptr + offs, x + y, mask=mask)\n";

int main(int argc, char **argv) {
  CHECK(argc == 2); /* A fresh cache directory. */
  CHECK(tilec_api_version() == TILEC_C_API_VERSION);
  CHECK(strlen(tilec_version()) > 0);

  /* The scalar-type table. */
  CHECK(tilec_type_count() == (size_t)TILEC_FP8E5 + 1);
  CHECK(strcmp(tilec_type_name(TILEC_I1), "i1") == 0);
  CHECK(strcmp(tilec_type_name(TILEC_FP8E4NV), "fp8e4nv") == 0);
  CHECK(strcmp(tilec_type_language_name(TILEC_BF16), "bfloat16") == 0);
  CHECK(strcmp(tilec_type_language_name(TILEC_U16), "uint16") == 0);
  CHECK(tilec_type_bits(TILEC_I1) == 1 && tilec_type_size(TILEC_I1) == 1);
  CHECK(tilec_type_bits(TILEC_FP8E5) == 8 && tilec_type_size(TILEC_FP8E5) == 1);
  CHECK(tilec_type_size(TILEC_BF16) == 2 && tilec_type_size(TILEC_U64) == 8);
  CHECK(tilec_type_kind_of(TILEC_I1) == TILEC_TYPE_KIND_BOOL);
  CHECK(tilec_type_kind_of(TILEC_I64) == TILEC_TYPE_KIND_SIGNED);
  CHECK(tilec_type_kind_of(TILEC_U8) == TILEC_TYPE_KIND_UNSIGNED);
  CHECK(tilec_type_kind_of(TILEC_FP16) == TILEC_TYPE_KIND_FLOAT);
  CHECK(tilec_type_mantissa_bits(TILEC_FP32) == 23 &&
        tilec_type_mantissa_bits(TILEC_FP8E4NV) == 3 &&
        tilec_type_mantissa_bits(TILEC_I32) == 0);
  for (size_t i = 0; i < tilec_type_count(); ++i)
    CHECK(tilec_type_from_name(tilec_type_name((int32_t)i)) == (int32_t)i);
  CHECK(tilec_type_from_name("fp128") == -1 && tilec_type_from_name(NULL) == -1);
  CHECK(tilec_type_name(-1) == NULL && tilec_type_name(TILEC_FP8E5 + 1) == NULL);
  CHECK(tilec_type_language_name(99) == NULL && tilec_type_bits(99) == 0 &&
        tilec_type_size(-3) == 0 && tilec_type_kind_of(15) == -1 &&
        tilec_type_mantissa_bits(-1) == 0);

  tilec_options options;
  tilec_options_init(&options);
  CHECK(options.num_warps == 4 && options.line_info == 1);
  /* The pass switches: tilec's defaults (CAPIOptionsTest compares every
   * field with the C++ options). */
  CHECK(options.use_wgmma == 1 && options.use_mma == 1 &&
        options.use_tma == 1 && options.use_cp_async == 1);
  CHECK(options.warp_specialize == NULL);
  CHECK(options.ping_pong == TILEC_SWITCH_AUTO &&
        options.intra_warpgroup_overlap == TILEC_SWITCH_AUTO);
  CHECK(options.num_ctas == 1 && options.longest_first == 1 &&
        options.prefetch_loads == 1 && options.issue_dots_early == 1 &&
        options.mbarrier_spin_limit == 0);
  /* Version 3: the struct's size, debug mode, fp fusion. */
  CHECK(options.struct_size == TILEC_OPTIONS_STRUCT_SIZE);
  CHECK(options.debug == 0 && options.enable_fp_fusion == 1);
  /* Version 4: persistent kernels, off by default. */
  CHECK(options.persistent == 0);
  CHECK(TILEC_OPTIONS_STRUCT_SIZE_V3 < TILEC_OPTIONS_STRUCT_SIZE_V4);
  /* Version 5: stores through shared memory by TMA, off by default. */
  CHECK(options.tma_store == 0);
  CHECK(TILEC_OPTIONS_STRUCT_SIZE == TILEC_OPTIONS_STRUCT_SIZE_V5 &&
        TILEC_OPTIONS_STRUCT_SIZE_V4 < TILEC_OPTIONS_STRUCT_SIZE_V5);
  {
    /* A struct_size too small for the version-1 fields is an error, not a
     * read past the caller's struct (CAPIOptionsTest checks the rest). */
    tilec_options tiny = options;
    tilec_compiler *none = NULL;
    tiny.struct_size = TILEC_OPTIONS_STRUCT_SIZE_V1 - 8;
    CHECK(tilec_compiler_create(&tiny, &none) == TILEC_ERROR_INVALID_ARGUMENT);
    CHECK(none == NULL);
    CHECK(strstr(tilec_last_error(), "struct_size") != NULL);
    /* The version-2 fields only: accepted, the rest at their defaults. */
    tiny.struct_size = TILEC_OPTIONS_STRUCT_SIZE_V2;
    tiny.ptx_only = 1;
    tiny.cache_dir = argv[1];
    tiny.enable_fp_fusion = 7; /* not read */
    tiny.persistent = 7;       /* not read */
    tiny.tma_store = 7;        /* not read */
    CHECK(tilec_compiler_create(&tiny, &none) == TILEC_SUCCESS);
    tilec_compiler_destroy(none);
    /* The version-4 fields: accepted, tma_store at its default. */
    tiny.struct_size = TILEC_OPTIONS_STRUCT_SIZE_V4;
    CHECK(tilec_compiler_create(&tiny, &none) == TILEC_SUCCESS);
    tilec_compiler_destroy(none);
  }
  options.cache_dir = argv[1];
  options.ptx_only = 1;
  tilec_compiler *compiler = NULL;
  CHECK(tilec_compiler_create(&options, &compiler) == TILEC_SUCCESS);

  /* Errors: a syntax error, with the diagnostic. */
  tilec_kernel *bad = NULL;
  CHECK(tilec_kernel_from_source(compiler, "def (", 5, NULL, "bad.tile",
                                 &bad) == TILEC_ERROR_COMPILE);
  CHECK(bad == NULL);
  CHECK(strstr(tilec_last_error(), "bad.tile:1:") != NULL);
  CHECK(tilec_kernel_from_source(NULL, source, 1, NULL, NULL, &bad) ==
        TILEC_ERROR_INVALID_ARGUMENT);

  tilec_kernel *kernel = NULL;
  CHECK(tilec_kernel_from_source(compiler, source, strlen(source),
                                 "add_kernel", "add.tile",
                                 &kernel) == TILEC_SUCCESS);
  CHECK(strcmp(tilec_kernel_name(kernel), "add_kernel") == 0);
  CHECK(tilec_kernel_num_parameters(kernel) == 5);
  CHECK(strcmp(tilec_kernel_parameter_name(kernel, 3), "n") == 0);
  CHECK(tilec_kernel_parameter_is_constexpr(kernel, 4) == 1);
  CHECK(tilec_kernel_parameter_name(kernel, 5) == NULL);

  uint64_t x = 0x7f0000001000ull, y = 0x7f0000002000ull,
           out = 0x7f0000003004ull;
  tilec_arg args[5];
  args[0] = tilec_arg_pointer(x, TILEC_FP32);
  args[1] = tilec_arg_pointer(y, TILEC_FP32);
  args[2] = tilec_arg_pointer(out, TILEC_FP32);
  args[3] = tilec_arg_i32(4096);
  args[4] = tilec_arg_i32(256);
  char *signature = NULL;
  CHECK(tilec_kernel_specialize(kernel, args, 5, &signature) == TILEC_SUCCESS);
  CHECK(strcmp(signature, "*fp32:16, *fp32:16, *fp32, i32:16, 256") == 0);

  /* AOT: the artifacts, no GPU needed. */
  tilec_binary *binary = NULL;
  CHECK(tilec_kernel_compile(kernel, signature, &binary) == TILEC_SUCCESS);
  tilec_string_destroy(signature);
  size_t ptxSize = 0, cubinSize = 1;
  const char *ptx = tilec_binary_ptx(binary, &ptxSize);
  CHECK(ptxSize > 0 && strstr(ptx, ".entry add_kernel") != NULL);
  CHECK(tilec_binary_cubin(binary, &cubinSize) == NULL && cubinSize == 0);
  CHECK(strstr(tilec_binary_metadata(binary), "\"num_threads\":128") != NULL);
  CHECK(strlen(tilec_binary_cache_key(binary)) == 64);
  CHECK(tilec_binary_from_disk_cache(binary) == 0);
  CHECK(tilec_binary_stage_seconds(binary, TILEC_STAGE_PASSES) > 0);
  CHECK(tilec_binary_stage_seconds(binary, TILEC_STAGE_TOTAL) >=
        tilec_binary_stage_seconds(binary, TILEC_STAGE_PASSES));

  /* JIT launches (the fake driver records them). */
  CHECK(tilec_kernel_launch(kernel, 16, 1, 1, NULL, args, 5) == TILEC_SUCCESS);
  CHECK(tilec_kernel_launch(kernel, 16, 1, 1, NULL, args, 5) == TILEC_SUCCESS);
  tilec_cache_stats stats;
  CHECK(tilec_compiler_stats(compiler, &stats) == TILEC_SUCCESS);
  CHECK(stats.compiles == 1 && stats.memory_hits == 1 && stats.loads == 1);
  args[3] = tilec_arg_string("x"); /* a string for a run-time parameter */
  CHECK(tilec_kernel_launch(kernel, 16, 1, 1, NULL, args, 5) ==
        TILEC_ERROR_INVALID_ARGUMENT);
  args[3] = tilec_arg_i32(4096);
  args[4] = tilec_arg_i32(100); /* not a power of two */
  CHECK(tilec_kernel_launch(kernel, 16, 1, 1, NULL, args, 5) ==
        TILEC_ERROR_COMPILE);
  CHECK(strstr(tilec_last_error(), "add.tile:6:") != NULL);
  args[4] = tilec_arg_i32(256);
  CHECK(tilec_kernel_launch(kernel, 0, 1, 1, NULL, args, 5) ==
        TILEC_ERROR_CUDA);

  /* A binary loaded and launched directly. */
  tilec_module *module = NULL;
  CHECK(tilec_binary_load(compiler, binary, &module) == TILEC_SUCCESS);
  CHECK(tilec_module_launch(module, 4, 1, 1, NULL, args, 5) == TILEC_SUCCESS);
  CHECK(tilec_module_launch(module, 4, 1, 1, NULL, args, 4) ==
        TILEC_ERROR_INVALID_ARGUMENT);
  args[2] = tilec_arg_pointer(out + 4, TILEC_FP32); /* fine: no :16 */
  CHECK(tilec_module_launch(module, 4, 1, 1, NULL, args, 5) == TILEC_SUCCESS);
  args[0] = tilec_arg_pointer(x + 4, TILEC_FP32); /* breaks *fp32:16 */
  CHECK(tilec_module_launch(module, 4, 1, 1, NULL, args, 5) ==
        TILEC_ERROR_INVALID_ARGUMENT);
  CHECK(strstr(tilec_last_error(), "not a multiple of 16") != NULL);

  /* The lean launch: one word per parameter (the constexpr's ignored). */
  uint64_t words[5] = {x, y, out, 4096, 0};
  CHECK(tilec_module_launch_words(module, 4, 1, 1, NULL, words, 5) ==
        TILEC_SUCCESS);
  CHECK(tilec_module_launch_words(module, 4, 1, 1, NULL, words, 4) ==
        TILEC_ERROR_INVALID_ARGUMENT);
  uint64_t packet[8] = {4 | (2ull << 32), 1, 0, x, y, out, 4096, 0};
  CHECK(tilec_module_launch_packet(module, packet, 5) == TILEC_SUCCESS);
  CHECK(tilec_module_launch_packet(module, NULL, 5) ==
        TILEC_ERROR_INVALID_ARGUMENT);
  words[0] = x + 4;
  CHECK(tilec_module_launch_words(module, 4, 1, 1, NULL, words, 5) ==
        TILEC_ERROR_INVALID_ARGUMENT);
  CHECK(strstr(tilec_last_error(), "not a multiple of 16") != NULL);

  /* The CPU backend, on host arrays. */
  {
    static float hx[1000], hy[1000], hout[1000];
    for (int i = 0; i < 1000; ++i) {
      hx[i] = (float)(i % 17) * 0.5f;
      hy[i] = (float)(i % 5) - 2.25f;
      hout[i] = -7.0f;
    }
    tilec_cpu_kernel *cpu = NULL;
    CHECK(tilec_kernel_compile_cpu(kernel, "*fp32, *fp32, *fp32, i32, 256",
                                   &cpu) == TILEC_SUCCESS);
    CHECK(strcmp(tilec_cpu_kernel_signature(cpu),
                 "*fp32, *fp32, *fp32, i32, 256") == 0);
    tilec_arg cargs[5] = {tilec_arg_pointer((uintptr_t)hx, TILEC_FP32),
                          tilec_arg_pointer((uintptr_t)hy, TILEC_FP32),
                          tilec_arg_pointer((uintptr_t)hout, TILEC_FP32),
                          tilec_arg_i32(999), tilec_arg_i32(256)};
    CHECK(tilec_cpu_kernel_launch(cpu, 4, 1, 1, cargs, 5, 2) == TILEC_SUCCESS);
    for (int i = 0; i < 999; ++i)
      CHECK(hout[i] == hx[i] + hy[i]);
    CHECK(hout[999] == -7.0f); /* masked off */
    uint64_t cwords[5] = {(uintptr_t)hy, (uintptr_t)hy, (uintptr_t)hout, 500,
                          0};
    CHECK(tilec_cpu_kernel_launch_words(cpu, 2, 1, 1, cwords, 5, 1) ==
          TILEC_SUCCESS);
    for (int i = 0; i < 500; ++i)
      CHECK(hout[i] == 2 * hy[i]);
    CHECK(hout[500] == hx[500] + hy[500]);
    CHECK(tilec_cpu_kernel_launch_words(cpu, 2, 1, 1, cwords, 3, 1) ==
          TILEC_ERROR_INVALID_ARGUMENT);
    uint64_t cpacket[8] = {1 | (1ull << 32), 1, 1, (uintptr_t)hx, (uintptr_t)hx,
                           (uintptr_t)hout, 256, 0};
    CHECK(tilec_cpu_kernel_launch_packet(cpu, cpacket, 5) == TILEC_SUCCESS);
    for (int i = 0; i < 256; ++i)
      CHECK(hout[i] == 2 * hx[i]);
    CHECK(hout[256] == 2 * hy[256]);
    tilec_cpu_kernel_destroy(cpu);
    CHECK(tilec_kernel_compile_cpu(kernel, "*fp32, *fp32, *fp32, i32, 100",
                                   &cpu) == TILEC_ERROR_COMPILE);
    CHECK(cpu == NULL && strstr(tilec_last_error(), "add.tile:6:") != NULL);
  }

  /* A pass switch is part of the cache key: another compiler on the same
   * cache, with --longest-first off, compiles anew under another key. */
  {
    tilec_options off = options;
    off.longest_first = 0;
    off.ping_pong = TILEC_SWITCH_OFF;
    tilec_compiler *other = NULL;
    CHECK(tilec_compiler_create(&off, &other) == TILEC_SUCCESS);
    tilec_kernel *same = NULL;
    CHECK(tilec_kernel_from_source(other, source, strlen(source),
                                   "add_kernel", "add.tile",
                                   &same) == TILEC_SUCCESS);
    tilec_binary *again = NULL;
    CHECK(tilec_kernel_compile(same, "*fp32:16, *fp32:16, *fp32, i32:16, 256",
                               &again) == TILEC_SUCCESS);
    CHECK(tilec_binary_from_disk_cache(again) == 0);
    CHECK(strcmp(tilec_binary_cache_key(again),
                 tilec_binary_cache_key(binary)) != 0);
    tilec_binary_destroy(again);
    tilec_kernel_destroy(same);
    tilec_compiler_destroy(other);
    off.ping_pong = 7;
    CHECK(tilec_compiler_create(&off, &other) == TILEC_ERROR_INVALID_ARGUMENT);
    CHECK(strstr(tilec_last_error(), "ping_pong must be") != NULL);
  }

  tilec_module_destroy(module);
  tilec_binary_destroy(binary);
  tilec_compiler_destroy(compiler); /* The kernel keeps it alive. */
  tilec_kernel_destroy(kernel);
  printf("ok\n");
  return 0;
}
