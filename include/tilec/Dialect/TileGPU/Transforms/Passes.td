//===- Passes.td - tilegpu passes --------------------------*- tablegen -*-===//
//
// Part of tilec, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_DIALECT_TILEGPU_TRANSFORMS_PASSES_TD
#define TILEC_DIALECT_TILEGPU_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def TileGPUPrepareTMA : Pass<"tilegpu-prepare-tma", "mlir::ModuleOp"> {
  let summary = "Choose the block loads that the Hopper path copies with TMA";
  let description = [{
    Runs on `tile` IR, before `tile-rewrite-block-pointers`. For every
    `tile.dot` that runs on wgmma with `num-warps` warps and whose two
    operands are block loads with a TMA recipe (see Analysis/TMA.h: the base,
    shape and strides are kernel arguments or constants and satisfy TMA's
    alignment rules provably), marks both loads `tma` and rewrites their
    block pointers as the loop-invariant initial pointer advanced by the
    iteration number times the loop's advance, so that no block pointer is
    carried by the loop (the pipeliner then computes the pointers of future
    iterations the same way). `tile-rewrite-block-pointers` leaves marked
    loads and their pointers alone; `tilegpu-tma-lowering` turns them into
    TMA copies.

    Example: in the matmul loop, `%a = tile.block_load %a_bp` becomes
    `%a = tile.block_load %p {tma}` with
    `%p = tile.advance %a_bp0, [%c0, %i * 64]`.
  }];
  let options = [
    Option<"numWarps", "num-warps", "unsigned", "4", "Warps per CTA">
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::tilec::tilegpu::TileGPUDialect"];
}

def TileGPUTMALowering : Pass<"tilegpu-tma-lowering", "mlir::ModuleOp"> {
  let summary = "Block loads of wgmma operands become TMA copies into shared memory";
  let description = [{
    For every `tile.dot` whose operands are `tma` block loads (see
    tilegpu-prepare-tma) and whose accumulator has a `#tilegpu.wgmma` layout:
    allocates a shared-memory tile per operand and an mbarrier at the
    kernel's entry, appends a `!tilegpu.tma_desc` argument per operand to the
    kernel (its `tilegpu.tma` attribute is the recipe the runtime builds the
    descriptor from; it becomes a hidden parameter in the metadata), and
    replaces the loads and the dot by: a CTA barrier (earlier readers of the
    tiles are done), `mbarrier_expect` of both tiles' bytes, two `tma_load`,
    `mbarrier_wait` on the phase (the loop iteration's parity) and a
    synchronous `warpgroup_dot` on the shared tiles. `tilegpu-pipeline` turns
    this single-stage form into a multi-stage pipeline.
  }];
}

def TileGPUPipeline : Pass<"tilegpu-pipeline", "mlir::ModuleOp"> {
  let summary = "Software-pipeline loops of TMA copies and wgmma over num-stages buffers";
  let description = [{
    Takes the loops that tilegpu-tma-lowering produced (in one `scf.for`:
    `mbarrier_expect`, `tma_load`s, `mbarrier_wait`, `warpgroup_dot`) and,
    for `num-stages` = S > 1, rebuilds them as a pipeline (the schedule
    Triton uses on Hopper without warp specialization):

    - every shared tile and the mbarrier array get S buffers; iteration i
      uses buffer i mod S and waits for phase (i / S) mod 2;
    - a prologue issues the copies of iterations 0 … S-2 (each predicated on
      the iteration existing);
    - the loop body waits for iteration i's copies, issues its wgmma
      asynchronously, waits until at most one wgmma group is pending (so the
      one of iteration i-1 is done), synchronizes the CTA, and issues the
      copies of iteration i+S-1 into the buffer iteration i-1 used;
    - after the loop, a wait for all wgmma groups.

    The copies of future iterations recompute their block pointers from the
    induction variable (tilegpu-prepare-tma made them depend on nothing else
    carried by the loop). Results are identical to `num-stages=1`.
  }];
  let options = [
    Option<"numStages", "num-stages", "unsigned", "3",
           "Buffers per operand (1 keeps the single-stage form)">
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect", "::mlir::scf::SCFDialect"];
}

#endif // TILEC_DIALECT_TILEGPU_TRANSFORMS_PASSES_TD
