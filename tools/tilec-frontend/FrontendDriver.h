//===- FrontendDriver.h - run the frontend on one buffer --------*- C++ -*-===//
//
// Part of tilec, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// The entry point shared by tilec-frontend and the frontend fuzz target:
// source text in, diagnostics and a verified `tile` module out, with nothing
// from the GPU pipeline linked.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_TOOLS_TILEC_FRONTEND_FRONTENDDRIVER_H
#define TILEC_TOOLS_TILEC_FRONTEND_FRONTENDDRIVER_H

#include "tilec/Frontend/Diagnostics.h"

#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <memory>
#include <string>

namespace tilec::frontend {

struct FrontendRunOptions {
  /// Empty: the file's only kernel.
  std::string kernelName;
  /// Empty: every parameter must be annotated.
  std::string signature;
  unsigned errorLimit = DiagnosticSink::kDefaultErrorLimit;
  /// Debug mode (`--debug`): device assertions are emitted.
  bool debug = false;
};

/// Parses `buffer`, emits its kernel in the `tile` dialect, verifies it and
/// runs the cleanups of `tilec --emit tile` (canonicalize, CSE), printing
/// diagnostics to `errs` as tilec does. On success, prints the
/// module into `*module` (when not null). Returns whether it succeeded.
bool runFrontend(std::unique_ptr<llvm::MemoryBuffer> buffer,
                 const FrontendRunOptions &options, llvm::raw_ostream &errs,
                 std::string *module);

} // namespace tilec::frontend

#endif // TILEC_TOOLS_TILEC_FRONTEND_FRONTENDDRIVER_H
