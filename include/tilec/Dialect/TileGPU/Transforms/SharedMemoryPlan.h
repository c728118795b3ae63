//===- SharedMemoryPlan.h - the shared-memory layout, computed ahead --*- C++ -*-===//
//
// Part of tilec, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// What tilegpu-allocate-shared would do to a kernel, for passes that must
// know before they commit to a form (tilegpu-warp-specialize).
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_DIALECT_TILEGPU_TRANSFORMS_SHAREDMEMORYPLAN_H
#define TILEC_DIALECT_TILEGPU_TRANSFORMS_SHAREDMEMORYPLAN_H

#include <cstdint>

namespace mlir::func {
class FuncOp;
} // namespace mlir::func

namespace tilec::tilegpu {

/// The most dynamic shared memory a Hopper CTA can have: 227 KB (232,448
/// bytes, CUDA C Programming Guide, compute capability 9.0).
inline constexpr int64_t kMaxSharedMemoryBytes = 227 * 1024;

/// The bytes of dynamic shared memory tilegpu-allocate-shared would give
/// the kernel `func` as it is now: its rings, mbarrier arrays and scratch
/// laid out by the pass's own rule (live ranges, first fit, largest
/// first). Changes nothing; the total may exceed the 227 KB (232,448
/// bytes) a Hopper CTA can have, which the pass itself reports as an error.
int64_t planSharedMemoryBytes(mlir::func::FuncOp func);

} // namespace tilec::tilegpu

#endif // TILEC_DIALECT_TILEGPU_TRANSFORMS_SHAREDMEMORYPLAN_H
