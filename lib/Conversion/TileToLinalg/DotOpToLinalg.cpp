//===- DotOpToLinalg.cpp - tile.dot as a linalg.generic -------------------===//
//
// Part of tilec, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// `result = a @ b + c` is one `linalg.generic` writing into `c` with the
// dimensions in the order (batch,) m, k, n: after convert-linalg-to-loops the
// innermost loop walks a row of B and of the accumulator, which LLVM
// vectorizes without reassociating any sum. Each accumulator element adds
// its products in order of k with one fused multiply-add each (operands
// widened to the accumulator type first), which is exactly what the GPU's
// FMA path computes. fp32 operands are multiplied in full fp32 whatever
// `input_precision` says (tf32 rounding only loses accuracy, and every
// tolerance admits it).
//
//===----------------------------------------------------------------------===//

#include "TileToLinalgSupport.h"

#include "tilec/Dialect/Tile/IR/Tile.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"

using namespace mlir;
using namespace tilec;
using namespace tilec::cpu;

namespace {

struct DotOpLowering : OpConversionPattern<tile::DotOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(tile::DotOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto cType = cast<RankedTensorType>(adaptor.getC().getType());
    Type accType = cType.getElementType();
    bool isFloat = isa<FloatType>(accType);
    if (!isFloat && !isa<IntegerType>(accType))
      return op.emitOpError() << "unsupported accumulator type " << accType;

    MLIRContext *ctx = rewriter.getContext();
    unsigned rank = cType.getRank();
    // Dimensions: [batch,] m, k, n.
    unsigned numDims = rank + 1;
    AffineExpr m = getAffineDimExpr(rank - 2, ctx);
    AffineExpr k = getAffineDimExpr(rank - 1, ctx);
    AffineExpr n = getAffineDimExpr(rank, ctx);
    SmallVector<AffineExpr> aExprs, bExprs, cExprs;
    if (rank == 3) {
      AffineExpr batch = getAffineDimExpr(0, ctx);
      aExprs.push_back(batch);
      bExprs.push_back(batch);
      cExprs.push_back(batch);
    }
    aExprs.append({m, k});
    bExprs.append({k, n});
    cExprs.append({m, n});
    SmallVector<AffineMap> maps = {AffineMap::get(numDims, 0, aExprs, ctx),
                                   AffineMap::get(numDims, 0, bExprs, ctx),
                                   AffineMap::get(numDims, 0, cExprs, ctx)};
    SmallVector<utils::IteratorType> iterators(numDims,
                                               utils::IteratorType::parallel);
    iterators[rank - 1] = utils::IteratorType::reduction;

    auto widen = [&](OpBuilder &b, Location loc, Value v) -> Value {
      if (v.getType() == accType)
        return v;
      if (isFloat)
        return arith::ExtFOp::create(b, loc, accType, v);
      return arith::ExtSIOp::create(b, loc, accType, v);
    };
    auto generic = linalg::GenericOp::create(
        rewriter, op.getLoc(), TypeRange{cType},
        ValueRange{adaptor.getA(), adaptor.getB()}, ValueRange{adaptor.getC()},
        maps, iterators,
        [&](OpBuilder &b, Location loc, ValueRange args) {
          Value a = widen(b, loc, args[0]);
          Value bv = widen(b, loc, args[1]);
          Value result =
              isFloat ? math::FmaOp::create(b, loc, a, bv, args[2]).getResult()
                      : arith::AddIOp::create(
                            b, loc, args[2],
                            arith::MulIOp::create(b, loc, a, bv))
                            .getResult();
          linalg::YieldOp::create(b, loc, result);
        });
    rewriter.replaceOp(op, generic.getResults());
    return success();
  }
};

} // namespace

void cpu::populateDotOpToLinalgPatterns(TileToLinalgTypeConverter &converter,
                                        RewritePatternSet &patterns) {
  patterns.add<DotOpLowering>(converter, patterns.getContext());
}
