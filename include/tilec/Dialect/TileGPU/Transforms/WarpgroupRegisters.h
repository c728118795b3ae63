//===- WarpgroupRegisters.h - registers a warpgroup dot loop holds -*- C++ -*-===//
//
// Part of tilec, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// What the warp-specialization decision reads about registers: which wgmma
// A operands stay in registers, how many registers a thread holds for a
// loop's wgmma values, and how many a consumer warp gets after setmaxnreg.
// Shared by tilegpu-choose-warp-specialize (which decides by them),
// tilegpu-assign-async-copies (register A) and tilegpu-warp-specialize
// (the setmaxnreg counts).
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_DIALECT_TILEGPU_TRANSFORMS_WARPGROUPREGISTERS_H
#define TILEC_DIALECT_TILEGPU_TRANSFORMS_WARPGROUPREGISTERS_H

#include <cstdint>

namespace mlir::scf {
class ForOp;
} // namespace mlir::scf

namespace tilec::tile {
class DotOp;
} // namespace tilec::tile

namespace tilec::tilegpu {

/// Registers a thread has on an SM (64K 32-bit registers) when its CTA
/// runs alone there.
inline constexpr int64_t kRegistersPerSM = 64 * 1024;

/// Default registers a thread of the producer warpgroup keeps after
/// setmaxnreg (tilegpu-warp-specialize's `producer-registers`).
inline constexpr unsigned kDefaultProducerRegisters = 40;

/// Whether wgmma `dot` (a tile.dot whose C has the warpgroup-MMA encoding)
/// can read its A operand from registers: A is not a load, is in the
/// accumulator-like warpgroup-MMA encoding with C's warps, 16-bit with K a
/// multiple of 16 or 8-bit with K a multiple of 32 (PTX ISA, "Register
/// fragments and shared memory matrix layouts" of wgmma.mma_async).
bool canUseRegisterA(tile::DotOp dot);

/// Registers (32-bit) a thread of a `numWarps`-warp CTA holds for the wgmma
/// values of `loop`'s body (nested regions included) as if all were live
/// at once: each accumulator chain (a wgmma tile.dot whose C is not another
/// dot's result: f32 or i32, one register an element) and each distinct
/// register A (canUseRegisterA; 16 or 8 bits an element), spread over the
/// CTA's threads. A lower bound of what ptxas allocates.
int64_t getWarpgroupDotRegisters(mlir::scf::ForOp loop, unsigned numWarps);

/// Registers a thread of the consumer warps gets after setmaxnreg in a
/// warp-specialized kernel of `numWarps` consumer warps beside one producer
/// warpgroup at `producerRegisters`: `consumerRegisters` when not 0, else
/// 240 for one consumer warpgroup, else what the SM's 64K registers leave
/// beside the producer, a multiple of 8 in [24, 232] (setmaxnreg's range
/// and granularity: PTX ISA, "setmaxnreg").
unsigned getConsumerRegisters(unsigned numWarps, unsigned producerRegisters,
                              unsigned consumerRegisters = 0);

} // namespace tilec::tilegpu

#endif // TILEC_DIALECT_TILEGPU_TRANSFORMS_WARPGROUPREGISTERS_H
