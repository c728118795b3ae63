//===- TileGPUOps.cpp - tilegpu dialect operations ------------------------===//
//
// Part of tilec, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#include "tilec/Dialect/TileGPU/IR/TileGPU.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"

using namespace mlir;
using namespace tilec;
using namespace tilec::tilegpu;

OpFoldResult ConvertLayoutOp::fold(FoldAdaptor adaptor) {
  if (getSrc().getType() == getResult().getType())
    return getSrc();
  if (auto splat = dyn_cast_if_present<SplatElementsAttr>(adaptor.getSrc()))
    return SplatElementsAttr::get(getResult().getType(),
                                  splat.getSplatValue<Attribute>());
  // convert(convert(x)) == convert(x), and folds away when it returns to x.
  if (auto inner = getSrc().getDefiningOp<ConvertLayoutOp>()) {
    if (inner.getSrc().getType() == getResult().getType())
      return inner.getSrc();
    getSrcMutable().assign(inner.getSrc());
    return getResult();
  }
  return {};
}

namespace {
/// convert_layout of a value that costs nothing to recompute (splat,
/// make_range) recomputes it directly in the new layout.
struct RematerializeCheapSource : OpRewritePattern<ConvertLayoutOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ConvertLayoutOp op,
                                PatternRewriter &rewriter) const override {
    Operation *def = op.getSrc().getDefiningOp();
    if (auto splat = dyn_cast_if_present<tile::SplatOp>(def)) {
      rewriter.replaceOpWithNewOp<tile::SplatOp>(op, op.getType(),
                                                 splat.getSrc());
      return success();
    }
    if (auto range = dyn_cast_if_present<tile::MakeRangeOp>(def)) {
      rewriter.replaceOpWithNewOp<tile::MakeRangeOp>(
          op, op.getType(), range.getStartAttr(), range.getEndAttr());
      return success();
    }
    return rewriter.notifyMatchFailure(op, "source is not cheap to recompute");
  }
};
} // namespace

void ConvertLayoutOp::getCanonicalizationPatterns(RewritePatternSet &patterns,
                                                  MLIRContext *context) {
  patterns.add<RematerializeCheapSource>(context);
}

//===----------------------------------------------------------------------===//
// TMA and wgmma
//===----------------------------------------------------------------------===//

LogicalResult TMALoadOp::verify() {
  auto tile = getDst().getType().getTileType();
  auto desc = getDesc().getType().getBlockType();
  if (desc.getShape() != tile.getShape() ||
      desc.getElementType() != tile.getElementType())
    return emitOpError() << "descriptor block " << desc << " and shared tile "
                         << tile << " must agree";
  if (desc.getRank() != 2)
    return emitOpError("TMA loads of rank other than 2 are not supported yet");
  if (static_cast<int64_t>(getCoords().size()) != desc.getRank())
    return emitOpError() << "expects " << desc.getRank() << " coordinates, got "
                         << getCoords().size();
  return success();
}

LogicalResult WarpgroupDotOp::verify() {
  auto a = getA().getType().getTileType(), b = getB().getType().getTileType();
  auto c = getC().getType();
  if (!isa<WarpgroupMMAEncodingAttr>(c.getEncoding()))
    return emitOpError("the accumulator must be in a #tilegpu.wgmma layout");
  if (a.getRank() != 2 || b.getRank() != 2 || c.getRank() != 2 ||
      a.getDimSize(1) != b.getDimSize(0) || a.getDimSize(0) != c.getDimSize(0) ||
      b.getDimSize(1) != c.getDimSize(1))
    return emitOpError() << "shapes " << a << " @ " << b << " -> " << c
                         << " do not form a matrix product";
  return success();
}

#define GET_OP_CLASSES
#include "tilec/Dialect/TileGPU/IR/TileGPUOps.cpp.inc"
