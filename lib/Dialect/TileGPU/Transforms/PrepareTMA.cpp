//===- PrepareTMA.cpp - choose the block loads copied with TMA ------------===//
//
// Part of tilec, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// The tilegpu-prepare-tma pass (see Passes.td).
//
//===----------------------------------------------------------------------===//

#include "tilec/Dialect/TileGPU/Transforms/Passes.h"

#include "tilec/Analysis/TMA.h"
#include "tilec/Dialect/Tile/IR/Tile.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"

namespace tilec::tilegpu {
#define GEN_PASS_DEF_TILEGPUPREPARETMA
#include "tilec/Dialect/TileGPU/Transforms/Passes.h.inc"
} // namespace tilec::tilegpu

#define DEBUG_TYPE "tilegpu-prepare-tma"

using namespace mlir;
using namespace tilec;

namespace {

/// How a loop carries a block pointer: `init` before the loop, advanced by
/// `deltas` (loop-invariant) every iteration.
struct CarriedPointer {
  Value init;
  SmallVector<Value> deltas;
  unsigned iterArg;
};

/// Matches `ptr` = an iter arg of `forOp` whose yielded value is one advance
/// of itself by loop-invariant offsets.
std::optional<CarriedPointer> matchCarriedPointer(scf::ForOp forOp, Value ptr) {
  auto arg = dyn_cast<BlockArgument>(ptr);
  if (!arg || arg.getOwner() != forOp.getBody() || arg.getArgNumber() == 0)
    return std::nullopt;
  unsigned idx = arg.getArgNumber() - 1;
  auto advance = forOp.getBody()->getTerminator()->getOperand(idx)
                     .getDefiningOp<tile::AdvanceOp>();
  if (!advance || advance.getPtr() != arg)
    return std::nullopt;
  for (Value delta : advance.getOffsets())
    if (!forOp.isDefinedOutsideOfLoop(delta))
      return std::nullopt;
  return CarriedPointer{forOp.getInitArgs()[idx],
                        SmallVector<Value>(advance.getOffsets()), idx};
}

/// Whether `ptr` is a make_block_ptr followed by advances only (no value
/// carried by a loop on the way): the form the rewrite below produces, in
/// which the block of every iteration is computed in the body (from the
/// induction variable and loop invariants when the loop is to be pipelined).
/// A tensor descriptor's load, `desc.load([off_m, k * BLOCK_K])`, is already
/// of this form: the descriptor's make_block_ptr before the loop advanced by
/// the offsets.
bool isStraightPointerChain(Value ptr) {
  while (auto advance = ptr.getDefiningOp<tile::AdvanceOp>())
    ptr = advance.getPtr();
  return static_cast<bool>(ptr.getDefiningOp<tile::MakeBlockPtrOp>());
}

/// Cuts the loop-carried block pointers that nothing reads any more (the
/// result is unused and the iteration argument only feeds its own advance):
/// the loop yields the argument itself, which canonicalization then folds
/// away.
void cutDeadCarriedPointers(scf::ForOp forOp, IRRewriter &rewriter) {
  auto yield = cast<scf::YieldOp>(forOp.getBody()->getTerminator());
  for (unsigned i = 0, e = forOp.getNumRegionIterArgs(); i < e; ++i) {
    BlockArgument arg = forOp.getRegionIterArgs()[i];
    if (!isa<tile::BlockPointerType>(arg.getType()) ||
        !forOp.getResult(i).use_empty())
      continue;
    auto advance = yield.getOperand(i).getDefiningOp<tile::AdvanceOp>();
    if (!advance || advance.getPtr() != arg || !arg.hasOneUse() ||
        !advance->hasOneUse())
      continue;
    yield->setOperand(i, arg);
    rewriter.eraseOp(advance);
  }
}

/// Gives `load` a pointer chain of its own (clones of the make_block_ptr and
/// advances it reads), so that tile-rewrite-block-pointers can leave it alone
/// while rewriting the pointers of other users; the originals that nothing
/// reads any more fold away.
void isolatePointerChain(tile::BlockLoadOp load, IRRewriter &rewriter) {
  SmallVector<Operation *> chain;
  for (Value ptr = load.getPtr(); Operation *def = ptr.getDefiningOp();) {
    if (!isa<tile::AdvanceOp, tile::MakeBlockPtrOp>(def))
      break;
    chain.push_back(def);
    if (isa<tile::MakeBlockPtrOp>(def))
      break;
    ptr = cast<tile::AdvanceOp>(def).getPtr();
  }
  IRMapping mapping;
  for (Operation *op : llvm::reverse(chain)) {
    rewriter.setInsertionPointAfter(op);
    rewriter.clone(*op, mapping);
  }
  load.getPtrMutable().assign(mapping.lookupOrDefault(load.getPtr()));
}

struct TileGPUPrepareTMAPass
    : tilegpu::impl::TileGPUPrepareTMABase<TileGPUPrepareTMAPass> {
  using TileGPUPrepareTMABase::TileGPUPrepareTMABase;

  void runOnOperation() override {
    IRRewriter rewriter(&getContext());
    SmallVector<tile::DotOp> dots;
    getOperation().walk([&](tile::DotOp dot) {
      std::string whyNot;
      if (isTMADot(dot, numWarps, &whyNot))
        dots.push_back(dot);
      else if (tilegpu::getWarpgroupMMALayout(dot, numWarps, nullptr))
        dot.emitRemark() << "wgmma operands go through registers, not TMA: "
                         << whyNot;
    });
    DenseSet<Operation *> loops;
    for (tile::DotOp dot : dots) {
      auto forOp = dyn_cast<scf::ForOp>(dot->getParentOp());
      auto loadA = dot.getA().getDefiningOp<tile::BlockLoadOp>();
      auto loadB = dot.getB().getDefiningOp<tile::BlockLoadOp>();
      // Operands whose block pointer is computed in the body need nothing
      // more; loop-carried ones are rewritten.
      bool straightA = isStraightPointerChain(loadA.getPtr());
      bool straightB = isStraightPointerChain(loadB.getPtr());
      if (forOp && !(straightA && straightB)) {
        std::optional<CarriedPointer> a, b;
        if (!straightA)
          a = matchCarriedPointer(forOp, loadA.getPtr());
        if (!straightB)
          b = matchCarriedPointer(forOp, loadB.getPtr());
        if ((!straightA && !a) || (!straightB && !b)) {
          dot.emitRemark("wgmma operands go through registers, not TMA: a "
                         "block pointer is not advanced by a loop-invariant "
                         "step in every iteration");
          continue;
        }
        // The pointer of iteration it = (iv - lb) / step: the initial one
        // advanced it times, computed before the first of the two loads
        // (`b` may well be loaded before `a`).
        rewriter.setInsertionPoint(loadA->isBeforeInBlock(loadB) ? loadA
                                                                 : loadB);
        Location loc = dot.getLoc();
        Value iv = forOp.getInductionVar();
        Value it = arith::DivSIOp::create(
            rewriter, loc,
            arith::SubIOp::create(rewriter, loc, iv, forOp.getLowerBound()),
            forOp.getStep());
        if (!it.getType().isInteger(32))
          it = arith::IndexCastOp::create(rewriter, loc, rewriter.getI32Type(), it);
        for (auto [load, carried] : {std::pair{loadA, a}, std::pair{loadB, b}}) {
          if (!carried)
            continue;
          SmallVector<Value> offsets;
          for (Value delta : carried->deltas)
            offsets.push_back(arith::MulIOp::create(rewriter, loc, it, delta));
          Value ptr = tile::AdvanceOp::create(rewriter, loc, carried->init.getType(),
                                              carried->init, offsets);
          load.getPtrMutable().assign(ptr);
        }
        loops.insert(forOp);
      }
      isolatePointerChain(loadA, rewriter);
      isolatePointerChain(loadB, rewriter);
      loadA->setAttr(kTMALoadAttrName, rewriter.getUnitAttr());
      loadB->setAttr(kTMALoadAttrName, rewriter.getUnitAttr());
    }
    for (Operation *loop : loops)
      cutDeadCarriedPointers(cast<scf::ForOp>(loop), rewriter);
  }
};

} // namespace
