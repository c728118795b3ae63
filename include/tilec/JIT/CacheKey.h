//===- CacheKey.h - What a cached kernel depends on -------------*- C++ -*-===//
//
// Part of tilec, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// The key of the kernel cache (docs/cache.md): the SHA-256 of a text with
// one `field value` line per input that can change the compiled kernel:
//
//   tilec-cache-key 3
//   compiler   0.1.0 source 5be0... llvm 22.1.8   (tilec's sources, its LLVM)
//   kernel     add_kernel
//   source     <KernelSource::hash: kernel, callees, constants, imports>
//   signature  *fp32:16, *fp32:16, *fp32:16, i32:16, 1024
//   arch       sm_90a
//   ptx        80
//   num-warps  4
//   num-stages 3
//   line-info  1
//   debug      0
//   wgmma      1                                  (the pass switches:
//   mma        1                                   CompilerOptions, tilec's
//   tma        1                                   flags of the same names)
//   cp-async   1
//   warp-specialize auto
//   ping-pong  auto
//   intra-warpgroup-overlap auto
//   num-ctas   1
//   longest-first 1
//   prefetch-loads 1
//   issue-dots-early 1
//   mbarrier-spin-limit 0
//   cp-async-box-bytes 8192
//   fp-fusion  1
//   ptxas      /usr/local/cuda/bin/ptxas 33718112 1745339221 Cuda ... V13.0.88
//   libdevice  /usr/local/cuda/nvvm/libdevice/libdevice.10.bc 474532 1745339221
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_JIT_CACHEKEY_H
#define TILEC_JIT_CACHEKEY_H

#include "tilec/Compiler/PassSwitches.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <string>

namespace tilec::jit {

/// Every input of one compilation that the cache key covers, with the pass
/// switches (CompilerOptions'): every one changes the code.
struct CacheKeyInputs : PassSwitches {
  /// getCompilerIdentity().
  std::string compiler;
  std::string kernelName;
  /// frontend::KernelSource::hash.
  std::string sourceHash;
  /// The signature as the frontend normalizes it (`*fp32:16, i32, 1024`).
  std::string signature;
  std::string arch;
  unsigned ptxVersion = 81;
  unsigned numWarps = 4;
  unsigned numStages = 3;
  bool lineInfo = true;
  /// Debug mode (device assertions), as the frontend saw it.
  bool debug = false;
  /// describePtxas(), or "none" when kernels are kept as PTX.
  std::string ptxas;
  /// describeLibdevice().
  std::string libdevice;
};

/// The text the key hashes (the lines shown above, each ending in '\n').
std::string getCacheKeyText(const CacheKeyInputs &inputs);

/// SHA-256 of getCacheKeyText, 64 lowercase hex digits.
std::string getCacheKey(const CacheKeyInputs &inputs);

/// tilec's version, the SHA-256 of the sources it was built from (lib/ and
/// include/, hashed at build time) and the LLVM it links: "0.1.0 source
/// <hex> llvm 22.1.8". Any edit to the compiler changes it, so a cache never
/// serves a kernel compiled by other compiler code, while every program
/// built from the same sources (tilec, libtilec.so, a static application)
/// shares entries.
const std::string &getCompilerIdentity();

/// "<path> <size> <mtime> <version line>" for the ptxas at `path`. The
/// version comes from running `ptxas --version` once per ptxas binary: the
/// answer is remembered in `<memoDir>/ptxas-<hash of path, size, mtime>`
/// (when `memoDir` is not empty), so that a process with a warm cache never
/// starts ptxas. Errors: `path` cannot be read or run.
llvm::Expected<std::string> describePtxas(llvm::StringRef path,
                                          llvm::StringRef memoDir);

/// "<path> <size> <mtime>" of the libdevice findLibdevice() returns (linked
/// into kernels that call libdevice math), or "none".
std::string describeLibdevice();

} // namespace tilec::jit

#endif // TILEC_JIT_CACHEKEY_H
