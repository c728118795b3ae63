//===- TMA.h - which block loads become TMA copies ---------------*- C++ -*-===//
//
// Part of tilec, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// A block load can be a TMA copy (Hopper's Tensor Memory Accelerator, PTX
// ISA §9.7.9.25) when the runtime can build its descriptor at launch from
// the kernel's arguments alone: the block pointer's base, shape and strides
// must be kernel arguments (or constants) — not values computed in the
// kernel — and TMA's rules must hold provably: 16-byte aligned base
// (`*T:16`), innermost stride the constant 1, every other stride a multiple
// of 16 bytes (`:16` hints or constants), rank 2 (for now). The runtime
// checks the same rules again at launch (a lying hint is an error, not
// garbage).
//
// tilec copies with TMA the operands of the dots that run on wgmma (their
// shared-memory layout is exactly what TMA writes); tile-rewrite-block-pointers
// leaves those loads alone and tilegpu-tma-lowering takes them.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_ANALYSIS_TMA_H
#define TILEC_ANALYSIS_TMA_H

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Value.h"
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

#include <optional>
#include <string>
#include <variant>

namespace mlir {
class OpBuilder;
} // namespace mlir

namespace tilec {
namespace tile {
class BlockLoadOp;
class DotOp;
class MakeBlockPtrOp;
} // namespace tile

/// Name of the unit attribute tilegpu-prepare-tma puts on the block loads the
/// Hopper path copies with TMA.
inline constexpr llvm::StringLiteral kTMALoadAttrName = "tma";

/// How the runtime builds one TMA descriptor (metadata recipe
/// `tma_descriptor`, docs/metadata.md).
struct TMARecipe {
  /// A size or stride: a constant, or the value of kernel argument `argIndex`.
  struct Term {
    std::optional<int64_t> constant;
    unsigned argIndex = 0;
  };
  struct Dim {
    Term size, stride; ///< stride in elements
  };
  /// Index of the pointer argument the tensor starts at.
  unsigned baseArg = 0;
  mlir::Type elementType;
  /// Innermost (contiguous) dimension first.
  llvm::SmallVector<Dim> dims;
  /// Elements of one copy's box, innermost first.
  llvm::SmallVector<int64_t> box;
  int64_t swizzleBytes = 128;
  bool nanFill = false;

  /// The `tilegpu.tma` kernel-argument attribute, and back.
  mlir::DictionaryAttr toAttr(mlir::MLIRContext *ctx) const;
  static mlir::FailureOr<TMARecipe> fromAttr(mlir::DictionaryAttr attr);
};

/// The make_block_ptr that a block load's pointer comes from, through
/// advances and loop-carried values (the base, shape and strides are those
/// of the make_block_ptr), or null.
tile::MakeBlockPtrOp traceBlockPointer(mlir::Value ptr);

/// The element offsets (i32, outermost dimension first) of the block that
/// `ptr` designates, emitted at `b`'s insertion point as the make_block_ptr's
/// offsets plus those of every advance on the way, or failure when `ptr` is
/// not such a straight chain (a loop-carried pointer, for one).
mlir::FailureOr<llvm::SmallVector<mlir::Value>>
emitBlockOffsets(mlir::OpBuilder &b, mlir::Location loc, mlir::Value ptr);

/// The recipe of a TMA copy for `load` (the whole block in the wgmma shared
/// layout: boxes of one swizzle row along the contiguous dimension), or
/// std::nullopt and the reason in `whyNot`.
std::optional<TMARecipe> getTMARecipe(tile::BlockLoadOp load,
                                      std::string *whyNot = nullptr);

/// Whether the Hopper path copies `dot`'s operands with TMA: the dot runs on
/// wgmma with `numWarps` warps, sits at the top level of the kernel or
/// directly in one scf.for, and both operands are block loads with a recipe
/// used only by this dot. Otherwise false, and why in `whyNot` (may be null).
bool isTMADot(tile::DotOp dot, unsigned numWarps, std::string *whyNot = nullptr);

} // namespace tilec

#endif // TILEC_ANALYSIS_TMA_H
