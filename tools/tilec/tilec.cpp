//===- tilec.cpp - the tilec command-line compiler ------------------------===//
//
// Part of tilec, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// tilec FILE [--kernel NAME] [--signature SIG] [--num-warps N]
//       [--num-stages N] [--emit tile|tilegpu|llvm|ptx|cubin] [-o OUT]
//
// Compiles one kernel of a .tile file (or a Triton .py module, or a module
// already in the tile dialect, .mlir) like Triton's AOT compiler: writes the
// artifact to OUT and, for PTX and cubins, the kernel metadata to OUT with
// the extension replaced by .json (a cubin also gets its .ptx beside it).
// IR debugging: --dump-ir DIR (or TILEC_DUMP_DIR), --print-ir-after-all,
// --print-ir-after=PASS, --print-ir-before=PASS, --mlir-timing.
//
// tilec run FILE … --grid X[,Y,Z] [--backend cpu|gpu] compiles a kernel and
// runs it on random or given inputs (RunCommand.h, docs/cli.md).
//
//===----------------------------------------------------------------------===//

#include "tilec/Compiler/Compiler.h"
#include "tilec/Compiler/Registration.h"
#include "tilec/Dialect/Tile/IR/Tile.h"
#include "tilec/Frontend/Frontend.h"

#include "KernelSource.h"
#include "RunCommand.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SHA256.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/WithColor.h"

#include <cstdlib>

using namespace tilec;
using tilec::tool::fail;
namespace cl = llvm::cl;

static cl::OptionCategory tilecCategory("tilec options");

static cl::opt<std::string> inputFile(cl::Positional, cl::Required,
                                      cl::desc("<input .tile, .py or .mlir>"),
                                      cl::cat(tilecCategory));
static cl::opt<std::string>
    kernelName("kernel", cl::desc("Kernel to compile (default: the only one)"),
               cl::value_desc("name"), cl::cat(tilecCategory));
static cl::opt<std::string> signature(
    "signature",
    cl::desc("Types of the parameters, Triton AOT style: \"*fp32:16, i32, 1024\""),
    cl::value_desc("sig"), cl::cat(tilecCategory));
static cl::opt<unsigned> numWarps("num-warps", cl::init(4),
                                  cl::desc("Warps per program instance (CTA)"),
                                  cl::cat(tilecCategory));
static cl::opt<unsigned> numStages("num-stages", cl::init(3),
                                   cl::desc("Software-pipelining depth"),
                                   cl::cat(tilecCategory));
static cl::opt<std::string>
    emitKind("emit", cl::init("cubin"),
             cl::desc("What to produce: tile, tilegpu, llvm, ptx or cubin"),
             cl::cat(tilecCategory));
static cl::opt<std::string> outputFile("o", cl::desc("Output file"),
                                       cl::value_desc("file"),
                                       cl::cat(tilecCategory));
static cl::opt<std::string> arch("arch", cl::init("sm_90a"),
                                 cl::desc("GPU architecture"),
                                 cl::cat(tilecCategory));
static cl::opt<unsigned> ptxVersion("ptx-version", cl::init(80),
                                    cl::desc("PTX ISA version times 10 (80 = 8.0)"),
                                    cl::cat(tilecCategory));
static cl::opt<std::string> dumpIR(
    "dump-ir",
    cl::desc("Write the IR after every pass, the LLVM IR, PTX and ptxas "
             "report to this directory (default: $TILEC_DUMP_DIR)"),
    cl::value_desc("dir"), cl::cat(tilecCategory));
static cl::opt<bool> printIRAfterAll("print-ir-after-all",
                                     cl::desc("Print the IR after every pass"),
                                     cl::cat(tilecCategory));
static cl::list<std::string>
    printIRAfter("print-ir-after", cl::CommaSeparated,
                 cl::desc("Print the IR after these passes"),
                 cl::value_desc("pass"), cl::cat(tilecCategory));
static cl::list<std::string>
    printIRBefore("print-ir-before", cl::CommaSeparated,
                  cl::desc("Print the IR before these passes"),
                  cl::value_desc("pass"), cl::cat(tilecCategory));
static cl::opt<bool> timing("mlir-timing",
                            cl::desc("Report the time of every pass"),
                            cl::cat(tilecCategory));

static bool writeFile(llvm::StringRef path, llvm::StringRef contents) {
  llvm::StringRef dir = llvm::sys::path::parent_path(path);
  if (!dir.empty())
    if (std::error_code ec = llvm::sys::fs::create_directories(dir)) {
      fail("cannot create directory '" + dir + "': " + ec.message());
      return false;
    }
  std::string error;
  auto file = mlir::openOutputFile(path, &error);
  if (!file) {
    fail(error);
    return false;
  }
  file->os() << contents;
  file->keep();
  return true;
}

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  cl::HideUnrelatedOptions({&tilecCategory, &tool::getRunCategory()});
  cl::ParseCommandLineOptions(
      argc, argv,
      "tilec: compile a tile kernel for NVIDIA Hopper (`tilec run`: run it on "
      "the CPU or the GPU)\n");
  if (tool::getRunSubCommand())
    return tool::runMain();

  std::optional<EmitKind> emit = parseEmitKind(emitKind);
  if (!emit)
    return fail("unknown --emit '" + emitKind +
                "' (expected tile, tilegpu, llvm, ptx or cubin)");
  if (!llvm::isPowerOf2_32(numWarps) || numWarps > 32)
    return fail("--num-warps must be a power of two between 1 and 32, got " +
                llvm::Twine(numWarps));
  if (numStages == 0)
    return fail("--num-stages must be at least 1");

  mlir::DialectRegistry registry;
  registerAllDialects(registry);
  mlir::MLIRContext context(registry);
  context.loadAllAvailableDialects();
  auto source = tool::KernelSource::load(inputFile, kernelName, signature,
                                         context);
  if (!source)
    return 1;
  KernelInterface &interface = source->interface();

  CompileOptions options;
  options.pipeline.numWarps = numWarps;
  options.pipeline.numStages = numStages;
  options.target.chip = arch;
  options.target.features = "+ptx" + std::to_string(ptxVersion);
  options.emit = *emit;
  options.dumpDir = dumpIR;
  if (options.dumpDir.empty())
    if (const char *env = std::getenv("TILEC_DUMP_DIR"))
      options.dumpDir = env;
  options.printIRAfterAll = printIRAfterAll;
  options.printIRAfter.assign(printIRAfter.begin(), printIRAfter.end());
  options.printIRBefore.assign(printIRBefore.begin(), printIRBefore.end());
  options.timing = timing;

  auto result = compileModule(source->module(), interface, options);
  if (!result)
    return fail(llvm::toString(result.takeError()));

  // Where the artifact goes: -o, else stdout for text, else <kernel>.cubin.
  std::string out = outputFile;
  if (out.empty() && *emit == EmitKind::Cubin)
    out = interface.name + ".cubin";
  if (*emit <= EmitKind::LLVM) {
    llvm::StringRef text = *emit == EmitKind::LLVM ? result->llvmIR : result->mlir;
    if (out.empty() || out == "-") {
      llvm::outs() << text;
      return 0;
    }
    return writeFile(out, text) ? 0 : 1;
  }
  if (*emit == EmitKind::PTX && (out.empty() || out == "-")) {
    llvm::outs() << result->ptx;
    return 0;
  }
  llvm::SmallString<256> base(out);
  llvm::sys::path::replace_extension(base, "");
  std::vector<std::pair<std::string, std::string>> artifacts;
  std::string ptxPath = (base + ".ptx").str();
  if (*emit == EmitKind::PTX) {
    if (!writeFile(out, result->ptx))
      return 1;
    artifacts.push_back({"ptx", llvm::sys::path::filename(out).str()});
  } else {
    if (!writeFile(ptxPath, result->ptx) ||
        !writeFile(out, llvm::StringRef(result->ptxas->cubin.data(),
                                        result->ptxas->cubin.size())))
      return 1;
    artifacts.push_back({"ptx", llvm::sys::path::filename(ptxPath).str()});
    artifacts.push_back({"cubin", llvm::sys::path::filename(out).str()});
  }
  llvm::json::Object metadata =
      buildKernelMetadata(interface, options, *result, artifacts);
  std::string json;
  llvm::raw_string_ostream os(json);
  os << llvm::formatv("{0:2}", llvm::json::Value(std::move(metadata))) << "\n";
  return writeFile((base + ".json").str(), json) ? 0 : 1;
}
