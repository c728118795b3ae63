//===- PassSwitches.h - the switches of the GPU passes ----------*- C++ -*-===//
//
// Part of tilec, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// The pass switches every entry point shares: tilec::PipelineOptions (the
// `tilec` flags of the same names, docs/cli.md), tilec::jit::CompilerOptions
// (docs/jit-api.md) and the kernel cache key's inputs (docs/cache.md). Each
// one changes the generated code. No LLVM or MLIR includes: the installed
// JIT API includes this header.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_COMPILER_PASSSWITCHES_H
#define TILEC_COMPILER_PASSSWITCHES_H

#include <cstdint>
#include <string>

namespace tilec {

/// Which optional lowerings and schedules the GPU pipeline uses, from the
/// passes to the NVPTX backend. The CPU backend (docs/cpu-backend.md) takes
/// them and ignores them.
struct PassSwitches {
  /// Run eligible tl.dot on the Hopper tensor cores (wgmma); false leaves
  /// them to mma.sync or the FMA path (`--disable-wgmma`).
  bool useWgmma = true;
  /// Run the dots wgmma does not take on warp-level tensor-core MMA
  /// (mma.sync.m16n8k16) when it can; false leaves them to the FMA path
  /// (`--disable-mma`).
  bool useMMA = true;
  /// Copy wgmma operands that are affine boxes of a tensor (block
  /// pointers, descriptors, pointer tiles) with TMA into shared memory
  /// (false: `--disable-tma`; they go by cp.async or registers).
  bool useTMA = true;
  /// Copy the other aligned wgmma operand loads with cp.async (false:
  /// `--disable-cp-async`; they go through registers).
  bool useCpAsync = true;
  /// Which software-pipelined TMA loops get a producer warpgroup
  /// (tilegpu-warp-specialize's mode; `--warp-specialize`): "off"
  /// (`--disable-warp-specialize`; the pass is not in the pipeline at all),
  /// "requested" (loops written `tl.range(..., warp_specialize=True)`),
  /// "auto" (the default; also loops with wgmma, none of 8-bit operands, in
  /// kernels of 4 or 8 warps whose shared memory holds an SM to one CTA
  /// anyway), "all" (every loop that can be).
  std::string warpSpecialize = "auto";
  /// In warp-specialized loops of two consumer warpgroups and two or more
  /// dots, let the warpgroups take turns at the tensor cores
  /// (tilegpu-warp-specialize's ping-pong; `--ping-pong`): "auto" (the
  /// default: every such loop that can, silently), "on" (also a remark on
  /// each split loop that cannot), "off".
  std::string pingPong = "auto";
  /// Issue a loop's last dot (attention's P V) one iteration late, behind
  /// the next iteration's first dot, so that it runs under that iteration's
  /// softmax (tilegpu-intra-warpgroup-overlap; `--intra-warpgroup-overlap`):
  /// "auto" (the default: the consumer loops of warp-specialized kernels,
  /// where the device runs measured it faster), "on" (every pipelined
  /// loop that can be), "off".
  std::string intraWarpgroupOverlap = "auto";
  /// CTAs per thread-block cluster along grid axis 0 (1, 2, 4 or 8;
  /// `--num-ctas`): TMA copies that the neighbouring programs of a cluster
  /// make alike are issued once and multicast into all of them
  /// (tilegpu-cluster-multicast). A kernel with nothing to share stays
  /// unclustered; the metadata's `cluster_dims` says what was done. A
  /// clustered kernel needs grid axis 0 to be a multiple.
  unsigned numCTAs = 1;
  /// Launch the longest programs first where a kernel's loops run more
  /// iterations for a larger program_id(0) and its programs cannot observe
  /// each other (causal attention; tilegpu-longest-first;
  /// `--longest-first=false` turns it off).
  bool longestFirst = true;
  /// Load a tensor-core loop's small tiles (not dot operands) one iteration
  /// ahead, in registers (tilegpu-prefetch-loads; `--prefetch-loads=false`
  /// turns it off).
  bool prefetchLoads = true;
  /// Store a tensor-core kernel's 2-d output tiles through shared memory
  /// with TMA where the staging buffer fits (tilegpu-store-via-tma;
  /// `--tma-store`).
  bool tmaStore = false;
  /// Issue each dot of a loop right after the dot before it when it does
  /// not need what lies between (tilegpu-issue-dots-early;
  /// `--issue-dots-early=false` turns it off).
  bool issueDotsEarly = true;
  /// Make kernels persistent: each CTA loops over programs of the grid the
  /// caller asked for, and the runtime launches only as many CTAs as the
  /// GPU runs at once (tilegpu-persistent; `--persistent`). Kernels whose
  /// programs might observe each other stay as they are, with a remark.
  bool persistent = false;
  /// When positive, every mbarrier wait gives up after this many polls,
  /// prints where it was and traps, instead of hanging on a pipeline bug
  /// (`--mbarrier-spin-limit`; for debugging and the GPU tests). 0 waits
  /// forever; negative is invalid.
  int64_t mbarrierSpinLimit = 0;
  /// In a loop of three or more dots (attention backward), wgmma operand
  /// boxes of at most this many bytes are copied by cp.async, not TMA,
  /// where cp.async can take them (tilegpu-assign-async-copies'
  /// cp-async-box-bytes; `--cp-async-box-bytes`). 0: TMA for every box.
  /// Negative is invalid. Not in the C API (its default there).
  int64_t cpAsyncBoxBytes = 8192;
  /// Let the NVPTX backend contract a floating-point multiply and the add
  /// of its product into one fused multiply-add (`fma.rn`; one rounding
  /// instead of two) and leave the other multiplies and adds free for
  /// ptxas to fuse (Triton's `enable_fp_fusion`, on by default). False
  /// (`--disable-fp-fusion`): every multiply and add rounds on its own
  /// (`mul.rn`, `add.rn`, which ptxas never fuses), for results that match
  /// a reference computed without fma. Explicit fmas (`tl.fma`) and the
  /// tensor cores' dots are fused either way.
  bool enableFPFusion = true;
};

} // namespace tilec

#endif // TILEC_COMPILER_PASSSWITCHES_H
