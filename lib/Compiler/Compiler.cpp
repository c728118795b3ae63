//===- Compiler.cpp - the tile-to-cubin pipeline --------------------------===//
//
// Part of tilec, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#include "tilec/Compiler/Compiler.h"
#include "tilec/Compiler/CpuPipeline.h"

#include "tilec/Dialect/TileGPU/IR/TileGPU.h"

#include "mlir/IR/BuiltinOps.h"
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

using namespace tilec;

llvm::StringRef tilec::getTilecVersion() { return "0.1.0"; }

namespace {

/// Writes numbered files into the dump directory, in pipeline order.
class DumpDirectory {
public:
  explicit DumpDirectory(std::string dir) : dir(std::move(dir)) {}
  bool enabled() const { return !dir.empty(); }
  llvm::Error create() {
    if (std::error_code ec = llvm::sys::fs::create_directories(dir))
      return llvm::createStringError(ec, "cannot create dump directory " + dir);
    return llvm::Error::success();
  }
  void write(llvm::StringRef name, llvm::function_ref<void(llvm::raw_ostream &)> fn) {
    llvm::SmallString<256> path(dir);
    llvm::sys::path::append(path, llvm::formatv("{0:2}-{1}", counter++, name).str());
    std::error_code ec;
    llvm::raw_fd_ostream os(path, ec);
    if (ec) {
      llvm::errs() << "tilec: warning: cannot write " << path << ": "
                   << ec.message() << "\n";
      return;
    }
    fn(os);
  }

private:
  std::string dir;
  unsigned counter = 0;
};

/// Dumps the module after every pass (`NN-<pass-argument>.mlir`).
class DumpAfterEachPass : public mlir::PassInstrumentation {
public:
  explicit DumpAfterEachPass(DumpDirectory &dumps) : dumps(dumps) {}
  void runAfterPass(mlir::Pass *pass, mlir::Operation *op) override {
    if (!llvm::isa<mlir::ModuleOp>(op))
      return;
    dumps.write((pass->getArgument() + ".mlir").str(),
                [&](llvm::raw_ostream &os) { op->print(os); });
  }

private:
  DumpDirectory &dumps;
};

bool isPassIn(mlir::Pass *pass, const std::vector<std::string> &names) {
  return llvm::is_contained(names, pass->getArgument().str());
}

} // namespace

/// Runs the passes `build` adds on `module` with the dumps, printing and
/// timing `options` ask for.
static llvm::Error
runPasses(mlir::ModuleOp module, const KernelInterface &kernel,
          const CompileOptions &options, DumpDirectory &dumps,
          llvm::function_ref<void(mlir::OpPassManager &)> build) {
  if (dumps.enabled()) {
    if (auto err = dumps.create())
      return err;
    dumps.write("input.mlir", [&](llvm::raw_ostream &os) { module->print(os); });
  }
  mlir::PassManager pm(module->getContext());
  build(pm);
  if (dumps.enabled())
    pm.addInstrumentation(std::make_unique<DumpAfterEachPass>(dumps));
  if (options.printIRAfterAll || !options.printIRAfter.empty() ||
      !options.printIRBefore.empty()) {
    auto before = [&](mlir::Pass *pass, mlir::Operation *) {
      return isPassIn(pass, options.printIRBefore);
    };
    auto after = [&](mlir::Pass *pass, mlir::Operation *) {
      return options.printIRAfterAll || isPassIn(pass, options.printIRAfter);
    };
    pm.enableIRPrinting(before, after, /*printModuleScope=*/true,
                        /*printAfterOnlyOnChange=*/false);
  }
  if (options.timing)
    pm.enableTiming();
  if (mlir::failed(pm.run(module)))
    return llvm::createStringError("compilation of '" + kernel.name +
                                   "' failed (see the errors above)");
  return llvm::Error::success();
}

llvm::Error tilec::lowerModuleForCpu(mlir::ModuleOp module,
                                     const KernelInterface &kernel,
                                     const CompileOptions &options,
                                     const CpuPipelineOptions &cpu) {
  DumpDirectory dumps(options.dumpDir);
  return runPasses(module, kernel, options, dumps,
                   [&](mlir::OpPassManager &pm) { buildCpuPipeline(pm, cpu); });
}

llvm::Expected<CompileResult> tilec::compileModule(mlir::ModuleOp module,
                                                   const KernelInterface &kernel,
                                                   const CompileOptions &options) {
  CompileResult result;
  result.numThreads = options.pipeline.numWarps * tilegpu::kThreadsPerWarp;
  DumpDirectory dumps(options.dumpDir);
  if (auto err = runPasses(module, kernel, options, dumps,
                           [&](mlir::OpPassManager &pm) {
                             buildPipeline(pm, options.pipeline,
                                           std::min(options.emit,
                                                    EmitKind::LLVM));
                           }))
    return std::move(err);
  if (auto smem = module->getAttrOfType<mlir::IntegerAttr>(
          tilegpu::TileGPUDialect::getSharedMemoryAttrName()))
    result.sharedMemoryBytes = smem.getInt();
  if (options.emit <= EmitKind::TileGPU) {
    llvm::raw_string_ostream os(result.mlir);
    module->print(os);
    return result;
  }

  llvm::LLVMContext llvmContext;
  auto llvmModule = translateToLLVMIR(module, llvmContext, options.target);
  if (!llvmModule)
    return llvmModule.takeError();
  if (dumps.enabled())
    dumps.write("llvm-ir.ll", [&](llvm::raw_ostream &os) { (*llvmModule)->print(os, nullptr); });
  if (auto err = linkLibdevice(**llvmModule))
    return std::move(err);
  if (auto err = optimizeLLVMIR(**llvmModule, options.target))
    return std::move(err);
  {
    llvm::raw_string_ostream os(result.llvmIR);
    (*llvmModule)->print(os, nullptr);
  }
  if (dumps.enabled())
    dumps.write("llvm-ir-opt.ll", [&](llvm::raw_ostream &os) { os << result.llvmIR; });
  if (options.emit == EmitKind::LLVM)
    return result;

  auto ptx = emitPTX(**llvmModule, options.target);
  if (!ptx)
    return ptx.takeError();
  result.ptx = std::move(*ptx);
  if (dumps.enabled())
    dumps.write("kernel.ptx", [&](llvm::raw_ostream &os) { os << result.ptx; });
  if (options.emit == EmitKind::PTX)
    return result;

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
  auto assembled = runPtxas(ptxas, result.ptx, options.target.chip);
  if (!assembled)
    return assembled.takeError();
  result.ptxas = std::move(*assembled);
  if (dumps.enabled())
    dumps.write("ptxas.log", [&](llvm::raw_ostream &os) { os << result.ptxas->log; });
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
  return llvm::json::Object{
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
      {"cluster_dims", llvm::json::Array{1, 1, 1}},
      {"source", llvm::json::Object{{"path", kernel.sourcePath},
                                    {"hash", kernel.sourceHash}}},
      {"signature", kernel.signature},
      {"parameters", std::move(params)},
      {"hidden_parameters", llvm::json::Array{}},
      {"ptxas", std::move(ptxas)},
      {"artifacts", std::move(files)},
  };
}
