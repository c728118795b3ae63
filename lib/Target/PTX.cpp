//===- PTX.cpp - LLVM dialect to PTX --------------------------------------===//
//
// Part of tilec, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#include "tilec/Target/PTX.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/IR/LLVMContext.h"
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

static void initializeNVPTX() {
  static std::once_flag once;
  std::call_once(once, [] {
    LLVMInitializeNVPTXTargetInfo();
    LLVMInitializeNVPTXTarget();
    LLVMInitializeNVPTXTargetMC();
    LLVMInitializeNVPTXAsmPrinter();
  });
}

static llvm::Expected<std::unique_ptr<llvm::TargetMachine>>
createTargetMachine(const PTXTarget &target) {
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
  std::unique_ptr<llvm::TargetMachine> machine(nvptx->createTargetMachine(
      triple, target.chip, target.features, llvm::TargetOptions(),
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
  auto machine = createTargetMachine(target);
  if (!machine)
    return machine.takeError();
  llvmModule->setTargetTriple(llvm::Triple(kTriple));
  llvmModule->setDataLayout((*machine)->createDataLayout());
  return std::move(llvmModule);
}

llvm::Error tilec::optimizeLLVMIR(llvm::Module &module, const PTXTarget &target) {
  auto machine = createTargetMachine(target);
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
                                           const PTXTarget &target) {
  auto machine = createTargetMachine(target);
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
