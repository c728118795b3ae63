//===- ReduceOpToLLVM.cpp - reductions along one axis ---------------------===//
//
// Part of tilec, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// tile.reduce in three steps, each over the input bits of the layout that
// move along the reduced axis: the register slots of a thread are combined
// in registers (pairwise, a tree), the lanes with butterfly shuffles (`shfl.sync.bfly`, PTX ISA
// §9.7.8.6), the warps through shared memory (each warp writes its partial
// results, a barrier, every thread combines the partials of its elements).
// The combine region is cloned for every combination.
//
//===----------------------------------------------------------------------===//

#include "LoweringSupport.h"

#include "tilec/Dialect/Tile/IR/Tile.h"
#include "tilec/Dialect/TileGPU/IR/TileGPU.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/MapVector.h"

using namespace mlir;
using namespace tilec;
using namespace tilec::tilegpu;
using namespace tilec::lowering;

namespace {

struct ReduceOpLowering : OpConversionPattern<tile::ReduceOp> {
  ReduceOpLowering(TileGPUTypeConverter &converter, MLIRContext *ctx,
                   LoweringState &state)
      : OpConversionPattern(converter, ctx), state(state) {}

  /// Combines two sets of values (one per source) with the region.
  static SmallVector<Value> combine(OpBuilder &b, tile::ReduceOp op,
                                    ArrayRef<Value> lhs, ArrayRef<Value> rhs) {
    Block &body = op.getCombineOp().front();
    IRMapping mapping;
    unsigned n = lhs.size();
    for (unsigned i = 0; i < n; ++i) {
      mapping.map(body.getArgument(i), lhs[i]);
      mapping.map(body.getArgument(n + i), rhs[i]);
    }
    for (Operation &inner : body.without_terminator())
      b.clone(inner, mapping);
    SmallVector<Value> results;
    for (Value v : body.getTerminator()->getOperands())
      results.push_back(mapping.lookupOrDefault(v));
    return results;
  }

  LogicalResult
  matchAndRewrite(tile::ReduceOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    unsigned axis = op.getAxis();
    unsigned numSrcs = op.getSrcs().size();
    auto srcType = cast<RankedTensorType>(op.getSrcs().front().getType());
    FailureOr<LinearLayout> src = getLayoutOf(loc, srcType);
    if (failed(src))
      return failure();
    SmallVector<int64_t> resShape(srcType.getShape());
    resShape.erase(resShape.begin() + axis);
    FailureOr<LinearLayout> res = toLinearLayout(
        resShape, SliceEncodingAttr::get(op.getContext(), axis, srcType.getEncoding()));
    if (failed(res))
      return op.emitOpError("cannot derive the layout of the reduction result");
    if (auto resType = dyn_cast<RankedTensorType>(op.getResult().front().getType()))
      if (FailureOr<LinearLayout> declared = getLayoutOf(loc, resType);
          failed(declared) || *declared != *res)
        return op.emitOpError("result layout must be the slice of the source "
                              "layout along the reduced axis");
    for (HwDim hw : {HwDim::Lane, HwDim::Warp})
      for (const Coord &basis : src->getBases(hw))
        if (basis[axis] != 0 &&
            llvm::count_if(basis, [](int64_t v) { return v != 0; }) != 1)
          return op.emitOpError("layout mixes the reduced axis with other "
                                "dimensions in one thread bit");

    // 1. Within a thread: slots that differ only along the axis.
    llvm::MapVector<int64_t, SmallVector<int64_t>> groups;
    for (int64_t r = 0, e = res->getNumRegisters(); r < e; ++r)
      groups[res->linearize(res->applyOne(HwDim::Register, r))];
    for (int64_t p = 0, e = src->getNumRegisters(); p < e; ++p) {
      Coord c = src->applyOne(HwDim::Register, p);
      c.erase(c.begin() + axis);
      auto it = groups.find(res->linearize(c));
      if (it == groups.end())
        return op.emitOpError("register slots of the source and result "
                              "layouts do not correspond");
      it->second.push_back(p);
    }
    // Pairwise, in slot order (a tree of depth log2 instead of a chain:
    // independent combinations the scheduler can overlap; the shuffles and
    // warps below reassociate the same way).
    SmallVector<SmallVector<Value>> acc; // [result slot][source]
    for (auto &[key, slots] : groups) {
      SmallVector<SmallVector<Value>> level;
      for (int64_t p : slots) {
        SmallVector<Value> values;
        for (unsigned i = 0; i < numSrcs; ++i)
          values.push_back(adaptor.getSrcs()[i][p]);
        level.push_back(std::move(values));
      }
      while (level.size() > 1) {
        SmallVector<SmallVector<Value>> next;
        for (size_t i = 0; i + 1 < level.size(); i += 2)
          next.push_back(combine(rewriter, op, level[i], level[i + 1]));
        if (level.size() % 2 == 1)
          next.push_back(level.back());
        level = std::move(next);
      }
      acc.push_back(level.front());
    }

    // 2. Across the lanes of a warp.
    for (auto [bit, basis] : llvm::enumerate(src->getBases(HwDim::Lane))) {
      if (basis[axis] == 0)
        continue;
      for (auto &values : acc) {
        SmallVector<Value> partner;
        for (Value v : values)
          partner.push_back(emitShuffleXor(rewriter, loc, v, 1u << bit));
        values = combine(rewriter, op, values, partner);
      }
    }

    // 3. Across warps, through shared memory.
    SmallVector<unsigned> warpBits;
    for (auto [bit, basis] : llvm::enumerate(src->getBases(HwDim::Warp)))
      if (basis[axis] != 0)
        warpBits.push_back(bit);
    if (!warpBits.empty())
      acc = combineAcrossWarps(rewriter, op, *res, warpBits, acc);

    SmallVector<SmallVector<Value>> results(numSrcs);
    for (auto &values : acc)
      for (unsigned i = 0; i < numSrcs; ++i)
        results[i].push_back(values[i]);
    SmallVector<ValueRange> ranges(results.begin(), results.end());
    rewriter.replaceOpWithMultiple(op, ranges);
    return success();
  }

  SmallVector<SmallVector<Value>>
  combineAcrossWarps(ConversionPatternRewriter &rewriter, tile::ReduceOp op,
                     const LinearLayout &res, ArrayRef<unsigned> warpBits,
                     ArrayRef<SmallVector<Value>> acc) const {
    Location loc = op.getLoc();
    int64_t numPartials = int64_t(1) << warpBits.size();
    int64_t outNumel = 1;
    for (int64_t s : res.getShape())
      outNumel *= s;
    SmallVector<int64_t> offsets;
    int64_t bytes = 0;
    for (Value v : acc.front()) {
      offsets.push_back(bytes);
      bytes += numPartials * outNumel * getStorageBytes(v.getType());
      bytes = llvm::alignTo(bytes, 8);
    }
    state.requireScratch(op, bytes);

    ThreadIndices ids = getThreadIndices(rewriter, loc);
    // This warp's position along the reduced axis.
    Value warpIndex = i32Val(rewriter, loc, 0);
    for (auto [j, bit] : llvm::enumerate(warpBits)) {
      Value b = arith::ShRUIOp::create(rewriter, loc, ids.warp, i32Val(rewriter, loc, bit));
      b = arith::AndIOp::create(rewriter, loc, b, i32Val(rewriter, loc, 1));
      b = arith::ShLIOp::create(rewriter, loc, b, i32Val(rewriter, loc, j));
      warpIndex = arith::OrIOp::create(rewriter, loc, warpIndex, b);
    }
    auto coords = emitCoordinates(rewriter, loc, res, ids);
    SmallVector<Value> outIndex;
    for (const auto &coord : coords)
      outIndex.push_back(emitLinearIndex(rewriter, loc, coord, res.getShape()));

    // Threads that hold the same partial (lanes, and warps apart from the
    // reduced ones, over which the result is replicated) would write the
    // same slot: one of them does (no write-write race between them).
    uint64_t reducedWarps = 0;
    for (unsigned bit : warpBits)
      reducedWarps |= uint64_t(1) << bit;
    Value writer;
    if (res.getReplicatedMask(HwDim::Lane) ||
        (res.getReplicatedMask(HwDim::Warp) & ~reducedWarps))
      writer = emitIsOwner(rewriter, loc, res, ids, reducedWarps);

    emitBarrier(rewriter, loc, op);
    {
      OpBuilder::InsertionGuard guard(rewriter);
      if (writer) {
        auto ifOp = scf::IfOp::create(rewriter, loc, writer, /*withElse=*/false);
        rewriter.setInsertionPoint(ifOp.thenBlock()->getTerminator());
      }
      Value rowBase = arith::MulIOp::create(rewriter, loc, warpIndex,
                                            i32Val(rewriter, loc, outNumel));
      for (auto [r, values] : llvm::enumerate(acc)) {
        Value index = arith::AddIOp::create(rewriter, loc, rowBase, outIndex[r]);
        for (auto [i, v] : llvm::enumerate(values))
          storeSharedElement(rewriter, loc, op, offsets[i], index, v);
      }
    }
    emitBarrier(rewriter, loc, op);
    SmallVector<SmallVector<Value>> combined;
    for (auto [r, values] : llvm::enumerate(acc)) {
      SmallVector<Value> current;
      for (int64_t k = 0; k < numPartials; ++k) {
        Value index = arith::AddIOp::create(
            rewriter, loc, outIndex[r], i32Val(rewriter, loc, k * outNumel));
        SmallVector<Value> partial;
        for (auto [i, v] : llvm::enumerate(values))
          partial.push_back(loadSharedElement(rewriter, loc, op, offsets[i],
                                              index, v.getType()));
        current = k == 0 ? partial : combine(rewriter, op, current, partial);
      }
      combined.push_back(current);
    }
    return combined;
  }

  LoweringState &state;
};

} // namespace

void lowering::populateReduceOpToLLVMPatterns(TileGPUTypeConverter &converter,
                                              RewritePatternSet &patterns,
                                              LoweringState &state) {
  patterns.add<ReduceOpLowering>(converter, patterns.getContext(), state);
}
