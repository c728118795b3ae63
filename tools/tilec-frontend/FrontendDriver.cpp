//===- FrontendDriver.cpp - run the frontend on one buffer ----------------===//
//
// Part of tilec, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#include "FrontendDriver.h"

#include "tilec/Frontend/Frontend.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/Support/SourceMgr.h"

bool tilec::frontend::runFrontend(std::unique_ptr<llvm::MemoryBuffer> buffer,
                                  const FrontendRunOptions &options,
                                  llvm::raw_ostream &errs,
                                  std::string *module) {
  llvm::SourceMgr srcMgr;
  unsigned bufferId = srcMgr.AddNewSourceBuffer(std::move(buffer), {});
  // emitKernel loads the dialects it needs.
  mlir::MLIRContext context(mlir::MLIRContext::Threading::DISABLED);
  mlir::SourceMgrDiagnosticHandler diagHandler(srcMgr, &context, errs);
  context.printOpOnDiagnostic(false);
  SourceMgrDiagnosticSink diags(srcMgr, errs);
  diags.setErrorLimit(options.errorLimit);
  mlir::FailureOr<KernelModule> kernel =
      emitKernel(srcMgr, bufferId, options.kernelName, options.signature,
                 context, diags, EmitOptions{options.debug});
  if (mlir::failed(kernel))
    return false;
  // The frontend must never emit invalid IR, whatever the source; then the
  // cleanups of `tilec --emit tile` (Pipeline.cpp), which run the tile
  // dialect's folders and canonicalization patterns.
  mlir::PassManager pm(&context);
  pm.addPass(mlir::createCanonicalizerPass());
  pm.addPass(mlir::createCSEPass());
  if (mlir::failed(mlir::verify(*kernel->module)) ||
      mlir::failed(pm.run(*kernel->module)))
    return false;
  if (module) {
    llvm::raw_string_ostream os(*module);
    kernel->module->print(os);
  }
  return true;
}
