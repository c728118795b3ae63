//===- ViewOpToLinalg.cpp - tile creation and shape ops -------------------===//
//
// Part of tilec, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// make_range, splat, broadcast, expand_dims, trans and value bitcasts become
// `linalg.generic`s whose indexing maps do the shape work (so that
// elementwise fusion removes most of them); reshape becomes a collapse to
// one dimension and an expansion, which keeps row-major order.
//
//===----------------------------------------------------------------------===//

#include "TileToLinalgSupport.h"

#include "tilec/Dialect/Tile/IR/Tile.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace tilec;
using namespace tilec::cpu;

namespace {

/// The converted type of `type` as a ranked tensor.
RankedTensorType convertTensorType(const TypeConverter *converter, Type type) {
  return dyn_cast_or_null<RankedTensorType>(converter->convertType(type));
}

struct MakeRangeOpLowering : OpConversionPattern<tile::MakeRangeOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(tile::MakeRangeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto type = op.getType();
    int32_t start = op.getStart();
    Value range = buildParallelGeneric(
        rewriter, op.getLoc(), type, {}, {},
        [&](OpBuilder &b, Location loc, ValueRange) -> Value {
          Value index = linalg::IndexOp::create(b, loc, 0);
          Value value = arith::IndexCastOp::create(b, loc, b.getI32Type(),
                                                   index);
          if (start == 0)
            return value;
          return arith::AddIOp::create(
              b, loc, value,
              arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(start)));
        });
    rewriter.replaceOp(op, range);
    return success();
  }
};

struct SplatOpLowering : OpConversionPattern<tile::SplatOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(tile::SplatOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType type = convertTensorType(getTypeConverter(), op.getType());
    if (!type)
      return rewriter.notifyMatchFailure(op, "unconvertible type");
    Value scalar = adaptor.getSrc();
    // The scalar is captured by the body: fusion then folds it into every
    // consumer as a plain value.
    rewriter.replaceOp(
        op, buildParallelGeneric(
                rewriter, op.getLoc(), type, {}, {},
                [&](OpBuilder &, Location, ValueRange) { return scalar; }));
    return success();
  }
};

struct BroadcastOpLowering : OpConversionPattern<tile::BroadcastOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(tile::BroadcastOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType type = convertTensorType(getTypeConverter(), op.getType());
    if (!type)
      return rewriter.notifyMatchFailure(op, "unconvertible type");
    ArrayRef<int64_t> srcShape = op.getSrc().getType().getShape();
    // A repeated dimension always reads index 0 of the source.
    SmallVector<AffineExpr> exprs;
    for (auto [d, size] : llvm::enumerate(srcShape))
      exprs.push_back(size == 1 && type.getDimSize(d) != 1
                          ? rewriter.getAffineConstantExpr(0)
                          : rewriter.getAffineDimExpr(d));
    AffineMap map =
        AffineMap::get(type.getRank(), 0, exprs, rewriter.getContext());
    rewriter.replaceOp(
        op, buildCopyGeneric(rewriter, op.getLoc(), type, adaptor.getSrc(), map));
    return success();
  }
};

struct ExpandDimsOpLowering : OpConversionPattern<tile::ExpandDimsOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(tile::ExpandDimsOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType type = convertTensorType(getTypeConverter(), op.getType());
    if (!type)
      return rewriter.notifyMatchFailure(op, "unconvertible type");
    // The source is indexed by every result dimension but the new one.
    SmallVector<AffineExpr> exprs;
    for (unsigned d = 0, e = type.getRank(); d < e; ++d)
      if (d != static_cast<unsigned>(op.getAxis()))
        exprs.push_back(rewriter.getAffineDimExpr(d));
    AffineMap map =
        AffineMap::get(type.getRank(), 0, exprs, rewriter.getContext());
    rewriter.replaceOp(
        op, buildCopyGeneric(rewriter, op.getLoc(), type, adaptor.getSrc(), map));
    return success();
  }
};

struct TransOpLowering : OpConversionPattern<tile::TransOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(tile::TransOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType type = convertTensorType(getTypeConverter(), op.getType());
    if (!type)
      return rewriter.notifyMatchFailure(op, "unconvertible type");
    // Result dimension i is source dimension order[i]: the source's
    // dimension order[i] is indexed by loop i.
    ArrayRef<int32_t> order = op.getOrder();
    SmallVector<AffineExpr> exprs(order.size());
    for (auto [i, source] : llvm::enumerate(order))
      exprs[source] = rewriter.getAffineDimExpr(i);
    AffineMap map =
        AffineMap::get(type.getRank(), 0, exprs, rewriter.getContext());
    rewriter.replaceOp(
        op, buildCopyGeneric(rewriter, op.getLoc(), type, adaptor.getSrc(), map));
    return success();
  }
};

struct ReshapeOpLowering : OpConversionPattern<tile::ReshapeOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(tile::ReshapeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType type = convertTensorType(getTypeConverter(), op.getType());
    if (!type)
      return rewriter.notifyMatchFailure(op, "unconvertible type");
    Location loc = op.getLoc();
    Value value = adaptor.getSrc();
    auto srcType = cast<RankedTensorType>(value.getType());
    // Row-major order is kept through a 1-d view (allow_reorder does not
    // need to reorder anything here).
    auto allDims = [](unsigned rank) {
      ReassociationIndices group;
      for (unsigned d = 0; d < rank; ++d)
        group.push_back(d);
      return SmallVector<ReassociationIndices>{group};
    };
    if (srcType.getRank() != 1) {
      auto flat = RankedTensorType::get({srcType.getNumElements()},
                                        srcType.getElementType());
      value = tensor::CollapseShapeOp::create(rewriter, loc, flat, value,
                                              allDims(srcType.getRank()));
    }
    if (type.getRank() != 1)
      value = tensor::ExpandShapeOp::create(rewriter, loc, type, value,
                                            allDims(type.getRank()));
    rewriter.replaceOp(op, value);
    return success();
  }
};

/// Value bitcasts (`x.to(tl.int32, bitcast=True)`); pointer casts only
/// rename the pointee, so the address is unchanged.
struct BitcastOpLowering : OpConversionPattern<tile::BitcastOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(tile::BitcastOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Type resultType = getTypeConverter()->convertType(op.getType());
    if (!resultType)
      return rewriter.notifyMatchFailure(op, "unconvertible type");
    Value src = adaptor.getSrc();
    if (src.getType() == resultType) {
      rewriter.replaceOp(op, src);
      return success();
    }
    auto tensorType = dyn_cast<RankedTensorType>(resultType);
    if (!tensorType) {
      rewriter.replaceOpWithNewOp<arith::BitcastOp>(op, resultType, src);
      return success();
    }
    Type elementType = tensorType.getElementType();
    rewriter.replaceOp(op,
                       buildElementwiseGeneric(
                           rewriter, op.getLoc(), tensorType, src,
                           [&](OpBuilder &b, Location loc, ValueRange args) {
                             return arith::BitcastOp::create(b, loc,
                                                             elementType,
                                                             args[0]);
                           }));
    return success();
  }
};

} // namespace

void cpu::populateViewOpToLinalgPatterns(TileToLinalgTypeConverter &converter,
                                         RewritePatternSet &patterns) {
  patterns.add<MakeRangeOpLowering, SplatOpLowering, BroadcastOpLowering,
               ExpandDimsOpLowering, TransOpLowering, ReshapeOpLowering,
               BitcastOpLowering>(converter, patterns.getContext());
}
