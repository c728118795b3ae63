//===- TMADescriptor.h - a kernel argument describing a TMA box --*- C++ -*-===//
//
// Part of tilec, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// What the passes that turn a tile access into TMA copies share
// (tilegpu-assign-async-copies for loads, tilegpu-store-via-tma for
// stores): the `!tilegpu.tma_desc` kernel argument with its verified
// `#tilegpu.tma_recipe`, and the box's coordinates.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_DIALECT_TILEGPU_TRANSFORMS_TMADESCRIPTOR_H
#define TILEC_DIALECT_TILEGPU_TRANSFORMS_TMADESCRIPTOR_H

#include "tilec/Analysis/AffineAccess.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"

namespace tilec::tilegpu {

/// The tile a shared-memory buffer of an accessed `type` holds: its shape,
/// rows and columns swapped when `transposed`, without an encoding.
mlir::RankedTensorType getBufferTile(mlir::RankedTensorType type, bool transposed);

/// Appends to `func` a `!tilegpu.tma_desc` argument for the tensor `box`
/// describes (TMA boxes of one swizzle row of `bufferTile`, the 2-d tile in
/// shared memory, rows by contiguous columns), with the recipe the runtime
/// builds its CUtensorMap from (docs/metadata.md). Fails, changing nothing,
/// when the function cannot take the argument.
mlir::FailureOr<mlir::Value> addTMADescriptorArgument(mlir::func::FuncOp func,
                                                      const TMABox &box,
                                                      mlir::RankedTensorType bufferTile,
                                                      mlir::Location loc);

/// The box's origin, one i32 element coordinate per descriptor dimension,
/// outermost first (the order `tilegpu.tma_load` and `tilegpu.tma_store`
/// take), computed at `b`'s insertion point; fails when one cannot be
/// computed there (AffineAccessAnalysis::materialize).
mlir::FailureOr<llvm::SmallVector<mlir::Value>>
materializeTMACoordinates(mlir::OpBuilder &b, mlir::Location loc,
                          AffineAccessAnalysis &affine, const TMABox &box);

} // namespace tilec::tilegpu

#endif // TILEC_DIALECT_TILEGPU_TRANSFORMS_TMADESCRIPTOR_H
