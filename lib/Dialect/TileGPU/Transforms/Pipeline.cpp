//===- Pipeline.cpp - multi-stage TMA / wgmma software pipeline -----------===//
//
// Part of tilec, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// The tilegpu-pipeline pass (see Passes.td for the schedule).
//
// A loop qualifies when every TMA load group in its body has the
// single-stage form tilegpu-tma-lowering builds: an mbarrier array of one
// allocated at the kernel's entry and used only in this loop, one
// `mbarrier_expect`, the `tma_load`s into one-buffer rings, one
// `mbarrier_wait`, and `warpgroup_dot`s that read the rings; the
// coordinates of the copies are computed in the body from the induction
// variable and loop-invariant values only. Anything else in the body stays
// as it is, in its order, working on iteration i.
//
//===----------------------------------------------------------------------===//

#include "tilec/Dialect/TileGPU/Transforms/Passes.h"

#include "mlir/Analysis/SliceAnalysis.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace tilec::tilegpu {
#define GEN_PASS_DEF_TILEGPUPIPELINE
#include "tilec/Dialect/TileGPU/Transforms/Passes.h.inc"
} // namespace tilec::tilegpu

#define DEBUG_TYPE "tilegpu-pipeline"

using namespace mlir;
using namespace tilec;
using namespace tilec::tilegpu;

namespace {

/// The copies one mbarrier array tracks, and who reads their buffers.
struct LoadGroup {
  MBarrierAllocOp barriers;
  MBarrierExpectOp expect;
  SmallVector<TMALoadOp> loads;
  MBarrierWaitOp wait;
  SmallVector<WarpgroupDotOp> dots;
  /// The body ops computing the copies' coordinates, in block order.
  SetVector<Operation *> coordinateOps;
};

/// What `forOp` pipelines, or failure (and why, for the remark).
struct PipelinePlan {
  SmallVector<LoadGroup> groups;
  /// Dots whose result only feeds the next iteration's accumulator: they run
  /// asynchronously, one group in flight across the loop back edge.
  SmallVector<std::pair<WarpgroupDotOp, unsigned>> asyncDots; // (dot, iter arg)
};

FailureOr<LoadGroup> matchGroup(scf::ForOp forOp, MBarrierExpectOp expect,
                                std::string &whyNot) {
  Block *body = forOp.getBody();
  LoadGroup group;
  group.expect = expect;
  group.barriers = expect.getBarriers().getDefiningOp<MBarrierAllocOp>();
  if (!group.barriers || group.barriers.getType().getCount() != 1 ||
      forOp->isAncestor(group.barriers)) {
    whyNot = "the mbarrier is not a single one allocated outside the loop";
    return failure();
  }
  for (Operation *user : group.barriers->getUsers()) {
    if (user->getBlock() != body) {
      whyNot = "the mbarrier is used outside the loop body";
      return failure();
    }
    if (auto load = dyn_cast<TMALoadOp>(user))
      group.loads.push_back(load);
    else if (auto wait = dyn_cast<MBarrierWaitOp>(user)) {
      if (group.wait) {
        whyNot = "two waits on one mbarrier";
        return failure();
      }
      group.wait = wait;
    } else if (user != expect.getOperation()) {
      whyNot = "the mbarrier has an unexpected user";
      return failure();
    }
  }
  llvm::sort(group.loads, [](TMALoadOp a, TMALoadOp b) {
    return a->isBeforeInBlock(b);
  });
  if (!group.wait || group.loads.empty() || expect.getPred() ||
      !expect->isBeforeInBlock(group.wait)) {
    whyNot = "the copies are not an expect, loads and a wait";
    return failure();
  }
  for (TMALoadOp load : group.loads) {
    auto alloc = load.getDst().getDefiningOp<LocalAllocOp>();
    if (load.getPred() || !load->isBeforeInBlock(group.wait) || !alloc ||
        alloc.getType().getNumBuffers() != 1 || forOp->isAncestor(alloc)) {
      whyNot = "a copy is not into a one-buffer ring allocated outside the loop";
      return failure();
    }
    for (Operation *user : alloc->getUsers()) {
      if (user == load.getOperation())
        continue;
      auto dot = dyn_cast<WarpgroupDotOp>(user);
      if (!dot || dot->getBlock() != body || !group.wait->isBeforeInBlock(dot)) {
        whyNot = "a buffer is read by something other than a wgmma after the wait";
        return failure();
      }
      if (!llvm::is_contained(group.dots, dot))
        group.dots.push_back(dot);
    }
    // The coordinates: pure body ops over the induction variable and
    // loop-invariant values.
    BackwardSliceOptions options;
    options.inclusive = true;
    options.omitBlockArguments = true;
    options.filter = [&](Operation *op) { return op->getBlock() == body; };
    for (Value coord : load.getCoords()) {
      if (auto arg = dyn_cast<BlockArgument>(coord);
          arg && arg.getOwner() == body && arg != forOp.getInductionVar()) {
        whyNot = "a coordinate is carried by the loop";
        return failure();
      }
      Operation *def = coord.getDefiningOp();
      if (!def || def->getBlock() != body)
        continue;
      SetVector<Operation *> slice;
      (void)getBackwardSlice(def, &slice, options);
      for (Operation *op : slice) {
        if (!isPure(op) || op->getNumRegions() != 0) {
          whyNot = "a coordinate depends on an impure op";
          return failure();
        }
        for (Value operand : op->getOperands())
          if (auto arg = dyn_cast<BlockArgument>(operand);
              arg && arg.getOwner() == body && arg != forOp.getInductionVar()) {
            whyNot = "a coordinate depends on a value carried by the loop";
            return failure();
          }
        group.coordinateOps.insert(op);
      }
    }
  }
  // Block order, so that clones see their operands first.
  SmallVector<Operation *> ordered(group.coordinateOps.begin(),
                                   group.coordinateOps.end());
  llvm::sort(ordered, [](Operation *a, Operation *b) { return a->isBeforeInBlock(b); });
  group.coordinateOps = SetVector<Operation *>(ordered.begin(), ordered.end());
  return group;
}

FailureOr<PipelinePlan> matchLoop(scf::ForOp forOp, std::string &whyNot) {
  PipelinePlan plan;
  for (auto expect : forOp.getBody()->getOps<MBarrierExpectOp>()) {
    auto group = matchGroup(forOp, expect, whyNot);
    if (failed(group))
      return failure();
    plan.groups.push_back(std::move(*group));
  }
  auto yield = cast<scf::YieldOp>(forOp.getBody()->getTerminator());
  for (LoadGroup &group : plan.groups)
    for (WarpgroupDotOp dot : group.dots) {
      if (dot.getIsAsync()) {
        whyNot = "a wgmma is already asynchronous";
        return failure();
      }
      Value result = dot.getResult();
      if (!result.hasOneUse() || *result.user_begin() != yield.getOperation())
        continue;
      unsigned index = result.use_begin()->getOperandNumber();
      if (dot.getC() == forOp.getRegionIterArgs()[index] &&
          llvm::none_of(plan.asyncDots, [&](auto &p) { return p.first == dot; }))
        plan.asyncDots.push_back({dot, index});
    }
  if (plan.groups.empty()) {
    whyNot = "no TMA copies";
    return failure();
  }
  return plan;
}

Value constI32(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(v));
}

Value toI32(OpBuilder &b, Location loc, Value v) {
  if (v.getType().isInteger(32))
    return v;
  if (v.getType().isIndex())
    return arith::IndexCastOp::create(b, loc, b.getI32Type(), v);
  return arith::TruncIOp::create(b, loc, b.getI32Type(), v);
}

Value constLike(OpBuilder &b, Location loc, Type type, int64_t v) {
  return arith::ConstantOp::create(b, loc, b.getIntegerAttr(type, v));
}

/// Issues `group`'s copies for the iteration whose induction variable is
/// `iv` into buffer `index`, when `pred` holds.
void emitCopies(OpBuilder &b, scf::ForOp forOp, LoadGroup &group, Value iv,
                Value index, Value pred) {
  IRMapping mapping;
  mapping.map(forOp.getInductionVar(), iv);
  for (Operation *op : group.coordinateOps)
    b.clone(*op, mapping);
  Location loc = group.expect.getLoc();
  MBarrierExpectOp::create(b, loc, group.expect.getBarriers(), index,
                           group.expect.getBytesAttr(), pred);
  for (TMALoadOp load : group.loads) {
    SmallVector<Value> coords;
    for (Value coord : load.getCoords())
      coords.push_back(mapping.lookupOrDefault(coord));
    TMALoadOp::create(b, load.getLoc(), load.getDesc(), coords, load.getDst(),
                      index, load.getBarriers(), index, pred);
  }
}

void pipeline(scf::ForOp forOp, PipelinePlan &plan, unsigned numStages) {
  MLIRContext *ctx = forOp.getContext();
  Location loc = forOp.getLoc();
  IRRewriter b(ctx);
  const int64_t S = numStages;

  // S buffers per ring, S mbarriers per group.
  for (LoadGroup &group : plan.groups) {
    group.barriers.getResult().setType(MBarriersType::get(ctx, numStages));
    for (TMALoadOp load : group.loads) {
      auto alloc = load.getDst().getDefiningOp<LocalAllocOp>();
      if (alloc.getType().getNumBuffers() == 1)
        alloc.getResult().setType(SharedMemoryType::get(
            ctx, numStages, alloc.getType().getTileType()));
    }
  }

  // Prologue: the copies of iterations 0 … S-2 (those that exist).
  b.setInsertionPoint(forOp);
  Type ivType = forOp.getInductionVar().getType();
  Value lb = forOp.getLowerBound(), ub = forOp.getUpperBound(),
        step = forOp.getStep();
  Value tripCount = arith::DivSIOp::create(
      b, loc,
      arith::AddIOp::create(
          b, loc, arith::SubIOp::create(b, loc, ub, lb),
          arith::SubIOp::create(b, loc, step, constLike(b, loc, ivType, 1))),
      step);
  Value tripCount32 = toI32(b, loc, tripCount);
  for (int64_t j = 0; j + 1 < S; ++j) {
    Value iv = arith::AddIOp::create(
        b, loc, lb,
        arith::MulIOp::create(b, loc, step, constLike(b, loc, ivType, j)));
    Value pred = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt,
                                       constI32(b, loc, j), tripCount32);
    for (LoadGroup &group : plan.groups)
      emitCopies(b, forOp, group, iv, constI32(b, loc, j), pred);
  }

  // Iteration i = (iv - lb) / step reads buffer i mod S, phase (i / S) mod 2,
  // and issues the copies of iteration i + S - 1.
  b.setInsertionPointToStart(forOp.getBody());
  Value iv = forOp.getInductionVar();
  Value it = toI32(b, loc,
                   arith::DivSIOp::create(
                       b, loc, arith::SubIOp::create(b, loc, iv, lb), step));
  Value stages = constI32(b, loc, S);
  Value slot = arith::RemUIOp::create(b, loc, it, stages);
  Value phase = arith::AndIOp::create(
      b, loc, arith::DivUIOp::create(b, loc, it, stages), constI32(b, loc, 1));
  Value ahead = arith::AddIOp::create(b, loc, it, constI32(b, loc, S - 1));
  Value aheadSlot = arith::RemUIOp::create(b, loc, ahead, stages);
  Value aheadPred =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, ahead, tripCount32);
  Value aheadIv = arith::AddIOp::create(
      b, loc, iv,
      arith::MulIOp::create(b, loc, step, constLike(b, loc, ivType, S - 1)));

  auto yield = cast<scf::YieldOp>(forOp.getBody()->getTerminator());
  DenseMap<Operation *, Operation *> lastUse; // dot -> op after which it is done
  for (auto [dot, index] : plan.asyncDots) {
    dot.setIsAsync(true);
    b.setInsertionPointAfter(dot);
    auto wait = WarpgroupWaitOp::create(b, dot.getLoc(), TypeRange{dot.getType()},
                                        ValueRange{dot.getResult()},
                                        b.getI32IntegerAttr(1));
    yield->setOperand(index, wait.getResult(0));
    lastUse[dot] = wait;
  }

  for (LoadGroup &group : plan.groups) {
    group.wait.getIndexMutable().assign(slot);
    group.wait.getPhaseMutable().assign(phase);
    Operation *after = group.wait;
    for (WarpgroupDotOp dot : group.dots) {
      for (TMALoadOp load : group.loads) {
        if (dot.getA() == load.getDst())
          dot.getAIndexMutable().assign(slot);
        if (dot.getB() == load.getDst())
          dot.getBIndexMutable().assign(slot);
      }
      Operation *done = lastUse.lookup(dot) ? lastUse.lookup(dot) : dot;
      if (after->isBeforeInBlock(done))
        after = done;
    }
    // Every warpgroup has finished reading the buffers of iteration i - 1
    // (they waited for their wgmma of i - 1 above) before thread 0 refills
    // them with iteration i + S - 1.
    b.setInsertionPointAfter(after);
    BarrierOp::create(b, loc);
    emitCopies(b, forOp, group, aheadIv, aheadSlot, aheadPred);
  }

  // The single-stage copies, their barrier and coordinates go.
  for (LoadGroup &group : plan.groups) {
    if (Operation *prev = group.expect->getPrevNode(); isa_and_present<BarrierOp>(prev))
      b.eraseOp(prev);
    for (TMALoadOp load : group.loads)
      b.eraseOp(load);
    b.eraseOp(group.expect);
    for (Operation *op : llvm::reverse(group.coordinateOps))
      if (op->use_empty())
        b.eraseOp(op);
  }

  // After the loop, every wgmma has finished.
  if (!plan.asyncDots.empty()) {
    b.setInsertionPointAfter(forOp);
    SmallVector<Value> results;
    for (auto [dot, index] : plan.asyncDots)
      results.push_back(forOp.getResult(index));
    auto wait = WarpgroupWaitOp::create(b, loc, ValueRange(results).getTypes(),
                                        results, b.getI32IntegerAttr(0));
    for (auto [result, waited] : llvm::zip(results, wait.getResults()))
      result.replaceAllUsesExcept(waited, wait);
  }
}

struct TileGPUPipelinePass
    : tilegpu::impl::TileGPUPipelineBase<TileGPUPipelinePass> {
  using TileGPUPipelineBase::TileGPUPipelineBase;

  void runOnOperation() override {
    if (numStages == 0) {
      getOperation().emitError("tilegpu-pipeline: num-stages must be at least 1");
      return signalPassFailure();
    }
    if (numStages == 1)
      return;
    SmallVector<scf::ForOp> loops;
    getOperation().walk([&](scf::ForOp forOp) {
      if (!forOp.getBody()->getOps<MBarrierExpectOp>().empty())
        loops.push_back(forOp);
    });
    for (scf::ForOp forOp : loops) {
      std::string whyNot;
      FailureOr<PipelinePlan> plan = matchLoop(forOp, whyNot);
      if (failed(plan)) {
        forOp.emitRemark() << "not software-pipelined: " << whyNot;
        continue;
      }
      pipeline(forOp, *plan, numStages);
    }
  }
};

} // namespace
