//===- IntraWarpgroupOverlap.cpp - a loop's last dot issued one iteration late ===//
//
// Part of tilec, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// The tilegpu-intra-warpgroup-overlap pass (see Passes.td). For a loop
// whose last dot D only feeds the next iteration:
//
//   for j in [lb, ub):  x = first dot; ...; w = wait(acc); ...; acc = D(a, c)
//
// becomes
//
//   if lb < ub:
//     peeled iteration at lb, without D          -> (args, a, c)
//     for j in [lb + step, ub) with (args, a, c):
//       x = first dot; d = D(a_prev, c_prev); ...; w = wait(d, a_prev); ...
//       yield (args, a, c)
//     acc = wait(D(a, c), a)
//
// with every wait's pendings recounted.
//
//===----------------------------------------------------------------------===//

#include "tilec/Dialect/TileGPU/Transforms/Passes.h"

#include "tilec/Dialect/TileGPU/IR/TileGPU.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/IRMapping.h"

namespace tilec::tilegpu {
#define GEN_PASS_DEF_TILEGPUINTRAWARPGROUPOVERLAP
#include "tilec/Dialect/TileGPU/Transforms/Passes.h.inc"
} // namespace tilec::tilegpu

using namespace mlir;
using namespace tilec;
using namespace tilec::tilegpu;

namespace {

/// What the rewrite of one loop needs.
struct DeferPlan {
  WarpgroupDotOp first;            // the body's first dot
  WarpgroupDotOp last;             // D, issued one iteration late
  unsigned accArg = 0;             // the iteration argument D's result feeds
  WarpgroupWaitOp accWait;         // its only reader
  SmallVector<Value> carried;      // D's operands defined in the body but c
};

/// The plan for `loop`, or failure with why not.
FailureOr<DeferPlan> planLoop(scf::ForOp loop, std::string &whyNot) {
  Block *body = loop.getBody();
  SmallVector<WarpgroupDotOp> dots(body->getOps<WarpgroupDotOp>());
  if (dots.size() < 2) {
    whyNot = "its body has fewer than two warpgroup dots";
    return failure();
  }
  if (!llvm::all_of(dots, [](WarpgroupDotOp d) { return d.getIsAsync(); })) {
    whyNot = "a dot of its body is not asynchronous";
    return failure();
  }
  // cp.async rings are released by CTA barriers placed for the dots'
  // order in the body; TMA rings by mbarriers, which the rewrite moves. And
  // the ops the rewrite reorders and recounts must all be in the body's
  // block: a dot, wait, release or copy in a nested region is not seen.
  bool cpAsync = false, nested = false;
  body->walk([&](Operation *op) {
    cpAsync |= isa<AsyncCopyOp, AsyncWaitOp, BarrierOp>(op);
    nested |= op->getBlock() != body &&
              isa<WarpgroupDotOp, WarpgroupWaitOp, MBarrierArriveOp,
                  MBarrierWaitOp, MBarrierExpectOp, TMALoadOp>(op);
  });
  if (cpAsync) {
    whyNot = "its body has cp.async copies or CTA barriers (only TMA rings "
             "are released by mbarriers the rewrite can move)";
    return failure();
  }
  if (nested) {
    whyNot = "a dot, wait, release or copy is inside nested control flow of "
             "its body";
    return failure();
  }
  DeferPlan plan;
  plan.first = dots.front();
  plan.last = dots.back();
  Value result = plan.last.getResult();
  auto yield = cast<scf::YieldOp>(body->getTerminator());
  if (!plan.last.hasRegisterA() || !result.hasOneUse() ||
      result.use_begin()->getOwner() != yield) {
    whyNot = "its last dot does not take A from registers and only feed the "
             "next iteration";
    return failure();
  }
  plan.accArg = result.use_begin()->getOperandNumber();
  BlockArgument acc = loop.getRegionIterArgs()[plan.accArg];
  if (!acc.hasOneUse() || !isa<WarpgroupWaitOp>(acc.use_begin()->getOwner())) {
    whyNot = "the accumulator of its last dot is not read by one wait";
    return failure();
  }
  plan.accWait = cast<WarpgroupWaitOp>(acc.use_begin()->getOwner());
  // Only the last dot may cross the back edge in flight: after the
  // rotation a wait on another carried dot would count the wrong groups.
  for (Value v : yield.getOperands())
    if (v != result && v.getDefiningOp<WarpgroupDotOp>()) {
      whyNot = "another dot's result crosses the back edge in flight";
      return failure();
    }
  for (auto wait : body->getOps<WarpgroupWaitOp>())
    for (Value v : wait.getInputs())
      if (auto arg = dyn_cast<BlockArgument>(v); arg && arg != acc) {
        whyNot = "a wait in its body takes a loop-carried value (a dot of the "
                 "previous iteration in flight)";
        return failure();
      }
  if (plan.accWait->getBlock() != body ||
      !plan.first->isBeforeInBlock(plan.accWait) ||
      !plan.accWait->isBeforeInBlock(plan.last)) {
    whyNot = "the wait for the accumulator is not between the first and the "
             "last dot";
    return failure();
  }
  Value c = plan.last.getC();
  if (c.getParentBlock() != body || isa<BlockArgument>(c)) {
    whyNot = "the accumulator of its last dot is not computed in the body";
    return failure();
  }
  for (Value operand : plan.last->getOperands())
    if (operand != c && operand.getParentBlock() == body &&
        !llvm::is_contained(plan.carried, operand))
      plan.carried.push_back(operand);
  return plan;
}

/// Recounts the pendings of the waits in `block`: each retires the dots
/// whose results it takes, leaving those issued after them.
void recountPendings(Block *block) {
  SmallVector<Operation *> issued;
  for (Operation &op : *block) {
    if (isa<WarpgroupDotOp>(op)) {
      issued.push_back(&op);
      continue;
    }
    auto wait = dyn_cast<WarpgroupWaitOp>(op);
    if (!wait)
      continue;
    std::optional<int64_t> pendings;
    for (Value input : wait.getInputs()) {
      auto it = llvm::find(issued, input.getDefiningOp());
      if (it == issued.end())
        continue;
      int64_t after = std::distance(it, issued.end()) - 1;
      pendings = std::min(pendings.value_or(after), after);
    }
    if (pendings)
      wait.setPendings(*pendings);
  }
}

/// Clones the body of `loop` (its yield and `skip` left out) at `b`'s
/// insertion point with `map`.
void cloneBody(OpBuilder &b, scf::ForOp loop, Operation *skip, IRMapping &map) {
  for (Operation &op : loop.getBody()->without_terminator())
    if (&op != skip)
      b.clone(op, map);
}

/// Rewrites `loop` by `plan` (the file comment's form).
void deferLastDot(scf::ForOp loop, DeferPlan plan) {
  Location loc = loop.getLoc();
  OpBuilder b(loop);
  Block *body = loop.getBody();
  auto yield = cast<scf::YieldOp>(body->getTerminator());
  WarpgroupDotOp last = plan.last;
  Value c = last.getC();

  // What an iteration yields: the loop's values with the accumulator's
  // place holding D's c, then D's other operands from the body.
  auto iterationValues = [&](IRMapping &map) {
    SmallVector<Value> values;
    for (auto [i, v] : llvm::enumerate(yield.getOperands()))
      values.push_back(map.lookupOrDefault(i == plan.accArg ? c : v));
    for (Value v : plan.carried)
      values.push_back(map.lookup(v));
    return values;
  };
  // D on the carried operands (`carried` in plan.carried's order, then c).
  auto issueLast = [&](OpBuilder &at, ValueRange carried, Value accumulator) {
    IRMapping map;
    for (auto [from, to] : llvm::zip(plan.carried, carried))
      map.map(from, to);
    map.map(c, accumulator);
    return cast<WarpgroupDotOp>(at.clone(*last, map));
  };

  Value lb = loop.getLowerBound(), ub = loop.getUpperBound(),
        step = loop.getStep();
  Value runs = arith::CmpIOp::create(
      b, loc,
      loop.getUnsignedCmp() ? arith::CmpIPredicate::ult : arith::CmpIPredicate::slt,
      lb, ub);
  auto guard = scf::IfOp::create(b, loc, loop.getResultTypes(), runs,
                                 /*addThenBlock=*/true, /*addElseBlock=*/true);

  // The peeled first iteration.
  OpBuilder then = OpBuilder::atBlockBegin(guard.thenBlock());
  IRMapping peel;
  peel.map(loop.getInductionVar(), lb);
  for (auto [arg, init] : llvm::zip(loop.getRegionIterArgs(), loop.getInitArgs()))
    peel.map(arg, init);
  cloneBody(then, loop, last, peel);
  SmallVector<Value> inits = iterationValues(peel);

  // The loop from the second iteration, D issued after the first dot.
  Value second = arith::AddIOp::create(then, loc, lb, step);
  auto rotated = scf::ForOp::create(then, loc, second, ub, step, inits);
  rotated.setUnsignedCmp(loop.getUnsignedCmp());
  rotated->setDiscardableAttrs(loop->getDiscardableAttrDictionary());
  Block *newBody = rotated.getBody();
  OpBuilder inner = OpBuilder::atBlockBegin(newBody);
  IRMapping map;
  map.map(loop.getInductionVar(), rotated.getInductionVar());
  unsigned numArgs = loop.getNumRegionIterArgs();
  for (unsigned i = 0; i < numArgs; ++i)
    if (i != plan.accArg)
      map.map(loop.getRegionIterArgs()[i], rotated.getRegionIterArgs()[i]);
  ValueRange carriedArgs = rotated.getRegionIterArgs().drop_front(numArgs);
  Value cPrev = rotated.getRegionIterArgs()[plan.accArg];
  WarpgroupDotOp moved;
  WarpgroupWaitOp retire;
  for (Operation &op : body->without_terminator()) {
    if (&op == last.getOperation())
      continue;
    if (&op == plan.accWait.getOperation()) {
      // The wait now retires D: it takes D's result and its register A.
      SmallVector<Value> inputs;
      for (Value v : plan.accWait.getInputs())
        inputs.push_back(v == loop.getRegionIterArgs()[plan.accArg]
                             ? moved.getResult()
                             : map.lookupOrDefault(v));
      unsigned kept = inputs.size();
      inputs.push_back(moved.getA());
      retire = WarpgroupWaitOp::create(inner, plan.accWait.getLoc(),
                                       ValueRange(inputs).getTypes(), inputs,
                                       plan.accWait.getPendingsAttr());
      for (unsigned i = 0; i < kept; ++i)
        map.map(plan.accWait.getResult(i), retire.getResult(i));
      continue;
    }
    inner.clone(op, map);
    if (&op == plan.first.getOperation())
      moved = issueLast(inner, carriedArgs, cPrev);
  }
  scf::YieldOp::create(inner, loc, iterationValues(map));
  // Releases of ring slots before the wait that retires D go after it (the
  // slot D reads is free once D is retired; a loop whose dots all retired
  // in their own iteration released at the top of the body), and the
  // refills there (the leader's wait for a release, the expect and the TMA
  // copies of a pipelined loop without a producer warpgroup) after them:
  // the leader waits for every warp's release of the slot it refills.
  SmallVector<Operation *> releases, refills;
  for (Operation *op = &newBody->front(); op != retire; op = op->getNextNode()) {
    if (isa<MBarrierArriveOp>(op))
      releases.push_back(op);
    auto wait = dyn_cast<MBarrierWaitOp>(op);
    if ((wait && wait.getLeader()) || isa<MBarrierExpectOp, TMALoadOp>(op))
      refills.push_back(op);
  }
  Operation *after = retire;
  for (Operation *op : llvm::concat<Operation *>(releases, refills)) {
    op->moveAfter(after);
    after = op;
  }
  recountPendings(guard.thenBlock());
  recountPendings(newBody);

  // D for the last iteration, retired before the results leave the guard.
  then.setInsertionPointAfter(rotated);
  ValueRange results = rotated.getResults();
  WarpgroupDotOp tail = issueLast(then, results.drop_front(numArgs),
                                  results[plan.accArg]);
  auto tailWait = WarpgroupWaitOp::create(
      then, loc, TypeRange{tail.getType(), tail.getA().getType()},
      ValueRange{tail.getResult(), tail.getA()}, then.getI32IntegerAttr(0));
  SmallVector<Value> finals(results.take_front(numArgs));
  finals[plan.accArg] = tailWait.getResult(0);
  scf::YieldOp::create(then, loc, finals);
  OpBuilder otherwise = OpBuilder::atBlockBegin(guard.elseBlock());
  scf::YieldOp::create(otherwise, loc, loop.getInitArgs());

  loop.replaceAllUsesWith(guard.getResults());
  loop.erase();
}

struct TileGPUIntraWarpgroupOverlapPass
    : tilegpu::impl::TileGPUIntraWarpgroupOverlapBase<
          TileGPUIntraWarpgroupOverlapPass> {
  using TileGPUIntraWarpgroupOverlapBase::TileGPUIntraWarpgroupOverlapBase;

  void runOnOperation() override {
    if (mode != "all" && mode != "warp-specialized") {
      getOperation().emitError()
          << "tilegpu-intra-warpgroup-overlap: mode '" << mode
          << "' is not one of all, warp-specialized";
      return signalPassFailure();
    }
    bool all = mode == "all";
    SmallVector<scf::ForOp> loops;
    getOperation().walk([&](scf::ForOp loop) {
      if (loop.getBody()->getOps<WarpgroupDotOp>().empty())
        return;
      // A consumer loop of tilegpu-warp-specialize's split.
      auto ws = loop->getParentOfType<WarpSpecializeOp>();
      if (all || (ws && ws.getConsumer().isAncestor(loop->getParentRegion())))
        loops.push_back(loop);
    });
    for (scf::ForOp loop : loops) {
      std::string whyNot;
      FailureOr<DeferPlan> plan = planLoop(loop, whyNot);
      if (failed(plan)) {
        if (all)
          emitRemark(loop.getLoc()) << "loop's last dot not overlapped with "
                                       "the next iteration: " << whyNot;
        continue;
      }
      emitRemark(loop.getLoc())
          << "loop issues its last dot one iteration late, under the next "
             "iteration's code (intra-warpgroup overlap)";
      deferLastDot(loop, *plan);
    }
  }
};

} // namespace
