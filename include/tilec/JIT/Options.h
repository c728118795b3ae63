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

#include <cstdint>
#include <string>

namespace tilec::jit {

/// How a Compiler compiles, caches and loads kernels.
struct CompilerOptions {
  /// GPU architecture, as for `tilec --arch` (`sm_90a`: WGMMA/TMA need the
  /// `a`). Part of the cache key.
  std::string arch = "sm_90a";
  /// PTX ISA version times 10 (80 = PTX 8.0). Part of the cache key.
  unsigned ptxVersion = 80;
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

  /// The pass switches, as `tilec`'s flags of the same names
  /// (docs/cli.md; the defaults are tilec::PipelineOptions'). All are part
  /// of the cache key.
  ///
  /// Run eligible tl.dot on the Hopper tensor cores (wgmma); false leaves
  /// them to mma.sync or FMA (`--disable-wgmma`).
  bool useWgmma = true;
  /// Run the dots wgmma does not take on mma.sync where it can; false
  /// leaves them to FMA on CUDA cores (`--disable-mma`).
  bool useMMA = true;
  /// Copy wgmma operands that are affine boxes of a tensor with TMA; false
  /// sends them by cp.async or through registers (`--disable-tma`).
  bool useTMA = true;
  /// Copy the other aligned wgmma operands with cp.async; false sends them
  /// through registers (`--disable-cp-async`).
  bool useCpAsync = true;
  /// Which software-pipelined TMA loops get a producer warpgroup
  /// (`--warp-specialize`): "off", "requested" (loops written
  /// `tl.range(..., warp_specialize=True)`), "auto" (the default: also
  /// loops with wgmma, none of 8-bit operands, in kernels of 4 or 8 warps
  /// whose shared memory holds an SM to one CTA anyway), "all".
  std::string warpSpecialize = "auto";
  /// Ping-pong of the two consumer warpgroups of warp-specialized loops with
  /// two or more dots (`--ping-pong`): "auto" (the default: every such loop
  /// that can), "on" (also a remark on each split loop that cannot), "off".
  std::string pingPong = "auto";
  /// Issue a loop's last dot (attention's P V) one iteration late, under
  /// the next iteration's softmax (`--intra-warpgroup-overlap`): "auto" (the
  /// default: the consumer loops of warp-specialized kernels), "on" (every
  /// pipelined loop that can be), "off".
  std::string intraWarpgroupOverlap = "auto";
  /// CTAs per thread-block cluster along grid axis 0: 1 (the default), 2,
  /// 4 or 8; TMA copies the programs of a cluster make alike are multicast
  /// (`--num-ctas`). A clustered kernel needs grid axis 0 to be a multiple.
  unsigned numCTAs = 1;
  /// Launch the longest programs first in kernels whose loops run more
  /// iterations for a larger program_id(0) (causal attention;
  /// `--longest-first`). Default true.
  bool longestFirst = true;
  /// Load a tensor-core loop's small tiles that are not dot operands one
  /// iteration ahead, in registers (`--prefetch-loads`). Default true.
  bool prefetchLoads = true;
  /// Issue each dot of a loop right after the dot before it when it does
  /// not need what lies between (`--issue-dots-early`). Default true.
  bool issueDotsEarly = true;
  /// When positive, every mbarrier wait traps with its source location
  /// after this many polls instead of hanging (`--mbarrier-spin-limit`; for
  /// debugging). Default 0: wait forever; negative is invalid.
  int64_t mbarrierSpinLimit = 0;

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
