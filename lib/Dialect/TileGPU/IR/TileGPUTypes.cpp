//===- TileGPUTypes.cpp - tilegpu types -----------------------------------===//
//
// Part of tilec, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#include "tilec/Dialect/TileGPU/IR/TileGPU.h"

#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace tilec::tilegpu;

#define GET_TYPEDEF_CLASSES
#include "tilec/Dialect/TileGPU/IR/TileGPUTypes.cpp.inc"

int64_t SharedMemoryType::getBufferBytes() const {
  RankedTensorType tile = getTileType();
  int64_t bytes = tile.getNumElements() *
                  std::max<int64_t>(1, tile.getElementTypeBitWidth() / 8);
  return llvm::alignTo(bytes, 1024);
}

SharedTileLayout SharedMemoryType::getLayout() const {
  RankedTensorType tile = getTileType();
  return SharedTileLayout::get(tile.getDimSize(0), tile.getDimSize(1),
                               tile.getElementTypeBitWidth() / 8);
}

void TileGPUDialect::registerTypes() {
  addTypes<
#define GET_TYPEDEF_LIST
#include "tilec/Dialect/TileGPU/IR/TileGPUTypes.cpp.inc"
      >();
}
