//===- PipelineFlags.h - The pass switches of every subcommand --*- C++ -*-===//
//
// Part of tilec, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// The switches of the Hopper passes (DESIGN.md §3: every pass can be switched
// off from the CLI) that `tilec`, `tilec run` and `tilec explain` share:
//
//   --disable-wgmma --disable-mma --disable-tma --disable-cp-async
//   --warp-specialize=MODE --disable-warp-specialize --ping-pong[=BOOL]
//   --intra-warpgroup-overlap[=BOOL] --num-ctas N --longest-first=BOOL
//   --prefetch-loads=BOOL --issue-dots-early=BOOL --mbarrier-spin-limit N
//   --disable-fp-fusion
//
// One definition of their names, defaults and help, registered in each
// subcommand, so that a run or an explanation compiles what `tilec` would.
// The JIT, the C API and the Python package take the same options
// (include/tilec/JIT/Options.h, include/tilec-c/tilec.h).
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_TOOLS_TILEC_PIPELINEFLAGS_H
#define TILEC_TOOLS_TILEC_PIPELINEFLAGS_H

#include "tilec/Compiler/Compiler.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <string>

namespace tilec::tool {

/// The pass switches, registered in one subcommand. Construct one per
/// subcommand, after the subcommand itself (in its file).
class PipelineFlags {
public:
  PipelineFlags(llvm::cl::SubCommand &sub, llvm::cl::OptionCategory &category);
  PipelineFlags(const PipelineFlags &) = delete;
  PipelineFlags &operator=(const PipelineFlags &) = delete;

  /// Sets `pipeline`'s switches from the flags and checks the whole of it
  /// (verifyPipelineOptions, with the flags' names in the messages); the
  /// caller sets numWarps and numStages first. `--disable-warp-specialize`
  /// wins over `--warp-specialize`.
  llvm::Error apply(PipelineOptions &pipeline) const;

private:
  llvm::cl::opt<bool> disableWgmma;
  llvm::cl::opt<bool> disableMma;
  llvm::cl::opt<bool> disableTMA;
  llvm::cl::opt<bool> disableCpAsync;
  llvm::cl::opt<std::string> warpSpecialize;
  llvm::cl::opt<bool> disableWarpSpecialize;
  llvm::cl::opt<llvm::cl::boolOrDefault> pingPong;
  llvm::cl::opt<llvm::cl::boolOrDefault> intraWarpgroupOverlap;
  llvm::cl::opt<unsigned> numCTAs;
  llvm::cl::opt<bool> longestFirst;
  llvm::cl::opt<bool> prefetchLoads;
  llvm::cl::opt<bool> tmaStore;
  llvm::cl::opt<bool> issueDotsEarly;
  llvm::cl::opt<bool> persistent;
  llvm::cl::opt<int64_t> mbarrierSpinLimit;
  llvm::cl::opt<int64_t> cpAsyncBoxBytes;
  llvm::cl::opt<bool> disableFPFusion;
};

} // namespace tilec::tool

#endif // TILEC_TOOLS_TILEC_PIPELINEFLAGS_H
