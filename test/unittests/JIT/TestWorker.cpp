//===- TestWorker.cpp - A separate process for the cache tests ------------===//
//
// Part of tilec, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// The cache tests start several of these at once to check that processes
// sharing a cache directory never see or leave a broken entry:
//
//   tilec-jit-test-worker compile DIR FILE KERNEL SIGNATURE
//       compiles (or reads) one kernel; prints "compiled KEY" or "disk KEY"
//   tilec-jit-test-worker compile-ptx DIR FILE KERNEL SIGNATURE
//       the same to PTX only; prints "compiled|disk KEY PTXHASH", then
//       "store-failed" when the cache store failed (the kernel is still
//       good: exit 0)
//   tilec-jit-test-worker store DIR KEY COUNT SEED
//       stores COUNT entries of various sizes under KEY as fast as it can
//
//===----------------------------------------------------------------------===//

#include "tilec/JIT/DiskCache.h"
#include "tilec/JIT/JIT.h"

#include "llvm/Support/xxhash.h"

#include <cstdio>
#include <cstdlib>
#include <string>

using namespace tilec::jit;

/// The entry `store` writes for (seed, i): its size varies, every byte is
/// derived from (seed, i), so a reader can tell a torn mix from a real one.
CacheEntry stressEntry(unsigned seed, unsigned i) {
  CacheEntry entry;
  entry.keyText = "stress";
  size_t size = 1000 + (seed * 7919 + i * 104729) % 200000;
  entry.cubin.assign(size, static_cast<char>('a' + (seed + i) % 26));
  entry.metadata = std::to_string(seed) + " " + std::to_string(i) + " " +
                   std::to_string(size);
  return entry;
}

int main(int argc, char **argv) {
  std::string mode = argc > 1 ? argv[1] : "";
  bool ptxOnly = mode == "compile-ptx";
  if ((mode == "compile" || ptxOnly) && argc == 6) {
    CompilerOptions options;
    options.cacheDir = argv[2];
    options.ptxOnly = ptxOnly;
    auto compiler = Compiler::create(options);
    if (!compiler) {
      std::fprintf(stderr, "%s\n",
                   llvm::toString(compiler.takeError()).c_str());
      return 1;
    }
    auto kernel = compiler->compileFile(argv[3], argv[4]);
    if (!kernel) {
      std::fprintf(stderr, "%s\n", llvm::toString(kernel.takeError()).c_str());
      return 1;
    }
    auto compiled = kernel->compile(argv[5]);
    if (!compiled) {
      std::fprintf(stderr, "%s\n",
                   llvm::toString(compiled.takeError()).c_str());
      return 1;
    }
    if (ptxOnly) {
      std::printf("%s %s %016llx\n",
                  (*compiled)->origin == CacheOrigin::Disk ? "disk"
                                                           : "compiled",
                  (*compiled)->key.c_str(),
                  static_cast<unsigned long long>(
                      llvm::xxh3_64bits((*compiled)->ptx)));
      if (compiler->getStats().diskStoreErrors)
        std::printf("store-failed %s\n",
                    compiler->getLastStoreError().c_str());
      return 0;
    }
    if (compiler->getStats().diskStoreErrors) {
      std::fprintf(stderr, "store failed: %s\n",
                   compiler->getLastStoreError().c_str());
      return 1;
    }
    std::printf("%s %s\n",
                (*compiled)->origin == CacheOrigin::Disk ? "disk" : "compiled",
                (*compiled)->key.c_str());
    return 0;
  }
  if (mode == "store" && argc == 6) {
    DiskCache cache(argv[2]);
    unsigned count = std::atoi(argv[4]), seed = std::atoi(argv[5]);
    for (unsigned i = 0; i < count; ++i)
      if (llvm::Error err = cache.store(argv[3], stressEntry(seed, i))) {
        std::fprintf(stderr, "%s\n", llvm::toString(std::move(err)).c_str());
        return 1;
      }
    return 0;
  }
  std::fprintf(stderr,
               "usage: %s compile|compile-ptx DIR FILE KERNEL SIGNATURE | "
               "store DIR KEY "
               "COUNT SEED\n",
               argv[0]);
  return 2;
}
