//===- ReduceOpToLinalg.cpp - tile.reduce and tile.scan on tensors --------===//
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
// tile.scan is a linear scan: an scf.for over the axis carries the running
// slice (one per source) and the results; each step combines the running
// slice with the next slice of the sources in one elementwise generic (the
// region in order, never reassociated) and inserts it into the results. A
// scan along another axis than the first is a scan of the permuted tiles
// (contiguous slices), permuted back.
//
//===----------------------------------------------------------------------===//

#include "TileToLinalgSupport.h"

#include "tilec/Dialect/Tile/IR/Tile.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
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

struct ScanOpLowering : OpConversionPattern<tile::ScanOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(tile::ScanOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    SmallVector<Value> srcs(adaptor.getSrcs().begin(), adaptor.getSrcs().end());
    auto inType = cast<RankedTensorType>(srcs.front().getType());
    unsigned rank = inType.getRank();
    unsigned inAxis = op.getAxis();
    unsigned numSrcs = srcs.size();
    if (inType.getDimSize(inAxis) == 1) {
      rewriter.replaceOp(op, srcs);
      return success();
    }
    // The scan runs along dimension 0, whose slices are contiguous (slices
    // across the rows would bufferize to strided copies, a runtime call):
    // another axis is first moved there (a copy with permuted indices) and
    // moved back afterwards.
    SmallVector<unsigned> order{inAxis};
    for (unsigned d = 0; d < rank; ++d)
      if (d != inAxis)
        order.push_back(d);
    auto permuted = [&](RankedTensorType type) {
      SmallVector<int64_t> shape;
      for (unsigned d : order)
        shape.push_back(type.getDimSize(d));
      return RankedTensorType::get(shape, type.getElementType());
    };
    if (inAxis != 0) {
      // permuted[t] = src[s] with s[order[i]] = t[i].
      SmallVector<AffineExpr> exprs(rank);
      for (unsigned i = 0; i < rank; ++i)
        exprs[order[i]] = getAffineDimExpr(i, ctx);
      AffineMap map = AffineMap::get(rank, 0, exprs, ctx);
      for (Value &src : srcs)
        src = buildCopyGeneric(rewriter, loc,
                               permuted(cast<RankedTensorType>(src.getType())),
                               src, map);
    }
    auto srcType = cast<RankedTensorType>(srcs.front().getType());
    const unsigned axis = 0;
    int64_t extent = srcType.getDimSize(axis);

    // Slices of one element along the axis (rank kept).
    SmallVector<OpFoldResult> sizes, strides(rank, rewriter.getIndexAttr(1));
    for (int64_t size : srcType.getShape())
      sizes.push_back(rewriter.getIndexAttr(size));
    sizes[axis] = rewriter.getIndexAttr(1);
    auto offsetsAt = [&](OpFoldResult index) {
      SmallVector<OpFoldResult> offsets(rank, rewriter.getIndexAttr(0));
      offsets[axis] = index;
      return offsets;
    };
    auto sliceAt = [&](OpBuilder &b, Value tensor, OpFoldResult index) {
      return tensor::ExtractSliceOp::create(b, loc, tensor, offsetsAt(index),
                                            sizes, strides)
          .getResult();
    };

    // Results start as the sources (their first slice is final); the
    // running slices as the first slice.
    // The running slice starts as a copy of the first slice.
    SmallVector<AffineExpr> firstExprs;
    for (unsigned d = 0; d < rank; ++d)
      firstExprs.push_back(d == axis ? getAffineConstantExpr(
                                           op.getReverse() ? extent - 1 : 0, ctx)
                                     : getAffineDimExpr(d, ctx));
    AffineMap firstMap = AffineMap::get(rank, 0, firstExprs, ctx);
    SmallVector<int64_t> sliceShape(srcType.getShape());
    sliceShape[axis] = 1;
    SmallVector<Value> inits(srcs);
    for (Value src : srcs) {
      auto type = cast<RankedTensorType>(src.getType());
      inits.push_back(buildCopyGeneric(
          rewriter, loc, RankedTensorType::get(sliceShape, type.getElementType()),
          src, firstMap));
    }
    Value lb = arith::ConstantIndexOp::create(rewriter, loc, 1);
    Value ub = arith::ConstantIndexOp::create(rewriter, loc, extent);
    Value step = lb;
    Block &combine = op.getCombineOp().front();
    auto loop = scf::ForOp::create(
        rewriter, loc, lb, ub, step, inits,
        [&](OpBuilder &b, Location l, Value iv, ValueRange iterArgs) {
          Value index = iv;
          if (op.getReverse())
            index = arith::SubIOp::create(
                b, l, arith::ConstantIndexOp::create(b, l, extent - 1), iv);
          SmallVector<Value> inputs = llvm::to_vector(iterArgs.drop_front(numSrcs));
          SmallVector<Value> outputs;
          SmallVector<Type> types;
          for (Value src : srcs) {
            inputs.push_back(sliceAt(b, src, index));
            auto sliceType = cast<RankedTensorType>(inputs.back().getType());
            types.push_back(sliceType);
            outputs.push_back(tensor::EmptyOp::create(
                b, l, sliceType.getShape(), sliceType.getElementType()));
          }
          SmallVector<AffineMap> maps(
              3 * numSrcs, b.getMultiDimIdentityMap(rank));
          SmallVector<utils::IteratorType> iterators(
              rank, utils::IteratorType::parallel);
          auto generic = linalg::GenericOp::create(
              b, l, types, inputs, outputs, maps, iterators,
              [&](OpBuilder &bb, Location ll, ValueRange args) {
                // Region (running..., new...) <- (running..., slice...).
                IRMapping mapping;
                for (unsigned i = 0; i < 2 * numSrcs; ++i)
                  mapping.map(combine.getArgument(i), args[i]);
                for (Operation &inner : combine.without_terminator())
                  bb.clone(inner, mapping);
                SmallVector<Value> yielded;
                for (Value v : combine.getTerminator()->getOperands())
                  yielded.push_back(mapping.lookupOrDefault(v));
                linalg::YieldOp::create(bb, ll, yielded);
              });
          SmallVector<Value> next;
          for (unsigned i = 0; i < numSrcs; ++i)
            next.push_back(tensor::InsertSliceOp::create(
                b, l, generic.getResult(i), iterArgs[i], offsetsAt(index),
                sizes, strides));
          next.append(generic.getResults().begin(), generic.getResults().end());
          scf::YieldOp::create(b, l, next);
        });
    SmallVector<Value> results(loop.getResults().take_front(numSrcs));
    if (inAxis != 0) {
      // result[s] = permuted[t] with t[i] = s[order[i]].
      SmallVector<AffineExpr> exprs;
      for (unsigned d : order)
        exprs.push_back(getAffineDimExpr(d, ctx));
      AffineMap map = AffineMap::get(rank, 0, exprs, ctx);
      for (auto [result, original] : llvm::zip(results, adaptor.getSrcs()))
        result = buildCopyGeneric(
            rewriter, loc, cast<RankedTensorType>(original.getType()), result,
            map);
    }
    rewriter.replaceOp(op, results);
    return success();
  }
};

} // namespace

void cpu::populateReduceOpToLinalgPatterns(
    TileToLinalgTypeConverter &converter, RewritePatternSet &patterns) {
  patterns.add<ReduceOpLowering, ScanOpLowering>(converter,
                                                patterns.getContext());
}
