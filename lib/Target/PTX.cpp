//===- PTX.cpp - LLVM dialect to PTX --------------------------------------===//
//
// Part of tilec, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#include "tilec/Target/PTX.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Bitcode/BitcodeReader.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/Linker/Linker.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/Verifier.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/TargetParser/Triple.h"

#include <mutex>

using namespace tilec;

static constexpr llvm::StringLiteral kTriple = "nvptx64-nvidia-cuda";

std::string PTXTarget::getPTXVersion() const {
  llvm::StringRef digits = llvm::StringRef(features).drop_front(4); // "+ptx"
  if (digits.size() < 2)
    return digits.str();
  return (digits.drop_back(1) + "." + digits.take_back(1)).str();
}

std::optional<unsigned> tilec::getSmVersion(llvm::StringRef arch) {
  unsigned sm = 0;
  if (!arch.consume_front("sm_"))
    return std::nullopt;
  arch.consume_back("a");
  if (arch.getAsInteger(10, sm))
    return std::nullopt;
  return sm;
}

bool tilec::hasVectorReductions(const PTXTarget &target) {
  std::optional<unsigned> sm = getSmVersion(target.chip);
  unsigned ptx = 0;
  if (!sm || llvm::StringRef(target.features).drop_front(4).getAsInteger(10, ptx))
    return false;
  return *sm >= 90 && ptx >= 81;
}

static void initializeNVPTX() {
  static std::once_flag once;
  std::call_once(once, [] {
    LLVMInitializeNVPTXTargetInfo();
    LLVMInitializeNVPTXTarget();
    LLVMInitializeNVPTXTargetMC();
    LLVMInitializeNVPTXAsmPrinter();
  });
}

/// A target machine for `target`; `fpFusion` as emitPTX's.
static llvm::Expected<std::unique_ptr<llvm::TargetMachine>>
createTargetMachine(const PTXTarget &target, bool fpFusion) {
  initializeNVPTX();
  llvm::Triple triple(kTriple);
  std::string error;
  const llvm::Target *nvptx = llvm::TargetRegistry::lookupTarget(triple, error);
  if (!nvptx)
    return llvm::createStringError("NVPTX target unavailable: " + error);
  llvm::CodeGenOptLevel level = target.optLevel >= 3 ? llvm::CodeGenOptLevel::Aggressive
                                : target.optLevel == 2 ? llvm::CodeGenOptLevel::Default
                                : target.optLevel == 1 ? llvm::CodeGenOptLevel::Less
                                                       : llvm::CodeGenOptLevel::None;
  llvm::TargetOptions options;
  options.AllowFPOpFusion =
      fpFusion ? llvm::FPOpFusion::Fast : llvm::FPOpFusion::Strict;
  std::unique_ptr<llvm::TargetMachine> machine(nvptx->createTargetMachine(
      triple, target.chip, target.features, options,
      /*RM=*/std::nullopt, /*CM=*/std::nullopt, level));
  if (!machine)
    return llvm::createStringError("cannot create an NVPTX target machine for " +
                                   target.chip);
  return machine;
}

llvm::Expected<std::unique_ptr<llvm::Module>>
tilec::translateToLLVMIR(mlir::ModuleOp module, llvm::LLVMContext &context,
                         const PTXTarget &target) {
  std::unique_ptr<llvm::Module> llvmModule =
      mlir::translateModuleToLLVMIR(module, context, "tilec");
  if (!llvmModule)
    return llvm::createStringError(
        "translation to LLVM IR failed (see the errors above)");
  // Only the data layout is read: it does not depend on fp fusion.
  auto machine = createTargetMachine(target, /*fpFusion=*/true);
  if (!machine)
    return machine.takeError();
  llvmModule->setTargetTriple(llvm::Triple(kTriple));
  llvmModule->setDataLayout((*machine)->createDataLayout());
  return std::move(llvmModule);
}

std::optional<std::string> tilec::findLibdevice() {
  if (const char *env = std::getenv("TILEC_LIBDEVICE"))
    return llvm::sys::fs::exists(env) ? std::optional<std::string>(env)
                                      : std::nullopt;
  const char *cudaHome = std::getenv("CUDA_HOME");
  for (const char *root : {cudaHome, "/usr/local/cuda"}) {
    if (!root)
      continue;
    llvm::SmallString<256> path(root);
    llvm::sys::path::append(path, "nvvm", "libdevice", "libdevice.10.bc");
    if (llvm::sys::fs::exists(path))
      return path.str().str();
  }
  return std::nullopt;
}

llvm::Error tilec::linkLibdevice(llvm::Module &module) {
  bool needed = llvm::any_of(module.functions(), [](llvm::Function &f) {
    return f.isDeclaration() && f.getName().starts_with("__nv_");
  });
  if (!needed)
    return llvm::Error::success();
  std::optional<std::string> path = findLibdevice();
  if (!path)
    return llvm::createStringError(
        "the kernel calls CUDA libdevice math functions but libdevice.10.bc "
        "was not found (set TILEC_LIBDEVICE or CUDA_HOME)");
  auto buffer = llvm::MemoryBuffer::getFile(*path);
  if (!buffer)
    return llvm::createStringError(buffer.getError(), "cannot read " + *path);
  auto libdevice = llvm::parseBitcodeFile((*buffer)->getMemBufferRef(),
                                          module.getContext());
  if (!libdevice)
    return libdevice.takeError();
  (*libdevice)->setTargetTriple(module.getTargetTriple());
  (*libdevice)->setDataLayout(module.getDataLayout());
  bool failed = llvm::Linker::linkModules(
      module, std::move(*libdevice), llvm::Linker::Flags::LinkOnlyNeeded,
      [](llvm::Module &linked, const llvm::StringSet<> &names) {
        for (llvm::Function &f : linked.functions())
          if (!f.isDeclaration() && names.contains(f.getName()))
            f.setLinkage(llvm::GlobalValue::InternalLinkage);
      });
  if (failed)
    return llvm::createStringError("linking " + *path + " failed");
  // libdevice asks __nvvm_reflect whether denormals flush to zero: they do not.
  module.addModuleFlag(llvm::Module::Override, "nvvm-reflect-ftz", uint32_t(0));
  return llvm::Error::success();
}

llvm::Error tilec::optimizeLLVMIR(llvm::Module &module, const PTXTarget &target,
                                  bool fpFusion) {
  auto machine = createTargetMachine(target, fpFusion);
  if (!machine)
    return machine.takeError();
  if (target.optLevel == 0)
    return llvm::Error::success();
  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;
  llvm::PassBuilder builder(machine->get());
  builder.registerModuleAnalyses(mam);
  builder.registerCGSCCAnalyses(cgam);
  builder.registerFunctionAnalyses(fam);
  builder.registerLoopAnalyses(lam);
  builder.crossRegisterProxies(lam, fam, cgam, mam);
  llvm::OptimizationLevel level = target.optLevel >= 3 ? llvm::OptimizationLevel::O3
                                  : target.optLevel == 2 ? llvm::OptimizationLevel::O2
                                                         : llvm::OptimizationLevel::O1;
  llvm::ModulePassManager pipeline = builder.buildPerModuleDefaultPipeline(level);
  pipeline.run(module, mam);
  if (llvm::verifyModule(module, &llvm::errs()))
    return llvm::createStringError("LLVM IR is invalid after optimization");
  return llvm::Error::success();
}

llvm::Expected<std::string> tilec::emitPTX(llvm::Module &module,
                                           const PTXTarget &target,
                                           bool fpFusion) {
  auto machine = createTargetMachine(target, fpFusion);
  if (!machine)
    return machine.takeError();
  std::string ptx;
  {
    llvm::raw_string_ostream os(ptx);
    llvm::buffer_ostream stream(os);
    llvm::legacy::PassManager pm;
    if ((*machine)->addPassesToEmitFile(pm, stream, nullptr,
                                        llvm::CodeGenFileType::AssemblyFile))
      return llvm::createStringError("NVPTX cannot emit assembly");
    pm.run(module);
  }
  return ptx;
}
