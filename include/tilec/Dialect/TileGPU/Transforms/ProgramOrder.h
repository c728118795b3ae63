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

#include "mlir/Dialect/SCF/IR/SCF.h"

#include <string>

namespace mlir {
class FunctionOpInterface;
namespace func {
class FuncOp;
} // namespace func
} // namespace mlir

namespace tilec::tilegpu {

/// Why the programs of `func` might observe each other, so that the order
/// (and the CTAs) they run in may matter: "it has atomics", "it has
/// volatile loads", "it has inline assembly", "it calls a function", "it
/// has a while loop"; "" when they cannot.
std::string whyProgramsMayObserveEachOther(mlir::func::FuncOp func);

/// How the work of `func`'s programs moves with `tl.program_id(0)` (the
/// slope analysis of tilegpu-longest-first, Passes.td: each `scf.for`'s
/// trip count as a function of program_id(0), the other program ids and
/// the arguments held fixed; in a persistent kernel program_id(0) is
/// `tilegpu.persistent_program_id` on axis 0 and its loop over programs
/// does not count).
struct ProgramWork {
  /// The first loop that runs more iterations for a larger program_id(0)
  /// and never fewer (causal attention's first loop), or null.
  mlir::scf::ForOp longer;
  /// Some loop's trip count may fall, or move in a way the analysis cannot
  /// tell, with program_id(0).
  bool mixed = false;
  /// The first loop whose trip count is not the same in every program
  /// (`longer` when no other), or null.
  mlir::scf::ForOp varying;
};
ProgramWork analyzeProgramWork(mlir::func::FuncOp func);

/// The loop over the virtual programs of a persistent kernel (the `scf.for`
/// with `tilegpu.persistent` in `func`'s entry block, or in the consumer
/// region of its `tilegpu.warp_specialize`; tilegpu-persistent), or a null
/// loop when `func` is not persistent.
mlir::scf::ForOp getPersistentLoop(mlir::FunctionOpInterface func);

} // namespace tilec::tilegpu

#endif // TILEC_DIALECT_TILEGPU_TRANSFORMS_PROGRAMORDER_H
