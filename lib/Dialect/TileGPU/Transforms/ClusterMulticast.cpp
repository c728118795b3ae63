//===- ClusterMulticast.cpp - share TMA copies across a CTA cluster -------===//
//
// Part of tilec, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// The tilegpu-cluster-multicast pass (see Passes.td): which values differ
// between the CTAs of a cluster (those computed from program_id(0)), then,
// per software-pipelined loop, the copies every CTA makes alike, marked to
// be multicast, and the release protocol made cluster-wide.
//
//===----------------------------------------------------------------------===//

#include "tilec/Dialect/TileGPU/Transforms/Passes.h"

#include "tilec/Dialect/Tile/IR/Tile.h"
#include "tilec/Dialect/TileGPU/IR/SharedLayout.h"
#include "tilec/Dialect/TileGPU/IR/TileGPU.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/StringExtras.h"

namespace tilec::tilegpu {
#define GEN_PASS_DEF_TILEGPUCLUSTERMULTICAST
#include "tilec/Dialect/TileGPU/Transforms/Passes.h.inc"
} // namespace tilec::tilegpu

#define DEBUG_TYPE "tilegpu-cluster-multicast"

using namespace mlir;
using namespace tilec;
using namespace tilec::tilegpu;

namespace {

/// The values of a kernel that may differ between the CTAs of a cluster
/// along grid axis 0: those computed from `tile.program_id 0`, from ops
/// with side effects other than plain loads (atomics), or under control
/// flow that depends on them. Everything else (arguments, constants, the
/// other program ids, what is computed from them alone) is the same in
/// every CTA of the cluster.
class ClusterVariance {
public:
  explicit ClusterVariance(Operation *root) {
    // A fixed point: loop-carried values feed back.
    do {
      changed = false;
      root->walk([&](Operation *op) { visit(op); });
    } while (changed);
  }

  bool isVariant(Value v) const { return variant.contains(v); }
  bool anyVariant(ValueRange values) const {
    return llvm::any_of(values, [&](Value v) { return isVariant(v); });
  }

private:
  void mark(Value v) {
    if (variant.insert(v).second)
      changed = true;
  }
  void markAll(ValueRange values) {
    for (Value v : values)
      mark(v);
  }
  /// Any value a terminator of `op`'s regions passes out is variant.
  bool yieldsVariant(Operation *op) const {
    for (Region &region : op->getRegions())
      for (Block &block : region)
        if (!block.empty() && block.back().hasTrait<OpTrait::IsTerminator>() &&
            anyVariant(block.back().getOperands()))
          return true;
    return false;
  }

  void visit(Operation *op) {
    if (auto pid = dyn_cast<tile::ProgramIdOp>(op)) {
      if (pid.getAxis() == 0)
        mark(pid.getResult());
      return;
    }
    bool operands = anyVariant(op->getOperands());
    if (auto loop = dyn_cast<scf::ForOp>(op)) {
      bool bounds = anyVariant({loop.getLowerBound(), loop.getUpperBound(),
                                loop.getStep()});
      if (bounds)
        mark(loop.getInductionVar());
      Operation *yield = loop.getBody()->getTerminator();
      for (auto [i, arg] : llvm::enumerate(loop.getRegionIterArgs()))
        if (bounds || isVariant(loop.getInitArgs()[i]) ||
            isVariant(yield->getOperand(i))) {
          mark(arg);
          mark(loop.getResult(i));
        }
      return;
    }
    if (auto ifOp = dyn_cast<scf::IfOp>(op)) {
      for (auto [i, result] : llvm::enumerate(ifOp.getResults()))
        if (operands || isVariant(ifOp.thenYield().getOperand(i)) ||
            isVariant(ifOp.elseYield().getOperand(i)))
          mark(result);
      return;
    }
    if (op->getNumRegions() != 0) {
      // Other region ops (reductions' combiners, while loops): variant
      // operands make their region arguments and results variant, and so
      // does a variant value passed out of a region.
      if (operands || yieldsVariant(op) || isa<scf::WhileOp>(op)) {
        markAll(op->getResults());
        for (Region &region : op->getRegions())
          for (Block &block : region)
            markAll(block.getArguments());
      }
      return;
    }
    if (operands || (!isMemoryEffectFree(op) && !isa<tile::LoadOp>(op)))
      markAll(op->getResults());
  }

  DenseSet<Value> variant;
  bool changed = false;
};

/// Why the CTAs of a cluster may not run `loop` alike (its bounds, or an
/// enclosing loop's or if's, differ between them), or "".
std::string whyNotUniform(scf::ForOp loop, const ClusterVariance &variance,
                          Operation *func) {
  for (Operation *op = loop; op && op != func; op = op->getParentOp()) {
    if (auto forOp = dyn_cast<scf::ForOp>(op)) {
      if (variance.anyVariant({forOp.getLowerBound(), forOp.getUpperBound(),
                               forOp.getStep()}))
        return forOp == loop ? "its bounds depend on program_id(0)"
                             : "an enclosing loop's bounds depend on "
                               "program_id(0)";
      continue;
    }
    if (auto ifOp = dyn_cast<scf::IfOp>(op)) {
      if (variance.isVariant(ifOp.getCondition()))
        return "it is under an if whose condition depends on program_id(0)";
      continue;
    }
    if (op != loop.getOperation())
      return "it is nested in a " + op->getName().getStringRef().str() +
             " the CTAs of a cluster may run differently";
  }
  return "";
}

/// The number of swizzle-wide boxes one copy into `ring` issues.
int64_t countBoxes(SharedMemoryType ring) {
  RankedTensorType tile = ring.getTileType();
  SharedTileLayout shared =
      SharedTileLayout::get(tile.getDimSize(0), tile.getDimSize(1),
                            tile.getElementTypeBitWidth() / 8);
  return shared.cols / shared.getBlockCols();
}

struct TileGPUClusterMulticastPass
    : tilegpu::impl::TileGPUClusterMulticastBase<TileGPUClusterMulticastPass> {
  using TileGPUClusterMulticastBase::TileGPUClusterMulticastBase;

  void runOnOperation() override {
    if (!llvm::is_contained({1u, 2u, 4u, 8u}, unsigned(numCTAs))) {
      getOperation().emitError() << "tilegpu-cluster-multicast: num-ctas must "
                                    "be 1, 2, 4 or 8, not "
                                 << numCTAs;
      return signalPassFailure();
    }
    if (numCTAs == 1)
      return;
    for (auto func : getOperation().getOps<func::FuncOp>())
      if (lookupNumWarps(func))
        runOnKernel(func);
  }

  void runOnKernel(func::FuncOp func) {
    SmallVector<scf::ForOp> loops;
    func.walk([&](scf::ForOp loop) {
      if (!loop.getBody()->getOps<TMALoadOp>().empty())
        loops.push_back(loop);
    });
    if (loops.empty())
      return;
    ClusterVariance variance(func);
    bool clustered = false;
    for (scf::ForOp loop : loops) {
      std::string whyNot = shareLoop(loop, variance, func);
      if (!whyNot.empty()) {
        emitRemark(loop.getLoc())
            << "loop's copies not multicast in clusters of " << unsigned(numCTAs)
            << " CTAs: " << whyNot;
        continue;
      }
      clustered = true;
    }
    if (clustered)
      func->setAttr(TileGPUDialect::getClusterDimsAttrName(),
                    DenseI32ArrayAttr::get(&getContext(),
                                           {int32_t(numCTAs), 1, 1}));
  }

  /// Marks `loop`'s copies to be multicast and its release cluster-wide;
  /// returns why not (and changes nothing) when it cannot.
  std::string shareLoop(scf::ForOp loop, const ClusterVariance &variance,
                        func::FuncOp func) {
    std::string why = whyNotUniform(loop, variance, func);
    if (!why.empty())
      return why;
    Block *body = loop.getBody();
    // The empty barriers: those the copies' leader waits on (the pipeline's
    // release protocol).
    SetVector<Value> empty, full;
    SetVector<Value> rings;
    for (Operation &op : *body) {
      if (auto wait = dyn_cast<MBarrierWaitOp>(&op); wait && wait.getLeader())
        empty.insert(wait.getBarriers());
      if (auto load = dyn_cast<TMALoadOp>(&op))
        rings.insert(load.getDst());
    }
    if (empty.empty())
      return "it is not software-pipelined with the release through "
             "\"empty\" mbarriers";
    for (Value bars : empty)
      for (Operation &op : *body)
        if (auto load = dyn_cast<TMALoadOp>(&op); load && load.getBarriers() == bars)
          return "a copy completes on the barrier its slot is released on";
    // A ring is shared when every copy into it (the prologue's too) is alike
    // in all CTAs and splits into the cluster's share of boxes; the others
    // stay each CTA's own.
    SmallVector<TMALoadOp> loads;
    int64_t copies = 0;
    SmallVector<std::string> whyNot; // for the rings not shared
    for (Value ring : rings) {
      SmallVector<TMALoadOp> ringLoads;
      for (Operation *user : ring.getUsers())
        if (auto load = dyn_cast<TMALoadOp>(user); load && load.getDst() == ring)
          ringLoads.push_back(load);
      copies += ringLoads.size();
      auto outside = [&](TMALoadOp load) {
        return load->getBlock() != body && load->getBlock() != loop->getBlock();
      };
      auto differs = [&](TMALoadOp load) {
        return variance.anyVariant(load.getCoords()) ||
               variance.isVariant(load.getDesc()) ||
               (load.getPred() && variance.isVariant(load.getPred()));
      };
      int64_t boxes = countBoxes(cast<SharedMemoryType>(ring.getType()));
      auto refuse = [&](std::string why) {
        if (!llvm::is_contained(whyNot, why))
          whyNot.push_back(std::move(why));
      };
      if (llvm::any_of(ringLoads, outside))
        refuse("a copy into a ring is outside the loop and its prologue");
      else if (llvm::any_of(ringLoads, differs))
        refuse("copies' coordinates depend on program_id(0), so the CTAs "
               "of a cluster load different blocks");
      else if (boxes % numCTAs != 0)
        refuse("a block of " + std::to_string(boxes) +
               " swizzle-wide box(es) cannot be shared out among " +
               std::to_string(numCTAs) + " CTAs");
      else
        for (TMALoadOp load : ringLoads) {
          loads.push_back(load);
          full.insert(load.getBarriers());
        }
    }
    if (loads.empty())
      return llvm::join(whyNot, "; ");
    // The barriers serve this loop alone: their init before it, their
    // inval after it, the release, the waits and the copies.
    SmallVector<MBarrierInitOp> inits;
    SmallVector<MBarrierInvalOp> invals;
    SmallVector<MBarrierArriveOp> releases;
    for (Value bars : llvm::concat<const Value>(empty, full)) {
      for (Operation *user : bars.getUsers()) {
        if (auto init = dyn_cast<MBarrierInitOp>(user)) {
          inits.push_back(init);
          continue;
        }
        if (auto inval = dyn_cast<MBarrierInvalOp>(user)) {
          if (empty.contains(bars))
            invals.push_back(inval);
          continue;
        }
        if (auto arrive = dyn_cast<MBarrierArriveOp>(user)) {
          if (!empty.contains(bars))
            return "a warp arrives on the barrier its copies complete on";
          releases.push_back(arrive);
          continue;
        }
        if (!isa<MBarrierWaitOp, MBarrierExpectOp, TMALoadOp>(user))
          return "one of its mbarriers is used by a '" +
                 user->getName().getStringRef().str() + "'";
        if (user->getBlock() != body && user->getBlock() != loop->getBlock())
          return "one of its mbarriers is used outside the loop and its "
                 "prologue";
      }
    }
    if (releases.empty() || invals.empty())
      return "its empty barriers are not released in the loop and "
             "invalidated after it";
    for (TMALoadOp load : loads)
      load.setMulticast(numCTAs);
    for (MBarrierArriveOp release : releases)
      release.setClusterCTAs(numCTAs);
    // One cluster barrier, after the last of the inits (all before the
    // loop, in its block).
    MBarrierInitOp lastInit;
    for (MBarrierInitOp init : inits) {
      if (init->getBlock() != loop->getBlock() || !init->isBeforeInBlock(loop))
        return "one of its mbarriers is not initialized before it";
      if (!lastInit || lastInit->isBeforeInBlock(init))
        lastInit = init;
    }
    for (MBarrierInitOp init : inits)
      if (empty.contains(init.getBarriers()))
        init.setCount(init.getCount() * numCTAs);
    lastInit.setClusterSync(true);
    for (MBarrierInvalOp inval : invals)
      inval.setClusterSync(true);
    emitRemark(loop.getLoc())
        << "loop's copies multicast in clusters of " << unsigned(numCTAs)
        << " CTAs along grid axis 0: " << loads.size() << " of "
        << copies << " TMA copies into its rings (the prologue's included) are "
        << "issued once per cluster, each CTA issuing 1/" << unsigned(numCTAs)
        << " of their boxes";
    return "";
  }
};

} // namespace
