//===- PipelineFlags.cpp - The pass switches of every subcommand ----------===//
//
// Part of tilec, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#include "PipelineFlags.h"

using namespace tilec;
using namespace tilec::tool;
namespace cl = llvm::cl;

/// The defaults every entry point shares (PipelineOptions' initializers).
static PipelineOptions defaults() { return {}; }

/// A tri-state flag (unset, --flag, --flag=false) as a PipelineOptions mode.
static const char *mode(cl::boolOrDefault value) {
  return value == cl::BOU_UNSET  ? "auto"
         : value == cl::BOU_TRUE ? "on"
                                 : "off";
}

PipelineFlags::PipelineFlags(cl::SubCommand &sub, cl::OptionCategory &category)
    : disableWgmma(
          "disable-wgmma",
          cl::desc("Run no tl.dot on Hopper's wgmma: mma.sync where it can, "
                   "else FMA on CUDA cores (for experiments)"),
          cl::sub(sub), cl::cat(category)),
      disableMma("disable-mma",
                 cl::desc("Run no tl.dot on mma.sync (with --disable-wgmma: "
                          "every dot on CUDA cores, FMA)"),
                 cl::sub(sub), cl::cat(category)),
      disableTMA(
          "disable-tma",
          cl::desc("Copy no wgmma operand with TMA: they go by cp.async where "
                   "aligned, else through registers (for experiments)"),
          cl::sub(sub), cl::cat(category)),
      disableCpAsync(
          "disable-cp-async",
          cl::desc("Copy no wgmma operand with cp.async: what TMA does not "
                   "take goes through registers (for experiments)"),
          cl::sub(sub), cl::cat(category)),
      warpSpecialize(
          "warp-specialize", cl::init(defaults().warpSpecialize),
          cl::desc("Which pipelined TMA loops get a producer warpgroup "
                   "(tilegpu-warp-specialize): off, requested (loops written "
                   "tl.range(..., warp_specialize=True)), auto (the default: "
                   "also loops with wgmma, none of 8-bit operands, in kernels "
                   "of 4 or 8 warps whose shared memory holds an SM to one "
                   "CTA anyway), all (every loop that can be)"),
          cl::value_desc("MODE"), cl::sub(sub), cl::cat(category)),
      disableWarpSpecialize(
          "disable-warp-specialize",
          cl::desc("No warp specialization, even where tl.range asks for it "
                   "(--warp-specialize=off)"),
          cl::sub(sub), cl::cat(category)),
      pingPong(
          "ping-pong",
          cl::desc("In warp-specialized loops of two consumer warpgroups (8 "
                   "warps) with two or more dots, let the warpgroups take "
                   "turns at the tensor cores (FlashAttention-3's ping-pong). "
                   "Unset: every such loop that can; --ping-pong also "
                   "remarks on split loops that cannot; --ping-pong=false: "
                   "none"),
          cl::sub(sub), cl::cat(category)),
      intraWarpgroupOverlap(
          "intra-warpgroup-overlap",
          cl::desc("Issue a pipelined loop's last dot (attention's P V) one "
                   "iteration late, after the next iteration's first dot, so "
                   "that it runs under that iteration's softmax "
                   "(FlashAttention-3's intra-warpgroup overlap). Unset: in "
                   "warp-specialized loops; --intra-warpgroup-overlap: in "
                   "every loop that can; --intra-warpgroup-overlap=false: "
                   "none"),
          cl::sub(sub), cl::cat(category)),
      numCTAs("num-ctas", cl::init(defaults().numCTAs),
              cl::desc("CTAs per thread-block cluster along grid axis 0 (1, "
                       "2, 4 or 8): TMA copies the programs of a cluster make "
                       "alike (attention's K and V) are issued once and "
                       "multicast into all of them"),
              cl::sub(sub), cl::cat(category)),
      longestFirst(
          "longest-first", cl::init(defaults().longestFirst),
          cl::desc("Hand out program ids longest first in kernels whose "
                   "loops run more iterations for a larger program_id(0) "
                   "(causal attention) and whose programs cannot observe "
                   "each other (tilegpu-longest-first); "
                   "--longest-first=false keeps the launch order"),
          cl::sub(sub), cl::cat(category)),
      prefetchLoads(
          "prefetch-loads", cl::init(defaults().prefetchLoads),
          cl::desc("Issue a tensor-core loop's small loads that are not dot "
                   "operands (attention backward's m and Delta) one "
                   "iteration ahead, into registers (tilegpu-prefetch-loads); "
                   "--prefetch-loads=false loads them where they are used"),
          cl::sub(sub), cl::cat(category)),
      tmaStore(
          "tma-store", cl::init(defaults().tmaStore),
          cl::desc("Store a tensor-core kernel's 2-d output tiles through "
                   "shared memory with TMA copies where the staging buffer "
                   "fits (tilegpu-store-via-tma)"),
          cl::sub(sub), cl::cat(category)),
      issueDotsEarly(
          "issue-dots-early", cl::init(defaults().issueDotsEarly),
          cl::desc("Move each dot of a loop up to just after the dot before "
                   "it when it does not need the ops between (attention "
                   "backward's dP under exp2; tilegpu-issue-dots-early); "
                   "--issue-dots-early=false keeps the source order"),
          cl::sub(sub), cl::cat(category)),
      persistent(
          "persistent", cl::init(defaults().persistent),
          cl::desc("Make kernels persistent: each CTA loops over programs of "
                   "the grid, the runtime launches as many CTAs as the GPU "
                   "runs at once, and a CTA's producer copies the next "
                   "program's tiles while its consumers finish this one "
                   "(tilegpu-persistent)"),
          cl::sub(sub), cl::cat(category)),
      mbarrierSpinLimit(
          "mbarrier-spin-limit", cl::init(defaults().mbarrierSpinLimit),
          cl::desc("Make every mbarrier wait give up after N polls, print its "
                   "source location and trap, instead of hanging on a "
                   "pipeline bug (0: wait forever)"),
          cl::value_desc("N"), cl::sub(sub), cl::cat(category)),
      cpAsyncBoxBytes(
          "cp-async-box-bytes", cl::init(defaults().cpAsyncBoxBytes),
          cl::desc("In a loop of three or more dots (attention backward), "
                   "copy wgmma operand boxes of at most N bytes with cp.async "
                   "rather than TMA (0: TMA for every box)"),
          cl::value_desc("N"), cl::sub(sub), cl::cat(category)),
      disableFPFusion(
          "disable-fp-fusion",
          cl::desc("Round every floating-point multiply and add on its own (no "
                   "fma contraction by LLVM or ptxas; Triton's "
                   "enable_fp_fusion=False)"),
          cl::sub(sub), cl::cat(category)) {}

llvm::Error PipelineFlags::apply(PipelineOptions &pipeline) const {
  pipeline.useWgmma = !disableWgmma;
  pipeline.useMMA = !disableMma;
  pipeline.useTMA = !disableTMA;
  pipeline.useCpAsync = !disableCpAsync;
  pipeline.warpSpecialize = warpSpecialize;
  pipeline.pingPong = mode(pingPong);
  pipeline.intraWarpgroupOverlap = mode(intraWarpgroupOverlap);
  pipeline.numCTAs = numCTAs;
  pipeline.longestFirst = longestFirst;
  pipeline.prefetchLoads = prefetchLoads;
  pipeline.tmaStore = tmaStore;
  pipeline.issueDotsEarly = issueDotsEarly;
  pipeline.persistent = persistent;
  pipeline.mbarrierSpinLimit = mbarrierSpinLimit;
  pipeline.cpAsyncBoxBytes = cpAsyncBoxBytes;
  pipeline.enableFPFusion = !disableFPFusion;
  // --warp-specialize is checked even when --disable-warp-specialize
  // overrides it.
  if (llvm::Error err = verifyPipelineOptions(pipeline, OptionSpelling::Flag))
    return err;
  if (disableWarpSpecialize)
    pipeline.warpSpecialize = "off";
  return llvm::Error::success();
}
