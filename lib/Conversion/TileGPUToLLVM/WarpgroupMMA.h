//===- WarpgroupMMA.h - Hopper wgmma helpers --------------------*- C++ -*-===//
//
// Part of tilec, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// Internal to convert-tilegpu-to-llvm: writing operand tiles in the swizzled
// shared-memory layout, wgmma matrix descriptors, the accumulator-carrying
// wait (WarpgroupDotToLLVM.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_LIB_CONVERSION_TILEGPUTOLLVM_WARPGROUPMMA_H
#define TILEC_LIB_CONVERSION_TILEGPUTOLLVM_WARPGROUPMMA_H

#include "LoweringSupport.h"

#include "tilec/Dialect/TileGPU/IR/SharedLayout.h"
#include "tilec/Dialect/TileGPU/IR/TileGPU.h"

namespace tilec::lowering {

/// The swizzled byte offset of element (row, col) of `layout` (i32).
mlir::Value emitSwizzledOffset(mlir::OpBuilder &b, mlir::Location loc,
                               const tilegpu::SharedTileLayout &layout,
                               mlir::Value row, mlir::Value col);

/// The address, in the shared tile at `base` (`!llvm.ptr<3>`) laid out as
/// `shared`, of the element at tile coordinate `coord` (row, col; swapped
/// when `transposed`).
mlir::Value emitSwizzledAddress(mlir::OpBuilder &b, mlir::Location loc,
                                mlir::Value base,
                                const tilegpu::SharedTileLayout &shared,
                                mlir::ArrayRef<mlir::Value> coord,
                                bool transposed);

/// Stores a 2-d tile held in `layout` registers into the shared-memory tile
/// at `base` (`!llvm.ptr<3>`, 1024-byte aligned) in the swizzled layout
/// `shared` (runs of registers along the contiguous dimension become vector
/// stores of up to 16 bytes). With `transposed`, element (i, j) of the tile
/// goes to (j, i) of `shared`.
void storeTileSwizzled(mlir::OpBuilder &b, mlir::Location loc, mlir::Value base,
                       const tilegpu::LinearLayout &layout,
                       mlir::ValueRange values,
                       const tilegpu::SharedTileLayout &shared,
                       bool transposed = false);

/// The 14-bit start-address field of a wgmma matrix descriptor ((address
/// >> 4) & 0x3fff, PTX ISA §9.7.15.5.1.2.2) of shared-memory address
/// `tileBase` plus `linearOffset` (unswizzled, bytes).
mlir::Value emitDescriptorAddress(mlir::OpBuilder &b, mlir::Location loc,
                                  mlir::Value tileBase, mlir::Value linearOffset);

/// The 64-bit wgmma matrix descriptor of the tile `shared` whose address
/// field is `address` (emitDescriptorAddress), `stepBytes` further (a
/// multiple of 16: a K-step into the tile; one add to the field). Made
/// where it is emitted (a side-effecting inline asm: LLVM would hoist the
/// descriptors of loop-invariant tiles out of loops, two registers each).
mlir::Value emitMatrixDescriptor(mlir::OpBuilder &b, mlir::Location loc,
                                 mlir::Value address,
                                 const tilegpu::SharedTileLayout &shared,
                                 int64_t stepBytes);

/// Operand A of a wgmma: a shared-memory tile (`base`, `shared`) or the
/// registers of a tile in the accumulator-like layout `layout`.
struct WarpgroupOperandA {
  mlir::Value base;
  tilegpu::SharedTileLayout shared;
  mlir::ValueRange registers;
  tilegpu::WarpgroupMMAEncodingAttr layout;
};

/// Issues `C += A @ B` on the tensor cores for the accumulator type `cType`
/// (#tilegpu.wgmma layout, M x N, f32) with `inType` operands (f16, bf16,
/// f8E4M3FN, f8E5M2, or f32 read as tf32): A (M x K, `aType`) in shared
/// memory (K contiguous) or, for 16- and 8-bit types, in registers
/// (`a.registers`: each k16 step's fragment is the 8 consecutive register
/// slots of the accumulator-like layout, PTX ISA §9.7.15.5.1.1; a k32 step
/// of 8-bit A is 16 slots, regrouped by quad shuffles), B at `bBase` in
/// `bShared`, either K x N with N contiguous or, with `bKMajor`, transposed
/// (N x K, K contiguous; required for 8-bit and tf32). Every warpgroup
/// issues `wgmma.fence`, one `wgmma.mma_async.m64nNkK` per 64 x instrN block
/// of its part and K-step (32 bytes of K: k16 for 16-bit types, k32 for
/// 8-bit, k8 for tf32), and `wgmma.commit_group`; it does not wait. Returns
/// the accumulator registers (readable only after a `wgmma.wait_group`), or
/// failure (with an error on `op`) when the layouts do not tile the dot.
/// With `zeroC` (C is all zeros), `c` is not read: the first K-step of each
/// block runs with scale-d 0 (D = A * B), so no register is zeroed.
mlir::FailureOr<llvm::SmallVector<mlir::Value>> emitWarpgroupMMA(
    mlir::OpBuilder &b, mlir::Location loc, mlir::Operation *op,
    const WarpgroupOperandA &a, mlir::RankedTensorType aType,
    mlir::Value bBase, const tilegpu::SharedTileLayout &bShared, bool bKMajor,
    mlir::RankedTensorType cType, mlir::Type inType, mlir::ValueRange c,
    bool zeroC = false);

/// `wgmma.wait_group.sync.aligned pendings`, taking and returning
/// `registers` (tied operands) so that no read of an accumulator register
/// moves above the wait (NVVM's wait op takes no operands, so LLVM could
/// hoist such reads: inline asm, docs/architecture.md).
llvm::SmallVector<mlir::Value> emitWarpgroupWait(mlir::OpBuilder &b,
                                                 mlir::Location loc,
                                                 mlir::ValueRange registers,
                                                 unsigned pendings);

} // namespace tilec::lowering

#endif // TILEC_LIB_CONVERSION_TILEGPUTOLLVM_WARPGROUPMMA_H
