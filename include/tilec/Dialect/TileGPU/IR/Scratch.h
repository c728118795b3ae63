//===- Scratch.h - per-op scratch shared memory -----------------*- C++ -*-===//
//
// Part of tilec, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// Some ops of a `tilegpu` kernel are lowered through shared memory that is
// private to the op while it runs (its "scratch"): a layout conversion that
// crosses threads, reshape and trans, the cross-warp step of a reduction or a scan,
// the old values of a replicated atomic, the operand tiles of an FMA or
// mma.sync dot. tilegpu-allocate-shared reserves it before the LLVM
// conversion, which checks every use against the same bound.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_DIALECT_TILEGPU_IR_SCRATCH_H
#define TILEC_DIALECT_TILEGPU_IR_SCRATCH_H

#include "mlir/IR/Operation.h"

#include <cstdint>

namespace tilec::tilegpu {

/// Bytes one element of type `type` occupies in scratch memory (booleans
/// and 8-bit floats one byte, pointers eight).
int64_t getScratchElementBytes(mlir::Type type);

/// An upper bound of the scratch bytes the lowering of `op` uses (its tile
/// types and layouts decide it), 0 when it uses none. Ops whose lowering is
/// register-only (a layout conversion within threads) need none.
int64_t getScratchBytes(mlir::Operation *op);

} // namespace tilec::tilegpu

#endif // TILEC_DIALECT_TILEGPU_IR_SCRATCH_H
