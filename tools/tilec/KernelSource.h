//===- KernelSource.h - reading the kernel a tilec command works on -*- C++ -*-===//
//
// Part of tilec, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_TOOLS_TILEC_KERNELSOURCE_H
#define TILEC_TOOLS_TILEC_KERNELSOURCE_H

#include "tilec/Compiler/KernelInterface.h"
#include "tilec/Frontend/Diagnostics.h"
#include "tilec/Frontend/Frontend.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/Support/SourceMgr.h"

#include <memory>
#include <string>

namespace mlir {
class MLIRContext;
class SourceMgrDiagnosticHandler;
} // namespace mlir

namespace tilec::tool {

/// One kernel in the `tile` dialect, read from a `.tile`/`.py` file (through
/// the frontend, specialized for a signature) or a `.mlir` file, with the
/// source manager its locations point into.
class KernelSource {
public:
  /// Reads `path` ("-" for stdin) and emits or parses kernel `kernelName`
  /// (empty: the only one). Errors are printed (with source locations; the
  /// frontend stops after `errorLimit` of them, 0: no limit); returns null
  /// on failure.
  static std::unique_ptr<KernelSource>
  load(llvm::StringRef path, llvm::StringRef kernelName,
       llvm::StringRef signature, mlir::MLIRContext &context,
       unsigned errorLimit = frontend::DiagnosticSink::kDefaultErrorLimit,
       const frontend::EmitOptions &emitOptions = {});
  ~KernelSource();

  mlir::ModuleOp module() { return *module_; }
  KernelInterface &interface() { return interface_; }

private:
  KernelSource() = default;

  llvm::SourceMgr srcMgr_;
  std::unique_ptr<mlir::SourceMgrDiagnosticHandler> diagHandler_;
  mlir::OwningOpRef<mlir::ModuleOp> module_;
  KernelInterface interface_;
};

/// Frontend options from the command line: debug mode with `--debug` (the
/// flag's value) or the environment's `TRITON_DEBUG=1`, as Triton reads it.
frontend::EmitOptions getEmitOptions(bool debugFlag);

/// Prints "tilec: error: <message>" and returns 1 (the exit status).
int fail(const llvm::Twine &message);

} // namespace tilec::tool

#endif // TILEC_TOOLS_TILEC_KERNELSOURCE_H
