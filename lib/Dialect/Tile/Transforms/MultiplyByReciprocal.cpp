//===- MultiplyByReciprocal.cpp - x / broadcast(d) to x * broadcast(1/d) --===//
//
// Part of tilec, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// See the pass description in Passes.td.
//
//===----------------------------------------------------------------------===//

#include "tilec/Dialect/Tile/Transforms/Passes.h"

#include "tilec/Dialect/Tile/IR/Tile.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace tilec::tile {
#define GEN_PASS_DEF_TILEMULTIPLYBYRECIPROCAL
#include "tilec/Dialect/Tile/Transforms/Passes.h.inc"
} // namespace tilec::tile

using namespace mlir;
using namespace tilec;
using namespace tilec::tile;

namespace {

/// `divf(x, broadcast(d)) {arcp}` -> `mulf(x, broadcast(divf(1, d) {arcp}))`
/// on f32 tiles of static shape when the broadcast repeats `d` (it has
/// fewer elements than the result). Not on f64 (the frontend marks its
/// `/` arcp too, but `1 / d` then rounds where IEEE `div.rn.f64` does not
/// round twice) nor on 8-bit floats (a reciprocal rounded to fp8 is
/// nowhere near the quotient); f16 and bf16 tiles divide in f32 already.
struct DivideBroadcastOnce : OpRewritePattern<arith::DivFOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(arith::DivFOp div, PatternRewriter &rewriter) const override {
    if (!arith::bitEnumContainsAll(div.getFastmath(), arith::FastMathFlags::arcp))
      return rewriter.notifyMatchFailure(div, "division not marked arcp");
    auto broadcast = div.getRhs().getDefiningOp<BroadcastOp>();
    if (!broadcast)
      return rewriter.notifyMatchFailure(div, "divisor is not a broadcast");
    auto source = cast<RankedTensorType>(broadcast.getSrc().getType());
    auto result = cast<RankedTensorType>(broadcast.getType());
    if (!source.getElementType().isF32() || !source.hasStaticShape() ||
        !result.hasStaticShape())
      return rewriter.notifyMatchFailure(div, "not an f32 tile of static shape");
    if (source.getNumElements() >= result.getNumElements())
      return rewriter.notifyMatchFailure(div, "broadcast repeats nothing");
    Location loc = div.getLoc();
    OpBuilder::InsertionGuard guard(rewriter);
    rewriter.setInsertionPointAfter(broadcast);
    Value one = arith::ConstantOp::create(
        rewriter, loc, DenseElementsAttr::get(source, rewriter.getFloatAttr(
                                                          source.getElementType(), 1.0)));
    // Only arcp on the reciprocal: with ninf, 1 / d of a subnormal d would
    // be poison where x / d is finite.
    Value reciprocal = arith::DivFOp::create(rewriter, loc, one, broadcast.getSrc(),
                                             arith::FastMathFlags::arcp);
    Value repeated = BroadcastOp::create(rewriter, loc, result, reciprocal);
    rewriter.setInsertionPoint(div);
    rewriter.replaceOpWithNewOp<arith::MulFOp>(div, div.getLhs(), repeated,
                                               div.getFastmathAttr());
    return success();
  }
};

struct TileMultiplyByReciprocalPass
    : tile::impl::TileMultiplyByReciprocalBase<TileMultiplyByReciprocalPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<DivideBroadcastOnce>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
