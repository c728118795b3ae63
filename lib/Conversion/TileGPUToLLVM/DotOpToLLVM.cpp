//===- DotOpToLLVM.cpp - tile.dot on CUDA cores ---------------------------===//
//
// Part of tilec, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// The FMA path of tile.dot: both operands go to shared memory (row-major),
// then a loop over K where every thread multiplies-and-adds, for each
// accumulator element it holds, a[m][k] * b[k][n] (operands widened to the
// accumulator type: f16/bf16/fp8 -> f32, i8 -> i32; fp8 bytes become f32
// after the lowering, in expand-fp8-conversions). Correct for every shape
// and layout. Dots whose accumulator has a tensor-core layout go to
// WarpgroupDotToLLVM.cpp (#tilegpu.wgmma) or MMADotToLLVM.cpp (#tilegpu.mma).
//
//===----------------------------------------------------------------------===//

#include "LoweringSupport.h"
#include "MMADot.h"
#include "WarpgroupMMA.h"

#include "tilec/Dialect/Tile/IR/Tile.h"
#include "tilec/Dialect/TileGPU/IR/TileGPU.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace tilec;
using namespace tilec::tilegpu;
using namespace tilec::lowering;

namespace {

struct DotOpLowering : OpConversionPattern<tile::DotOp> {
  DotOpLowering(TileGPUTypeConverter &converter, MLIRContext *ctx,
                LoweringState &state)
      : OpConversionPattern(converter, ctx), state(state) {}

  LogicalResult
  matchAndRewrite(tile::DotOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (isa<WarpgroupMMAEncodingAttr>(op.getC().getType().getEncoding()))
      return op.emitOpError("with a #tilegpu.wgmma accumulator must become a "
                            "tilegpu.warpgroup_dot (tilegpu-assign-async-copies)");
    if (isa<MMAEncodingAttr>(op.getC().getType().getEncoding())) {
      SmallVector<Value> results;
      if (failed(lowerMMADot(op, adaptor.getA(), adaptor.getB(), adaptor.getC(),
                             rewriter, state, results)))
        return failure();
      rewriter.replaceOpWithMultiple(op, {results});
      return success();
    }
    Location loc = op.getLoc();
    auto aType = op.getA().getType(), bType = op.getB().getType();
    auto cType = op.getC().getType();
    FailureOr<LinearLayout> aLayout = getLayoutOf(loc, aType);
    FailureOr<LinearLayout> bLayout = getLayoutOf(loc, bType);
    FailureOr<LinearLayout> cLayout = getLayoutOf(loc, cType);
    if (failed(aLayout) || failed(bLayout) || failed(cLayout))
      return failure();
    Type accType = cType.getElementType();
    Type inType = aType.getElementType();
    if (!accType.isF32() && !accType.isF16() && !accType.isInteger(32))
      return op.emitOpError() << "FMA lowering does not support accumulator "
                              << accType;

    unsigned rank = cType.getRank();
    int64_t batch = rank == 3 ? cType.getDimSize(0) : 1;
    int64_t m = cType.getDimSize(rank - 2), n = cType.getDimSize(rank - 1);
    int64_t k = aType.getDimSize(rank - 1);

    // Operands to shared memory, row-major: A at 0, B after it.
    int64_t eltBytes = getStorageBytes(inType);
    int64_t bOffset = llvm::alignTo(batch * m * k * eltBytes, 16);
    state.requireScratch(op, bOffset + batch * k * n * eltBytes);
    ThreadIndices ids = getThreadIndices(rewriter, loc);
    emitBarrier(rewriter, loc, op);
    auto storeTile = [&](const LinearLayout &layout, ValueRange values,
                         ArrayRef<int64_t> shape, int64_t offset) {
      for (auto [coord, value] :
           llvm::zip(emitCoordinates(rewriter, loc, layout, ids), values))
        storeSharedElement(rewriter, loc, op, offset,
                           emitLinearIndex(rewriter, loc, coord, shape), value);
    };
    storeTile(*aLayout, adaptor.getA(), aType.getShape(), 0);
    storeTile(*bLayout, adaptor.getB(), bType.getShape(), bOffset);
    emitBarrier(rewriter, loc, op);

    // Per accumulator slot: the start of its row of A (a[b][m][0]) and of
    // its column of B (b[b][0][n]).
    SmallVector<Value> aRow, bCol;
    for (const auto &coord : emitCoordinates(rewriter, loc, *cLayout, ids)) {
      Value bt = rank == 3 ? coord[0] : i32Val(rewriter, loc, 0);
      Value row = arith::AddIOp::create(
          rewriter, loc,
          arith::MulIOp::create(rewriter, loc, bt, i32Val(rewriter, loc, m)),
          coord[rank - 2]);
      aRow.push_back(arith::MulIOp::create(rewriter, loc, row, i32Val(rewriter, loc, k)));
      bCol.push_back(arith::AddIOp::create(
          rewriter, loc,
          arith::MulIOp::create(rewriter, loc, bt, i32Val(rewriter, loc, k * n)),
          coord[rank - 1]));
    }

    auto widen = [&](OpBuilder &b, Value v) -> Value {
      if (v.getType() == accType)
        return v;
      if (isa<FloatType>(accType))
        return arith::ExtFOp::create(b, loc, accType, v);
      return arith::ExtSIOp::create(b, loc, accType, v);
    };
    auto loop = scf::ForOp::create(
        rewriter, loc, i32Val(rewriter, loc, 0), i32Val(rewriter, loc, k),
        i32Val(rewriter, loc, 1), SmallVector<Value>(adaptor.getC()),
        [&](OpBuilder &b, Location l, Value kk, ValueRange accs) {
          Value bStep = arith::MulIOp::create(b, l, kk, i32Val(b, l, n));
          SmallVector<Value> next;
          for (auto [i, acc] : llvm::enumerate(accs)) {
            Value aIdx = arith::AddIOp::create(b, l, aRow[i], kk);
            Value bIdx = arith::AddIOp::create(b, l, bCol[i], bStep);
            Value av = widen(b, loadSharedElement(b, l, op, 0, aIdx, inType));
            Value bv = widen(b, loadSharedElement(b, l, op, bOffset, bIdx, inType));
            if (isa<FloatType>(accType))
              next.push_back(math::FmaOp::create(b, l, av, bv, acc));
            else
              next.push_back(arith::AddIOp::create(
                  b, l, acc, arith::MulIOp::create(b, l, av, bv)));
          }
          scf::YieldOp::create(b, l, next);
        });
    rewriter.replaceOpWithMultiple(op, {SmallVector<Value>(loop.getResults())});
    return success();
  }

  LoweringState &state;
};

} // namespace

void lowering::populateDotOpToLLVMPatterns(TileGPUTypeConverter &converter,
                                           RewritePatternSet &patterns,
                                           LoweringState &state) {
  patterns.add<DotOpLowering>(converter, patterns.getContext(), state);
}
