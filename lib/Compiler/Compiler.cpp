//===- Compiler.cpp - the tile-to-cubin pipeline --------------------------===//
//
// Part of tilec, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#include "tilec/Compiler/Compiler.h"
#include "tilec/Compiler/CpuPipeline.h"

#include "DumpReport.h"

#include <map>

#include "tilec/Dialect/TileGPU/IR/TileGPU.h"
#include "tilec/Support/ScalarTypeMLIR.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassInstrumentation.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <mutex>
#include <optional>
#include <map>

using namespace tilec;

llvm::StringRef tilec::getTilecVersion() { return "0.1.0"; }

namespace {

/// How dumps and printed IR show ops: with their locations (`loc(#locN)`
/// aliases to `"k.tile":12:5`), so that every IR maps back to the source
/// and can be parsed again by tilec-opt.
mlir::OpPrintingFlags getDumpPrintingFlags() {
  return mlir::OpPrintingFlags().enableDebugInfo(/*enable=*/true,
                                                 /*prettyForm=*/false);
}

/// Seconds since `start`.
double secondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
      .count();
}

/// Keeps the verifier's messages about IR a pass left invalid (a tilec bug,
/// never the user's) from reaching the user raw, with an MLIR dump as a
/// note: while the passes run every error is held back (remarks and
/// warnings pass); when a pass
/// fails, the IR is verified again to learn which of them the verifier
/// produced; `flush` then reports those as located internal errors naming
/// the op and the pass, and re-emits every other diagnostic unchanged, in
/// order.
class InternalVerifierErrors : public mlir::PassInstrumentation {
public:
  explicit InternalVerifierErrors(mlir::MLIRContext *ctx) : ctx(ctx) {
    handler.emplace(ctx, [this](mlir::Diagnostic &diag) -> mlir::LogicalResult {
      std::lock_guard<std::mutex> lock(mutex);
      // Remarks and warnings go on at once (to the dump report, which
      // records the stage that emitted them, and to the user); only errors
      // wait to be told apart from the verifier's.
      if (!reverifying && diag.getSeverity() != mlir::DiagnosticSeverity::Error)
        return mlir::failure();
      (reverifying ? reverified : held).push_back(std::move(diag));
      return mlir::success();
    });
  }

  void runAfterPassFailed(mlir::Pass *pass, mlir::Operation *op) override {
    {
      std::lock_guard<std::mutex> lock(mutex);
      reverifying = true;
    }
    bool invalid = mlir::failed(mlir::verify(op));
    std::lock_guard<std::mutex> lock(mutex);
    reverifying = false;
    if (invalid)
      for (mlir::Diagnostic &diag : reverified)
        if (diag.getSeverity() == mlir::DiagnosticSeverity::Error)
          invalidOps.push_back(
              {diag.getLocation(), diag.str(), pass->getArgument().str()});
    reverified.clear();
  }

  /// Stops holding diagnostics back and emits them.
  void flush() {
    handler.reset();
    for (mlir::Diagnostic &diag : held) {
      auto it = llvm::find_if(invalidOps, [&](const InvalidOp &inv) {
        return inv.loc == diag.getLocation() && inv.message == diag.str();
      });
      if (it == invalidOps.end()) {
        ctx->getDiagEngine().emit(std::move(diag));
        continue;
      }
      // The verifier's form is "'dialect.op' op <what is wrong>".
      llvm::StringRef message = it->message, opName, what = message;
      if (message.starts_with("'") && message.contains("' op ")) {
        auto [name, rest] = message.drop_front().split("' op ");
        opName = name;
        what = rest;
      }
      mlir::InFlightDiagnostic err = mlir::emitError(it->loc);
      err << "internal error: pass '" << it->pass << "' produced an invalid ";
      if (!opName.empty())
        err << "'" << opName << "' op";
      else
        err << "op";
      err << " (" << what << ")";
      err.attachNote() << "this is a bug in tilec, not in the kernel; "
                          "--reproducer FILE saves the failing pass's input";
    }
    held.clear();
  }

private:
  struct InvalidOp {
    mlir::Location loc;
    std::string message;
    std::string pass;
  };
  mlir::MLIRContext *ctx;
  std::optional<mlir::ScopedDiagnosticHandler> handler;
  std::mutex mutex;
  bool reverifying = false;
  std::vector<mlir::Diagnostic> held, reverified;
  std::vector<InvalidOp> invalidOps;
};

bool isPassIn(mlir::Pass *pass, const std::vector<std::string> &names) {
  return llvm::is_contained(names, pass->getArgument().str());
}

/// Records every diagnostic of a compilation in its dump report, then lets
/// the handler installed before it (the tool's) print it as usual.
class DumpDiagnostics {
public:
  DumpDiagnostics(mlir::MLIRContext *context, DumpReport &report)
      : context(context) {
    if (report.enabled())
      id = context->getDiagEngine().registerHandler(
          [&report](mlir::Diagnostic &diagnostic) {
            report.recordDiagnostic(diagnostic);
            return mlir::failure();
          });
  }
  ~DumpDiagnostics() {
    if (id)
      context->getDiagEngine().eraseHandler(*id);
  }

private:
  mlir::MLIRContext *context;
  std::optional<mlir::DiagnosticEngine::HandlerID> id;
};

} // namespace

/// The hidden parameters (docs/metadata.md) of the lowered kernel's
/// trailing arguments, in their order: `program_grid` for a persistent
/// kernel's grid (`tilegpu.program_grid`), `tma_descriptor` for descriptor
/// arguments (their `tilegpu.tma_recipe`: kernel argument indices become
/// the names of the runtime parameters; constexprs are not arguments).
static llvm::Expected<llvm::json::Array>
buildHiddenParameters(const KernelInterface &kernel,
                   mlir::FunctionOpInterface func) {
  std::vector<const KernelParameter *> runtime;
  for (const KernelParameter &p : kernel.parameters)
    if (p.isRuntime())
      runtime.push_back(&p);
  llvm::json::Array hidden;
  std::map<std::string, int> perBase;
  for (unsigned i = 0, e = func.getNumArguments(); i < e; ++i) {
    // A persistent kernel's grid (tilegpu-persistent).
    if (auto axis = func.getArgAttrOfType<mlir::IntegerAttr>(
            i, tilegpu::kProgramGridAttrName)) {
      hidden.push_back(llvm::json::Object{
          {"name", "program_grid." + std::string(1, "xyz"[axis.getInt()])},
          {"kind", "hidden"},
          {"bytes", 4},
          {"align", 4},
          {"recipe", llvm::json::Object{{"kind", "program_grid"},
                                        {"axis", axis.getInt()}}}});
      continue;
    }
    auto recipe = func.getArgAttrOfType<tilegpu::TMARecipeAttr>(
        i, tilegpu::kTMARecipeAttrName);
    if (!recipe)
      continue;
    auto name = [&](unsigned arg) -> llvm::Expected<std::string> {
      if (arg >= runtime.size())
        return llvm::createStringError(
            "internal error: TMA recipe names kernel argument " +
            std::to_string(arg) + " of " + std::to_string(runtime.size()));
      return runtime[arg]->name;
    };
    // A term is a number, a parameter's name, or {"args": [names],
    // "factor": f} (f times their product).
    auto term = [&](tilegpu::TMATermAttr t) -> llvm::Expected<llvm::json::Value> {
      if (t.isConstant())
        return llvm::json::Value(t.getFactor());
      llvm::json::Array names;
      for (unsigned arg : t.getArgs()) {
        auto n = name(arg);
        if (!n)
          return n.takeError();
        names.push_back(*n);
      }
      if (t.getFactor() == 1 && names.size() == 1)
        return std::move(names[0]);
      return llvm::json::Value(llvm::json::Object{{"args", std::move(names)},
                                                  {"factor", t.getFactor()}});
    };
    auto base = name(recipe.getBase());
    if (!base)
      return base.takeError();
    llvm::json::Array dims;
    for (auto [size, stride] : llvm::zip(recipe.getSizes(), recipe.getStrides())) {
      auto sizeJson = term(size);
      if (!sizeJson)
        return sizeJson.takeError();
      auto strideJson = term(stride);
      if (!strideJson)
        return strideJson.takeError();
      dims.push_back(llvm::json::Object{{"size", std::move(*sizeJson)},
                                        {"stride", std::move(*strideJson)}});
    }
    llvm::json::Array box, nonNegative;
    for (int64_t b : recipe.getBox())
      box.push_back(b);
    for (unsigned arg : recipe.getNonNegative()) {
      auto n = name(arg);
      if (!n)
        return n.takeError();
      nonNegative.push_back(*n);
    }
    std::string paramName = *base + ".tma" + std::to_string(perBase[*base]++);
    llvm::json::Object recipeJson{
        {"kind", "tma_descriptor"},
        {"base", *base},
        {"element", getSignatureTypeName(recipe.getElement())},
        {"dims", std::move(dims)},
        {"box", std::move(box)},
        {"swizzle", recipe.getSwizzle()},
        {"oob_fill", std::string(recipe.getNanFill() ? "nan" : "zero")}};
    if (!nonNegative.empty())
      recipeJson["non_negative"] = std::move(nonNegative);
    hidden.push_back(llvm::json::Object{{"name", paramName},
                                        {"kind", "hidden"},
                                        {"bytes", 128},
                                        {"align", 64},
                                        {"recipe", std::move(recipeJson)}});
  }
  return hidden;
}

/// The kernel function of a lowered module (the one whose shared memory
/// tilegpu-allocate-shared planned), or null.
static mlir::FunctionOpInterface findLoweredKernel(mlir::ModuleOp module) {
  mlir::FunctionOpInterface kernel;
  module.walk([&](mlir::FunctionOpInterface func) {
    if (func->hasAttr(tilegpu::TileGPUDialect::getSharedMemoryAttrName()))
      kernel = func;
  });
  return kernel;
}

/// Runs the passes `build` adds on `module` with the dumps, printing and
/// timing `options` ask for (and, on failure, its reproducer); the seconds
/// the passes took go to `passesSeconds`.
static llvm::Error
runPasses(mlir::ModuleOp module, const KernelInterface &kernel,
          const CompileOptions &options, DumpReport &dumps,
          llvm::function_ref<void(mlir::OpPassManager &)> build,
          double &passesSeconds) {
  if (dumps.enabled()) {
    if (auto err = dumps.create())
      return err;
    dumps.recordInput(module);
  }
  mlir::PassManager pm(module->getContext());
  build(pm);
  dumps.instrument(pm);
  if (options.printIRAfterAll || !options.printIRAfter.empty() ||
      !options.printIRBefore.empty()) {
    // Module-scope printing needs the passes to run on one thread.
    module->getContext()->disableMultithreading();
    auto before = [&](mlir::Pass *pass, mlir::Operation *) {
      return isPassIn(pass, options.printIRBefore);
    };
    auto after = [&](mlir::Pass *pass, mlir::Operation *) {
      return options.printIRAfterAll || isPassIn(pass, options.printIRAfter);
    };
    // Printing the whole module around a pass needs a single-threaded pass
    // manager.
    module->getContext()->disableMultithreading();
    pm.enableIRPrinting(before, after, /*printModuleScope=*/true,
                        /*printAfterOnlyOnChange=*/false,
                        /*printAfterOnlyOnFailure=*/false, llvm::errs(),
                        getDumpPrintingFlags());
  }
  if (options.timing)
    pm.enableTiming();
  if (!options.reproducerFile.empty()) {
    // A local reproducer (the IR before the failing pass, and that pass
    // alone) needs the pass manager to run on one thread.
    module->getContext()->disableMultithreading();
    pm.enableCrashReproducerGeneration(options.reproducerFile,
                                       /*genLocalReproducer=*/true);
  }
  auto verifierErrors =
      std::make_unique<InternalVerifierErrors>(module->getContext());
  InternalVerifierErrors &internalErrors = *verifierErrors;
  pm.addInstrumentation(std::move(verifierErrors));
  auto passesStart = std::chrono::steady_clock::now();
  mlir::LogicalResult passed = pm.run(module);
  passesSeconds = secondsSince(passesStart);
  // A pipeline that stops at tilegpu still gets its layout pictures.
  dumps.addLayouts(module);
  internalErrors.flush();
  if (mlir::failed(passed)) {
    std::string message =
        "compilation of '" + kernel.name + "' failed (see the errors above)";
    if (!options.reproducerFile.empty())
      message += "; reproducer written to " + options.reproducerFile +
                 " (run: tilec-opt --run-reproducer " + options.reproducerFile +
                 ")";
    return llvm::createStringError(message);
  }
  return llvm::Error::success();
}

llvm::Error tilec::lowerModuleForCpu(mlir::ModuleOp module,
                                     const KernelInterface &kernel,
                                     const CompileOptions &options,
                                     const CpuPipelineOptions &cpu) {
  DumpReport dumps(options, kernel);
  DumpDiagnostics recorder(module->getContext(), dumps);
  double passesSeconds = 0;
  llvm::Error err = runPasses(
      module, kernel, options, dumps,
      [&](mlir::OpPassManager &pm) { buildCpuPipeline(pm, cpu); },
      passesSeconds);
  dumps.finish(!err);
  return err;
}

static llvm::Error compileWithReport(mlir::ModuleOp module,
                                     const KernelInterface &kernel,
                                     const CompileOptions &options,
                                     DumpReport &dumps, CompileResult &result) {
  result.numThreads = options.pipeline.numWarps * tilegpu::kThreadsPerWarp;
  PipelineOptions pipeline = options.pipeline;
  pipeline.vectorReductions = hasVectorReductions(options.target);
  if (auto err = runPasses(module, kernel, options, dumps,
                           [&](mlir::OpPassManager &pm) {
                             buildPipeline(pm, pipeline,
                                           std::min(options.emit,
                                                    EmitKind::LLVM));
                           },
                           result.times.passes))
    return std::move(err);
  // Warp specialization adds warps: the tilegpu form says how many (a
  // tilegpu.warp_specialize), the lowered kernel its launch bound
  // (nvvm.maxntid, named here to keep the NVVM headers out of this file).
  module.walk([&](tilegpu::WarpSpecializeOp ws) {
    result.numThreads = std::max<unsigned>(
        result.numThreads, (options.pipeline.numWarps + ws.getProducerWarps()) *
                               tilegpu::kThreadsPerWarp);
  });
  if (mlir::FunctionOpInterface lowered = findLoweredKernel(module)) {
    if (auto maxntid =
            lowered->getAttrOfType<mlir::DenseI32ArrayAttr>("nvvm.maxntid");
        maxntid && !maxntid.empty())
      result.numThreads = static_cast<unsigned>(maxntid[0]);
    result.sharedMemoryBytes =
        lowered->getAttrOfType<mlir::IntegerAttr>(
                   tilegpu::TileGPUDialect::getSharedMemoryAttrName())
            .getInt();
    if (auto cluster = lowered->getAttrOfType<mlir::DenseI32ArrayAttr>(
            tilegpu::TileGPUDialect::getClusterDimsAttrName()))
      for (unsigned i = 0; i < 3; ++i)
        result.clusterDims[i] = static_cast<unsigned>(cluster[i]);
    auto hidden = buildHiddenParameters(kernel, lowered);
    if (!hidden)
      return hidden.takeError();
    result.hiddenParameters = std::move(*hidden);
    result.persistent =
        lowered->hasAttr(tilegpu::TileGPUDialect::getPersistentAttrName());
    // Read: they have no meaning in LLVM IR.
    if (options.emit > EmitKind::TileGPU) {
      lowered->removeAttr(tilegpu::TileGPUDialect::getSharedMemoryAttrName());
      lowered->removeAttr(tilegpu::TileGPUDialect::getPersistentAttrName());
      for (unsigned i = 0, e = lowered.getNumArguments(); i < e; ++i) {
        lowered.removeArgAttr(i, tilegpu::kTMARecipeAttrName);
        lowered.removeArgAttr(i, tilegpu::kProgramGridAttrName);
      }
    }
  }
  if (options.emit <= EmitKind::TileGPU) {
    llvm::raw_string_ostream os(result.mlir);
    module->print(os);
    return llvm::Error::success();
  }

  auto llvmStart = std::chrono::steady_clock::now();
  llvm::LLVMContext llvmContext;
  auto llvmModule = translateToLLVMIR(module, llvmContext, options.target);
  if (!llvmModule)
    return llvmModule.takeError();
  auto printLLVM = [&] {
    std::string text;
    llvm::raw_string_ostream os(text);
    (*llvmModule)->print(os, nullptr);
    return text;
  };
  if (dumps.enabled())
    dumps.writeArtifact("llvm-ir.ll", printLLVM());
  if (auto err = linkLibdevice(**llvmModule))
    return std::move(err);
  if (auto err = optimizeLLVMIR(**llvmModule, options.target,
                                  options.pipeline.enableFPFusion))
    return std::move(err);
  result.times.llvm = secondsSince(llvmStart);
  // Printing a large kernel's IR costs tens of milliseconds: only when asked.
  if (options.emit == EmitKind::LLVM) {
    llvm::raw_string_ostream os(result.llvmIR);
    (*llvmModule)->print(os, nullptr);
  }
  if (dumps.enabled())
    dumps.writeArtifact("llvm-ir-opt.ll", printLLVM(), "llvm-ir.ll");
  if (options.emit == EmitKind::LLVM)
    return llvm::Error::success();

  auto ptxStart = std::chrono::steady_clock::now();
  auto ptx = emitPTX(**llvmModule, options.target,
                     options.pipeline.enableFPFusion);
  if (!ptx)
    return ptx.takeError();
  result.ptx = std::move(*ptx);
  result.times.ptx = secondsSince(ptxStart);
  std::string ptxDump;
  if (dumps.enabled()) {
    ptxDump = dumps.writeArtifact("kernel.ptx", result.ptx);
    dumps.setPTX(result.ptx, ptxDump);
  }
  auto dumpMetadata = [&](llvm::StringRef cubinDump) {
    std::vector<std::pair<std::string, std::string>> artifacts = {
        {"ptx", ptxDump}};
    if (!cubinDump.empty())
      artifacts.push_back({"cubin", cubinDump.str()});
    dumps.writeArtifact(
        "kernel.json",
        llvm::formatv("{0:2}\n", llvm::json::Value(buildKernelMetadata(
                                      kernel, options, result, artifacts)))
            .str());
  };
  if (options.emit == EmitKind::PTX) {
    if (dumps.enabled())
      dumpMetadata("");
    return llvm::Error::success();
  }

  std::string ptxas = options.ptxas;
  if (ptxas.empty()) {
    std::optional<std::string> found = findPtxas();
    if (!found)
      return llvm::createStringError(
          "cannot make a cubin: ptxas not found (set TILEC_PTXAS, or install "
          "the CUDA toolkit at /usr/local/cuda); --emit ptx works without it");
    ptxas = *found;
  }
  if (auto version = getPtxasVersion(ptxas))
    result.ptxasVersion = *version;
  else
    llvm::consumeError(version.takeError());
  auto ptxasStart = std::chrono::steady_clock::now();
  auto assembled = runPtxas(ptxas, result.ptx, options.target.chip,
                            options.pipeline.lineInfo);
  result.times.ptxas = secondsSince(ptxasStart);
  if (!assembled)
    return assembled.takeError();
  result.ptxas = std::move(*assembled);
  if (dumps.enabled()) {
    dumps.writeArtifact("ptxas.log", result.ptxas->log);
    std::string cubinDump = dumps.writeArtifact(
        "kernel.cubin",
        llvm::StringRef(result.ptxas->cubin.data(), result.ptxas->cubin.size()));
    dumpMetadata(cubinDump);
  }
  return llvm::Error::success();
}

llvm::Expected<CompileResult> tilec::compileModule(mlir::ModuleOp module,
                                                   const KernelInterface &kernel,
                                                   const CompileOptions &options) {
  // The entry points check with their own spelling first; this catches the
  // C++ users of compileModule.
  if (llvm::Error err =
          verifyPipelineOptions(options.pipeline, OptionSpelling::Field))
    return std::move(err);
  DumpReport dumps(options, kernel);
  DumpDiagnostics recorder(module->getContext(), dumps);
  CompileResult result;
  llvm::Error err = compileWithReport(module, kernel, options, dumps, result);
  if (dumps.enabled()) {
    dumps.setResult(result);
    dumps.finish(!err);
  }
  if (err)
    return std::move(err);
  return result;
}

static llvm::StringRef kindName(KernelParameter::Kind kind) {
  switch (kind) {
  case KernelParameter::Kind::Pointer:
    return "pointer";
  case KernelParameter::Kind::Scalar:
    return "scalar";
  case KernelParameter::Kind::Constexpr:
    return "constexpr";
  }
  return "";
}

std::string tilec::getSignatureTypeName(mlir::Type type) {
  if (std::optional<ScalarType> scalar = getScalarTypeOf(type))
    return scalarTypeName(*scalar);
  if (type.isInteger())
    return "i" + std::to_string(type.getIntOrFloatBitWidth());
  std::string text;
  llvm::raw_string_ostream os(text);
  type.print(os);
  return text;
}

llvm::json::Object tilec::buildKernelMetadata(
    const KernelInterface &kernel, const CompileOptions &options,
    const CompileResult &result,
    const std::vector<std::pair<std::string, std::string>> &artifacts) {
  llvm::json::Array params;
  for (const KernelParameter &p : kernel.parameters) {
    llvm::json::Object param{{"name", p.name}, {"kind", kindName(p.kind)}};
    if (!p.type.empty())
      param["type"] = p.type;
    if (p.isRuntime())
      param["divisibility"] = p.divisibility;
    else if (auto value = llvm::json::parse(p.value))
      param["value"] = std::move(*value);
    else {
      llvm::consumeError(value.takeError());
      param["value"] = p.value;
    }
    params.push_back(std::move(param));
  }
  llvm::json::Value ptxas = nullptr;
  if (result.ptxas) {
    PtxasKernelInfo info;
    for (const PtxasKernelInfo &k : result.ptxas->kernels)
      if (k.name == kernel.name)
        info = k;
    ptxas = llvm::json::Object{{"registers", info.registers},
                               {"spill_stores", info.spillStores},
                               {"spill_loads", info.spillLoads},
                               {"stack_frame", info.stackFrame},
                               {"shared_bytes", info.sharedBytes},
                               {"version", result.ptxasVersion}};
  }
  llvm::json::Object files;
  for (const auto &[kind, file] : artifacts)
    files[kind] = file;
  llvm::json::Object metadata{
      {"format", "tilec-kernel-metadata"},
      {"version", 1},
      {"name", kernel.name},
      {"entry", kernel.name},
      {"tilec_version", getTilecVersion()},
      {"target", options.target.chip},
      {"ptx_version", options.target.getPTXVersion()},
      {"num_warps", options.pipeline.numWarps},
      {"num_stages", options.pipeline.numStages},
      {"num_threads", result.numThreads},
      {"shared_memory",
       llvm::json::Object{{"static_bytes", 0},
                          {"dynamic_bytes", result.sharedMemoryBytes}}},
      {"cluster_dims",
       llvm::json::Array{result.clusterDims[0], result.clusterDims[1],
                         result.clusterDims[2]}},
      {"source", llvm::json::Object{{"path", kernel.sourcePath},
                                    {"hash", kernel.sourceHash}}},
      {"signature", kernel.signature},
      {"parameters", std::move(params)},
      {"hidden_parameters", llvm::json::Array(result.hiddenParameters)},
      {"persistent", result.persistent},
      {"ptxas", std::move(ptxas)},
      {"artifacts", std::move(files)},
  };
  // The autotune configs and heuristics, as the frontend read them.
  if (!kernel.tuningJson.empty()) {
    llvm::Expected<llvm::json::Value> tuning = llvm::json::parse(kernel.tuningJson);
    if (!tuning)
      llvm::consumeError(tuning.takeError());
    else if (llvm::json::Object *object = tuning->getAsObject())
      for (auto &[key, value] : *object)
        metadata[key] = std::move(value);
  }
  return metadata;
}
