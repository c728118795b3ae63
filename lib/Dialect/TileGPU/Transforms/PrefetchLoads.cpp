//===- PrefetchLoads.cpp - loads one iteration ahead, in registers --------===//
//
// Part of tilec, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// The tilegpu-prefetch-loads pass (see Passes.td): each qualifying tl.load
// of a tensor-core loop is issued for the next iteration at the top of the
// current one, its value carried by the loop.
//
//===----------------------------------------------------------------------===//

#include "tilec/Dialect/TileGPU/Transforms/Passes.h"

#include "tilec/Dialect/Tile/IR/Tile.h"
#include "tilec/Dialect/TileGPU/IR/LinearLayout.h"
#include "tilec/Dialect/TileGPU/IR/TileGPU.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/CallInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace tilec::tilegpu {
#define GEN_PASS_DEF_TILEGPUPREFETCHLOADS
#include "tilec/Dialect/TileGPU/Transforms/Passes.h.inc"
} // namespace tilec::tilegpu

using namespace mlir;
using namespace tilec;
using namespace tilec::tilegpu;

namespace {

/// The most registers a thread may spend on one prefetched tile.
constexpr int64_t kMaxRegistersPerThread = 16;

/// Recomputes, for one loop, values of its body at the top of the body
/// (`current`: this iteration's), for the next iteration (`next`), or
/// before the loop (`first`: iteration 0's), by cloning the pure ops that
/// compute them.
class IterationCloner {
public:
  IterationCloner(scf::ForOp loop) : loop(loop) {}

  /// Whether `value` can be recomputed: every op on the way is a pure op
  /// of the loop body (not nested in another op), and every loop-carried
  /// value reached yields a value that can be recomputed too.
  bool canRecompute(Value value) {
    if (!isInBody(value))
      return true;
    if (auto arg = dyn_cast<BlockArgument>(value)) {
      if (arg == loop.getInductionVar())
        return true;
      if (!visitingArgs.insert(arg).second)
        return true; // a recurrence (x += step): its other paths decide
      return canRecompute(yieldedFor(arg));
    }
    Operation *op = value.getDefiningOp();
    if (op->getBlock() != loop.getBody() || op->getNumRegions() != 0 || !isPure(op))
      return false;
    return llvm::all_of(op->getOperands(), [&](Value v) { return canRecompute(v); });
  }

  Value current(OpBuilder &b, Value value) {
    if (!isInBody(value) || isa<BlockArgument>(value))
      return value;
    return cloneWith(b, value, currentMap, [&](Value v) { return current(b, v); });
  }

  Value next(OpBuilder &b, Value value) {
    if (!isInBody(value))
      return value;
    if (Value known = nextMap.lookupOrNull(value))
      return known;
    if (auto arg = dyn_cast<BlockArgument>(value)) {
      Value result =
          arg == loop.getInductionVar()
              ? arith::AddIOp::create(b, loop.getLoc(), arg, loop.getStep()).getResult()
              : current(b, yieldedFor(arg));
      nextMap.map(value, result);
      return result;
    }
    return cloneWith(b, value, nextMap, [&](Value v) { return next(b, v); });
  }

  Value first(OpBuilder &b, Value value) {
    if (!isInBody(value))
      return value;
    if (auto arg = dyn_cast<BlockArgument>(value)) {
      if (arg == loop.getInductionVar())
        return loop.getLowerBound();
      return loop.getTiedLoopInit(arg)->get();
    }
    return cloneWith(b, value, firstMap, [&](Value v) { return first(b, v); });
  }

private:
  bool isInBody(Value value) {
    return loop.getBody()->getParent()->isAncestor(value.getParentRegion());
  }

  Value yieldedFor(BlockArgument arg) { return loop.getTiedLoopYieldedValue(arg)->get(); }

  Value cloneWith(OpBuilder &b, Value value, IRMapping &map,
                  llvm::function_ref<Value(Value)> operandFor) {
    if (Value known = map.lookupOrNull(value))
      return known;
    Operation *op = value.getDefiningOp();
    IRMapping operands;
    for (Value operand : op->getOperands())
      operands.map(operand, operandFor(operand));
    Operation *clone = b.clone(*op, operands);
    for (auto [from, to] : llvm::zip(op->getResults(), clone->getResults()))
      map.map(from, to);
    return map.lookup(value);
  }

  scf::ForOp loop;
  DenseSet<Value> visitingArgs;
  IRMapping currentMap, nextMap, firstMap;
};

/// Registers a thread holds for a tile of `type` (an estimate: 32-bit words
/// of its register slots).
int64_t registersPerThread(RankedTensorType type) {
  FailureOr<LinearLayout> layout = toLinearLayout(type.getShape(), type.getEncoding());
  if (failed(layout))
    return std::numeric_limits<int64_t>::max();
  unsigned bits = type.getElementType().isIntOrFloat()
                      ? type.getElementType().getIntOrFloatBitWidth()
                      : 64;
  return (layout->getNumRegisters() * bits + 31) / 32;
}

bool issuesWarpgroupDot(scf::ForOp loop) {
  return loop.getBody()
      ->walk([](WarpgroupDotOp) { return WalkResult::interrupt(); })
      .wasInterrupted();
}

/// Whether the loop may write global memory (a store, an atomic, a TMA
/// store, inline assembly, a call) or checks what it loads (tl.device_assert,
/// tl.device_print): iteration i + 1's load, issued before iteration i's
/// writes, could read a stale value, and issued before its assert, read out
/// of bounds where the assert would have stopped the kernel.
bool writesOrChecks(scf::ForOp loop) {
  return loop.getBody()
      ->walk([](Operation *op) {
        return isa<tile::StoreOp, tile::AtomicRMWOp, tile::AtomicCASOp, TMAStoreOp,
                   tile::InlineAsmElementwiseOp, CallOpInterface, tile::AssertOp,
                   tile::PrintOp>(op)
                   ? WalkResult::interrupt()
                   : WalkResult::advance();
      })
      .wasInterrupted();
}

bool qualifies(tile::LoadOp load, scf::ForOp loop) {
  auto type = dyn_cast<RankedTensorType>(load.getType());
  if (!type || load.getIsVolatile() || load->getBlock() != loop.getBody() ||
      registersPerThread(type) > kMaxRegistersPerThread)
    return false;
  IterationCloner cloner(loop);
  return llvm::all_of(load->getOperands(),
                      [&](Value v) { return cloner.canRecompute(v); });
}

/// A load of `load`'s operands recomputed by `operandFor`, masked off
/// (every lane) where `valid` is false.
Value buildLoad(OpBuilder &b, tile::LoadOp load, Value valid,
                llvm::function_ref<Value(Value)> operandFor) {
  Location loc = load.getLoc();
  Value ptr = operandFor(load.getPtr());
  auto maskType = cast<RankedTensorType>(ptr.getType()).clone(b.getI1Type());
  Value mask = tile::SplatOp::create(b, loc, maskType, valid);
  if (Value own = load.getMask())
    mask = arith::AndIOp::create(b, loc, operandFor(own), mask);
  Value other = load.getOther() ? operandFor(load.getOther()) : Value();
  auto prefetch = tile::LoadOp::create(b, loc, load.getType(), ptr, mask, other,
                                       load.getCacheAttr(), load.getEvictAttr(),
                                       load.getIsVolatileAttr());
  return prefetch.getResult();
}

/// Prefetches `load` in `loop`; returns the new loop.
scf::ForOp prefetch(RewriterBase &rewriter, scf::ForOp loop, tile::LoadOp load) {
  IterationCloner cloner(loop);
  Location loc = load.getLoc();
  // Iteration 0's load, before the loop.
  rewriter.setInsertionPoint(loop);
  Value runs = arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::slt,
                                     loop.getLowerBound(), loop.getUpperBound());
  Value firstLoad = buildLoad(rewriter, load, runs,
                              [&](Value v) { return cloner.first(rewriter, v); });
  // Iteration i + 1's load, at the top of iteration i.
  rewriter.setInsertionPointToStart(loop.getBody());
  Value nextIv = cloner.next(rewriter, loop.getInductionVar());
  Value hasNext = arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::slt, nextIv,
                                        loop.getUpperBound());
  Value nextLoad = buildLoad(rewriter, load, hasNext,
                             [&](Value v) { return cloner.next(rewriter, v); });
  auto newLoop = cast<scf::ForOp>(*loop.replaceWithAdditionalYields(
      rewriter, ValueRange{firstLoad}, /*replaceInitOperandUsesInLoop=*/false,
      [&](OpBuilder &, Location, ArrayRef<BlockArgument>) {
        return SmallVector<Value>{nextLoad};
      }));
  rewriter.replaceOp(load, newLoop.getRegionIterArgs().back());
  return newLoop;
}

struct TileGPUPrefetchLoadsPass
    : tilegpu::impl::TileGPUPrefetchLoadsBase<TileGPUPrefetchLoadsPass> {
  void runOnOperation() override {
    SmallVector<scf::ForOp> loops;
    getOperation().walk([&](scf::ForOp loop) {
      if (!loop.getUnsignedCmp() && issuesWarpgroupDot(loop) && !writesOrChecks(loop))
        loops.push_back(loop);
    });
    IRRewriter rewriter(&getContext());
    for (scf::ForOp loop : loops) {
      SmallVector<tile::LoadOp> loads;
      for (auto load : loop.getBody()->getOps<tile::LoadOp>())
        if (qualifies(load, loop))
          loads.push_back(load);
      for (tile::LoadOp load : loads)
        loop = prefetch(rewriter, loop, load);
    }
  }
};

} // namespace
