//===- SharedLayout.cpp - swizzled shared-memory tiles for wgmma ----------===//
//
// Part of tilec, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#include "tilec/Dialect/TileGPU/IR/SharedLayout.h"

#include <algorithm>

using namespace tilec::tilegpu;

SharedTileLayout SharedTileLayout::get(int64_t rows, int64_t cols,
                                       int64_t elementBytes) {
  SharedTileLayout layout;
  layout.rows = rows;
  layout.cols = cols;
  layout.elementBytes = elementBytes;
  layout.swizzleBytes = std::min<int64_t>(128, cols * elementBytes);
  return layout;
}

uint64_t SharedTileLayout::getDescriptorBits() const {
  uint64_t leading = static_cast<uint64_t>(rows * swizzleBytes) >> 4;
  uint64_t stride = static_cast<uint64_t>(8 * swizzleBytes) >> 4;
  uint64_t mode = swizzleBytes == 128 ? 1 : swizzleBytes == 64 ? 2 : 3;
  return ((leading & 0x3fff) << 16) | ((stride & 0x3fff) << 32) | (mode << 62);
}
