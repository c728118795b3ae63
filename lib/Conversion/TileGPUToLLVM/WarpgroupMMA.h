//===- WarpgroupMMA.h - Hopper wgmma helpers --------------------*- C++ -*-===//
//
// Part of tilec, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// Internal to convert-tilegpu-to-llvm: writing operand tiles in the swizzled
// shared-memory layout, wgmma matrix descriptors, the accumulator-carrying
// wait, and the wgmma lowering of tile.dot (WarpgroupDotToLLVM.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_LIB_CONVERSION_TILEGPUTOLLVM_WARPGROUPMMA_H
#define TILEC_LIB_CONVERSION_TILEGPUTOLLVM_WARPGROUPMMA_H

#include "LoweringSupport.h"

namespace tilec {
namespace tile {
class DotOp;
} // namespace tile
namespace tilegpu {
struct SharedTileLayout;
} // namespace tilegpu
} // namespace tilec

namespace tilec::lowering {

/// Stores a 2-d tile held in `layout` registers into shared memory at byte
/// `baseOffset` in the swizzled layout `shared` (runs of registers along
/// the contiguous dimension become vector stores of up to 16 bytes).
void storeTileSwizzled(mlir::OpBuilder &b, mlir::Location loc,
                       mlir::Operation *anchor, int64_t baseOffset,
                       const tilegpu::LinearLayout &layout,
                       mlir::ValueRange values,
                       const tilegpu::SharedTileLayout &shared);

/// The 64-bit wgmma matrix descriptor of the tile `shared` at shared-memory
/// address `tileBase`, starting `linearOffset` (unswizzled, bytes) into it.
mlir::Value emitMatrixDescriptor(mlir::OpBuilder &b, mlir::Location loc,
                                 mlir::Value tileBase,
                                 const tilegpu::SharedTileLayout &shared,
                                 mlir::Value linearOffset);

/// Issues `C += A @ B` on the tensor cores for the accumulator type `cType`
/// (#tilegpu.wgmma layout, M x N, f32) with `inType` operands already in
/// shared memory: A (M x K, K contiguous) at `aBase` in layout `aShared`,
/// B (K x N, N contiguous) at `bBase` in `bShared`. Every warpgroup issues
/// `wgmma.fence`, one `wgmma.mma_async.m64nNk16` per 64 x instrN block of
/// its part and 16-deep step of K, and `wgmma.commit_group`; it does not
/// wait. Returns the accumulator registers (readable only after a
/// `wgmma.wait_group`), or failure (with an error on `op`) when the layout
/// does not tile the accumulator.
mlir::FailureOr<llvm::SmallVector<mlir::Value>> emitWarpgroupMMA(
    mlir::OpBuilder &b, mlir::Location loc, mlir::Operation *op,
    mlir::Value aBase, const tilegpu::SharedTileLayout &aShared,
    mlir::Value bBase, const tilegpu::SharedTileLayout &bShared,
    mlir::RankedTensorType cType, mlir::Type inType, mlir::ValueRange c);

/// `wgmma.wait_group.sync.aligned pendings`, taking and returning
/// `registers` (tied operands) so that no read of an accumulator register
/// moves above the wait.
llvm::SmallVector<mlir::Value> emitWarpgroupWait(mlir::OpBuilder &b,
                                                 mlir::Location loc,
                                                 mlir::ValueRange registers,
                                                 unsigned pendings);

/// Lowers `op` (accumulator in #tilegpu.wgmma) given its converted operands;
/// `results` receives the accumulator registers.
mlir::LogicalResult lowerWarpgroupDot(tile::DotOp op, mlir::ValueRange a,
                                      mlir::ValueRange b, mlir::ValueRange c,
                                      mlir::ConversionPatternRewriter &rewriter,
                                      LoweringState &state,
                                      llvm::SmallVectorImpl<mlir::Value> &results);

} // namespace tilec::lowering

#endif // TILEC_LIB_CONVERSION_TILEGPUTOLLVM_WARPGROUPMMA_H
