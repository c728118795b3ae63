//===- Options.h - What a JIT compiler compiles for -------------*- C++ -*-===//
//
// Part of tilec, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// The options of a tilec::jit::Compiler (docs/jit-api.md). Every field that
// changes the generated code is part of the kernel cache key
// (docs/cache.md); the others (where the caches and dumps live, which
// device) are not.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_JIT_OPTIONS_H
#define TILEC_JIT_OPTIONS_H

#include "tilec/Compiler/PassSwitches.h"

#include <cstdint>
#include <string>

namespace tilec::jit {

/// How a Compiler compiles, caches and loads kernels. The pass switches
/// (tilec::PassSwitches, `tilec`'s flags of the same names) are all part of
/// the cache key.
struct CompilerOptions : PassSwitches {
  /// GPU architecture, as for `tilec --arch` (`sm_90a`: WGMMA/TMA need the
  /// `a`). Part of the cache key.
  std::string arch = "sm_90a";
  /// PTX ISA version times 10 (81 = PTX 8.1, the default for sm_90a:
  /// vector reductions). Part of the cache key.
  unsigned ptxVersion = 81;
  /// Warps per program (CTA): 1, 2, 4, ... 32. Part of the cache key.
  unsigned numWarps = 4;
  /// Software-pipelining depth (>= 1). Part of the cache key.
  unsigned numStages = 3;
  /// `.loc` line tables in the PTX and `ptxas -lineinfo`, so that cuobjdump,
  /// Nsight Compute and compute-sanitizer show `.tile` lines. No effect on
  /// the code. Part of the cache key.
  bool lineInfo = true;
  /// Debug mode, Triton's `debug=True`: tl.device_assert (and `assert` on
  /// run-time values) check their condition on the device. A kernel's
  /// `@jit(debug=...)` overrides it; `TRITON_DEBUG=1` in the environment
  /// turns it on too. Part of the cache key.
  bool debug = false;

  /// Keep compiled kernels on disk and reuse them across processes.
  bool diskCache = true;
  /// The disk cache's directory; empty means `$TILEC_CACHE_DIR`, or
  /// `~/.cache/tilec` when that is unset or empty. Created on first use.
  std::string cacheDir;

  /// When set (or, if empty, when `$TILEC_DUMP_DIR` is set), every kernel
  /// specialization compiled by this Compiler writes the `tilec --dump-ir`
  /// report (docs/cli.md: the IR after every pass that changed it, diffs,
  /// LLVM IR, PTX, ptxas report, cubin, metadata, index.json, index.html)
  /// into `<dumpDir>/<kernel>-<first 12 digits of its cache key>/`. A
  /// kernel found in the memory or disk cache is not recompiled: its
  /// directory gets `cache-hit.json` saying where it came from, unless
  /// `dumpOnCacheHit`.
  std::string dumpDir;
  /// Only kernels whose name this regular expression matches are dumped
  /// (empty: `$TILEC_DUMP_KERNEL`, else all).
  std::string dumpKernel;
  /// Recompile (and dump) a kernel found in the disk cache instead of
  /// loading it (also `TILEC_DUMP_ON_CACHE_HIT=1`); the result is still
  /// stored.
  bool dumpOnCacheHit = false;

  /// The ptxas to assemble cubins with; empty means `$TILEC_PTXAS`, then
  /// `/usr/local/cuda/bin/ptxas`, then `PATH`. With no ptxas at all, kernels
  /// are kept as PTX and the driver compiles them at load (100+ ms each).
  /// Its version and identity are part of the cache key.
  std::string ptxas;
  /// Never run ptxas: keep and load PTX only (for tests, or a driver newer
  /// than the toolkit).
  bool ptxOnly = false;

  /// CUDA device ordinal that launches load kernels on (its primary
  /// context, the one the CUDA runtime API and PyTorch use).
  int device = 0;
};

} // namespace tilec::jit

#endif // TILEC_JIT_OPTIONS_H
