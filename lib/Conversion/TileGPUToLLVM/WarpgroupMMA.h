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

/// The 64-bit wgmma matrix descriptor of the tile `shared` at byte
/// `baseOffset`, starting `linearOffset` (unswizzled, bytes) into it.
mlir::Value emitMatrixDescriptor(mlir::OpBuilder &b, mlir::Location loc,
                                 mlir::Operation *anchor, int64_t baseOffset,
                                 const tilegpu::SharedTileLayout &shared,
                                 mlir::Value linearOffset);

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
