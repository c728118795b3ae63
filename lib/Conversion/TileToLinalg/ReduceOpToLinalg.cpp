//===- ReduceOpToLinalg.cpp - tile.reduce as a linalg.generic -------------===//
//
// Part of tilec, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// A combine region has no identity element, so the accumulators start as the
// first slice of each source along the axis (copied by a parallel generic)
// and one generic with a reduction dimension folds in the remaining slices
// with the combine region as its body: the region's accumulated arguments
// are the generic's outputs, its new arguments the inputs. Its float ops are
// marked `reassoc`, so LLVM may split the fold into vectorized partial
// results; the GPU combines in a tree. Any order is valid for an associative
// and commutative region, and the tolerances of DESIGN.md §6 cover the
// rounding difference. Index-carrying reductions (argmax) break ties in the
// region, so they agree exactly.
//
//===----------------------------------------------------------------------===//

#include "TileToLinalgSupport.h"

#include "tilec/Dialect/Tile/IR/Tile.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"

using namespace mlir;
using namespace tilec;
using namespace tilec::cpu;

namespace {

struct ReduceOpLowering : OpConversionPattern<tile::ReduceOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(tile::ReduceOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    ValueRange srcs = adaptor.getSrcs();
    auto srcType = cast<RankedTensorType>(srcs.front().getType());
    unsigned rank = srcType.getRank();
    unsigned axis = op.getAxis();
    int64_t extent = srcType.getDimSize(axis);

    // Accumulators: slice 0 along the axis, one tensor per source (rank 0
    // for a 1-d source).
    SmallVector<int64_t> accShape;
    SmallVector<AffineExpr> sliceExprs;
    for (unsigned d = 0, next = 0; d < rank; ++d) {
      if (d == axis) {
        sliceExprs.push_back(getAffineConstantExpr(0, ctx));
        continue;
      }
      accShape.push_back(srcType.getDimSize(d));
      sliceExprs.push_back(getAffineDimExpr(next++, ctx));
    }
    AffineMap sliceMap = AffineMap::get(rank - 1, 0, sliceExprs, ctx);
    SmallVector<Value> accs;
    for (Value src : srcs) {
      auto type = cast<RankedTensorType>(src.getType());
      auto accType = RankedTensorType::get(accShape, type.getElementType());
      accs.push_back(buildCopyGeneric(rewriter, loc, accType, src, sliceMap));
    }

    SmallVector<Value> results = accs;
    if (extent > 1) {
      // The remaining slices [1, extent) of every source.
      SmallVector<OpFoldResult> offsets(rank, rewriter.getIndexAttr(0));
      SmallVector<OpFoldResult> sizes, strides(rank, rewriter.getIndexAttr(1));
      for (int64_t size : srcType.getShape())
        sizes.push_back(rewriter.getIndexAttr(size));
      offsets[axis] = rewriter.getIndexAttr(1);
      sizes[axis] = rewriter.getIndexAttr(extent - 1);
      SmallVector<Value> rest;
      for (Value src : srcs)
        rest.push_back(tensor::ExtractSliceOp::create(rewriter, loc, src,
                                                      offsets, sizes, strides));

      SmallVector<AffineExpr> accExprs;
      for (unsigned d = 0; d < rank; ++d)
        if (d != axis)
          accExprs.push_back(getAffineDimExpr(d, ctx));
      SmallVector<AffineMap> maps(srcs.size(),
                                  AffineMap::getMultiDimIdentityMap(rank, ctx));
      maps.append(srcs.size(), AffineMap::get(rank, 0, accExprs, ctx));
      SmallVector<utils::IteratorType> iterators(rank,
                                                 utils::IteratorType::parallel);
      iterators[axis] = utils::IteratorType::reduction;

      Block &combine = op.getCombineOp().front();
      unsigned numSrcs = srcs.size();
      auto generic = linalg::GenericOp::create(
          rewriter, loc, ValueRange(accs).getTypes(), rest, accs, maps,
          iterators, [&](OpBuilder &b, Location l, ValueRange args) {
            // Region (acc..., new...) <- generic (in..., out...).
            IRMapping mapping;
            for (unsigned i = 0; i < numSrcs; ++i) {
              mapping.map(combine.getArgument(i), args[numSrcs + i]);
              mapping.map(combine.getArgument(numSrcs + i), args[i]);
            }
            for (Operation &inner : combine.without_terminator()) {
              Operation *cloned = b.clone(inner, mapping);
              // The region is associative and commutative: LLVM may
              // reassociate (vectorize) the fold.
              if (auto fastmath =
                      dyn_cast<arith::ArithFastMathInterface>(cloned))
                cloned->setAttr(
                    fastmath.getFastMathAttrName(),
                    arith::FastMathFlagsAttr::get(
                        b.getContext(), fastmath.getFastMathFlagsAttr()
                                                .getValue() |
                                            arith::FastMathFlags::reassoc));
            }
            SmallVector<Value> yielded;
            for (Value v : combine.getTerminator()->getOperands())
              yielded.push_back(mapping.lookupOrDefault(v));
            linalg::YieldOp::create(b, l, yielded);
          });
      results.assign(generic.getResults().begin(), generic.getResults().end());
    }

    // A 1-d source reduces to scalars.
    if (rank == 1)
      for (Value &result : results)
        result = tensor::ExtractOp::create(rewriter, loc, result, ValueRange{});
    rewriter.replaceOp(op, results);
    return success();
  }
};

} // namespace

void cpu::populateReduceOpToLinalgPatterns(
    TileToLinalgTypeConverter &converter, RewritePatternSet &patterns) {
  patterns.add<ReduceOpLowering>(converter, patterns.getContext());
}
