//===- TileGPUDialect.cpp - tilegpu dialect registration ------------------===//
//
// Part of tilec, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#include "tilec/Dialect/TileGPU/IR/TileGPU.h"

#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace tilec::tilegpu;

#include "tilec/Dialect/TileGPU/IR/TileGPUDialect.cpp.inc"

namespace {
/// Prints layouts as `#blocked`, `#blocked1`, `#slice`… aliases so that IR
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
        !llvm::isPowerOf2_64(value.getInt()) || value.getInt() > 32)
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
  // Set and consumed by convert-tilegpu-to-llvm: the TMA parameters of the
  // lowered kernel, the scratch base and the kernel-lifetime offsets.
  if (attr.getName() == kTMADescriptorsAttrName) {
    if (!isa<ArrayAttr>(attr.getValue()))
      return op->emitOpError() << "'" << kTMADescriptorsAttrName
                               << "' must be an array";
    return success();
  }
  if (attr.getName() == "tilegpu.scratch_base" || attr.getName() == "tilegpu.offset") {
    if (!isa<IntegerAttr>(attr.getValue()))
      return op->emitOpError() << "'" << attr.getName() << "' must be an integer";
    return success();
  }
  return op->emitOpError() << "unknown tilegpu attribute '" << attr.getName()
                           << "'";
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
