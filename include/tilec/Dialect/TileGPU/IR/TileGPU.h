//===- TileGPU.h - tilegpu dialect ------------------------------*- C++ -*-===//
//
// Part of tilec, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// The `tilegpu` dialect: tiles with distributed layouts (see TileGPUOps.td
// and TileGPUAttrs.td for the documentation of every op and layout).
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_DIALECT_TILEGPU_IR_TILEGPU_H
#define TILEC_DIALECT_TILEGPU_IR_TILEGPU_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "tilec/Dialect/Tile/IR/Tile.h"
#include "tilec/Dialect/TileGPU/IR/SharedLayout.h"

#include "tilec/Dialect/TileGPU/IR/TileGPUDialect.h.inc"

#define GET_ATTRDEF_CLASSES
#include "tilec/Dialect/TileGPU/IR/TileGPUAttrs.h.inc"

#define GET_TYPEDEF_CLASSES
#include "tilec/Dialect/TileGPU/IR/TileGPUTypes.h.inc"

#define GET_OP_CLASSES
#include "tilec/Dialect/TileGPU/IR/TileGPUOps.h.inc"

namespace tilec::tilegpu {

/// Threads in a warp on every NVIDIA GPU tilec targets.
inline constexpr unsigned kThreadsPerWarp = 32;

/// Warps in a warpgroup (wgmma, setmaxnreg).
inline constexpr unsigned kWarpsPerWarpgroup = 4;

/// The most `tilegpu.ring_handoff`s a warp_specialize can have: they use
/// named barriers 5 to 15 (the op's `index` stops at 10).
inline constexpr unsigned kMaxRingHandoffs = 11;

/// The most warps a CTA of a tile kernel has (1024 threads).
inline constexpr unsigned kMaxNumWarps = 32;

/// Whether a kernel may have `numWarps` warps: a power of two from 1 to
/// kMaxNumWarps (what `tilegpu.num_warps` and every entry point accept).
inline bool isValidNumWarps(int64_t numWarps) {
  return numWarps >= 1 && numWarps <= kMaxNumWarps &&
         (numWarps & (numWarps - 1)) == 0;
}

/// The layout encoding of a tile type, or null for a scalar / unencoded tile.
mlir::Attribute getEncoding(mlir::Type type);

/// Name of the kernel-argument attribute holding a TMA descriptor's recipe
/// (a `#tilegpu.tma_recipe`) on `!tilegpu.tma_desc` arguments.
inline constexpr llvm::StringLiteral kTMARecipeAttrName = "tilegpu.tma_recipe";

/// Name of the kernel-argument attribute (an i32 axis, 0 to 2) on the i32
/// arguments of a persistent kernel that receive the caller's grid size
/// along that axis (the `program_grid` hidden parameters of
/// docs/metadata.md; set by tilegpu-persistent).
inline constexpr llvm::StringLiteral kProgramGridAttrName = "tilegpu.program_grid";

/// Name of the attribute `tilegpu-allocate-shared` puts on an op whose
/// lowering needs scratch shared memory (tilec/Dialect/TileGPU/IR/Scratch.h):
/// the byte offset of its scratch in the kernel's dynamic shared memory.
inline constexpr llvm::StringLiteral kScratchOffsetAttrName =
    "tilegpu.scratch_offset";

/// The sizes of a TMA recipe's unbounded dimensions (the outer dimensions
/// of a tensor a block lives in: only the block's coordinates decide what
/// is read).
inline constexpr int64_t kTMAUnboundedSize = 0x7fffffff;

/// The wgmma accumulator layout for `dot` with `numWarps` warps (f16/bf16
/// operands, f32 accumulator, M >= 64, whole warpgroups), or std::nullopt
/// and the reason in `whyNot` (may be null) when wgmma cannot take it.
std::optional<WarpgroupMMAEncodingAttr>
getWarpgroupMMALayout(tile::DotOp dot, unsigned numWarps, std::string *whyNot);

/// The mma.sync (m16n8k16, sm_80+) accumulator layout for `dot` with
/// `numWarps` warps (2-d, f16/bf16 operands, f32 accumulator, M a multiple
/// of 16, N of 8, K of 16), or std::nullopt and the reason in `whyNot`.
std::optional<MMAEncodingAttr> getMMALayout(tile::DotOp dot, unsigned numWarps,
                                            std::string *whyNot);

/// The warp count of the kernel enclosing `op` (its `tilegpu.num_warps`
/// attribute), or std::nullopt outside such a kernel.
std::optional<unsigned> lookupNumWarps(mlir::Operation *op);

} // namespace tilec::tilegpu

#endif // TILEC_DIALECT_TILEGPU_IR_TILEGPU_H
