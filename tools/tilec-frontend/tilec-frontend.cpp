//===- tilec-frontend.cpp - the frontend alone, for checking it -----------===//
//
// Part of tilec, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// tilec-frontend FILE [--kernel NAME] [--signature SIG] [--error-limit N]
//                [--emit tile] [-o OUT]
//
// Runs only the frontend (lexer, parser, code generator) on a .tile or .py
// file and prints the `tile` dialect module it emits, verified and cleaned up
// as `tilec --emit tile` prints it.
// Its diagnostics are those of `tilec --emit tile` (the same sink), and it
// exits 1 on any error in the source. It links only the frontend and the
// `tile` dialect, so it can be built quickly with sanitizers
// (TILEC_FRONTEND_ONLY, scripts/sanitize-frontend.sh) and shares its entry
// point with the fuzz target (FrontendDriver.h).
//
//===----------------------------------------------------------------------===//

#include "FrontendDriver.h"

#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdlib>

namespace cl = llvm::cl;

static cl::OptionCategory category("tilec-frontend options");
static cl::opt<std::string> inputFile(cl::Positional, cl::Required,
                                      cl::desc("<input .tile or .py>"),
                                      cl::cat(category));
static cl::opt<std::string> kernelName("kernel",
                                       cl::desc("Kernel to compile"),
                                       cl::value_desc("name"),
                                       cl::cat(category));
static cl::opt<std::string>
    signature("signature", cl::desc("Types of the parameters (as tilec)"),
              cl::value_desc("sig"), cl::cat(category));
static cl::opt<unsigned> errorLimit(
    "error-limit",
    cl::init(tilec::frontend::DiagnosticSink::kDefaultErrorLimit),
    cl::desc("Stop after this many errors in the source (0: no limit)"),
    cl::value_desc("N"), cl::cat(category));
static cl::opt<bool> debugMode(
    "debug",
    cl::desc("Debug mode, as tilec --debug (also TRITON_DEBUG=1): emit device "
             "assertions"),
    cl::cat(category));
static cl::opt<std::string> emitKind(
    "emit", cl::init("tile"),
    cl::desc("Accepted for command-line compatibility with tilec: only "
             "'tile'"),
    cl::cat(category));
static cl::opt<std::string> outputFile("o", cl::desc("Output file"),
                                       cl::value_desc("file"),
                                       cl::init("-"), cl::cat(category));

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  cl::HideUnrelatedOptions(category);
  cl::ParseCommandLineOptions(argc, argv,
                              "tilec-frontend: run tilec's frontend alone\n");
  if (emitKind != "tile") {
    llvm::WithColor::error(llvm::errs(), "tilec-frontend")
        << "only --emit tile is supported, got '" << emitKind << "'\n";
    return 1;
  }
  auto buffer = llvm::MemoryBuffer::getFileOrSTDIN(inputFile, /*IsText=*/true);
  if (!buffer) {
    llvm::WithColor::error(llvm::errs(), "tilec-frontend")
        << "cannot read '" << inputFile
        << "': " << buffer.getError().message() << "\n";
    return 1;
  }
  std::string module;
  tilec::frontend::FrontendRunOptions options;
  options.kernelName = kernelName;
  options.signature = signature;
  options.errorLimit = errorLimit;
  const char *debugEnv = std::getenv("TRITON_DEBUG");
  options.debug = debugMode || (debugEnv && llvm::StringRef(debugEnv) == "1");
  if (!tilec::frontend::runFrontend(std::move(*buffer), options, llvm::errs(),
                                    &module))
    return 1;
  std::string error;
  auto out = mlir::openOutputFile(outputFile, &error);
  if (!out) {
    llvm::WithColor::error(llvm::errs(), "tilec-frontend") << error << "\n";
    return 1;
  }
  out->os() << module;
  out->keep();
  return 0;
}
