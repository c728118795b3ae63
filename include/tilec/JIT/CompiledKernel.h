//===- CompiledKernel.h - One compiled specialization -----------*- C++ -*-===//
//
// Part of tilec, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_JIT_COMPILEDKERNEL_H
#define TILEC_JIT_COMPILEDKERNEL_H

#include "tilec/Compiler/StageTimes.h"

#include <string>

namespace tilec::jit {

/// How a CompiledKernel was obtained the first time in this process.
enum class CacheOrigin {
  /// Compiled here (a disk-cache miss, a corrupt entry, or dumping).
  Compiled,
  /// Read from the disk cache.
  Disk,
};

/// The artifacts of one kernel specialization. Immutable once made; the
/// Compiler keeps it in memory for its lifetime (the in-memory cache).
struct CompiledKernel {
  /// The kernel's name (its PTX `.entry`).
  std::string name;
  /// The signature it was specialized for, normalized.
  std::string signature;
  /// Its cache key (64 hex digits) and the text it hashes.
  std::string key, keyText;
  /// The metadata JSON (docs/metadata.md; `artifacts` left empty).
  std::string metadata;
  std::string ptx;
  /// The cubin; empty when kernels are kept as PTX.
  std::string cubin;
  /// What `ptxas -v` printed.
  std::string ptxasLog;
  /// The dump directory of this compilation, when dumping.
  std::string dumpDir;
  CacheOrigin origin = CacheOrigin::Compiled;
  /// Seconds per stage when compiled (all 0 when read from disk).
  StageTimes times;
  /// Seconds spent reading and validating the disk entry (0 when compiled).
  double diskSeconds = 0;
};

} // namespace tilec::jit

#endif // TILEC_JIT_COMPILEDKERNEL_H
