// The C++ API from an installed tilec: compile a kernel from a string to
// PTX (no GPU needed), twice, the second time from the disk cache.
#include "tilec/JIT/JIT.h"

#include <cstdio>

static const char *kSource = R"py(
import triton
import triton.language as tl

@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) +
             tl.load(y_ptr + offs, mask=mask), mask=mask)
)py";

int main(int argc, char **argv) {
  if (argc != 2)
    return 2;
  for (int round = 0; round < 2; ++round) {
    tilec::jit::CompilerOptions options;
    options.cacheDir = argv[1];
    options.ptxOnly = true;
    auto compiler = tilec::jit::Compiler::create(options);
    if (!compiler) {
      std::fprintf(stderr, "%s\n", llvm::toString(compiler.takeError()).c_str());
      return 1;
    }
    auto kernel = compiler->compileSource(kSource, "add_kernel", "add.tile");
    if (!kernel) {
      std::fprintf(stderr, "%s\n", llvm::toString(kernel.takeError()).c_str());
      return 1;
    }
    float *x = nullptr;
    auto signature = kernel->specialize({x, x, x, 4096, 1024});
    if (!signature) {
      std::fprintf(stderr, "%s\n", llvm::toString(signature.takeError()).c_str());
      return 1;
    }
    auto compiled = kernel->compile(*signature);
    if (!compiled) {
      std::fprintf(stderr, "%s\n", llvm::toString(compiled.takeError()).c_str());
      return 1;
    }
    bool fromDisk = (*compiled)->origin == tilec::jit::CacheOrigin::Disk;
    if ((*compiled)->ptx.find(".entry add_kernel") == std::string::npos ||
        fromDisk != (round == 1)) {
      std::fprintf(stderr, "unexpected result in round %d\n", round);
      return 1;
    }
    std::printf("c++: %s -> %zu bytes of PTX (%s)\n", signature->c_str(),
                (*compiled)->ptx.size(), fromDisk ? "disk cache" : "compiled");
  }
  return 0;
}
