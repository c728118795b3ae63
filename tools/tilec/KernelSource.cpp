//===- KernelSource.cpp - reading the kernel a tilec command works on -----===//
//
// Part of tilec, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#include "KernelSource.h"

#include "tilec/Compiler/Compiler.h"
#include "tilec/Dialect/Tile/IR/Tile.h"
#include "tilec/Frontend/Frontend.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SHA256.h"
#include "llvm/Support/WithColor.h"

#include <cstdlib>

using namespace tilec;
using namespace tilec::tool;

int tool::fail(const llvm::Twine &message) {
  llvm::WithColor::error(llvm::errs(), "tilec") << message << "\n";
  return 1;
}

/// The interface of a kernel given directly in the tile dialect: its
/// arguments, named arg0, arg1, …
static mlir::FailureOr<KernelInterface>
interfaceFromMLIR(mlir::ModuleOp module, llvm::StringRef wanted) {
  mlir::func::FuncOp kernel;
  for (auto func : module.getOps<mlir::func::FuncOp>())
    if (wanted.empty() ? func->hasAttr(tile::kKernelAttrName)
                       : func.getName() == wanted)
      kernel = func;
  if (!kernel) {
    module.emitError() << (wanted.empty()
                               ? "no function marked 'tile.kernel' in the module"
                               : ("no function named '" + wanted + "'").str());
    return mlir::failure();
  }
  kernel->setAttr(tile::kKernelAttrName, mlir::UnitAttr::get(module.getContext()));
  KernelInterface interface;
  interface.name = kernel.getName().str();
  for (unsigned i = 0, e = kernel.getNumArguments(); i < e; ++i) {
    KernelParameter param;
    param.name = "arg" + std::to_string(i);
    mlir::Type type = kernel.getArgument(i).getType();
    if (auto ptr = llvm::dyn_cast<tile::PointerType>(type)) {
      param.kind = KernelParameter::Kind::Pointer;
      param.type = getSignatureTypeName(ptr.getPointeeType());
    } else {
      param.kind = KernelParameter::Kind::Scalar;
      param.type = getSignatureTypeName(type);
    }
    if (auto div = kernel.getArgAttrOfType<mlir::IntegerAttr>(
            i, tile::kDivisibilityAttrName))
      param.divisibility = div.getInt();
    interface.parameters.push_back(param);
  }
  return interface;
}

KernelSource::~KernelSource() = default;

std::unique_ptr<KernelSource> KernelSource::load(llvm::StringRef path,
                                                 llvm::StringRef kernelName,
                                                 llvm::StringRef signature,
                                                 mlir::MLIRContext &context,
                                                 unsigned errorLimit,
                                                 const frontend::EmitOptions &emitOptions) {
  auto buffer = llvm::MemoryBuffer::getFileOrSTDIN(path, /*IsText=*/true);
  if (!buffer) {
    fail("cannot read '" + path + "': " + buffer.getError().message());
    return nullptr;
  }
  std::unique_ptr<KernelSource> source(new KernelSource());
  std::string sourceHash =
      llvm::toHex(llvm::SHA256::hash(llvm::arrayRefFromStringRef(
                      (*buffer)->getBuffer())),
                  /*LowerCase=*/true);
  unsigned bufferId =
      source->srcMgr_.AddNewSourceBuffer(std::move(*buffer), llvm::SMLoc());
  source->diagHandler_ = std::make_unique<mlir::SourceMgrDiagnosticHandler>(
      source->srcMgr_, &context);
  // A .tile author gets the message at the source line, not the IR op it
  // was found on (kept for .mlir inputs, whose authors read IR).
  // (Set both ways: a batch reads .tile and .mlir inputs in one context.)
  context.printOpOnDiagnostic(path.ends_with(".mlir"));

  if (path.ends_with(".mlir")) {
    source->module_ =
        mlir::parseSourceFile<mlir::ModuleOp>(source->srcMgr_, &context);
    if (!source->module_)
      return nullptr;
    auto derived = interfaceFromMLIR(*source->module_, kernelName);
    if (mlir::failed(derived))
      return nullptr;
    source->interface_ = *derived;
    if (!signature.empty()) {
      fail("--signature applies to .tile and .py input; a .mlir module "
           "already gives the kernel's argument types");
      return nullptr;
    }
  } else {
    frontend::SourceMgrDiagnosticSink diags(source->srcMgr_, llvm::errs());
    diags.setErrorLimit(errorLimit);
    auto kernel = frontend::emitKernel(source->srcMgr_, bufferId, kernelName,
                                       signature, context, diags,
                                       emitOptions);
    if (mlir::failed(kernel))
      return nullptr;
    source->module_ = std::move(kernel->module);
    source->interface_ = std::move(kernel->interface);
  }
  source->interface_.sourcePath = path.str();
  source->interface_.sourceHash = sourceHash;
  return source;
}

frontend::EmitOptions tool::getEmitOptions(bool debugFlag) {
  frontend::EmitOptions options;
  const char *env = std::getenv("TRITON_DEBUG");
  options.debug = debugFlag || (env && llvm::StringRef(env) == "1");
  return options;
}
