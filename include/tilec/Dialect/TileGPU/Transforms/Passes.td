//===- Passes.td - tilegpu passes --------------------------*- tablegen -*-===//
//
// Part of tilec, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_DIALECT_TILEGPU_TRANSFORMS_PASSES_TD
#define TILEC_DIALECT_TILEGPU_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def TileGPUAssignAsyncCopies : Pass<"tilegpu-assign-async-copies", "mlir::ModuleOp"> {
  let summary = "Decide how every wgmma operand reaches shared memory";
  let description = [{
    Runs after layouts (convert-tile-to-tilegpu). Every `tile.dot` whose
    accumulator has a `#tilegpu.wgmma` layout becomes a
    `tilegpu.warpgroup_dot` reading its operands from shared-memory rings
    (`tilegpu.local_alloc`, swizzled as wgmma reads them), or its A from
    registers when A is a tile in the accumulator layout of an earlier dot
    whose warps split M alike (P in attention). Each operand gets there in
    one of three ways, decided once, here:

    - **TMA** (`tilegpu.tma_load` + an mbarrier): a global load (a tile of
      pointers, a rewritten block pointer or tensor descriptor) whose
      addresses and mask are an affine box of a tensor the runtime can
      describe at launch (Analysis/AffineAccess.h: base a 16-byte aligned
      pointer argument, strides kernel arguments or constants, one of them
      1, bounds from the mask). The kernel gets a `!tilegpu.tma_desc`
      argument whose `#tilegpu.tma_recipe` says how the runtime builds it.
    - **cp.async** (`tilegpu.async_copy`, commit, wait): a global load whose
      per-thread runs are 4, 8 or 16 contiguous, aligned bytes
      (tile-axis-info); masked-off elements are zero-filled.
    - **registers** (`tilegpu.local_store`): anything else, the value
      computed or loaded into registers and stored swizzled.

    The loads are replaced only when every user is such a dot, directly or
    through a 2-d `tile.trans` (`tl.dot(q, k.T)`). One load read as B both
    ways (attention backward's `tl.dot(k, qT)` and
    `tl.dot(dsT, tl.trans(qT))`) gets one ring, read K-major by one dot and
    N-major by the other; 16-bit B only, the one operand wgmma reads in
    both orientations. The result
    is the single-stage form: in a loop, a CTA barrier (the previous
    iteration's readers are done), the copy, its wait, the dot; mbarriers
    are initialized before their loop and invalidated after it;
    `tilegpu-pipeline` then overlaps copies with the dots. A remark on each
    load says which way it went and why not a faster one.

    Example: in a matmul loop, `%a = tile.load %ptrs, %mask` and
    `%acc = tile.dot %a, %b, %c` become `tilegpu.tma_load %desc[...], %ring[%c0], ...`,
    `tilegpu.mbarrier_wait ...` and `tilegpu.warpgroup_dot %ring[%c0], ...`.
  }];
  let options = [
    Option<"useTMA", "use-tma", "bool", "true",
           "Copy affine boxes with TMA (--disable-tma turns it off)">,
    Option<"useCpAsync", "use-cp-async", "bool", "true",
           "Copy other aligned loads with cp.async (--disable-cp-async)">
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::scf::SCFDialect",
                           "::tilec::tilegpu::TileGPUDialect"];
}

def TileGPUPipeline : Pass<"tilegpu-pipeline", "mlir::ModuleOp"> {
  let summary = "Software-pipeline loops of async copies and wgmma over num-stages buffers";
  let description = [{
    Takes every `scf.for` whose body holds async copies in the single-stage
    form tilegpu-assign-async-copies makes (`tilegpu.tma_load` with its
    `mbarrier_expect`, `tilegpu.async_copy` with its commit) and pipelines
    it with MLIR's `scf::pipelineForLoop` (a modulo schedule of two stages,
    epilogue not peeled, earlier stages predicated): with S = `num-stages`
    (or the loop's `tl.range(num_stages=...)`),

    - every ring and mbarrier array it fills gets S buffers; iteration t
      uses buffer t mod S and waits for mbarrier phase (t / S) mod 2;
    - stage 0 is the copies (and the address arithmetic they need) of
      iteration t + S - 1, issued after the point where every reader of
      buffer (t - 1) mod S is done, predicated on the iteration existing;
      the prologue issues iterations 0 … S-2. When only TMA fills the
      loop's rings, that point is a release: every warp arrives on an
      "empty" mbarrier of the slot (`tilegpu.mbarrier_arrive`, S of them,
      counting the warps), and thread 0 waits for the slot's release
      before it refills it (`tilegpu.mbarrier_wait ... leader`, parity
      flipped so that a slot's first use passes); no warp waits for the
      others, so warpgroups run up to the ring's depth apart. With
      cp.async (every thread copies), a CTA barrier there;
    - stage 1 is everything else, in its order, on iteration t;
    - the cp.async copies of one iteration are one group; the wait before
      their first reader leaves S - 2 newer groups in flight;
    - every `warpgroup_dot` runs asynchronously: a `warpgroup_wait` goes
      before the first use of its result other than another dot's
      accumulator, with the number of dots issued since as its depth (a
      dot with a register A is retired within its iteration);
    - after the loop, the results' dots and the copies are waited for.

    Any trip count, 0 and those below S included, runs every iteration's
    copies once and waits for them once. When S buffers of the loop's rings,
    beside the other rings it reads and its ops' scratch, would not fit the
    227 KB of a CTA's shared memory, fewer stages (at least 2) are taken and
    a remark says so. A loop it cannot take keeps the single-stage form and
    gets a remark saying why.
  }];
  let options = [
    Option<"numStages", "num-stages", "unsigned", "3",
           "Buffers per ring (1 keeps the single-stage form)">
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect", "::mlir::scf::SCFDialect"];
}

def TileGPUAllocateShared : Pass<"tilegpu-allocate-shared", "mlir::ModuleOp"> {
  let summary = "Lay out the kernel's shared memory";
  let description = [{
    Gives every shared-memory user of a kernel its place in the dynamic
    shared memory: rings (`tilegpu.local_alloc`, 1024-byte aligned for the
    swizzle), mbarrier arrays (`tilegpu.mbarrier_alloc`, 8-byte aligned)
    and the scratch of ops whose lowering goes through shared memory
    (tilec/Dialect/TileGPU/IR/Scratch.h; 128-byte aligned). Each has a live
    range over the kernel's ops in order — from its first to its last use,
    widened to the whole of every loop it is used in; an op's scratch lives
    while the op runs — and buffers whose ranges do not overlap share
    memory (first fit, largest first). Writes the `offset` of the
    allocations, `tilegpu.scratch_offset` on scratch users and the total
    (`tilegpu.shared_memory`) on the kernel; convert-tilegpu-to-llvm reads
    them and nothing else. Fails with a located error when the kernel needs
    more than the 227 KB a Hopper CTA can have.
  }];
}

#endif // TILEC_DIALECT_TILEGPU_TRANSFORMS_PASSES_TD
