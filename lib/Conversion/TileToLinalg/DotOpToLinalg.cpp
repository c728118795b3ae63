//===- DotOpToLinalg.cpp - tile.dot as register-blocked vector code -------===//
//
// Part of tilec, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// `result = a @ b + c`. Each accumulator element adds its products in order
// of k with one fused multiply-add each (operands widened to the accumulator
// type first), which is exactly what the GPU's FMA path computes. fp32
// operands are multiplied in full fp32 whatever `input_precision` says (tf32
// rounding only loses accuracy, and every tolerance admits it).
//
// With static shapes and a vector tile (the default), the dot is a
// register-blocked micro-kernel on tensors:
//
//   aw = widen(a); bw = widen(b)              // elementwise linalg.generics
//   for (batch) for i in 0..M step MR, for j in 0..N step NR:
//     acc[r] = c[i + r, j : j + NR]           // MR vector<NR> transfer_reads
//     for k in 0..K:                           // acc[] stays in registers
//       brow = bw[k, j : j + NR]
//       acc[r] = fma(broadcast(aw[i + r, k]), brow, acc[r])   for each r
//     c[i + r, j : j + NR] = acc[r]           // transfer_writes
//
// The operands are widened once per dot rather than once per product, the
// accumulator tile is read and written once per dot rather than once per k,
// and every element still sees the same fmas in the same order as the
// scalar loop nest, so results are bit-identical to it. The vector ops are
// lowered by convert-vector-to-llvm; LLVM splits a vector<NR> into the
// host's registers. Otherwise (tile sizes 0) the dot is one `linalg.generic`
// over (batch,) m, k, n whose body widens and fmas, lowered to scalar loops.
//
//===----------------------------------------------------------------------===//

#include "TileToLinalgSupport.h"

#include "tilec/Dialect/Tile/IR/Tile.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace tilec;
using namespace tilec::cpu;

namespace {

/// `v` converted to the accumulator type `accType` (float extension, or
/// signed integer extension).
Value widenScalar(OpBuilder &b, Location loc, Value v, Type accType) {
  if (v.getType() == accType)
    return v;
  if (isa<FloatType>(accType))
    return arith::ExtFOp::create(b, loc, accType, v);
  return arith::ExtSIOp::create(b, loc, accType, v);
}

/// `acc + x * y` on scalars or vectors of the accumulator type: one fused
/// multiply-add for floats, a product and a sum for integers.
Value multiplyAdd(OpBuilder &b, Location loc, Value x, Value y, Value acc) {
  if (isa<FloatType>(getElementTypeOrSelf(acc.getType())))
    return math::FmaOp::create(b, loc, x, y, acc);
  return arith::AddIOp::create(b, loc, acc,
                               arith::MulIOp::create(b, loc, x, y));
}

/// The largest divisor of `size` that is at most `limit` (at least 1).
int64_t largestDivisorAtMost(int64_t size, int64_t limit) {
  for (int64_t d = std::min(size, limit); d > 1; --d)
    if (size % d == 0)
      return d;
  return 1;
}

/// The largest power of two dividing `size` that is at most `limit`.
int64_t largestPowerOfTwoDivisorAtMost(int64_t size, int64_t limit) {
  int64_t d = 1;
  while (d * 2 <= limit && size % (d * 2) == 0)
    d *= 2;
  return d;
}

struct DotOpLowering : OpConversionPattern<tile::DotOp> {
  DotOpLowering(TypeConverter &converter, MLIRContext *ctx,
                DotLoweringOptions options)
      : OpConversionPattern(converter, ctx), options(options) {}

  LogicalResult
  matchAndRewrite(tile::DotOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto cType = cast<RankedTensorType>(adaptor.getC().getType());
    Type accType = cType.getElementType();
    if (!isa<FloatType>(accType) && !isa<IntegerType>(accType))
      return op.emitOpError() << "unsupported accumulator type " << accType;
    auto aType = cast<RankedTensorType>(adaptor.getA().getType());
    auto bType = cast<RankedTensorType>(adaptor.getB().getType());
    Value result;
    if (options.tileM > 0 && options.tileN > 0 && cType.hasStaticShape() &&
        aType.hasStaticShape() && bType.hasStaticShape())
      result = buildVectorDot(rewriter, op.getLoc(), adaptor.getA(),
                              adaptor.getB(), adaptor.getC());
    else
      result = buildGenericDot(rewriter, op.getLoc(), adaptor.getA(),
                               adaptor.getB(), adaptor.getC());
    rewriter.replaceOp(op, result);
    return success();
  }

private:
  DotLoweringOptions options;

  /// One `linalg.generic` over (batch,) m, k, n: after
  /// convert-linalg-to-loops the innermost loop walks a row of B and of the
  /// accumulator.
  static Value buildGenericDot(OpBuilder &rewriter, Location loc, Value aTile,
                               Value bTile, Value cTile) {
    auto cType = cast<RankedTensorType>(cTile.getType());
    Type accType = cType.getElementType();
    MLIRContext *ctx = rewriter.getContext();
    unsigned rank = cType.getRank();
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
    auto generic = linalg::GenericOp::create(
        rewriter, loc, TypeRange{cType}, ValueRange{aTile, bTile},
        ValueRange{cTile}, maps, iterators,
        [&](OpBuilder &b, Location loc, ValueRange args) {
          Value x = widenScalar(b, loc, args[0], accType);
          Value y = widenScalar(b, loc, args[1], accType);
          linalg::YieldOp::create(b, loc, multiplyAdd(b, loc, x, y, args[2]));
        });
    return generic.getResult(0);
  }

  /// `tile` converted elementwise to `accType` (itself when it has that
  /// element type already).
  static Value widenTile(OpBuilder &b, Location loc, Value tile,
                         Type accType) {
    auto type = cast<RankedTensorType>(tile.getType());
    if (type.getElementType() == accType)
      return tile;
    return buildElementwiseGeneric(
        b, loc, type.clone(accType), tile,
        [&](OpBuilder &b, Location loc, ValueRange args) {
          return widenScalar(b, loc, args[0], accType);
        });
  }

  /// The register-blocked micro-kernel of the file comment.
  Value buildVectorDot(OpBuilder &rewriter, Location loc, Value aTile,
                       Value bTile, Value cTile) const {
    auto cType = cast<RankedTensorType>(cTile.getType());
    Type accType = cType.getElementType();
    unsigned rank = cType.getRank();
    int64_t sizeM = cType.getDimSize(rank - 2);
    int64_t sizeN = cType.getDimSize(rank - 1);
    int64_t sizeK = cast<RankedTensorType>(aTile.getType()).getDimSize(rank - 1);
    int64_t batches = rank == 3 ? cType.getDimSize(0) : 1;
    int64_t rows = largestDivisorAtMost(sizeM, options.tileM);
    int64_t cols = largestPowerOfTwoDivisorAtMost(sizeN, options.tileN);
    auto vectorType = VectorType::get({cols}, accType);
    SmallVector<bool> inBounds = {true};

    Value a = widenTile(rewriter, loc, aTile, accType);
    Value b = widenTile(rewriter, loc, bTile, accType);
    auto index = [&](OpBuilder &builder, int64_t value) -> Value {
      return arith::ConstantIndexOp::create(builder, loc, value);
    };
    Value zero = index(rewriter, 0), one = index(rewriter, 1);

    // The batch index (if any) comes first in every index list.
    auto indices = [&](Value batch, Value row, Value col) {
      SmallVector<Value> result;
      if (batch)
        result.push_back(batch);
      result.append({row, col});
      return result;
    };
    auto buildBlocks = [&](OpBuilder &builder, Value batch,
                           Value c) -> Value {
      auto rowLoop = scf::ForOp::create(
          builder, loc, zero, index(builder, sizeM), index(builder, rows),
          ValueRange{c},
          [&](OpBuilder &builder, Location loc, Value i, ValueRange iArgs) {
            auto colLoop = scf::ForOp::create(
                builder, loc, zero, index(builder, sizeN),
                index(builder, cols), iArgs,
                [&](OpBuilder &builder, Location loc, Value j,
                    ValueRange jArgs) {
                  SmallVector<Value> rowIndex;
                  SmallVector<Value> accs;
                  for (int64_t r = 0; r < rows; ++r) {
                    Value row =
                        r == 0 ? i
                               : arith::AddIOp::create(builder, loc, i,
                                                       index(builder, r))
                                     .getResult();
                    rowIndex.push_back(row);
                    accs.push_back(vector::TransferReadOp::create(
                        builder, loc, vectorType, jArgs[0],
                        indices(batch, row, j), std::nullopt,
                        ArrayRef<bool>(inBounds)));
                  }
                  auto kLoop = scf::ForOp::create(
                      builder, loc, zero, index(builder, sizeK), one, accs,
                      [&](OpBuilder &builder, Location loc, Value k,
                          ValueRange kArgs) {
                        Value bRow = vector::TransferReadOp::create(
                            builder, loc, vectorType, b,
                            indices(batch, k, j), std::nullopt,
                            ArrayRef<bool>(inBounds));
                        SmallVector<Value> next;
                        for (int64_t r = 0; r < rows; ++r) {
                          Value x = tensor::ExtractOp::create(
                              builder, loc, a,
                              indices(batch, rowIndex[r], k));
                          Value splat = vector::BroadcastOp::create(
                              builder, loc, vectorType, x);
                          next.push_back(
                              multiplyAdd(builder, loc, splat, bRow, kArgs[r]));
                        }
                        scf::YieldOp::create(builder, loc, next);
                      });
                  Value updated = jArgs[0];
                  for (int64_t r = 0; r < rows; ++r)
                    updated = vector::TransferWriteOp::create(
                                  builder, loc, kLoop.getResult(r), updated,
                                  indices(batch, rowIndex[r], j),
                                  ArrayRef<bool>(inBounds))
                                  .getResult();
                  scf::YieldOp::create(builder, loc, updated);
                });
            scf::YieldOp::create(builder, loc, colLoop.getResults());
          });
      return rowLoop.getResult(0);
    };

    if (batches == 1 && rank == 2)
      return buildBlocks(rewriter, Value(), cTile);
    auto batchLoop = scf::ForOp::create(
        rewriter, loc, zero, index(rewriter, batches), one, ValueRange{cTile},
        [&](OpBuilder &builder, Location loc, Value batch, ValueRange args) {
          scf::YieldOp::create(builder, loc,
                               buildBlocks(builder, batch, args[0]));
        });
    return batchLoop.getResult(0);
  }
};

} // namespace

void cpu::populateDotOpToLinalgPatterns(TileToLinalgTypeConverter &converter,
                                        RewritePatternSet &patterns,
                                        const DotLoweringOptions &options) {
  patterns.add<DotOpLowering>(converter, patterns.getContext(), options);
}
