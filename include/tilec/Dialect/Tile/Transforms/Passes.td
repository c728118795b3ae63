//===- Passes.td - tile dialect passes ---------------------*- tablegen -*-===//
//
// Part of tilec, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_DIALECT_TILE_TRANSFORMS_PASSES_TD
#define TILEC_DIALECT_TILE_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def TileRewriteBlockPointers : Pass<"tile-rewrite-block-pointers", "mlir::ModuleOp"> {
  let summary = "Lower block pointers to tiles of pointers and masks";
  let description = [{
    Replaces every `!tile.block_ptr` value by its parts (base pointer, shape,
    strides, offsets: scalars that flow through `scf` loops and branches as
    separate values), `tile.advance` by offset additions, and each
    `tile.block_load` / `tile.block_store` by a `tile.load` / `tile.store`
    on a tile of pointers

        base + sum_d (offset_d + arange(block_d)) * stride_d

    (64-bit index arithmetic) with, for each dimension in `boundary_check`,
    the mask `0 <= offset_d + i < shape_d`; `padding = nan` loads NaN where
    masked, `zero` (the default) loads 0. After this pass `tile-axis-info`
    sees block accesses as ordinary pointer tiles, so a stride that is the
    constant 1 gives vectorized accesses. (Triton's RewriteTensorPointer does
    the same for its non-TMA path.) The Hopper path finds the block again in
    the tile of pointers after layouts (tilegpu-assign-async-copies, see
    Analysis/AffineAccess.h) and copies it with TMA when it can.

    Example: a 2-d block load becomes make_range/expand_dims/broadcast ops,
    `arith.muli`/`tile.addptr` for the addresses, `arith.cmpi`/`arith.andi`
    for the mask and one `tile.load`.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect", "::mlir::scf::SCFDialect"];
}

#endif // TILEC_DIALECT_TILE_TRANSFORMS_PASSES_TD
