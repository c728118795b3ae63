//===- TileGPUDialect.cpp - tilegpu dialect registration ------------------===//
//
// Part of tilec, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#include "tilec/Dialect/TileGPU/IR/TileGPU.h"

#include "mlir/Dialect/LLVMIR/LLVMTypes.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace tilec::tilegpu;

#include "tilec/Dialect/TileGPU/IR/TileGPUDialect.cpp.inc"

namespace {
/// Prints layouts as `#blocked`, `#blocked1`, `#slice`, `#linear`… aliases so that IR
/// dumps stay readable.
struct TileGPUOpAsmInterface : OpAsmDialectInterface {
  using OpAsmDialectInterface::OpAsmDialectInterface;
  AliasResult getAlias(Attribute attr, raw_ostream &os) const override {
    if (isa<BlockedEncodingAttr>(attr)) {
      os << "blocked";
      return AliasResult::FinalAlias;
    }
    if (isa<SliceEncodingAttr>(attr)) {
      os << "slice";
      return AliasResult::FinalAlias;
    }
    if (isa<LinearEncodingAttr>(attr)) {
      os << "linear";
      return AliasResult::FinalAlias;
    }
    if (isa<WarpgroupMMAEncodingAttr>(attr)) {
      os << "wgmma";
      return AliasResult::FinalAlias;
    }
    if (isa<MMAEncodingAttr>(attr)) {
      os << "mma";
      return AliasResult::FinalAlias;
    }
    return AliasResult::NoAlias;
  }
};
} // namespace

void TileGPUDialect::initialize() {
  addInterfaces<TileGPUOpAsmInterface>();
  registerAttributes();
  registerTypes();
  addOperations<
#define GET_OP_LIST
#include "tilec/Dialect/TileGPU/IR/TileGPUOps.cpp.inc"
      >();
}

LogicalResult TileGPUDialect::verifyOperationAttribute(Operation *op,
                                                       NamedAttribute attr) {
  if (attr.getName() == getNumWarpsAttrName()) {
    auto value = dyn_cast<IntegerAttr>(attr.getValue());
    if (!isa<FunctionOpInterface>(op) || !value ||
        !isValidNumWarps(value.getInt()))
      return op->emitOpError()
             << "'" << getNumWarpsAttrName()
             << "' must be an integer power of two (at most 32) on a function";
    return success();
  }
  if (attr.getName() == getSharedMemoryAttrName()) {
    auto value = dyn_cast<IntegerAttr>(attr.getValue());
    if (!value || value.getInt() < 0)
      return op->emitOpError() << "'" << getSharedMemoryAttrName()
                               << "' must be a non-negative integer";
    return success();
  }
  if (attr.getName() == getClusterDimsAttrName()) {
    auto dims = dyn_cast<DenseI32ArrayAttr>(attr.getValue());
    bool valid = dims && dims.size() == 3 && isa<FunctionOpInterface>(op) &&
                 llvm::all_of(dims.asArrayRef(), [](int32_t d) { return d >= 1; }) &&
                 int64_t(dims[0]) * dims[1] * dims[2] <= 8;
    if (!valid)
      return op->emitOpError()
             << "'" << getClusterDimsAttrName()
             << "' must be three positive integers (at most 8 CTAs in all) on "
                "a function";
    return success();
  }
  if (attr.getName() == getLongestFirstAttrName()) {
    auto value = dyn_cast<IntegerAttr>(attr.getValue());
    if (!isa<FunctionOpInterface>(op) || !value || value.getInt() < 1 ||
        !value.getType().isInteger(32))
      return op->emitOpError() << "'" << getLongestFirstAttrName()
                               << "' must be a positive i32 on a function";
    if (op->hasAttr(getClusterDimsAttrName()))
      return op->emitOpError()
             << "'" << getLongestFirstAttrName() << "' and '"
             << getClusterDimsAttrName()
             << "' exclude each other (a cluster's CTAs are consecutive "
                "programs of axis 0)";
    return success();
  }
  if (attr.getName() == getPersistentAttrName()) {
    // On the kernel (the metadata's `persistent`), or on its loop over
    // programs.
    if (isa<UnitAttr>(attr.getValue()) && isa<FunctionOpInterface>(op)) {
      if (op->hasAttr(getClusterDimsAttrName()))
        return op->emitOpError() << "'" << getPersistentAttrName() << "' and '"
                                 << getClusterDimsAttrName()
                                 << "' exclude each other (a persistent kernel "
                                    "is launched as single CTAs)";
      return success();
    }
    if (!isa<UnitAttr>(attr.getValue()) || !isa<scf::ForOp>(op) ||
        !isa_and_nonnull<FunctionOpInterface, WarpSpecializeOp>(op->getParentOp()))
      return op->emitOpError() << "'" << getPersistentAttrName()
                               << "' must be a unit attribute on a kernel, or "
                                  "on an scf.for directly in a function's body "
                                  "(or in the consumer region of its "
                                  "warp_specialize)";
    return success();
  }
  if (attr.getName() == kScratchOffsetAttrName) {
    auto value = dyn_cast<IntegerAttr>(attr.getValue());
    if (!value || value.getInt() < 0 || value.getInt() % 16 != 0)
      return op->emitOpError() << "'" << kScratchOffsetAttrName
                               << "' must be a non-negative multiple of 16";
    return success();
  }
  return op->emitOpError() << "unknown tilegpu attribute '" << attr.getName()
                           << "'";
}

LogicalResult TileGPUDialect::verifyRegionArgAttribute(Operation *op,
                                                       unsigned regionIndex,
                                                       unsigned argIndex,
                                                       NamedAttribute attr) {
  if (attr.getName() == kProgramGridAttrName) {
    auto axis = dyn_cast<IntegerAttr>(attr.getValue());
    auto func = dyn_cast<FunctionOpInterface>(op);
    if (!axis || !axis.getType().isInteger(32) || axis.getInt() < 0 ||
        axis.getInt() > 2 || !func || regionIndex != 0 ||
        !func.getArgumentTypes()[argIndex].isInteger(32))
      return op->emitOpError() << "'" << kProgramGridAttrName
                               << "' must be an i32 axis (0 to 2) on an i32 "
                                  "function argument";
    return success();
  }
  if (attr.getName() != kTMARecipeAttrName)
    return op->emitOpError() << "unknown tilegpu argument attribute '"
                             << attr.getName() << "'";
  auto recipe = dyn_cast<TMARecipeAttr>(attr.getValue());
  auto func = dyn_cast<FunctionOpInterface>(op);
  if (!recipe || !func || regionIndex != 0)
    return op->emitOpError() << "'" << kTMARecipeAttrName
                             << "' must be a #tilegpu.tma_recipe on a function argument";
  // After the LLVM conversion the argument is the parameter's address.
  Type argType = func.getArgumentTypes()[argIndex];
  auto desc = dyn_cast<TMADescriptorType>(argType);
  if (!desc && !isa<LLVM::LLVMPointerType>(argType))
    return op->emitOpError() << "'" << kTMARecipeAttrName << "' on argument "
                             << argIndex << ", which is not a !tilegpu.tma_desc";
  if (desc && desc.getRank() != recipe.getRank())
    return op->emitOpError() << "TMA descriptor argument " << argIndex
                             << " has rank " << desc.getRank()
                             << " but its recipe " << recipe.getRank();
  if (desc && desc.getBlockType().getElementType() != recipe.getElement())
    return op->emitOpError() << "TMA descriptor argument " << argIndex
                             << ": block and recipe element types differ";
  for (TMATermAttr term : llvm::concat<const TMATermAttr>(recipe.getSizes(), recipe.getStrides()))
    for (unsigned arg : term.getArgs())
      if (arg >= argIndex)
        return op->emitOpError() << "TMA recipe of argument " << argIndex
                               << " reads argument " << arg
                               << ", which is not a kernel parameter before it";
  if (recipe.getBase() >= argIndex)
    return op->emitOpError() << "TMA recipe of argument " << argIndex
                             << ": base argument " << recipe.getBase()
                             << " is not a kernel parameter before it";
  return success();
}

Attribute tilec::tilegpu::getEncoding(Type type) {
  if (auto tensor = dyn_cast<RankedTensorType>(type))
    return tensor.getEncoding();
  return {};
}

std::optional<unsigned> tilec::tilegpu::lookupNumWarps(Operation *op) {
  for (Operation *cur = op; cur; cur = cur->getParentOp())
    if (auto attr = cur->getAttrOfType<IntegerAttr>(
            TileGPUDialect::getNumWarpsAttrName()))
      return attr.getInt();
  return std::nullopt;
}
