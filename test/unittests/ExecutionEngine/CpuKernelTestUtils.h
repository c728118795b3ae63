//===- CpuKernelTestUtils.h - compiling test kernels for the CPU -*- C++ -*-===//
//
// Part of tilec, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_TEST_UNITTESTS_EXECUTIONENGINE_CPUKERNELTESTUTILS_H
#define TILEC_TEST_UNITTESTS_EXECUTIONENGINE_CPUKERNELTESTUTILS_H

#include "tilec/Compiler/Registration.h"
#include "tilec/ExecutionEngine/CpuKernel.h"
#include "tilec/Frontend/Frontend.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"

#include "gtest/gtest.h"

#include <memory>
#include <string>

namespace tilec::cpu::testing {

/// One context for every test of the binary.
inline mlir::MLIRContext &getContext() {
  static mlir::MLIRContext *context = [] {
    mlir::DialectRegistry registry;
    registerAllDialects(registry);
    auto *ctx = new mlir::MLIRContext(registry);
    ctx->loadAllAvailableDialects();
    return ctx;
  }();
  return *context;
}

/// Compiles kernel `kernel` of the `.tile` source `source` for `signature`
/// for the host; fails the test (and returns null) with the diagnostics.
inline std::unique_ptr<CpuKernel> compileKernel(llvm::StringRef source,
                                                llvm::StringRef kernel,
                                                llvm::StringRef signature,
                                                bool sanitize = false) {
  llvm::SourceMgr srcMgr;
  unsigned id = srcMgr.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBufferCopy(source, "test.tile"), {});
  std::string diagnostics;
  llvm::raw_string_ostream os(diagnostics);
  mlir::SourceMgrDiagnosticHandler handler(srcMgr, &getContext(), os);
  frontend::SourceMgrDiagnosticSink sink(srcMgr, os);
  auto emitted = frontend::emitKernel(srcMgr, id, kernel, signature,
                                      getContext(), sink);
  if (mlir::failed(emitted)) {
    ADD_FAILURE() << "frontend failed:\n" << diagnostics;
    return nullptr;
  }
  CpuCompileOptions options;
  options.pipeline.sanitize = sanitize;
  auto compiled =
      CpuKernel::compile(emitted->module.get(), emitted->interface, options);
  if (!compiled) {
    ADD_FAILURE() << llvm::toString(compiled.takeError()) << "\n"
                  << diagnostics;
    return nullptr;
  }
  return std::move(*compiled);
}

} // namespace tilec::cpu::testing

#endif // TILEC_TEST_UNITTESTS_EXECUTIONENGINE_CPUKERNELTESTUTILS_H
