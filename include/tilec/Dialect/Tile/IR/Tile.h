//===- Tile.h - tile dialect ------------------------------------*- C++ -*-===//
//
// Part of tilec, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// The `tile` dialect: the .tile language's semantics on whole tiles (see
// TileOps.td for every op's documentation).
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_DIALECT_TILE_IR_TILE_H
#define TILEC_DIALECT_TILE_IR_TILE_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "tilec/Dialect/Tile/IR/TileDialect.h.inc"
#include "tilec/Dialect/Tile/IR/TileEnums.h.inc"

#define GET_TYPEDEF_CLASSES
#include "tilec/Dialect/Tile/IR/TileTypes.h.inc"

#define GET_ATTRDEF_CLASSES
#include "tilec/Dialect/Tile/IR/TileAttrs.h.inc"

namespace tilec::tile {

/// For `!tile.ptr<T>` returns `T`; for `tensor<S x !tile.ptr<T>, E>` returns
/// `tensor<S x T, E>` (same shape and encoding). Other types are returned
/// unchanged.
mlir::Type getPointeeType(mlir::Type ptrLike);

/// `i1` for a scalar, `tensor<S x i1, E>` for a tensor of shape S and
/// encoding E.
mlir::Type getI1SameShape(mlir::Type type);

/// `elementType` with the shape and encoding of `like` when it is a tensor,
/// else `elementType` itself.
mlir::Type getSameShape(mlir::Type like, mlir::Type elementType);

/// Element type of a tensor, or the type itself for a scalar.
mlir::Type getElementTypeOrSelf(mlir::Type type);

/// Whether `value` is a power of two (and positive).
inline bool isPowerOf2(int64_t value) {
  return value > 0 && (value & (value - 1)) == 0;
}

/// Name of the unit attribute that marks a `func.func` as a kernel entry.
inline constexpr llvm::StringLiteral kKernelAttrName = "tile.kernel";
/// Argument attribute: the value (pointer address or integer) is a multiple
/// of this (from `:16` in a signature, Triton's `tt.divisibility`).
inline constexpr llvm::StringLiteral kDivisibilityAttrName = "tile.divisibility";
/// Loop attribute (a BoolAttr): split the `scf.for` into a producer
/// warpgroup and consumers or not, from `tl.range(..., warp_specialize=...)`
/// or tilegpu-choose-warp-specialize; tilegpu-warp-specialize follows it.
inline constexpr llvm::StringLiteral kWarpSpecializeAttrName = "tile.warp_specialize";

} // namespace tilec::tile

#define GET_OP_CLASSES
#include "tilec/Dialect/Tile/IR/TileOps.h.inc"

#endif // TILEC_DIALECT_TILE_IR_TILE_H
