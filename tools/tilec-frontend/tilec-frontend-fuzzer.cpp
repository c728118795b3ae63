//===- tilec-frontend-fuzzer.cpp - libFuzzer target for the frontend ------===//
//
// Part of tilec, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// Feeds arbitrary bytes to the lexer, parser and code generator (built with
// -fsanitize=fuzzer,address,undefined: scripts/fuzz-frontend.sh). An input
// may start with a line `#SIG <signature>` (the seed corpus does), which is
// used as the --signature; otherwise every parameter must be annotated, as
// with tilec without --signature. Crashes, sanitizer reports, hangs and
// invalid IR (the verifier runs) are bugs; diagnostics are not.
//
//===----------------------------------------------------------------------===//

#include "FrontendDriver.h"

#include "llvm/ADT/StringRef.h"

#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  llvm::StringRef text(reinterpret_cast<const char *>(data), size);
  tilec::frontend::FrontendRunOptions options;
  // Device assertions compiled too: more of the code generator runs.
  options.debug = true;
  if (text.starts_with("#SIG ")) {
    llvm::StringRef line = text.take_until([](char c) { return c == '\n'; });
    options.signature = line.drop_front(5).str();
  }
  // A NUL-terminated copy, as a file read by tilec would be.
  auto buffer = llvm::MemoryBuffer::getMemBufferCopy(text, "fuzz.tile");
  std::string module;
  llvm::raw_null_ostream errs;
  tilec::frontend::runFrontend(std::move(buffer), options, errs, &module);
  return 0;
}
