//===- tilec-pipeline-fuzzer.cpp - libFuzzer target for the whole pipeline ===//
//
// Part of tilec, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// The second libFuzzer target (issue 15): arbitrary bytes through the whole
// compiler to PTX, in process (jit::Compiler, PTX only, no disk cache):
// frontend, tile and tilegpu passes, layouts, lowering to NVVM/LLVM, the
// NVPTX backend. Inputs are like tilec-frontend-fuzzer's: an optional first
// line `#SIG <signature>`, then the source; a second optional line
// `#KERNEL <name>` picks the kernel (default: the only one, or the first
// failure says which). scripts/fuzz-pipeline.sh builds and runs it.
//
// Bugs: crashes, sanitizer reports, hangs, and errors that reach the user
// without a location in the input (a verifier failure or a pass failure
// that is not a located diagnostic): those abort. Located diagnostics
// (fuzz.tile:LINE:COL: error: ...) are the expected answer to bad input.
//
//===----------------------------------------------------------------------===//

#include "tilec/JIT/JIT.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace {

/// A fresh compiler per input: no cache carries state from one to the next.
tilec::jit::Compiler makeCompiler() {
  tilec::jit::CompilerOptions options;
  options.ptxOnly = true;
  options.diskCache = false;
  options.debug = true; // device assertions compiled too
  auto created = tilec::jit::Compiler::create(options);
  if (!created) {
    std::fprintf(stderr, "%s\n", llvm::toString(created.takeError()).c_str());
    std::abort();
  }
  return std::move(*created);
}

llvm::StringRef takeDirective(llvm::StringRef &text, llvm::StringRef name) {
  if (!text.starts_with(name))
    return {};
  auto [line, rest] = text.split('\n');
  text = rest;
  return line.drop_front(name.size()).trim();
}

/// An error message is fine when it points into the input (or is one of the
/// runtime's argument/signature checks, which name the parameter).
bool located(llvm::StringRef message) {
  return message.contains("fuzz.tile:") || message.contains("signature") ||
         message.contains("no @jit function") ||
         message.contains("defines several");
}

void check(llvm::Error error) {
  std::string message = llvm::toString(std::move(error));
  if (located(message))
    return;
  std::fprintf(stderr, "unlocated error reached the user:\n%s\n",
               message.c_str());
  std::abort();
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  llvm::StringRef text(reinterpret_cast<const char *>(data), size);
  std::string signature = takeDirective(text, "#SIG ").str();
  std::string kernelName = takeDirective(text, "#KERNEL ").str();
  std::string source = text.str(); // NUL-terminated, as a file would be
  tilec::jit::Compiler compiler = makeCompiler();
  auto kernel = compiler.compileSource(source, kernelName, "fuzz.tile");
  if (!kernel) {
    check(kernel.takeError());
    return 0;
  }
  auto compiled = kernel->compile(signature);
  if (!compiled)
    check(compiled.takeError());
  return 0;
}

#ifdef TILEC_PIPELINE_FUZZ_REPLAY
// Without libFuzzer (any compiler): run the inputs named on the command line
// once each, e.g. the regression corpus in CI. Each file name is printed
// before it runs, so a crash names its input.
#include "llvm/Support/MemoryBuffer.h"
int main(int argc, char **argv) {
  for (int i = 1; i < argc; ++i) {
    auto file = llvm::MemoryBuffer::getFile(argv[i]);
    if (!file) {
      std::fprintf(stderr, "cannot read %s\n", argv[i]);
      return 2;
    }
    std::fprintf(stderr, "%s\n", argv[i]);
    std::fflush(stderr);
    LLVMFuzzerTestOneInput(
        reinterpret_cast<const uint8_t *>((*file)->getBufferStart()),
        (*file)->getBufferSize());
  }
  std::fprintf(stderr, "ran %d inputs\n", argc - 1);
  return 0;
}
#endif
