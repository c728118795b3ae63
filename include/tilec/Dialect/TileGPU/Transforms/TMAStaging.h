//===- TMAStaging.h - tiles written by TMA from a staging buffer -*- C++ -*-===//
//
// Part of tilec, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// What tilegpu-store-via-tma and tilegpu-atomic-add-via-tma share: a tile
// in registers is written into a shared-memory staging buffer and handed to
// the TMA unit (`tilegpu.tma_store`, a copy or an f32 add) by one thread.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_DIALECT_TILEGPU_TRANSFORMS_TMASTAGING_H
#define TILEC_DIALECT_TILEGPU_TRANSFORMS_TMASTAGING_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/SmallVector.h"

namespace mlir::func {
class FuncOp;
} // namespace mlir::func

namespace tilec {
struct TMABox;
class AffineAccessAnalysis;
} // namespace tilec

namespace tilec::tilegpu {

/// True when two threads (or lanes, or warps) hold the same element of
/// `type`: both would write it into the staging buffer, and copies of one
/// element may differ in their last bit (a contracted fma).
bool isReplicated(mlir::RankedTensorType type);

/// The block whose end gets the wait for the TMA write that replaces `op`:
/// the kernel's body, or the consumer region of its
/// `tilegpu.warp_specialize`, reached from `op` through parent ops that
/// `passes` accepts (ops every thread runs alike, so the barriers around
/// the copy meet). Null in a producer region or below an op it refuses.
mlir::Block *getStagingBlock(mlir::Operation *op,
                             llvm::function_ref<bool(mlir::Operation *)> passes);

/// The value to stage for a store or atomic of `value`: a layout
/// conversion that only served the global addresses (a wgmma accumulator's
/// runs gathered within warps, convert-tile-to-tilegpu) is skipped, since
/// shared memory takes any layout.
mlir::Value getStagedValue(mlir::Value value);

/// Whether the kernel touches the tensor at pointer argument `arg` other
/// than by the ops `isOurs` accepts: a load, store, atomic or copy of its
/// pointers, or a user of a TMA descriptor of it. A TMA write is made
/// through the async proxy: no other access to the tensor in the kernel is
/// ordered with it (`wait_group.read` only says when its source may be
/// reused).
bool accessesArgumentOtherwise(mlir::func::FuncOp func, unsigned arg,
                               llvm::function_ref<bool(mlir::Operation *)> isOurs);

/// Whether the kernel may signal other CTAs or the host (an atomic, inline
/// assembly, a call; ops `ignore` accepts excepted), after which they may
/// read what it wrote: a TMA write's global effects are not ordered
/// before them.
bool mayPublishWrites(mlir::func::FuncOp func,
                      llvm::function_ref<bool(mlir::Operation *)> ignore = nullptr);

/// Erases the ops computing `values` that nothing else uses, and what
/// they alone used.
void eraseDeadDefinitions(llvm::ArrayRef<mlir::Value> values);

/// Writes register tiles of one kernel into global memory by TMA from
/// shared-memory staging buffers: each write is a `tilegpu.local_store`
/// into the buffer, `tilegpu.fence_async_shared`, a barrier and a
/// `tilegpu.tma_store` (a copy, or with `add` a reduction) by thread 0 —
/// skipped when a box size from a kernel argument is 0, which the runtime
/// encodes as 1 (a descriptor cannot describe none) —, and the buffer is
/// named in one `tilegpu.tma_store_wait` at the end of
/// the write's block, which keeps it live (and unshared) until the copies
/// have read it.
class StagedTMAWriter {
public:
  StagedTMAWriter(mlir::func::FuncOp func, AffineAccessAnalysis &affine);

  /// Writes `value` (a register tile) into `box` of its tensor before
  /// `at`, in `block` (the kernel's body or a consumer region, whose end
  /// gets the wait): through `staging` when given, else through a new
  /// one-buffer ring allocated at the kernel's start; with `waitFirst`,
  /// after a `tilegpu.tma_store_wait` for the buffer's previous write (a
  /// buffer written more than once). Fails, changing nothing, when the
  /// box's coordinates or descriptor cannot be made at `at` (`bytes` 0),
  /// or when the kernel's shared memory would pass 227 KB (`bytes`: what
  /// it would need). Returns the staging buffer.
  mlir::FailureOr<mlir::Value> write(mlir::Operation *at, mlir::Value value,
                                     const TMABox &box, mlir::Block *block,
                                     mlir::Value staging, bool waitFirst, bool add,
                                     int64_t &bytes);

private:
  mlir::Operation *func;
  AffineAccessAnalysis &affine;
  /// Per block, the `tilegpu.tma_store_wait` at its end.
  llvm::DenseMap<mlir::Block *, mlir::Operation *> lastWaits;
};

} // namespace tilec::tilegpu

#endif // TILEC_DIALECT_TILEGPU_TRANSFORMS_TMASTAGING_H
