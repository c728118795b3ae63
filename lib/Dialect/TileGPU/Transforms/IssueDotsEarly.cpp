//===- IssueDotsEarly.cpp - a loop's dots issued back to back -------------===//
//
// Part of tilec, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// The tilegpu-issue-dots-early pass (see Passes.td).
//
//===----------------------------------------------------------------------===//

#include "tilec/Dialect/TileGPU/Transforms/Passes.h"

#include "tilec/Dialect/Tile/IR/Tile.h"

#include "mlir/Analysis/SliceAnalysis.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/SetVector.h"

namespace tilec::tilegpu {
#define GEN_PASS_DEF_TILEGPUISSUEDOTSEARLY
#include "tilec/Dialect/TileGPU/Transforms/Passes.h.inc"
} // namespace tilec::tilegpu

using namespace mlir;
using namespace tilec;

namespace {

/// Whether `op` only reads memory (or touches none).
bool onlyReads(Operation *op) {
  if (isPure(op))
    return true;
  auto effects = dyn_cast<MemoryEffectOpInterface>(op);
  return effects && effects.onlyHasEffect<MemoryEffects::Read>();
}

/// The ops of `op`'s block that `op` depends on, transitively.
llvm::SetVector<Operation *> collectDependencies(Operation *op) {
  BackwardSliceOptions options;
  options.omitBlockArguments = true;
  options.filter = [block = op->getBlock()](Operation *def) {
    return def->getBlock() == block;
  };
  llvm::SetVector<Operation *> deps;
  (void)getBackwardSlice(op, &deps, options);
  return deps;
}

/// A volatile load keeps its place among the memory accesses around it.
bool isVolatileLoad(Operation *op) {
  auto load = dyn_cast<tile::LoadOp>(op);
  return load && load.getIsVolatile();
}

/// Whether `op` moves with a dot that depends on it: it has no region and
/// writes no memory, and it is not itself a dot (dots keep their order
/// among themselves unless one is ready earlier, see issueEarly).
bool movesWithDot(Operation *op) {
  return op->getNumRegions() == 0 && onlyReads(op) && !isa<tile::DotOp>(op) &&
         !isVolatileLoad(op);
}

/// The latest op of the block that `op` depends on and that cannot move
/// with it (a dot, an op with a region or a write); null when none: `op`
/// is ready when its iteration starts.
Operation *getAnchor(Operation *op) {
  Operation *anchor = nullptr;
  for (Operation *dep : collectDependencies(op))
    if (!movesWithDot(dep) && (!anchor || anchor->isBeforeInBlock(dep)))
      anchor = dep;
  return anchor;
}

/// Whether anchor `a` comes strictly before anchor `b` (null first).
bool isEarlier(Operation *a, Operation *b) {
  if (!b)
    return false;
  return !a || a->isBeforeInBlock(b);
}

/// Moves `dot`, with the ops it depends on that can move, up past the ops
/// it does not depend on, when that overtakes another dot. It stops below
/// an op it needs that cannot move, below a dot that is ready no later
/// than it (whose own anchor is not after its anchor), and, when a load
/// moves with it, below a write or a volatile load.
void issueEarly(Operation *dot) {
  llvm::SetVector<Operation *> deps = collectDependencies(dot);
  Operation *anchor = getAnchor(dot);
  SmallVector<Operation *> moving;
  bool reads = false;
  Operation *stop = nullptr;
  for (Operation *op = dot->getPrevNode(); op; op = op->getPrevNode()) {
    if (deps.contains(op)) {
      if (!movesWithDot(op)) {
        stop = op;
        break;
      }
      moving.push_back(op);
      reads |= !isPure(op);
      continue;
    }
    bool readyNoLater = isa<tile::DotOp>(op) && !isEarlier(anchor, getAnchor(op));
    bool ordersLoads = !onlyReads(op) || isVolatileLoad(op);
    if (readyNoLater || (ordersLoads && (reads || op->getNumRegions() != 0))) {
      stop = op;
      break;
    }
  }
  // Only a dot that overtakes another dot, or that moves up to right
  // behind a dot it does not need (the tutorial's dQ loop: dP, ready at the
  // start, behind QK^T and ahead of exp2), moves: the others keep the order
  // the source gives them (attention's forward loop, whose P V would
  // otherwise move above the row sum).
  Operation *first = stop ? stop->getNextNode() : &dot->getBlock()->front();
  bool overtakes = stop && isa<tile::DotOp>(stop) && !deps.contains(stop);
  for (Operation *op = first; op != dot; op = op->getNextNode())
    overtakes |= isa<tile::DotOp>(op) && !deps.contains(op);
  if (!overtakes || first == dot)
    return;
  // The moving ops in block order, then the dot, after `stop`.
  std::reverse(moving.begin(), moving.end());
  moving.push_back(dot);
  for (Operation *op : moving) {
    if (stop)
      op->moveAfter(stop);
    else
      op->moveBefore(&op->getBlock()->front());
    stop = op;
  }
}

struct TileGPUIssueDotsEarlyPass
    : tilegpu::impl::TileGPUIssueDotsEarlyBase<TileGPUIssueDotsEarlyPass> {
  void runOnOperation() override {
    getOperation().walk([](scf::ForOp loop) {
      SmallVector<Operation *> dots;
      for (Operation &op : *loop.getBody())
        if (isa<tile::DotOp>(op))
          dots.push_back(&op);
      for (Operation *dot : dots)
        issueEarly(dot);
    });
  }
};

} // namespace
