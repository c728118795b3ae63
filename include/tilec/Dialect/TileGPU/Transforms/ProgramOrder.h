//===- ProgramOrder.h - when a kernel's programs may run in any order -*- C++ -*-===//
//
// Part of tilec, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// What the passes that change which CTA runs which program, and when
// (tilegpu-longest-first, tilegpu-persistent), need to know about a kernel.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_DIALECT_TILEGPU_TRANSFORMS_PROGRAMORDER_H
#define TILEC_DIALECT_TILEGPU_TRANSFORMS_PROGRAMORDER_H

#include <string>

namespace mlir {
class FunctionOpInterface;
namespace func {
class FuncOp;
} // namespace func
namespace scf {
class ForOp;
} // namespace scf
} // namespace mlir

namespace tilec::tilegpu {

/// Why the programs of `func` might observe each other, so that the order
/// (and the CTAs) they run in may matter: "it has atomics", "it has
/// volatile loads", "it has inline assembly", "it calls a function", "it
/// has a while loop"; "" when they cannot.
std::string whyProgramsMayObserveEachOther(mlir::func::FuncOp func);

/// The loop over the virtual programs of a persistent kernel (the `scf.for`
/// with `tilegpu.persistent` in `func`'s entry block, or in the consumer
/// region of its `tilegpu.warp_specialize`; tilegpu-persistent), or a null
/// loop when `func` is not persistent.
mlir::scf::ForOp getPersistentLoop(mlir::FunctionOpInterface func);

} // namespace tilec::tilegpu

#endif // TILEC_DIALECT_TILEGPU_TRANSFORMS_PROGRAMORDER_H
