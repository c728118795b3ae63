//===- FoldDotAccumulate.cpp - acc + dot(a, b, 0) to dot(a, b, acc) -------===//
//
// Part of tilec, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// See the pass description in Passes.td.
//
//===----------------------------------------------------------------------===//

#include "tilec/Dialect/Tile/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace tilec::tile {
#define GEN_PASS_DEF_TILEFOLDDOTACCUMULATE
#include "tilec/Dialect/Tile/Transforms/Passes.h.inc"
} // namespace tilec::tile

using namespace mlir;
using namespace tilec;
using namespace tilec::tile;

namespace {

/// Whether `value` is a constant zero tile (float +0/-0 or integer 0).
bool isZeroTile(Value value) {
  return matchPattern(value, m_AnyZeroFloat()) || matchPattern(value, m_Zero());
}

/// `add(x, dot(a, b, 0))` or `add(dot(a, b, 0), x)` -> `dot(a, b, x)`, for
/// `AddOp` arith.addf or arith.addi.
template <typename AddOp>
struct FoldAddIntoDot : OpRewritePattern<AddOp> {
  using OpRewritePattern<AddOp>::OpRewritePattern;

  LogicalResult matchAndRewrite(AddOp add, PatternRewriter &rewriter) const override {
    for (unsigned i = 0; i < 2; ++i) {
      auto dot = add->getOperand(i).template getDefiningOp<DotOp>();
      Value other = add->getOperand(1 - i);
      // Same block: a dot computed once outside a loop is not moved into
      // it. Not 8-bit floats: Hopper's fp8 wgmma accumulates with fewer
      // mantissa bits than f32, so each block's product is added into the
      // f32 sum outside the tensor cores (Triton does not fold them either:
      // its max_num_imprecise_acc).
      if (!dot || !dot->hasOneUse() || dot->getBlock() != add->getBlock() ||
          !isZeroTile(dot.getC()) || other.getType() != dot.getType() ||
          isa<Float8E4M3FNType, Float8E5M2Type>(
              cast<RankedTensorType>(dot.getA().getType()).getElementType()))
        continue;
      rewriter.replaceOpWithNewOp<DotOp>(add, dot.getType(), dot.getA(), dot.getB(), other,
                                         dot.getInputPrecisionAttr());
      rewriter.eraseOp(dot);
      return success();
    }
    return rewriter.notifyMatchFailure(add, "no single-use dot with a zero accumulator");
  }
};

struct TileFoldDotAccumulatePass
    : tile::impl::TileFoldDotAccumulateBase<TileFoldDotAccumulatePass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<FoldAddIntoDot<arith::AddFOp>, FoldAddIntoDot<arith::AddIOp>>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
