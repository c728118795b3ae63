//===- ViewOpToLLVM.cpp - ops that rearrange tiles ------------------------===//
//
// Part of tilec, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// make_range, splat, broadcast, expand_dims, convert_layout, reshape, trans.
// When each thread already holds what it needs (getRegisterMapping), these
// rename register slots; otherwise the tile goes through shared memory.
//
//===----------------------------------------------------------------------===//

#include "LoweringSupport.h"

#include "tilec/Dialect/Tile/IR/Tile.h"
#include "tilec/Dialect/TileGPU/IR/TileGPU.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

using namespace mlir;
using namespace tilec;
using namespace tilec::tilegpu;
using namespace tilec::lowering;

namespace {

template <typename Op>
struct TileOpLowering : OpConversionPattern<Op> {
  TileOpLowering(TileGPUTypeConverter &converter, MLIRContext *ctx,
                 LoweringState &state)
      : OpConversionPattern<Op>(converter, ctx), state(state) {}
  LoweringState &state;
};

struct MakeRangeOpLowering : TileOpLowering<tile::MakeRangeOp> {
  using TileOpLowering::TileOpLowering;
  LogicalResult
  matchAndRewrite(tile::MakeRangeOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    FailureOr<LinearLayout> layout = getLayoutOf(loc, op.getType());
    if (failed(layout))
      return failure();
    ThreadIndices ids = getThreadIndices(rewriter, loc);
    SmallVector<Value> values;
    for (const auto &coord : emitCoordinates(rewriter, loc, *layout, ids))
      values.push_back(op.getStart() == 0
                           ? coord[0]
                           : arith::AddIOp::create(rewriter, loc, coord[0],
                                                   i32Val(rewriter, loc, op.getStart()))
                                 .getResult());
    rewriter.replaceOpWithMultiple(op, {values});
    return success();
  }
};

struct SplatOpLowering : TileOpLowering<tile::SplatOp> {
  using TileOpLowering::TileOpLowering;
  LogicalResult
  matchAndRewrite(tile::SplatOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    SmallVector<Type> slotTypes;
    if (failed(getTypeConverter()->convertType(op.getType(), slotTypes)))
      return failure();
    rewriter.replaceOpWithMultiple(
        op, {SmallVector<Value>(slotTypes.size(), adaptor.getSrc().front())});
    return success();
  }
};

/// Renames slots from `src` to `dst` through `dstToSrc`, or fails with a
/// diagnostic when data would have to cross threads.
LogicalResult renameSlots(Operation *op, RankedTensorType srcType,
                          RankedTensorType dstType, ValueRange srcValues,
                          function_ref<Coord(ArrayRef<int64_t>)> dstToSrc,
                          SmallVectorImpl<Value> &results) {
  FailureOr<LinearLayout> src = getLayoutOf(op->getLoc(), srcType);
  FailureOr<LinearLayout> dst = getLayoutOf(op->getLoc(), dstType);
  if (failed(src) || failed(dst))
    return failure();
  auto mapping = getRegisterMapping(*src, *dst, dstToSrc);
  if (!mapping)
    return op->emitOpError() << "needs data from other threads: layouts "
                             << srcType.getEncoding() << " and "
                             << dstType.getEncoding() << " are incompatible";
  for (int64_t slot : *mapping)
    results.push_back(srcValues[slot]);
  return success();
}

struct BroadcastOpLowering : TileOpLowering<tile::BroadcastOp> {
  using TileOpLowering::TileOpLowering;
  LogicalResult
  matchAndRewrite(tile::BroadcastOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    ArrayRef<int64_t> srcShape = op.getSrc().getType().getShape();
    SmallVector<Value> results;
    if (failed(renameSlots(op, op.getSrc().getType(), op.getType(),
                           adaptor.getSrc(),
                           [&](ArrayRef<int64_t> c) {
                             Coord s(c.begin(), c.end());
                             for (unsigned d = 0; d < s.size(); ++d)
                               if (srcShape[d] == 1)
                                 s[d] = 0;
                             return s;
                           },
                           results)))
      return failure();
    rewriter.replaceOpWithMultiple(op, {results});
    return success();
  }
};

struct ExpandDimsOpLowering : TileOpLowering<tile::ExpandDimsOp> {
  using TileOpLowering::TileOpLowering;
  LogicalResult
  matchAndRewrite(tile::ExpandDimsOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    unsigned axis = op.getAxis();
    SmallVector<Value> results;
    if (failed(renameSlots(op, op.getSrc().getType(), op.getType(),
                           adaptor.getSrc(),
                           [&](ArrayRef<int64_t> c) {
                             Coord s(c.begin(), c.end());
                             s.erase(s.begin() + axis);
                             return s;
                           },
                           results)))
      return failure();
    rewriter.replaceOpWithMultiple(op, {results});
    return success();
  }
};

struct ConvertLayoutOpLowering : TileOpLowering<ConvertLayoutOp> {
  using TileOpLowering::TileOpLowering;
  LogicalResult
  matchAndRewrite(ConvertLayoutOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto srcType = op.getSrc().getType(), dstType = op.getType();
    FailureOr<LinearLayout> src = getLayoutOf(loc, srcType);
    FailureOr<LinearLayout> dst = getLayoutOf(loc, dstType);
    if (failed(src) || failed(dst))
      return failure();
    auto identity = [](ArrayRef<int64_t> c) { return Coord(c.begin(), c.end()); };
    if (auto mapping = getRegisterMapping(*src, *dst, identity)) {
      SmallVector<Value> results;
      for (int64_t slot : *mapping)
        results.push_back(adaptor.getSrc()[slot]);
      rewriter.replaceOpWithMultiple(op, {results});
      return success();
    }
    ArrayRef<int64_t> shape = srcType.getShape();
    auto linear = [&](OpBuilder &b, ArrayRef<Value> coord) {
      return emitLinearIndex(b, loc, coord, shape);
    };
    rewriter.replaceOpWithMultiple(
        op, {exchangeThroughSharedMemory(rewriter, loc, op, state,
                                         adaptor.getSrc(), *src, *dst,
                                         srcType.getNumElements(), linear,
                                         linear)});
    return success();
  }
};

/// Reshape keeps the row-major element order: the shared-memory index of
/// an element is its row-major position in either shape.
struct ReshapeOpLowering : TileOpLowering<tile::ReshapeOp> {
  using TileOpLowering::TileOpLowering;
  LogicalResult
  matchAndRewrite(tile::ReshapeOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto srcType = op.getSrc().getType(), dstType = op.getType();
    FailureOr<LinearLayout> src = getLayoutOf(loc, srcType);
    FailureOr<LinearLayout> dst = getLayoutOf(loc, dstType);
    if (failed(src) || failed(dst))
      return failure();
    rewriter.replaceOpWithMultiple(
        op, {exchangeThroughSharedMemory(
                rewriter, loc, op, state, adaptor.getSrc(), *src, *dst,
                srcType.getNumElements(),
                [&](OpBuilder &b, ArrayRef<Value> c) {
                  return emitLinearIndex(b, loc, c, srcType.getShape());
                },
                [&](OpBuilder &b, ArrayRef<Value> c) {
                  return emitLinearIndex(b, loc, c, dstType.getShape());
                })});
    return success();
  }
};

/// Trans: result element c is source element c permuted back; the
/// shared-memory index is the source's row-major position.
struct TransOpLowering : TileOpLowering<tile::TransOp> {
  using TileOpLowering::TileOpLowering;
  LogicalResult
  matchAndRewrite(tile::TransOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto srcType = op.getSrc().getType(), dstType = op.getType();
    FailureOr<LinearLayout> src = getLayoutOf(loc, srcType);
    FailureOr<LinearLayout> dst = getLayoutOf(loc, dstType);
    if (failed(src) || failed(dst))
      return failure();
    ArrayRef<int32_t> order = op.getOrder();
    rewriter.replaceOpWithMultiple(
        op, {exchangeThroughSharedMemory(
                rewriter, loc, op, state, adaptor.getSrc(), *src, *dst,
                srcType.getNumElements(),
                [&](OpBuilder &b, ArrayRef<Value> c) {
                  return emitLinearIndex(b, loc, c, srcType.getShape());
                },
                [&](OpBuilder &b, ArrayRef<Value> c) {
                  // dst dim i is src dim order[i].
                  SmallVector<Value> srcCoord(c.size());
                  for (auto [i, d] : llvm::enumerate(order))
                    srcCoord[d] = c[i];
                  return emitLinearIndex(b, loc, srcCoord, srcType.getShape());
                })});
    return success();
  }
};

} // namespace

void lowering::populateViewOpToLLVMPatterns(TileGPUTypeConverter &converter,
                                            RewritePatternSet &patterns,
                                            LoweringState &state) {
  patterns.add<MakeRangeOpLowering, SplatOpLowering, BroadcastOpLowering,
               ExpandDimsOpLowering, ConvertLayoutOpLowering, ReshapeOpLowering,
               TransOpLowering>(converter, patterns.getContext(), state);
}
