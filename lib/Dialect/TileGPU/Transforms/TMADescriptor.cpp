//===- TMADescriptor.cpp - a kernel argument describing a TMA box ---------===//
//
// Part of tilec, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#include "tilec/Dialect/TileGPU/Transforms/TMADescriptor.h"

#include "tilec/Dialect/TileGPU/IR/SharedLayout.h"
#include "tilec/Dialect/TileGPU/IR/TileGPU.h"

using namespace mlir;
using namespace tilec;
using namespace tilec::tilegpu;

RankedTensorType tilegpu::getBufferTile(RankedTensorType type, bool transposed) {
  SmallVector<int64_t> shape(type.getShape());
  if (transposed)
    std::swap(shape[0], shape[1]);
  return RankedTensorType::get(shape, type.getElementType());
}

FailureOr<Value> tilegpu::addTMADescriptorArgument(func::FuncOp func, const TMABox &box,
                                                   RankedTensorType bufferTile,
                                                   Location loc) {
  MLIRContext *ctx = func.getContext();
  Builder b(ctx);
  int64_t eltBytes = bufferTile.getElementTypeBitWidth() / 8;
  auto shared = SharedTileLayout::get(bufferTile.getDimSize(0), bufferTile.getDimSize(1),
                                      eltBytes);
  auto term = [&](const AffineTerm &t) {
    return TMATermAttr::get(ctx, t.factor, t.args);
  };
  SmallVector<TMATermAttr> sizes, strides;
  SmallVector<int64_t> boxDims;
  for (const TMABox::Dim &dim : box.dims) {
    sizes.push_back(term(dim.size));
    strides.push_back(term(dim.stride));
    boxDims.push_back(dim.tileDim < 0 ? 1 : 0);
  }
  boxDims[0] = shared.getBlockCols();
  boxDims[1] = bufferTile.getDimSize(0);
  auto recipe = TMARecipeAttr::get(ctx, box.baseArg, box.element, sizes, strides, boxDims,
                                   shared.swizzleBytes, box.nanFill, box.nonNegativeArgs);
  unsigned argIndex = func.getNumArguments();
  if (failed(func.insertArgument(
          argIndex, TMADescriptorType::get(ctx, bufferTile, box.dims.size()),
          b.getDictionaryAttr(b.getNamedAttr(kTMARecipeAttrName, recipe)), loc)))
    return failure();
  return func.getArgument(argIndex);
}

FailureOr<SmallVector<Value>>
tilegpu::materializeTMACoordinates(OpBuilder &b, Location loc, AffineAccessAnalysis &affine,
                                   const TMABox &box) {
  SmallVector<Value> coords;
  for (const TMABox::Dim &dim : llvm::reverse(box.dims)) {
    FailureOr<Value> coord = affine.materialize(b, loc, dim.coord);
    if (failed(coord))
      return failure();
    coords.push_back(*coord);
  }
  return coords;
}
