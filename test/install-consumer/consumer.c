/* The C API from an installed tilec. */
#include "tilec-c/tilec.h"

#include <stdio.h>
#include <string.h>

static const char *source =
    "import triton.language as tl\n"
    "import triton\n"
    "@triton.jit\n"
    "def fill(x_ptr, value, BLOCK: tl.constexpr):\n"
    "    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)\n"
    "    tl.store(x_ptr + offs, tl.full((BLOCK,), value, tl.float32))\n";

int main(int argc, char **argv) {
  tilec_options options;
  tilec_compiler *compiler;
  tilec_kernel *kernel;
  tilec_binary *binary;
  if (argc != 2)
    return 2;
  tilec_options_init(&options);
  options.cache_dir = argv[1];
  options.ptx_only = 1;
  if (tilec_compiler_create(&options, &compiler) != TILEC_SUCCESS ||
      tilec_kernel_from_source(compiler, source, strlen(source), "fill",
                               "fill.tile", &kernel) != TILEC_SUCCESS ||
      tilec_kernel_compile(kernel, "*fp32:16, fp32, 128", &binary) !=
          TILEC_SUCCESS) {
    fprintf(stderr, "%s\n", tilec_last_error());
    return 1;
  }
  if (!strstr(tilec_binary_ptx(binary, NULL), ".entry fill"))
    return 1;
  printf("c: tilec %s, %s\n", tilec_version(), tilec_binary_signature(binary));
  tilec_binary_destroy(binary);
  tilec_kernel_destroy(kernel);
  tilec_compiler_destroy(compiler);
  return 0;
}
