//===- MMADot.h - tile.dot on mma.sync ------------------------*- C++ -*-===//
//
// Part of tilec, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// Internal to convert-tilegpu-to-llvm: the mma.sync lowering of tile.dot
// (MMADotToLLVM.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_LIB_CONVERSION_TILEGPUTOLLVM_MMADOT_H
#define TILEC_LIB_CONVERSION_TILEGPUTOLLVM_MMADOT_H

#include "LoweringSupport.h"

namespace tilec::tile {
class DotOp;
} // namespace tilec::tile

namespace tilec::lowering {

/// Lowers `op` (accumulator in #tilegpu.mma: f16/bf16 operands, f32
/// accumulator) given its converted operands to `mma.sync.m16n8k16`
/// instructions over operands staged in shared memory; `results` receives
/// the accumulator registers. Fails with an error on `op` when the layout
/// does not tile the accumulator.
mlir::LogicalResult lowerMMADot(tile::DotOp op, mlir::ValueRange a,
                                mlir::ValueRange b, mlir::ValueRange c,
                                mlir::ConversionPatternRewriter &rewriter,
                                LoweringState &state,
                                llvm::SmallVectorImpl<mlir::Value> &results);

} // namespace tilec::lowering

#endif // TILEC_LIB_CONVERSION_TILEGPUTOLLVM_MMADOT_H
