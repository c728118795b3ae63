//===- ViewOpToLLVM.cpp - ops that rearrange tiles ------------------------===//
//
// Part of tilec, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// make_range, splat, broadcast, expand_dims, convert_layout, reshape, trans
// (through shared memory with rows padded against bank conflicts).
// When each thread already holds what it needs (getRegisterMapping), these
// rename register slots; a convert_layout whose layouts differ by
// exchanges of register and lane bases (getLaneRegisterSwaps) shuffles
// within warps; otherwise the tile goes through shared memory.
//
//===----------------------------------------------------------------------===//

#include "LoweringSupport.h"

#include "tilec/Dialect/Tile/IR/Tile.h"
#include "tilec/Dialect/TileGPU/IR/TileGPU.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"

#include <limits>

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

/// The values of `srcValues` at the slots `mapping` lists (for each dst
/// register, its src register).
SmallVector<Value> gatherSlots(ArrayRef<int64_t> mapping, ValueRange srcValues) {
  SmallVector<Value> results;
  for (int64_t slot : mapping)
    results.push_back(srcValues[slot]);
  return results;
}

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
  results.append(gatherSlots(*mapping, srcValues));
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

/// Packs `values` (one element type) into 32-bit words of `perWord`
/// consecutive slots each (perWord 1: the values as they are).
static SmallVector<Value> packWords(OpBuilder &b, Location loc,
                                    ArrayRef<Value> values, int64_t perWord) {
  if (perWord == 1)
    return SmallVector<Value>(values);
  SmallVector<Value> words;
  for (size_t i = 0; i < values.size(); i += perWord) {
    SmallVector<Value> elements;
    for (Value value : values.slice(i, perWord))
      elements.push_back(toStorage(b, loc, value));
    words.push_back(packWord(b, loc, elements));
  }
  return words;
}

/// The inverse of packWords: `perWord` values of `element` per word.
static SmallVector<Value> unpackWords(OpBuilder &b, Location loc,
                                      ArrayRef<Value> words, int64_t perWord,
                                      Type element) {
  if (perWord == 1)
    return SmallVector<Value>(words);
  auto vectorType = VectorType::get({perWord}, getStorageType(element));
  SmallVector<Value> values;
  for (Value word : words) {
    Value vector = LLVM::BitcastOp::create(b, loc, vectorType, word);
    for (int64_t j = 0; j < perWord; ++j)
      values.push_back(fromStorage(
          b, loc,
          LLVM::ExtractElementOp::create(b, loc, vector, i32Val(b, loc, j)),
          element));
  }
  return values;
}

/// A convert_layout within warps: the butterflies of `swaps`
/// (getLaneRegisterSwaps) from `src`, then the renaming to `dst`. For a
/// swap of register bit ρ and lane bit λ, each pair of slots that differs
/// in ρ costs one `shfl.sync.bfly` and three selects: a lane keeps the slot
/// whose bit ρ equals its bit λ and trades the other. Elements narrower
/// than 32 bits travel packed in words where the low register bits, which
/// no swap touches, allow.
static SmallVector<Value> exchangeWithinWarp(OpBuilder &b, Location loc,
                                             ValueRange srcValues,
                                             const LinearLayout &src,
                                             const LinearLayout &dst,
                                             ArrayRef<LaneRegisterSwap> swaps) {
  Type element = srcValues.front().getType();
  unsigned packBits = getSwapPackBits(
      src, swaps, getStorageType(element).getIntOrFloatBitWidth());
  int64_t perWord = int64_t(1) << packBits;
  SmallVector<Value> words = packWords(
      b, loc, SmallVector<Value>(srcValues.begin(), srcValues.end()), perWord);
  ThreadIndices ids = getThreadIndices(b, loc);
  LinearLayout current = src;
  for (LaneRegisterSwap swap : swaps) {
    Value laneBit = arith::AndIOp::create(b, loc, ids.lane,
                                          i32Val(b, loc, int64_t(1) << swap.lane));
    Value upper = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne,
                                        laneBit, i32Val(b, loc, 0));
    int64_t bit = int64_t(1) << (swap.reg - packBits);
    for (int64_t lo = 0, e = words.size(); lo < e; ++lo) {
      if (lo & bit)
        continue;
      int64_t hi = lo | bit;
      // Lanes with bit λ clear keep `lo` and trade `hi`; the others keep
      // `hi` and trade `lo`.
      Value give = arith::SelectOp::create(b, loc, upper, words[lo], words[hi]);
      Value got = emitShuffleXor(b, loc, give, 1u << swap.lane);
      Value newLo = arith::SelectOp::create(b, loc, upper, got, words[lo]);
      Value newHi = arith::SelectOp::create(b, loc, upper, words[hi], got);
      words[lo] = newLo;
      words[hi] = newHi;
    }
    current = applySwap(current, swap);
  }
  SmallVector<Value> values = unpackWords(b, loc, words, perWord, element);
  std::optional<SmallVector<int64_t>> mapping = getRegisterMapping(current, dst);
  assert(mapping && "getLaneRegisterSwaps checked the renaming");
  return gatherSlots(*mapping, values);
}

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
    if (auto mapping = getRegisterMapping(*src, *dst)) {
      rewriter.replaceOpWithMultiple(op, {gatherSlots(*mapping, adaptor.getSrc())});
      return success();
    }
    if (auto swaps = getCheapLaneRegisterSwaps(
            *src, *dst,
            getStorageType(adaptor.getSrc().front().getType()).getIntOrFloatBitWidth())) {
      rewriter.replaceOpWithMultiple(
          op, {exchangeWithinWarp(rewriter, loc, adaptor.getSrc(), *src, *dst,
                                  *swaps)});
      return success();
    }
    ArrayRef<int64_t> shape = srcType.getShape();
    auto linear = [&](OpBuilder &b, ArrayRef<Value> coord) {
      return emitLinearIndex(b, loc, coord, shape);
    };
    Type element = adaptor.getSrc().front().getType();
    rewriter.replaceOpWithMultiple(
        op, {exchangeThroughSharedMemory(
                rewriter, loc, op, state, adaptor.getSrc(), *src, *dst,
                srcType.getNumElements(), linear, linear,
                getRowMajorVectorWidth(*src, element),
                getRowMajorVectorWidth(*dst, element))});
    return success();
  }
};

/// Reshape keeps the row-major element order: registers are renamed when
/// every thread already holds its elements, else the shared-memory index of
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
    // The layouts convert-tile-to-tilegpu derives for reshapes hold every
    // element in the same thread on both sides: renamed registers.
    if (auto mapping = getReshapeRegisterMapping(*src, *dst)) {
      rewriter.replaceOpWithMultiple(op, {gatherSlots(*mapping, adaptor.getSrc())});
      return success();
    }
    Type element = adaptor.getSrc().front().getType();
    rewriter.replaceOpWithMultiple(
        op, {exchangeThroughSharedMemory(
                rewriter, loc, op, state, adaptor.getSrc(), *src, *dst,
                srcType.getNumElements(),
                [&](OpBuilder &b, ArrayRef<Value> c) {
                  return emitLinearIndex(b, loc, c, srcType.getShape());
                },
                [&](OpBuilder &b, ArrayRef<Value> c) {
                  return emitLinearIndex(b, loc, c, dstType.getShape());
                },
                getRowMajorVectorWidth(*src, element),
                getRowMajorVectorWidth(*dst, element))});
    return success();
  }
};

/// Most elements of padding a transpose puts after every row (the source's
/// last dimension) of its shared-memory copy.
constexpr int64_t kMaxTransPadding = 8;

/// The padding, of 0..kMaxTransPadding elements per row, that leaves the
/// fewest shared-memory bank conflicts (32 banks of 4 bytes; lanes reading
/// one word share it) in the writes of warp 0 in the source layout plus its
/// reads in the result layout, counted from the layouts: a transpose whose
/// reads walk down the source's columns hits one bank with an unpadded row
/// of a multiple of 128 bytes. The smallest padding wins a tie.
int64_t chooseTransPadding(const LinearLayout &src, const LinearLayout &dst,
                           ArrayRef<int32_t> order, int64_t elementBytes) {
  ArrayRef<int64_t> shape = src.getShape();
  int64_t rowLength = shape.back();
  // Source row-major index of every element warp 0 touches, per slot.
  SmallVector<SmallVector<int64_t>> accesses;
  auto collect = [&](const LinearLayout &layout, bool isDst) {
    for (int64_t r = 0, e = layout.getNumRegisters(); r < e; ++r) {
      SmallVector<int64_t> lanes;
      for (int64_t lane = 0; lane < layout.getNumLanes(); ++lane) {
        Coord c = layout.apply(r, lane, 0);
        if (isDst) {
          Coord s(c.size());
          for (auto [i, d] : llvm::enumerate(order))
            s[d] = c[i];
          c = s;
        }
        lanes.push_back(src.linearize(c));
      }
      accesses.push_back(lanes);
    }
  };
  collect(src, false);
  collect(dst, true);
  int64_t best = 0, bestCost = std::numeric_limits<int64_t>::max();
  for (int64_t pad = 0; pad <= kMaxTransPadding; ++pad) {
    int64_t cost = 0;
    for (const auto &lanes : accesses) {
      llvm::SmallDenseMap<int64_t, llvm::SmallDenseSet<int64_t, 4>, 32> banks;
      for (int64_t index : lanes) {
        int64_t word =
            (index + index / rowLength * pad) * elementBytes / 4;
        banks[word % 32].insert(word);
      }
      int64_t degree = 0;
      for (auto &entry : banks)
        degree = std::max<int64_t>(degree, entry.second.size());
      cost += degree;
    }
    if (cost < bestCost) {
      bestCost = cost;
      best = pad;
    }
  }
  return best;
}

/// Trans: result element c is source element c permuted back; its place
/// in shared memory is the source's row-major position with `padding`
/// elements after each row (chooseTransPadding).
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
    ArrayRef<int64_t> shape = srcType.getShape();
    int64_t rowLength = shape.back();
    int64_t rows = srcType.getNumElements() / rowLength;
    int64_t padding = chooseTransPadding(
        *src, *dst, order,
        getStorageBytes(adaptor.getSrc().front().getType()));
    auto padded = [&](OpBuilder &b, ArrayRef<Value> c) -> Value {
      Value row = emitLinearIndex(b, loc, c.drop_back(), shape.drop_back());
      Value start = arith::MulIOp::create(b, loc, row,
                                          i32Val(b, loc, rowLength + padding));
      return arith::AddIOp::create(b, loc, start, c.back());
    };
    // Runs of consecutive elements of a row stay consecutive in the padded
    // copy; a run starts at a multiple of its length while padded rows
    // are a multiple of it long. The result's runs are along its last
    // dimension: consecutive there only when that is the source's last.
    Type element = adaptor.getSrc().front().getType();
    auto vectorWidth = [&](const LinearLayout &layout) {
      int64_t width = std::min(getRowMajorVectorWidth(layout, element), rowLength);
      while (width > 1 && rows > 1 && (rowLength + padding) % width != 0)
        width /= 2;
      return width;
    };
    int64_t srcVector = vectorWidth(*src);
    int64_t dstVector =
        order.back() == static_cast<int32_t>(order.size()) - 1 ? vectorWidth(*dst) : 1;
    // The padded index's outermost dimension, source dimension 0, is the
    // result's dimension that order takes from it.
    unsigned dstDim = llvm::find(order, 0) - order.begin();
    rewriter.replaceOpWithMultiple(
        op, {exchangeThroughSharedMemory(
                rewriter, loc, op, state, adaptor.getSrc(), *src, *dst,
                srcType.getNumElements() + rows * padding, padded,
                [&](OpBuilder &b, ArrayRef<Value> c) {
                  // dst dim i is src dim order[i].
                  SmallVector<Value> srcCoord(c.size());
                  for (auto [i, d] : llvm::enumerate(order))
                    srcCoord[d] = c[i];
                  return padded(b, srcCoord);
                },
                srcVector, dstVector, /*srcDim=*/0, dstDim)});
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
