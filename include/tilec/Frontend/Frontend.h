//===- Frontend.h - .tile source to the tile dialect ------------*- C++ -*-===//
//
// Part of tilec, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// The frontend's entry point: parse a `.tile` file (or a Triton `.py`
// module), pick one `@jit` kernel, specialize it for a signature (DESIGN.md
// §1: `*fp32:16, i32, 1024`) and emit it as a module in the `tile` dialect.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_FRONTEND_FRONTEND_H
#define TILEC_FRONTEND_FRONTEND_H

#include "tilec/Compiler/KernelInterface.h"
#include "tilec/Frontend/Diagnostics.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/ADT/StringRef.h"

#include <string>
#include <vector>

namespace llvm {
class SourceMgr;
} // namespace llvm

namespace mlir {
class MLIRContext;
} // namespace mlir

namespace tilec::frontend {

/// One kernel in the `tile` dialect and what it takes.
struct KernelModule {
  /// A module with one public `func.func` named after the kernel, marked
  /// `tile.kernel`, whose arguments are the kernel's runtime parameters (the
  /// non-constexpr ones, in source order: pointers as `!tile.ptr<T>` with a
  /// `tile.divisibility` argument attribute when promised, scalars in their
  /// type). Every op carries the FileLineColLoc of its source.
  mlir::OwningOpRef<mlir::ModuleOp> module;
  KernelInterface interface;
  /// The module-level `@jit` functions whose bodies were inlined into the
  /// kernel (directly or through other calls), in first-call order. Always a
  /// subset of KernelSource::functions (KernelSource.h).
  std::vector<std::string> inlinedFunctions;
};

/// Options of the frontend.
struct EmitOptions {
  /// Debug mode, Triton's `debug=True` / `TRITON_DEBUG=1` (`--debug`):
  /// `tl.device_assert` and `assert` on run-time values become device
  /// assertions (`tile.assert`); without it they are type-checked and
  /// dropped. A kernel's own `@jit(debug=True|False)` takes precedence.
  bool debug = false;
};

/// Emits kernel `kernelName` of the source in buffer `bufferId` of `srcMgr`,
/// specialized for `signature`. An empty `kernelName` picks the file's only
/// kernel (an error lists them when there are several); an empty
/// `signature` is allowed when every parameter is annotated. The context
/// must have the tile, arith, math, scf and func dialects loaded (the
/// function loads them). Every problem is reported to `diags` with its
/// source location; the result is failure when any error was reported.
mlir::FailureOr<KernelModule> emitKernel(llvm::SourceMgr &srcMgr,
                                         unsigned bufferId,
                                         llvm::StringRef kernelName,
                                         llvm::StringRef signature,
                                         mlir::MLIRContext &context,
                                         DiagnosticSink &diags,
                                         const EmitOptions &options = {});

} // namespace tilec::frontend

#endif // TILEC_FRONTEND_FRONTEND_H
