//===- tilec.cpp - the tilec command-line compiler ------------------------===//
//
// Part of tilec, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// tilec FILE [--kernel NAME] [--signature SIG] [--num-warps N]
//       [--num-stages N] [--emit tile|tilegpu|llvm|ptx|cubin|c-header]
//       [-o OUT]
//       [--error-limit N]
//
// Compiles one kernel of a .tile file (or a Triton .py module, or a module
// already in the tile dialect, .mlir) like Triton's AOT compiler: writes the
// artifact to OUT and, for PTX and cubins, the kernel metadata to OUT with
// the extension replaced by .json (a cubin also gets its .ptx beside it).
// `--emit c-header` writes a C header with the cubin embedded and a typed
// launch function instead (docs/cli.md).
// IR debugging: --dump-ir DIR (or TILEC_DUMP_DIR), --print-ir-after-all,
// --print-ir-after=PASS, --print-ir-before=PASS, --mlir-timing,
// --reproducer FILE.
//
// tilec explain FILE … prints what the compiler decided for each load, dot
// and loop and why (ExplainCommand.h).
//
// tilec run FILE … --grid X[,Y,Z] [--backend cpu|gpu] compiles a kernel and
// runs it on random or given inputs (RunCommand.h, docs/cli.md).
//
//===----------------------------------------------------------------------===//

#include "tilec/Compiler/CHeader.h"
#include "tilec/Compiler/Compiler.h"
#include "tilec/Compiler/Registration.h"
#include "tilec/Dialect/Tile/IR/Tile.h"
#include "tilec/Frontend/Frontend.h"

#include "ExplainCommand.h"
#include "KernelSource.h"
#include "PipelineFlags.h"
#include "RunCommand.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/AsmState.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SHA256.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/WithColor.h"

#include <chrono>
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
static cl::opt<std::string> emitKind(
    "emit", cl::init("cubin"),
    cl::desc("What to produce: tile, tilegpu, llvm, ptx, cubin or c-header"),
    cl::cat(tilecCategory));
static cl::opt<std::string>
    cName("c-name",
          cl::desc("Prefix of the names in a c-header (default: the kernel's "
                   "name)"),
          cl::value_desc("identifier"), cl::cat(tilecCategory));
static cl::opt<std::string> outputFile("o", cl::desc("Output file"),
                                       cl::value_desc("file"),
                                       cl::cat(tilecCategory));
static cl::opt<std::string> arch("arch", cl::init("sm_90a"),
                                 cl::desc("GPU architecture"),
                                 cl::cat(tilecCategory));
static cl::opt<unsigned> ptxVersion(
    "ptx-version",
    cl::desc("PTX ISA version times 10 (default: the lowest the --arch needs, "
             "81 for sm_90a: 80 knows it, 81 adds vector reductions)"),
    cl::cat(tilecCategory));
static cl::opt<std::string> dumpIR(
    "dump-ir",
    cl::desc("Write the IR after every pass, the LLVM IR, PTX, ptxas "
             "report, cubin and metadata to this directory, numbered in "
             "pipeline order (default: $TILEC_DUMP_DIR)"),
    cl::value_desc("dir"), cl::cat(tilecCategory));
static cl::opt<bool> dumpIRAll(
    "dump-ir-all",
    cl::desc("With --dump-ir: also dump the passes that changed nothing"),
    cl::cat(tilecCategory));
static cl::opt<std::string> dumpIRFilter(
    "dump-ir-filter",
    cl::desc("With --dump-ir: dump and diff only the passes whose argument "
             "matches this regular expression (all are in the index)"),
    cl::value_desc("regex"), cl::cat(tilecCategory));
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
static cl::opt<bool> timing(
    "mlir-timing",
    cl::desc("Report the time of every pass, then of every stage"),
    cl::cat(tilecCategory));
static cl::opt<std::string> reproducer(
    "reproducer",
    cl::desc("When a pass fails, write a tilec-opt reproducer to this file "
             "(run it with: tilec-opt --run-reproducer FILE)"),
    cl::value_desc("file"), cl::cat(tilecCategory));
static cl::opt<bool> lineInfo(
    "line-info", cl::init(true),
    cl::desc("Map PTX and SASS to source lines (.loc, ptxas -lineinfo); "
             "--line-info=false turns it off"),
    cl::cat(tilecCategory));
static cl::opt<bool> debugMode(
    "debug",
    cl::desc("Debug mode, Triton's debug=True (also TRITON_DEBUG=1): "
             "tl.device_assert and assert on run-time values check their "
             "condition on the device"),
    cl::cat(tilecCategory));
static cl::opt<unsigned> errorLimit(
    "error-limit", cl::init(frontend::DiagnosticSink::kDefaultErrorLimit),
    cl::desc("Stop after this many errors in the source (0: no limit)"),
    cl::value_desc("N"), cl::cat(tilecCategory));

// --disable-wgmma, --ping-pong, --longest-first, --disable-fp-fusion, ...
// (PipelineFlags.h).
static tool::PipelineFlags pipelineFlags(cl::SubCommand::getTopLevel(),
                                         tilecCategory);

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
  cl::SetVersionPrinter([](llvm::raw_ostream &os) {
    os << "tilec " << getTilecVersion() << " (LLVM/MLIR " LLVM_VERSION_STRING
       << ", NVPTX backend, target sm_90a by default)\n";
  });
  // --mlir-print-debuginfo and friends: the reproducer is printed with the
  // default printing flags, which read them.
  mlir::registerAsmPrinterCLOptions();
  cl::HideUnrelatedOptions({&tilecCategory, &tool::getRunCategory(),
                           &tool::getExplainCategory()});
  cl::ParseCommandLineOptions(
      argc, argv,
      "tilec: compile a tile kernel for NVIDIA Hopper (`tilec run`: run it on "
      "the CPU or the GPU; `tilec explain`: why it is fast or slow)\n");
  if (tool::getRunSubCommand())
    return tool::runMain();
  if (tool::getExplainSubCommand())
    return tool::explainMain();

  std::optional<EmitKind> emit = parseEmitKind(emitKind);
  if (!emit)
    return fail("unknown --emit '" + emitKind +
                "' (expected tile, tilegpu, llvm, ptx, cubin or c-header)");
  PipelineOptions pipeline;
  pipeline.numWarps = numWarps;
  pipeline.numStages = numStages;
  if (llvm::Error err = pipelineFlags.apply(pipeline))
    return fail(llvm::toString(std::move(err)));
  llvm::Expected<unsigned> ptx = resolvePTXVersion(
      arch,
      ptxVersion.getNumOccurrences() ? std::optional<unsigned>(ptxVersion)
                                     : std::nullopt,
      OptionSpelling::Flag);
  if (!ptx)
    return fail(llvm::toString(ptx.takeError()));

  mlir::DialectRegistry registry;
  registerAllDialects(registry);
  // One kernel per run: a thread pool would only cost its start-up.
  mlir::MLIRContext context(registry, mlir::MLIRContext::Threading::DISABLED);
  context.loadAllAvailableDialects();
  auto frontendStart = std::chrono::steady_clock::now();
  auto source = tool::KernelSource::load(inputFile, kernelName, signature,
                                         context, errorLimit,
                                         tool::getEmitOptions(debugMode));
  if (!source)
    return 1;
  KernelInterface &interface = source->interface();
  double frontendSeconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                    frontendStart)
          .count();

  CompileOptions options;
  options.pipeline = pipeline;
  options.target.chip = arch;
  options.target.features = "+ptx" + std::to_string(*ptx);
  options.emit = *emit;
  options.dumpDir = dumpIR;
  if (options.dumpDir.empty())
    if (const char *env = std::getenv("TILEC_DUMP_DIR"))
      options.dumpDir = env;
  options.dumpAll = dumpIRAll;
  options.dumpFilter = dumpIRFilter;
  options.printIRAfterAll = printIRAfterAll;
  options.printIRAfter.assign(printIRAfter.begin(), printIRAfter.end());
  options.printIRBefore.assign(printIRBefore.begin(), printIRBefore.end());
  options.timing = timing;
  options.reproducerFile = reproducer;
  if (!reproducer.empty()) {
    // Keep the .tile locations in the reproducer, as in every dump.
    if (auto *printDebugInfo = static_cast<cl::opt<bool> *>(
            cl::getRegisteredOptions().lookup("mlir-print-debuginfo")))
      if (printDebugInfo->getNumOccurrences() == 0)
        printDebugInfo->setValue(true);
  }
  options.pipeline.lineInfo = lineInfo;

  auto result = compileModule(source->module(), interface, options);
  if (!result)
    return fail(llvm::toString(result.takeError()));
  if (timing) {
    StageTimes times = result->times;
    times.frontend = frontendSeconds;
    llvm::errs() << llvm::formatv(
        "tilec stage times (ms): frontend {0:f2}, passes {1:f2}, llvm {2:f2}, "
        "ptx {3:f2}, ptxas {4:f2}, total {5:f2}\n",
        1e3 * times.frontend, 1e3 * times.passes, 1e3 * times.llvm,
        1e3 * times.ptx, 1e3 * times.ptxas, 1e3 * times.total());
  }

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
  if (*emit == EmitKind::CHeader) {
    CHeaderKernel info;
    info.prefix = cName.empty() ? interface.name : std::string(cName);
    info.cubin = result->ptxas->cubin;
    info.numThreads = result->numThreads;
    info.dynamicSharedBytes = result->sharedMemoryBytes;
    info.target = options.target.chip;
    std::string json;
    llvm::raw_string_ostream os(json);
    os << llvm::json::Value(buildKernelMetadata(interface, options, *result,
                                                /*artifacts=*/{}));
    info.metadataJSON = json;
    for (const llvm::json::Value &hidden : result->hiddenParameters) {
      const llvm::json::Object *param = hidden.getAsObject();
      const llvm::json::Object *recipe = param ? param->getObject("recipe") : nullptr;
      std::optional<llvm::StringRef> name = param ? param->getString("name") : std::nullopt;
      std::optional<llvm::StringRef> kind = recipe ? recipe->getString("kind") : std::nullopt;
      info.hiddenParameters.push_back(
          (name.value_or("?") + " (" + kind.value_or("?") + ")").str());
    }
    auto header = emitCHeader(interface, info);
    if (!header)
      return fail(llvm::toString(header.takeError()));
    if (out.empty() || out == "-") {
      llvm::outs() << *header;
      return 0;
    }
    return writeFile(out, *header) ? 0 : 1;
  }
  llvm::SmallString<256> base(out);
  llvm::sys::path::replace_extension(base, "");
  // The metadata (and a cubin's PTX) go next to OUT: they must not be OUT.
  llvm::StringRef ext = llvm::sys::path::extension(out);
  if (ext == ".json" || (*emit == EmitKind::Cubin && ext == ".ptx"))
    return fail("-o '" + out + "' would be overwritten by the " +
                (ext == ".json" ? "metadata (.json)" : "PTX written beside the cubin") +
                "; name the " + (*emit == EmitKind::Cubin ? "cubin" : "PTX") +
                " file with its own extension (e.g. " +
                (*emit == EmitKind::Cubin ? "k.cubin" : "k.ptx") + ")");
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
