//===- Pipeline.cpp - software pipelining of async copies and wgmma -------===//
//
// Part of tilec, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// The tilegpu-pipeline pass (see Passes.td for the schedule). The loop body
// is first rewritten in place into the form one pipelined iteration has
// (rings of S buffers indexed by the iteration, asynchronous dots with
// their waits, one cp.async group, a barrier where the buffers of the
// previous iteration are free), then MLIR's modulo-schedule expander
// (scf::pipelineForLoop) turns it into the prologue and kernel with two
// stages: 0 for the copies of iteration t + S - 1 (and the address
// arithmetic they need), S - 1 for the rest on iteration t.
//
//===----------------------------------------------------------------------===//

#include "tilec/Dialect/TileGPU/Transforms/Passes.h"
#include "tilec/Dialect/TileGPU/Transforms/SharedMemoryPlan.h"

#include "tilec/Dialect/Tile/IR/Tile.h"
#include "tilec/Dialect/TileGPU/IR/Scratch.h"
#include "tilec/Dialect/TileGPU/IR/TileGPU.h"

#include "mlir/Analysis/SliceAnalysis.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/Transforms.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Interfaces/LoopLikeInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/SetVector.h"

namespace tilec::tilegpu {
#define GEN_PASS_DEF_TILEGPUPIPELINE
#include "tilec/Dialect/TileGPU/Transforms/Passes.h.inc"
} // namespace tilec::tilegpu

#define DEBUG_TYPE "tilegpu-pipeline"

using namespace mlir;
using namespace tilec;
using namespace tilec::tilegpu;

namespace {

Value constI32(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(v));
}

/// The copies the pipeliner moves ahead: TMA loads with their expect, and
/// cp.async copies; the ops of their single-stage form that go.
struct LoopCopies {
  SmallVector<Operation *> copies;       // expect, tma_load, async_copy
  SmallVector<Operation *> obsolete;     // barriers, commits, waits, fences
  SmallVector<MBarrierWaitOp> tmaWaits;
  SetVector<Value> rings;                // multi-buffered rings
  SetVector<Value> barriers;             // multi-buffered mbarrier arrays
  Operation *firstCpAsyncWait = nullptr; // where the group wait goes
  bool hasCpAsync = false;
};

bool isPredicable(Operation *op) {
  return isa<TMALoadOp, MBarrierExpectOp, AsyncCopyOp, AsyncCommitGroupOp,
             MBarrierWaitOp>(op);
}

/// The single-stage copies of `forOp`'s body, or failure and why.
FailureOr<LoopCopies> collectCopies(scf::ForOp forOp, std::string &whyNot) {
  // scf::pipelineForLoop does not expand a loop that compares unsigned
  // (it failed on one after this pass had rewritten the body: an internal
  // error on a GEMM with a u32 K); such a loop keeps its single-stage
  // copies.
  if (forOp.getUnsignedCmp()) {
    whyNot = "its bounds compare unsigned (an unsigned integer bound)";
    return failure();
  }
  Block *body = forOp.getBody();
  LoopCopies result;
  auto isEntryAlloc = [&](Value v) {
    Operation *def = v.getDefiningOp();
    return def && isa<LocalAllocOp, MBarrierAllocOp>(def) &&
           !forOp->isAncestor(def);
  };
  auto dropPreviousBarrier = [&](Operation *op) {
    if (auto bar = dyn_cast_or_null<BarrierOp>(op->getPrevNode()))
      if (!llvm::is_contained(result.obsolete, bar.getOperation()))
        result.obsolete.push_back(bar);
  };
  for (Operation &op : body->without_terminator()) {
    if (auto load = dyn_cast<TMALoadOp>(&op)) {
      auto expect = dyn_cast_or_null<MBarrierExpectOp>(load->getPrevNode());
      if (!expect || expect.getBarriers() != load.getBarriers() ||
          !isEntryAlloc(load.getDst()) || !isEntryAlloc(load.getBarriers()) ||
          load.getPred() || expect.getPred()) {
        whyNot = "a TMA copy is not in the single-stage form";
        return failure();
      }
      MBarrierWaitOp wait;
      for (Operation *user : load.getBarriers().getUsers())
        if (auto w = dyn_cast<MBarrierWaitOp>(user); w && w->getBlock() == body)
          wait = w;
      if (!wait) {
        whyNot = "a TMA copy has no wait in the loop";
        return failure();
      }
      dropPreviousBarrier(expect);
      result.copies.append({expect, load});
      result.tmaWaits.push_back(wait);
      result.rings.insert(load.getDst());
      result.barriers.insert(load.getBarriers());
      continue;
    }
    if (auto copy = dyn_cast<AsyncCopyOp>(&op)) {
      auto commit = dyn_cast_or_null<AsyncCommitGroupOp>(copy->getNextNode());
      auto wait = commit ? dyn_cast_or_null<AsyncWaitOp>(commit->getNextNode())
                         : AsyncWaitOp();
      auto fence = wait ? dyn_cast_or_null<FenceAsyncSharedOp>(wait->getNextNode())
                        : FenceAsyncSharedOp();
      auto bar = fence ? dyn_cast_or_null<BarrierOp>(fence->getNextNode())
                       : BarrierOp();
      if (!bar || !isEntryAlloc(copy.getDst()) || copy.getPred()) {
        whyNot = "a cp.async copy is not in the single-stage form";
        return failure();
      }
      dropPreviousBarrier(copy);
      result.copies.push_back(copy);
      result.obsolete.append({commit, wait, fence, bar});
      if (!result.firstCpAsyncWait)
        result.firstCpAsyncWait = wait;
      result.rings.insert(copy.getDst());
      result.hasCpAsync = true;
      continue;
    }
  }
  if (result.copies.empty()) {
    whyNot = "no async copies";
    return failure();
  }
  // The expander carries loop state from one iteration's ops to the next.
  for (Value yielded : body->getTerminator()->getOperands()) {
    Operation *def = yielded.getDefiningOp();
    if (!def || def->getBlock() != body) {
      whyNot = "a loop-carried value is passed through unchanged or comes "
               "from outside the loop";
      return failure();
    }
  }
  // Every use of a multi-buffered ring or barrier array is in this loop
  // (or initializes / invalidates the barriers around it).
  for (Value v : llvm::concat<const Value>(result.rings, result.barriers))
    for (Operation *user : v.getUsers())
      if (!forOp->isAncestor(user) &&
          !isa<MBarrierInitOp, MBarrierInvalOp>(user)) {
        whyNot = "a ring it fills is used outside the loop";
        return failure();
      }
  return result;
}

/// The pure ops of the body that `roots` need (through loop-carried values
/// too): they move ahead with the copies.
FailureOr<SetVector<Operation *>>
collectStageZero(scf::ForOp forOp, ArrayRef<Operation *> roots,
                 std::string &whyNot) {
  Block *body = forOp.getBody();
  Operation *yield = body->getTerminator();
  SetVector<Operation *> slice;
  SmallVector<Operation *> worklist(roots.begin(), roots.end());
  while (!worklist.empty()) {
    Operation *op = worklist.pop_back_val();
    if (!slice.insert(op))
      continue;
    if (!isPredicable(op) && (!isPure(op) || op->getNumRegions() != 0)) {
      whyNot = "an address the copies need comes from an op with side effects";
      return failure();
    }
    for (Value operand : op->getOperands()) {
      if (auto arg = dyn_cast<BlockArgument>(operand)) {
        if (arg.getOwner() != body || arg == forOp.getInductionVar())
          continue;
        // A loop-carried value: its recurrence moves ahead too.
        Value next = yield->getOperand(arg.getArgNumber() - 1);
        if (Operation *def = next.getDefiningOp(); def && def->getBlock() == body)
          worklist.push_back(def);
        else if (!def || def->getBlock() != body) {
          whyNot = "a loop-carried address is not computed in the loop";
          return failure();
        }
        continue;
      }
      Operation *def = operand.getDefiningOp();
      if (def && def->getBlock() == body)
        worklist.push_back(def);
    }
  }
  return slice;
}

/// Gives the users outside `slice` of the pure ops in it clones of their
/// own (whole chains), so that the copies' address arithmetic is not
/// carried across stages for other users.
void separateSharedArithmetic(scf::ForOp forOp, SetVector<Operation *> &slice) {
  Operation *yield = forOp.getBody()->getTerminator();
  SmallVector<Operation *> ops(slice.begin(), slice.end());
  for (Operation *op : ops) {
    if (isPredicable(op))
      continue;
    SmallVector<OpOperand *> outside;
    for (OpOperand &use : op->getUses())
      if (!slice.contains(use.getOwner()) && use.getOwner() != yield)
        outside.push_back(&use);
    if (outside.empty())
      continue;
    // Values that are yielded are loop state: they are carried, not cloned.
    bool yielded = llvm::any_of(op->getUsers(),
                                [&](Operation *u) { return u == yield; });
    if (yielded)
      continue;
    OpBuilder b(op);
    b.setInsertionPointAfter(op);
    Operation *clone = b.clone(*op);
    for (OpOperand *use : outside)
      use->set(clone->getResult(cast<OpResult>(use->get()).getResultNumber()));
  }
}

/// `v` (an integer or index) as i32.
Value castToI32(OpBuilder &b, Location loc, Value v) {
  Type i32 = b.getI32Type();
  if (v.getType().isIndex())
    return arith::IndexCastOp::create(b, loc, i32, v);
  if (!v.getType().isInteger(32))
    return arith::TruncIOp::create(b, loc, i32, v);
  return v;
}

/// `iteration` (the loop's t, i32) at `b`'s point, counted from `base`
/// (the iterations of earlier loops whose rings this loop continues; null
/// for none).
Value emitIteration(OpBuilder &b, Location loc, scf::ForOp forOp, Value base) {
  Value t = arith::SubIOp::create(b, loc, forOp.getInductionVar(),
                                  forOp.getLowerBound());
  t = castToI32(b, loc, arith::DivSIOp::create(b, loc, t, forOp.getStep()));
  return base ? arith::AddIOp::create(b, loc, base, t).getResult() : t;
}

Value emitSlot(OpBuilder &b, Location loc, scf::ForOp forOp, int64_t stages,
               Value base) {
  return arith::RemUIOp::create(b, loc, emitIteration(b, loc, forOp, base),
                                constI32(b, loc, stages));
}

Value emitPhase(OpBuilder &b, Location loc, scf::ForOp forOp, int64_t stages,
                Value base) {
  Value round = arith::DivUIOp::create(b, loc, emitIteration(b, loc, forOp, base),
                                       constI32(b, loc, stages));
  return arith::AndIOp::create(b, loc, round, constI32(b, loc, 1));
}

/// The number of iterations of a loop over [lb, ub) by `step` (> 0), as
/// i32, at `b`'s point: 0 when ub <= lb.
Value emitTripCount(OpBuilder &b, Location loc, Value lb, Value ub, Value step) {
  Type type = lb.getType();
  auto cst = [&](int64_t v) -> Value {
    return arith::ConstantOp::create(b, loc, b.getIntegerAttr(type, v));
  };
  Value diff = arith::SubIOp::create(b, loc, ub, lb);
  Value up = arith::AddIOp::create(
      b, loc, diff, arith::SubIOp::create(b, loc, step, cst(1)));
  Value trips = arith::DivSIOp::create(b, loc, up, step);
  Value some = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sgt, diff, cst(0));
  return castToI32(b, loc, arith::SelectOp::create(b, loc, some, trips, cst(0)));
}

/// What a loop pipelined with the release protocol (TMA copies only)
/// leaves for a later loop of its block to continue: a later loop whose
/// copies fill rings of the same tiles, with the same barriers' layout and
/// bytes, and as many stages, fills these rings instead of its own, from
/// the global iteration where this one stops (see Passes.td).
struct PipelinedRings {
  scf::ForOp loop;            // the pipelined loop
  int64_t stages = 0;
  SmallVector<Value> rings;   // per TMA copy, in the body's order
  SmallVector<Value> full;    // the mbarrier array each copy completes on
  SmallVector<int64_t> bytes; // each copy's expect-tx bytes
  Value empty;                // the release mbarriers
  Operation *emptyInval = nullptr;
  Value base;                 // global iteration of its first one (null: 0)
  Value lb, ub, step;         // its bounds before pipelining
};

/// The global iteration where `rings`' loop stops (its base plus its trip
/// count), at `b`'s point: where a loop that continues its rings starts.
Value emitEndIteration(OpBuilder &b, Location loc, const PipelinedRings &rings) {
  Value end = emitTripCount(b, loc, rings.lb, rings.ub, rings.step);
  return rings.base ? arith::AddIOp::create(b, loc, rings.base, end).getResult() : end;
}

/// The TMA copies of `copies` as (ring, barrier array, bytes), in order.
void describeCopies(ArrayRef<Operation *> copies, SmallVectorImpl<Value> &rings,
                    SmallVectorImpl<Value> &full, SmallVectorImpl<int64_t> &bytes) {
  // collectCopies lists each TMA copy right after its expect.
  MBarrierExpectOp expect;
  for (Operation *op : copies) {
    if (auto e = dyn_cast<MBarrierExpectOp>(op))
      expect = e;
    if (auto load = dyn_cast<TMALoadOp>(op)) {
      rings.push_back(load.getDst());
      full.push_back(load.getBarriers());
      bytes.push_back(expect.getBytes());
    }
  }
}

/// The ring and barrier replacements that make `forOp`'s copies continue
/// `prev`'s rings, or failure when they do not match one to one.
LogicalResult matchRings(const PipelinedRings &prev, scf::ForOp forOp,
                         ArrayRef<Operation *> copies, int64_t stages,
                         IRMapping &map) {
  if (prev.stages != stages || !prev.empty ||
      prev.loop->getBlock() != forOp->getBlock() ||
      !prev.loop->isBeforeInBlock(forOp))
    return failure();
  // Consecutive loops only: no loop in between (its rings would live beside
  // the continued ones).
  for (Operation *op = prev.loop->getNextNode(); op != forOp; op = op->getNextNode()) {
    WalkResult loop = op->walk([](LoopLikeOpInterface) { return WalkResult::interrupt(); });
    if (loop.wasInterrupted())
      return failure();
  }
  SmallVector<Value> rings, full;
  SmallVector<int64_t> bytes;
  describeCopies(copies, rings, full, bytes);
  if (rings.size() != prev.rings.size() || bytes != prev.bytes)
    return failure();
  DenseMap<Value, Value> back; // prev's value -> this loop's
  auto pair = [&](Value mine, Value theirs) {
    Value mapped = map.lookupOrNull(mine);
    auto it = back.find(theirs);
    if ((mapped && mapped != theirs) || (it != back.end() && it->second != mine))
      return false;
    map.map(mine, theirs);
    back[theirs] = mine;
    return true;
  };
  for (size_t i = 0; i < rings.size(); ++i)
    if (!pair(rings[i], prev.rings[i]) || !pair(full[i], prev.full[i]))
      return failure();
  for (auto [mine, theirs] : llvm::zip(rings, prev.rings))
    if (cast<SharedMemoryType>(mine.getType()).getTileType() !=
        cast<SharedMemoryType>(theirs.getType()).getTileType())
      return failure();
  // The earlier loop's invalidations, which go, and this loop's
  // initializations, which go too, sit in the loops' block.
  for (Value v : llvm::concat<const Value>(prev.full, ArrayRef<Value>(prev.empty)))
    for (Operation *user : v.getUsers())
      if (isa<MBarrierInvalOp>(user) && user->getBlock() != forOp->getBlock())
        return failure();
  for (Value v : full)
    for (Operation *user : v.getUsers())
      if (isa<MBarrierInitOp>(user) && user->getBlock() != forOp->getBlock())
        return failure();
  return success();
}

/// Makes every warpgroup_dot of the body asynchronous and inserts the
/// waits its results need (see Passes.td). Returns the op after which all
/// dots of the previous iteration are done.
Operation *scheduleDots(scf::ForOp forOp) {
  Block *body = forOp.getBody();
  auto yield = cast<scf::YieldOp>(body->getTerminator());
  SmallVector<WarpgroupDotOp> dots(body->getOps<WarpgroupDotOp>());
  if (dots.empty())
    return nullptr; // the start of the body
  for (WarpgroupDotOp dot : dots)
    dot.setIsAsync(true);
  MLIRContext *ctx = forOp.getContext();
  auto dotsBetween = [&](Operation *from, Operation *to) {
    // Dots issued strictly after `from` and before `to` (in body order;
    // `from` may be null: the start).
    int64_t n = 0;
    bool counting = from == nullptr;
    for (Operation &op : *body) {
      if (&op == to)
        break;
      if (counting && isa<WarpgroupDotOp>(&op))
        ++n;
      if (&op == from)
        counting = true;
    }
    return n;
  };
  auto dotsAfter = [&](Operation *from) {
    return dotsBetween(from, yield.getOperation());
  };
  auto isChain = [](OpOperand &use) {
    auto dot = dyn_cast<WarpgroupDotOp>(use.getOwner());
    return dot && use.get() == dot.getC();
  };

  // The uses of `v` other than as another dot's accumulator.
  auto nonChainUses = [&](Value v) {
    SmallVector<OpOperand *> uses;
    for (OpOperand &use : v.getUses())
      if (!isChain(use))
        uses.push_back(&use);
    return uses;
  };
  // The op of the body that holds the first of `uses` (a use nested in an
  // scf.if counts as the if), or null.
  auto firstHolder = [&](ArrayRef<OpOperand *> uses) -> Operation * {
    Operation *first = nullptr;
    for (OpOperand *use : uses) {
      Operation *op = body->findAncestorOpInBlock(*use->getOwner());
      if (!first || op->isBeforeInBlock(first))
        first = op;
    }
    return first;
  };
  // Reads of a result (in this iteration, or in the next through the
  // yield) wait for it, leaving the dots issued since in flight.
  for (WarpgroupDotOp dot : dots) {
    Value result = dot.getResult();
    SmallVector<OpOperand *> uses = nonChainUses(result);
    llvm::erase_if(uses, [&](OpOperand *use) {
      return use->getOwner() == yield.getOperation() ||
             isa<WarpgroupWaitOp>(use->getOwner());
    });
    if (Operation *first = firstHolder(uses)) {
      OpBuilder b(first);
      auto wait = WarpgroupWaitOp::create(
          b, dot.getLoc(), TypeRange{result.getType()}, ValueRange{result},
          b.getI32IntegerAttr(dotsBetween(dot, first)));
      for (OpOperand *use : uses)
        use->set(wait.getResult(0));
    }
    // Through the yield into the next iteration.
    for (OpOperand &use : yield->getOpOperands()) {
      if (use.get() != result)
        continue;
      BlockArgument arg = forOp.getRegionIterArgs()[use.getOperandNumber()];
      SmallVector<OpOperand *> next = nonChainUses(arg);
      Operation *first = firstHolder(next);
      if (!first)
        continue;
      OpBuilder b(first);
      auto wait = WarpgroupWaitOp::create(
          b, dot.getLoc(), TypeRange{arg.getType()}, ValueRange{arg},
          b.getI32IntegerAttr(dotsAfter(dot) + dotsBetween(nullptr, first)));
      for (OpOperand *u : next)
        u->set(wait.getResult(0));
    }
  }

  // Whether `wait`, in the next iteration, retires `dot` of this one.
  auto retiresFromPrevious = [&](WarpgroupWaitOp wait, WarpgroupDotOp dot) {
    return dotsAfter(dot) + dotsBetween(nullptr, wait) >= wait.getPendings();
  };
  // A dot with its A in registers may stay in flight across the back edge
  // when it is the body's last dot, its result only goes, through the
  // yield, to the next iteration (as that dot's own accumulator, or to a
  // read that waits for it) and the next iteration writes its A fragments
  // only after a wait that retires it: A is a narrowing conversion (it
  // writes new registers; a forwarding op such as an scf.if or select
  // could hand A the registers of a value computed before that wait) of a
  // value computed from such a wait. Attention's P * V (its accumulator
  // rescaled at the top of the next iteration) and the backward's dK and
  // dQ (accumulated only) stay in flight behind the next iteration's first
  // dots, as in Triton (PTX ISA §9.7.15.5.1: the registers an in-flight
  // wgmma reads may not be written; ptxas allocates the registers of
  // in-flight wgmmas as Triton's and FlashAttention-3's kernels rely on).
  // Another dot that accumulates into the carried value would read it
  // unretired (ptxas then injects a wait, C7517). Any other dot with a
  // register A is retired within its iteration, its A kept until then by
  // the wait. A dot that only accumulates (dK, dQ) stays in flight in
  // kernels of more than one warpgroup only: with one, two CTAs share an
  // SM and hide each other's latency, and the A fragments kept live cost
  // spills (the backward at head dim 64, N_CTX 4096, H200, same run: 4
  // warps 224.6 TFLOP/s retired against 205.0 in flight; 8 warps 195.8
  // against 213.7, and 251.0 against 263.9 at head dim 128;
  // bench/RESULTS.md, eighth session).
  std::optional<unsigned> numWarps = lookupNumWarps(forOp);
  bool oneWarpgroup = !numWarps || *numWarps <= 4;
  auto staysInFlight = [&](WarpgroupDotOp dot) {
    if (dot != dots.back())
      return false;
    Value result = dot.getResult();
    if (!result.hasOneUse() || result.use_begin()->getOwner() != yield.getOperation())
      return false;
    BlockArgument arg =
        forOp.getRegionIterArgs()[result.use_begin()->getOperandNumber()];
    for (OpOperand &use : arg.getUses())
      if (isChain(use) && use.getOwner() != dot.getOperation())
        return false;
    bool onlyAccumulates = llvm::all_of(
        arg.getUsers(), [&](Operation *user) { return user == dot.getOperation(); });
    if (onlyAccumulates && oneWarpgroup)
      return false;
    auto def = dot.getA().getDefiningOp<arith::TruncFOp>();
    if (!def || def->getBlock() != body)
      return false;
    SetVector<Operation *> slice;
    BackwardSliceOptions options;
    options.omitBlockArguments = true;
    options.filter = [&](Operation *op) { return op->getBlock() == body; };
    if (failed(getBackwardSlice(def.getOperation(), &slice, options)))
      return false;
    return llvm::any_of(slice, [&](Operation *op) {
      auto wait = dyn_cast<WarpgroupWaitOp>(op);
      return wait && retiresFromPrevious(wait, dot);
    });
  };
  for (WarpgroupDotOp dot : dots) {
    if (!dot.hasRegisterA() || staysInFlight(dot))
      continue;
    OpBuilder b(yield);
    SmallVector<Value> inputs{dot.getResult(), dot.getA()};
    auto wait = WarpgroupWaitOp::create(b, dot.getLoc(), ValueRange(inputs).getTypes(),
                                        inputs, b.getI32IntegerAttr(dotsAfter(dot)));
    dot.getResult().replaceUsesWithIf(wait.getResult(0), [&](OpOperand &use) {
      return use.getOwner() == yield.getOperation();
    });
  }

  // Where every dot of the previous iteration is retired: after the first
  // wait that retires them all, or (none) at the start when each dot is
  // retired within its own iteration.
  auto retiresInOwnIteration = [&](WarpgroupDotOp dot) {
    for (Operation *op = dot->getNextNode(); op; op = op->getNextNode())
      if (auto wait = dyn_cast<WarpgroupWaitOp>(op))
        if (dotsBetween(dot, wait) >= wait.getPendings())
          return true;
    return false;
  };
  if (llvm::all_of(dots, retiresInOwnIteration))
    return nullptr;
  for (Operation &op : *body) {
    auto wait = dyn_cast<WarpgroupWaitOp>(&op);
    if (!wait)
      continue;
    bool all = llvm::all_of(dots, [&](WarpgroupDotOp dot) {
      return retiresInOwnIteration(dot) || retiresFromPrevious(wait, dot);
    });
    if (all)
      return wait;
  }
  // None: wait after the last dot, leaving this iteration's in flight.
  WarpgroupDotOp last = dots.back();
  OpBuilder b(ctx);
  b.setInsertionPointAfter(last);
  return WarpgroupWaitOp::create(b, last.getLoc(), TypeRange{}, ValueRange{},
                                 b.getI32IntegerAttr(dotsBetween(nullptr, last) + 1));
}

/// Rewrites `forOp`'s body into one pipelined iteration and expands it.
/// Returns false (and why) when the loop is not taken, failure when it was
/// taken and could not be finished (an error was reported).
FailureOr<bool> pipelineLoop(RewriterBase &rewriter, scf::ForOp forOp,
                             int64_t stages, std::string &whyNot,
                             const PipelinedRings *previous, Value seedBase,
                             PipelinedRings &done) {
  FailureOr<LoopCopies> copies = collectCopies(forOp, whyNot);
  if (failed(copies))
    return false;
  FailureOr<SetVector<Operation *>> ahead =
      collectStageZero(forOp, copies->copies, whyNot);
  if (failed(ahead))
    return false;
  // Everything below changes the loop.
  MLIRContext *ctx = forOp.getContext();
  Block *body = forOp.getBody();
  Location loc = forOp.getLoc();
  done.loop = forOp;
  done.stages = stages;
  done.lb = forOp.getLowerBound();
  done.ub = forOp.getUpperBound();
  done.step = forOp.getStep();

  // Rings continued from the loop pipelined just before this one in the
  // same block, when it fills rings of the same tiles: this loop's copies
  // go into its rings, with its mbarriers (initialized once, before it;
  // invalidated once, after this loop) and its release barriers, from the
  // global iteration where it stopped. A producer warpgroup then runs from
  // one loop's copies into the next one's as it does from one iteration to
  // the next. (Only consecutive loops: rings continued across a loop in
  // between would live through it, beside its own.)
  const PipelinedRings *prev = nullptr;
  IRMapping continued;
  if (!copies->hasCpAsync && previous &&
      succeeded(matchRings(*previous, forOp, copies->copies, stages, continued)))
    prev = previous;
  // Without an earlier loop to continue: `seedBase`, the iteration the
  // kernel's persistent loop carries (null: 0).
  Value base = prev ? Value() : seedBase;
  if (prev) {
    OpBuilder b(forOp);
    base = emitEndIteration(b, loc, *prev);
    SetVector<Value> mine(copies->rings.begin(), copies->rings.end());
    mine.insert(copies->barriers.begin(), copies->barriers.end());
    for (Value v : mine) {
      Value theirs = continued.lookup(v);
      // Their invalidation after the earlier loop goes (this loop's, after
      // it, stays); this loop's initialization goes.
      for (Operation *user : llvm::to_vector(theirs.getUsers()))
        if (isa<MBarrierInvalOp>(user) && user->getBlock() == forOp->getBlock() &&
            user->isBeforeInBlock(forOp))
          rewriter.eraseOp(user);
      for (Operation *user : llvm::to_vector(v.getUsers()))
        if (isa<MBarrierInitOp>(user))
          rewriter.eraseOp(user);
      Operation *alloc = v.getDefiningOp();
      rewriter.replaceAllUsesWith(v, theirs);
      rewriter.eraseOp(alloc);
    }
    SetVector<Value> rings, barriers;
    for (Value v : copies->rings)
      rings.insert(continued.lookup(v));
    for (Value v : copies->barriers)
      barriers.insert(continued.lookup(v));
    copies->rings = std::move(rings);
    copies->barriers = std::move(barriers);
    InFlightDiagnostic remark = emitRemark(loc);
    remark << "loop's copies continue the rings of the kernel's previous loop";
    if (auto at = dyn_cast<FileLineColLoc>(prev->loop->getLoc()))
      remark << " (written at line " << at.getLine() << ")";
    remark << ": same tiles, one set of buffers and mbarriers for both, its "
              "slots and phases counted on";
  }
  done.base = base;

  for (Value ring : copies->rings)
    ring.setType(SharedMemoryType::get(
        ctx, stages, cast<SharedMemoryType>(ring.getType()).getTileType()));
  for (Value bars : copies->barriers)
    bars.setType(MBarriersType::get(ctx, stages));
  for (Operation *op : copies->obsolete)
    rewriter.eraseOp(op);

  // Buffer indices and phases from the iteration, per op (each stage
  // computes its own).
  auto indexBefore = [&](Operation *op, OpOperand &operand) {
    OpBuilder b(op);
    operand.set(emitSlot(b, op->getLoc(), forOp, stages, base));
  };
  for (Operation *copy : copies->copies) {
    if (auto load = dyn_cast<TMALoadOp>(copy)) {
      indexBefore(load, load.getIndexMutable());
      indexBefore(load, load.getBarrierIndexMutable());
    } else if (auto expect = dyn_cast<MBarrierExpectOp>(copy)) {
      indexBefore(expect, expect.getIndexMutable());
    } else if (auto async = dyn_cast<AsyncCopyOp>(copy)) {
      indexBefore(async, async.getIndexMutable());
    }
  }
  for (MBarrierWaitOp wait : copies->tmaWaits) {
    indexBefore(wait, wait.getIndexMutable());
    OpBuilder b(wait);
    wait.getPhaseMutable().assign(emitPhase(b, wait.getLoc(), forOp, stages, base));
  }
  for (WarpgroupDotOp dot : llvm::to_vector(body->getOps<WarpgroupDotOp>())) {
    if (dot.getAIndex() && copies->rings.contains(dot.getA()))
      indexBefore(dot, dot.getAIndexMutable()[0]);
    if (copies->rings.contains(dot.getB()))
      indexBefore(dot, dot.getBIndexMutable());
  }

  // Buffers are released by the consumers through mbarriers when only TMA
  // fills them: before the copies of iteration i into slot i % S, thread 0
  // waits until every warp has released that slot's previous use
  // (iteration i - S); the first use of a slot passes at once (parity 1 of
  // a fresh barrier). The other warps never wait for each other, so
  // warpgroups drift apart by up to the ring's depth and one's softmax
  // overlaps another's wgmma. cp.async copies are issued by every thread:
  // a CTA barrier releases those buffers.
  SmallVector<Operation *> roots(copies->copies);
  Value empty;
  if (!copies->hasCpAsync) {
    std::optional<unsigned> numWarps = lookupNumWarps(forOp);
    if (!numWarps) {
      forOp.emitError("internal error: tilegpu-pipeline found no warp count");
      return failure();
    }
    OpBuilder outside(forOp);
    if (prev) {
      empty = prev->empty;
      rewriter.eraseOp(prev->emptyInval);
    } else {
      OpBuilder entry(ctx);
      entry.setInsertionPointToStart(
          &forOp->getParentOfType<FunctionOpInterface>().getFunctionBody().front());
      empty = MBarrierAllocOp::create(entry, loc, MBarriersType::get(ctx, stages),
                                      /*offset=*/IntegerAttr());
      MBarrierInitOp::create(outside, loc, empty, outside.getI32IntegerAttr(*numWarps));
    }
    outside.setInsertionPointAfter(forOp);
    done.emptyInval = MBarrierInvalOp::create(outside, loc, empty);
    done.empty = empty;
    describeCopies(copies->copies, done.rings, done.full, done.bytes);
    OpBuilder w(copies->copies.front());
    Value i = emitIteration(w, loc, forOp, base);
    Value slot = arith::RemUIOp::create(w, loc, i, constI32(w, loc, stages));
    Value round = arith::DivUIOp::create(w, loc, i, constI32(w, loc, stages));
    Value parity = arith::XOrIOp::create(
        w, loc, arith::AndIOp::create(w, loc, round, constI32(w, loc, 1)),
        constI32(w, loc, 1));
    roots.push_back(MBarrierWaitOp::create(w, loc, empty, slot, parity, w.getUnitAttr(),
                                           /*pred=*/Value(), /*oncePerProgram=*/UnitAttr()));
  }

  // The copies' address arithmetic again, now with the slot computations
  // (pure ops: it succeeds as it did before).
  ahead = collectStageZero(forOp, roots, whyNot);
  if (failed(ahead)) {
    forOp.emitError("internal error: tilegpu-pipeline lost the copies' "
                    "addresses: ") << whyNot;
    return failure();
  }
  separateSharedArithmetic(forOp, *ahead);

  // Dots asynchronous; the point where the previous iteration's buffers
  // are free, then a barrier and the copies of iteration t + S - 1.
  Operation *release = scheduleDots(forOp);
  OpBuilder b(ctx);
  if (release)
    b.setInsertionPointAfter(release);
  else
    b.setInsertionPointToStart(body);
  Operation *releaseBarrier;
  if (empty) {
    // Iteration t releases the slot iteration t - 1 read.
    Value t = emitIteration(b, loc, forOp, base);
    Value prev = arith::RemUIOp::create(
        b, loc, arith::AddIOp::create(b, loc, t, constI32(b, loc, stages - 1)),
        constI32(b, loc, stages));
    Value hasPrev = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge, t,
                                          constI32(b, loc, 1));
    releaseBarrier = MBarrierArriveOp::create(b, loc, empty, prev, hasPrev,
                                              /*clusterCTAs=*/IntegerAttr());
  } else {
    releaseBarrier = BarrierOp::create(b, loc);
  }
  Operation *commit = nullptr;
  if (copies->hasCpAsync) {
    // One group per iteration: after the last cp.async of the iteration.
    Operation *lastCopy = nullptr;
    for (Operation *copy : copies->copies)
      if (isa<AsyncCopyOp>(copy))
        lastCopy = copy;
    OpBuilder c(lastCopy->getNextNode());
    commit = AsyncCommitGroupOp::create(c, loc);
    ahead->insert(commit);
  }

  // The schedule: the body in order, stage 0 moved after the barrier.
  std::vector<std::pair<Operation *, unsigned>> schedule;
  unsigned last = stages - 1;
  for (Operation &op : body->without_terminator()) {
    if (ahead->contains(&op))
      continue;
    schedule.push_back({&op, last});
    if (&op == releaseBarrier)
      for (Operation &other : body->without_terminator())
        if (ahead->contains(&other))
          schedule.push_back({&other, 0});
  }

  // The wait for this iteration's cp.async group: before the first reader,
  // leaving the groups issued since in flight.
  if (copies->hasCpAsync) {
    Operation *firstReader = nullptr;
    for (auto [op, stage] : schedule) {
      if (stage != last)
        continue;
      bool reads = llvm::any_of(op->getOperands(), [&](Value v) {
        return copies->rings.contains(v) &&
               !isa<TMALoadOp, AsyncCopyOp, MBarrierExpectOp>(op);
      });
      if (reads) {
        firstReader = op;
        break;
      }
    }
    if (firstReader) {
      // Groups committed after this iteration's: S - 2, or S - 1 when the
      // copies of iteration t + S - 1 come before the reader.
      bool aheadFirst = false;
      for (auto [op, stage] : schedule) {
        if (op == firstReader)
          break;
        if (op == commit)
          aheadFirst = true;
      }
      OpBuilder w(firstReader);
      auto wait = AsyncWaitOp::create(w, loc, w.getI32IntegerAttr(stages - 2 + aheadFirst));
      auto fence = FenceAsyncSharedOp::create(w, loc);
      auto bar = BarrierOp::create(w, loc);
      auto pos = llvm::find_if(schedule, [&](auto &p) { return p.first == firstReader; });
      pos = schedule.insert(pos, {wait, last});
      pos = schedule.insert(pos + 1, {fence, last});
      schedule.insert(pos + 1, {bar, last});
    }
  }

  scf::PipeliningOption options;
  options.getScheduleFn = [&](scf::ForOp,
                              std::vector<std::pair<Operation *, unsigned>> &s) {
    s = schedule;
  };
  options.supportDynamicLoops = true;
  options.peelEpilogue = false;
  options.predicateFn = [](RewriterBase &rw, Operation *op,
                           Value pred) -> Operation * {
    auto andPred = [&](OpOperand *existing) {
      return existing && existing->get()
                 ? arith::AndIOp::create(rw, op->getLoc(), existing->get(), pred)
                       .getResult()
                 : pred;
    };
    if (auto load = dyn_cast<TMALoadOp>(op)) {
      Value p = load.getPred() ? andPred(&load.getPredMutable()[0]) : pred;
      load.getPredMutable().assign(p);
      return op;
    }
    if (auto expect = dyn_cast<MBarrierExpectOp>(op)) {
      Value p = expect.getPred() ? andPred(&expect.getPredMutable()[0]) : pred;
      expect.getPredMutable().assign(p);
      return op;
    }
    if (auto copy = dyn_cast<AsyncCopyOp>(op)) {
      Value p = copy.getPred() ? andPred(&copy.getPredMutable()[0]) : pred;
      copy.getPredMutable().assign(p);
      return op;
    }
    if (auto wait = dyn_cast<MBarrierWaitOp>(op)) {
      Value p = wait.getPred() ? andPred(&wait.getPredMutable()[0]) : pred;
      wait.getPredMutable().assign(p);
      return op;
    }
    if (isa<AsyncCommitGroupOp>(op) || (isPure(op) && op->getNumRegions() == 0))
      return op;
    return nullptr;
  };
  rewriter.setInsertionPoint(forOp);
  // The frontend's tile.warp_specialize (read by tilegpu-warp-specialize)
  // stays with the expanded loop.
  Attribute warpSpecialize = forOp->getAttr(tile::kWarpSpecializeAttrName);
  FailureOr<scf::ForOp> pipelined = scf::pipelineForLoop(rewriter, forOp, options);
  if (failed(pipelined)) {
    // The body was already rewritten: the loop cannot stay as it was.
    forOp.emitError("internal error: scf::pipelineForLoop refused a loop "
                    "tilegpu-pipeline had prepared");
    return failure();
  }

  // After the loop: the copies (cp.async of iterations that did not exist
  // write zeros) and the dots whose results leave the loop are done.
  scf::ForOp newLoop = *pipelined;
  done.loop = newLoop;
  if (warpSpecialize)
    newLoop->setAttr(tile::kWarpSpecializeAttrName, warpSpecialize);
  OpBuilder after(ctx);
  after.setInsertionPointAfter(newLoop);
  if (copies->hasCpAsync)
    AsyncWaitOp::create(after, loc, after.getI32IntegerAttr(0));
  // Accumulators still in flight: yielded straight from an async dot
  // (waited for also when unused: they still read their shared operands,
  // which later code may reuse).
  SmallVector<Value> results;
  bool inFlight = false;
  Operation *newYield = newLoop.getBody()->getTerminator();
  for (auto [result, yielded] :
       llvm::zip(newLoop.getResults(), newYield->getOperands())) {
    if (!yielded.getDefiningOp<WarpgroupDotOp>())
      continue;
    inFlight = true;
    if (!result.use_empty())
      results.push_back(result);
  }
  if (inFlight) {
    auto wait = WarpgroupWaitOp::create(after, loc, ValueRange(results).getTypes(),
                                        results, after.getI32IntegerAttr(0));
    for (auto [result, waited] : llvm::zip(results, wait.getResults()))
      result.replaceAllUsesExcept(waited, wait);
  }
  return true;
}

/// The stages that fit: `wanted`, or fewer (at least 2) when the rings this
/// loop multiplies, with the other rings it reads and its ops' scratch,
/// would not fit a CTA's shared memory.
int64_t fitStages(scf::ForOp forOp, int64_t wanted) {
  auto func = forOp->getParentOfType<FunctionOpInterface>();
  int64_t fixed = 0, perStage = 0;
  SetVector<Value> own;
  for (Operation &op : forOp.getBody()->getOperations())
    if (auto load = dyn_cast<TMALoadOp>(&op))
      own.insert(load.getDst());
    else if (auto copy = dyn_cast<AsyncCopyOp>(&op))
      own.insert(copy.getDst());
  // Other rings count when the loop reads them (attention's Q); those of
  // other loops share memory with these (tilegpu-allocate-shared), except
  // in a persistent kernel's loop over programs, where every ring of the
  // body lives through all of it.
  Operation *scope = forOp;
  if (Operation *parent = forOp->getParentOp();
      parent && parent->hasAttr(TileGPUDialect::getPersistentAttrName()))
    scope = parent;
  func->walk([&](LocalAllocOp alloc) {
    int64_t bytes = alloc.getType().getNumBuffers() * alloc.getType().getBufferBytes();
    if (own.contains(alloc.getResult()))
      perStage += alloc.getType().getBufferBytes();
    else if (llvm::any_of(alloc->getUsers(),
                          [&](Operation *user) { return scope->isAncestor(user); }))
      fixed += bytes;
  });
  // The scratch of the loop's ops is live beside its rings.
  int64_t scratch = 0;
  forOp->walk([&](Operation *op) { scratch = std::max(scratch, getScratchBytes(op)); });
  fixed += scratch;
  int64_t stages = wanted;
  while (stages > 2 && fixed + stages * perStage > kMaxSharedMemoryBytes)
    --stages;
  return stages;
}

struct TileGPUPipelinePass
    : tilegpu::impl::TileGPUPipelineBase<TileGPUPipelinePass> {
  using TileGPUPipelineBase::TileGPUPipelineBase;

  void runOnOperation() override {
    if (numStages == 0) {
      getOperation().emitError("tilegpu-pipeline: num-stages must be at least 1");
      return signalPassFailure();
    }
    SmallVector<scf::ForOp> loops;
    getOperation().walk([&](scf::ForOp forOp) {
      // A persistent kernel's loop over programs is never pipelined itself
      // (its body's loops are; Q's copy stays once per program).
      if (forOp->hasAttr(TileGPUDialect::getPersistentAttrName()))
        return;
      Block *body = forOp.getBody();
      if (!body->getOps<TMALoadOp>().empty() || !body->getOps<AsyncCopyOp>().empty())
        loops.push_back(forOp);
    });
    IRRewriter rewriter(&getContext());
    // The loop pipelined last, for the next one to continue its rings.
    std::optional<PipelinedRings> previous;
    for (scf::ForOp forOp : loops) {
      int64_t stages = numStages;
      if (auto attr = forOp->getAttrOfType<IntegerAttr>("tile.num_stages"))
        stages = attr.getInt();
      if (stages <= 1) {
        previous.reset(); // no loop continues rings across this one
        continue;
      }
      std::string whyNot;
      Location loc = forOp.getLoc();
      if (int64_t fit = fitStages(forOp, stages); fit < stages) {
        emitRemark(loc) << "loop software-pipelined with " << fit
                        << " stages, not " << stages << ": the buffers of "
                        << stages << " would not fit in shared memory";
        stages = fit;
      }
      // The first loop of a persistent loop's body counts its iterations
      // on from the programs before (the persistent loop carries them).
      auto persistent = dyn_cast<scf::ForOp>(forOp->getParentOp());
      if (persistent && !persistent->hasAttr(TileGPUDialect::getPersistentAttrName()))
        persistent = {};
      Value seed;
      bool first = persistent && !chains.count(persistent);
      if (first)
        seed = addIterationArgument(rewriter, persistent);
      PipelinedRings rings;
      FailureOr<bool> done =
          pipelineLoop(rewriter, forOp, stages, whyNot,
                       previous ? &*previous : nullptr, seed, rings);
      if (failed(done))
        return signalPassFailure();
      if (!*done) {
        emitRemark(loc) << "loop not software-pipelined: " << whyNot;
        previous.reset();
      } else {
        previous = rings;
      }
      if (persistent) {
        PersistentChain &chain = chains[persistent];
        // A loop of the body that keeps its own rings breaks the chain.
        chain.complete &= *done && (first || rings.base);
        if (*done)
          chain.loops.push_back(rings);
      }
    }
    for (auto &[persistent, chain] : chains)
      closeChain(rewriter, scf::ForOp(persistent), chain);
    getOperation().walk([&](scf::ForOp loop) {
      if (loop->hasAttr(TileGPUDialect::getPersistentAttrName()))
        releaseOncePerProgram(loop);
    });
  }

  /// The single-buffer TMA copies directly in a persistent loop's body
  /// (attention's Q, once per program: `tilegpu.barrier`, expect, copy,
  /// wait) get the release protocol of the pipelined rings, one slot:
  /// instead of the CTA barrier before the copy, thread 0 waits for the
  /// release of the program before (parity ((k & 1) ^ 1) for the k-th
  /// program, so the first passes), and every warp releases the buffer
  /// (an "empty" mbarrier, counting the warps, initialized before the
  /// persistent loop) after the wait that retires the last dots reading
  /// it: in the last iteration of the loop that reads it last, after the
  /// wait that retires the loop's last dot reading it, when there is one
  /// (findLastIterationRelease). With a producer warpgroup
  /// (tilegpu-warp-specialize) the producer then copies the next program's
  /// tile while the consumers finish this program (its last softmax and
  /// P V, its epilogue).
  static void releaseOncePerProgram(scf::ForOp persistent) {
    Block *body = persistent.getBody();
    std::optional<unsigned> numWarps = lookupNumWarps(persistent);
    if (!numWarps)
      return;
    for (auto load : llvm::to_vector(body->getOps<TMALoadOp>())) {
      auto ring = dyn_cast<SharedMemoryType>(load.getDst().getType());
      auto expect = dyn_cast_or_null<MBarrierExpectOp>(load->getPrevNode());
      Operation *barrier = expect ? expect->getPrevNode() : nullptr;
      if (!ring || ring.getNumBuffers() != 1 || load.getPred() ||
          cast<MBarriersType>(load.getBarriers().getType()).getCount() != 1 ||
          expect.getBarriers() != load.getBarriers() || expect.getPred() ||
          !isa_and_nonnull<BarrierOp>(barrier))
        continue;
      // The first and the last op of the body after the copy that read the
      // buffer.
      auto [firstReader, lastReader] = findReaders(load.getDst(), body, load);
      if (!lastReader)
        continue;
      // Released in the last iteration of the loop that reads it last, or
      // else after the wait that retires every dot after that reader.
      auto readerLoop = dyn_cast<scf::ForOp>(lastReader);
      Operation *early =
          readerLoop ? findLastIterationRelease(readerLoop, load.getDst()) : nullptr;
      Operation *release = nullptr;
      if (!early) {
        bool asyncDots = false;
        lastReader->walk([&](WarpgroupDotOp dot) { asyncDots |= dot.getIsAsync(); });
        if (!asyncDots)
          release = lastReader;
        for (Operation *op = lastReader->getNextNode(); op && !release; op = op->getNextNode())
          if (auto wait = dyn_cast<WarpgroupWaitOp>(op); wait && wait.getPendings() == 0)
            release = op;
        if (!release || isa<scf::YieldOp>(release))
          continue;
      }
      Location loc = load.getLoc();
      MLIRContext *ctx = persistent.getContext();
      OpBuilder entry(ctx);
      entry.setInsertionPointToStart(
          &persistent->getParentOfType<FunctionOpInterface>().getFunctionBody().front());
      Value empty = MBarrierAllocOp::create(entry, loc, MBarriersType::get(ctx, 1),
                                            /*offset=*/IntegerAttr());
      OpBuilder outside(persistent);
      MBarrierInitOp::create(outside, loc, empty, outside.getI32IntegerAttr(*numWarps));
      outside.setInsertionPointAfter(persistent);
      MBarrierInvalOp::create(outside, loc, empty);
      OpBuilder b(barrier);
      Value k = emitIteration(b, loc, persistent, Value());
      Value one = constI32(b, loc, 1);
      Value parity = arith::XOrIOp::create(b, loc, arith::AndIOp::create(b, loc, k, one), one);
      auto leaderWait =
          MBarrierWaitOp::create(b, loc, empty, constI32(b, loc, 0), parity, b.getUnitAttr(),
                                 /*pred=*/Value(), /*oncePerProgram=*/b.getUnitAttr());
      barrier->erase();
      // The decision, for tilegpu-warp-specialize.
      expect.setOncePerProgram(true);
      load.setOncePerProgram(true);
      if (early) {
        emitLastIterationArrive(readerLoop, early, empty, loc);
      } else {
        b.setInsertionPointAfter(release);
        MBarrierArriveOp::create(b, loc, empty, constI32(b, loc, 0), /*pred=*/Value(),
                                 /*clusterCTAs=*/IntegerAttr());
      }
      // The copy and its wait go right before the first reader, after the
      // copies the pipelined loops issue ahead of it: a producer then
      // starts the next program's K and V blocks as their slots free up,
      // not behind the release of this tile, which comes after the loops.
      MBarrierWaitOp fullWait;
      for (Operation *op = load->getNextNode(); op && op != firstReader && !fullWait;
           op = op->getNextNode())
        if (auto wait = dyn_cast<MBarrierWaitOp>(op);
            wait && wait.getBarriers() == load.getBarriers() && !wait.getLeader())
          fullWait = wait;
      if (!fullWait)
        continue;
      // Only pure arithmetic and the loops' copies may lie between the copy
      // and the first reader: the move then reorders no other effect.
      bool movable = true;
      for (Operation *op = load->getNextNode(); op != firstReader; op = op->getNextNode())
        if (op != fullWait.getOperation() && !isMemoryEffectFree(op) &&
            !isa<TMALoadOp, MBarrierExpectOp, MBarrierWaitOp>(op))
          movable = false;
      if (!movable)
        continue;
      for (Operation *op : {leaderWait.getOperation(), expect.getOperation(),
                            load.getOperation(), fullWait.getOperation()})
        op->moveBefore(firstReader);
    }
  }

  /// The first and the last op of `block` that read `buffer` (use it, or
  /// hold a use in their regions), after `after` when it is given (an op
  /// of `block`, itself excluded); null when none does.
  static std::pair<Operation *, Operation *> findReaders(Value buffer, Block *block,
                                                         Operation *after) {
    Operation *first = nullptr, *last = nullptr;
    for (Operation *user : buffer.getUsers()) {
      Operation *top = block->findAncestorOpInBlock(*user);
      if (!top || (after && (top == after || top->isBeforeInBlock(after))))
        continue;
      if (!first || top->isBeforeInBlock(first))
        first = top;
      if (!last || last->isBeforeInBlock(top))
        last = top;
    }
    return {first, last};
  }

  /// Where the warps may release `buffer`, which `loop` reads, in the
  /// loop's last iteration: right after the wait that retires the body's
  /// last reader of it when that reader is a dot (attention's Q K^T: Q is
  /// free while the last softmax, P V and the epilogue run), or after
  /// the dot itself when it is synchronous. Null when the body's last
  /// reader is not a dot or no wait in the body retires it.
  static Operation *findLastIterationRelease(scf::ForOp loop, Value buffer) {
    auto dot = dyn_cast_or_null<WarpgroupDotOp>(
        findReaders(buffer, loop.getBody(), /*after=*/nullptr).second);
    if (!dot)
      return nullptr;
    if (!dot.getIsAsync())
      return dot;
    for (Operation *op = dot->getNextNode(); op; op = op->getNextNode())
      if (auto wait = dyn_cast<WarpgroupWaitOp>(op);
          wait && llvm::is_contained(wait.getInputs(), dot.getResult()))
        return wait;
    return nullptr;
  }

  /// Every warp arrives on `empty` right after `point` in `loop`'s last
  /// iteration (ub - iv <= step), and right after the loop when it runs
  /// no iteration (so that each program releases exactly once).
  static void emitLastIterationArrive(scf::ForOp loop, Operation *point, Value empty,
                                      Location loc) {
    using Predicate = arith::CmpIPredicate;
    bool isUnsigned = loop.getUnsignedCmp();
    OpBuilder b(point->getContext());
    b.setInsertionPointAfter(point);
    // In the loop iv < ub, so ub - iv is in (0, 2^w): compared unsigned it
    // is exact even where the signed difference overflows (hi - lo > 2^31).
    Value left = arith::SubIOp::create(b, loc, loop.getUpperBound(), loop.getInductionVar());
    Value isLast = arith::CmpIOp::create(b, loc, Predicate::ule, left, loop.getStep());
    MBarrierArriveOp::create(b, loc, empty, constI32(b, loc, 0), isLast,
                             /*clusterCTAs=*/IntegerAttr());
    b.setInsertionPointAfter(loop);
    Value runs = arith::CmpIOp::create(b, loc, isUnsigned ? Predicate::ult : Predicate::slt,
                                       loop.getLowerBound(), loop.getUpperBound());
    Value none = arith::XOrIOp::create(b, loc, runs,
                                       arith::ConstantIntOp::create(b, loc, 1, 1));
    MBarrierArriveOp::create(b, loc, empty, constI32(b, loc, 0), none,
                             /*clusterCTAs=*/IntegerAttr());
  }

  /// The pipelined loops of a persistent loop's body, in order.
  struct PersistentChain {
    SmallVector<PipelinedRings> loops;
    /// Each loop after the first continues the one before.
    bool complete = true;
  };
  /// Per persistent loop (in the order first met).
  llvm::MapVector<scf::ForOp, PersistentChain> chains;

  /// A new i32 loop-carried value of `loop`, 0 at the start, yielded as
  /// it is (closeChain sets what the body yields).
  static Value addIterationArgument(RewriterBase &rewriter, scf::ForOp &loop) {
    OpBuilder b(loop);
    Value zero = arith::ConstantIntOp::create(b, loop.getLoc(), 0, 32);
    auto yieldSelf = [](OpBuilder &, Location, ArrayRef<BlockArgument> args) {
      return SmallVector<Value>{args.back()};
    };
    FailureOr<LoopLikeOpInterface> grown =
        loop.replaceWithAdditionalYields(rewriter, zero, /*replaceInitOperandUsesInLoop=*/false,
                                         yieldSelf);
    loop = cast<scf::ForOp>(grown->getOperation());
    return loop.getRegionIterArgs().back();
  }

  /// When the pipelined loops of `persistent`'s body form one chain of
  /// continued rings, the first continues the last across the persistent
  /// loop's back edge: the body yields the iteration where the last loop
  /// stops, the rings' mbarriers are initialized once before the
  /// persistent loop and invalidated once after it. Otherwise each
  /// program keeps its own rings, counted from 0.
  static void closeChain(RewriterBase &rewriter, scf::ForOp persistent,
                         PersistentChain &chain) {
    if (chain.loops.empty() || !chain.complete)
      return;
    const PipelinedRings &first = chain.loops.front(), &last = chain.loops.back();
    if (!first.empty || !last.empty)
      return;
    Operation *yield = persistent.getBody()->getTerminator();
    OpBuilder b(yield);
    Location loc = persistent.getLoc();
    Value next = emitEndIteration(b, loc, last);
    unsigned index = persistent.getNumRegionIterArgs() - 1;
    rewriter.modifyOpInPlace(yield, [&] { yield->setOperand(index, next); });
    SetVector<Value> barriers(first.full.begin(), first.full.end());
    barriers.insert(first.empty);
    for (Value bars : barriers)
      for (Operation *user : llvm::to_vector(bars.getUsers())) {
        if (user->getParentOp() != persistent)
          continue;
        if (isa<MBarrierInitOp>(user))
          user->moveBefore(persistent);
        else if (isa<MBarrierInvalOp>(user))
          user->moveAfter(persistent);
      }
    scf::ForOp firstLoop = first.loop;
    emitRemark(firstLoop.getLoc())
        << "loop's copies continue its rings from one program of the "
           "persistent kernel to the next: the next program's first copies "
           "start while this one finishes";
  }
};

} // namespace
