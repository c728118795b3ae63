//===- ExplainCommand.cpp - `tilec explain` -------------------------------===//
//
// Part of tilec, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// tilec explain FILE [--kernel NAME] [--signature SIG] [--num-warps N]
//               [--num-stages N] [--json] [the pass switches of `tilec`:
//               --disable-wgmma, --ping-pong, ... (PipelineFlags.h)]
//
// Compiles one kernel twice — to the end of the tilegpu stage (the IR the
// explanation reads) and to a cubin (ptxas' registers and spills; PTX only
// without ptxas) — and prints, per load, dot and loop, what the compiler
// decided and why (tilec/Compiler/Explain.h). The remarks are collected
// instead of printed.
//
//===----------------------------------------------------------------------===//

#include "ExplainCommand.h"
#include "KernelSource.h"
#include "PipelineFlags.h"

#include "tilec/Compiler/Compiler.h"
#include "tilec/Compiler/Explain.h"
#include "tilec/Compiler/Registration.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"

using namespace tilec;
using namespace tilec::tool;
namespace cl = llvm::cl;

static cl::SubCommand explainCommand(
    "explain", "Print what the compiler decided for each load, dot and loop "
               "of a kernel and why, with its registers, spills and shared "
               "memory");
static cl::OptionCategory explainCategory("tilec explain options");

cl::SubCommand &tool::getExplainSubCommand() { return explainCommand; }
cl::OptionCategory &tool::getExplainCategory() { return explainCategory; }

static cl::opt<std::string> explainInput(cl::Positional, cl::Required,
                                         cl::desc("<input .tile, .py or .mlir>"),
                                         cl::sub(explainCommand),
                                         cl::cat(explainCategory));
static cl::opt<std::string>
    explainKernelName("kernel",
                      cl::desc("Kernel to explain (default: the only one)"),
                      cl::value_desc("name"), cl::sub(explainCommand),
                      cl::cat(explainCategory));
static cl::opt<std::string> explainSignature(
    "signature",
    cl::desc("Types of the parameters, Triton AOT style: \"*fp32:16, i32, 1024\""),
    cl::value_desc("sig"), cl::sub(explainCommand), cl::cat(explainCategory));
static cl::opt<unsigned> explainNumWarps("num-warps", cl::init(4),
                                         cl::desc("Warps per program instance"),
                                         cl::sub(explainCommand),
                                         cl::cat(explainCategory));
static cl::opt<unsigned> explainNumStages("num-stages", cl::init(3),
                                          cl::desc("Software-pipelining depth"),
                                          cl::sub(explainCommand),
                                          cl::cat(explainCategory));
// --disable-wgmma, --ping-pong, --longest-first, ... (PipelineFlags.h).
static PipelineFlags explainFlags(explainCommand, explainCategory);
static cl::opt<bool> explainJSON("json", cl::desc("Print JSON instead of text"),
                                 cl::sub(explainCommand),
                                 cl::cat(explainCategory));

int tool::explainMain() {
  PipelineOptions pipeline;
  pipeline.numWarps = explainNumWarps;
  pipeline.numStages = explainNumStages;
  if (llvm::Error err = explainFlags.apply(pipeline))
    return fail(llvm::toString(std::move(err)));
  mlir::DialectRegistry registry;
  registerAllDialects(registry);
  mlir::MLIRContext context(registry, mlir::MLIRContext::Threading::DISABLED);
  context.loadAllAvailableDialects();
  auto source = KernelSource::load(explainInput, explainKernelName,
                                   explainSignature, context);
  if (!source)
    return 1;
  KernelInterface &interface = source->interface();

  CompileOptions options;
  options.pipeline = pipeline;

  // The remarks of the first compilation are the explanation's; warnings
  // too. Errors still go to the terminal.
  std::vector<ExplainRemark> remarks;
  bool recording = true;
  mlir::ScopedDiagnosticHandler handler(&context, [&](mlir::Diagnostic &d) {
    if (d.getSeverity() == mlir::DiagnosticSeverity::Error)
      return mlir::failure();
    if (recording)
      remarks.push_back({d.getLocation(), d.str()});
    return mlir::success();
  });

  mlir::OwningOpRef<mlir::ModuleOp> tilegpu = source->module().clone();
  CompileOptions toTileGPU = options;
  toTileGPU.emit = EmitKind::TileGPU;
  if (auto result = compileModule(*tilegpu, interface, toTileGPU); !result)
    return fail(llvm::toString(result.takeError()));
  recording = false;

  options.emit = findPtxas() ? EmitKind::Cubin : EmitKind::PTX;
  auto full = compileModule(source->module(), interface, options);
  if (!full)
    return fail(llvm::toString(full.takeError()));

  std::string text;
  if (auto buffer = llvm::MemoryBuffer::getFile(interface.sourcePath))
    text = (*buffer)->getBuffer().str();
  KernelExplanation explanation =
      explainKernel(*tilegpu, remarks, &*full, text);
  if (explainJSON)
    llvm::outs() << llvm::formatv("{0:2}", explanationToJSON(explanation)) << "\n";
  else
    llvm::outs() << formatExplanation(explanation, interface, options);
  return 0;
}
