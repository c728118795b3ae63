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
#include "tilec/Dialect/TileGPU/IR/TileGPU.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/IRMapping.h"
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
/// with side effects other than plain loads (atomics), from volatile loads
/// or any load in a kernel with atomics (another CTA may change the
/// memory), from inline assembly (it may read %ctaid), or under control
/// flow that depends on them. Everything else (arguments, constants, the
/// other program ids, what is computed from them alone) is the same in
/// every CTA of the cluster.
class ClusterVariance {
public:
  explicit ClusterVariance(Operation *root) {
    root->walk([&](Operation *op) {
      hasAtomics |= isa<tile::AtomicRMWOp, tile::AtomicCASOp>(op);
    });
    // A fixed point: loop-carried values feed back.
    do {
      changed = false;
      root->walk([&](Operation *op) { visit(op); });
    } while (changed);
  }

  bool isVariant(Value v) const { return variant.contains(v); }
  /// Whether `op`'s results may differ between CTAs with equal operands.
  bool differsAnyway(Operation *op) const {
    if (isa<tile::InlineAsmElementwiseOp>(op))
      return true;
    // Shared memory and mbarriers sit at the same offsets in every CTA.
    if (isa<LocalAllocOp, MBarrierAllocOp>(op))
      return false;
    if (auto load = dyn_cast<tile::LoadOp>(op))
      return load.getIsVolatile() || hasAtomics;
    return !isMemoryEffectFree(op);
  }

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
    if (operands || differsAnyway(op))
      markAll(op->getResults());
  }

  DenseSet<Value> variant;
  bool hasAtomics = false;
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
        return forOp == loop ? "its bounds may differ between the CTAs of a "
                               "cluster"
                             : "an enclosing loop's bounds may differ between "
                               "the CTAs of a cluster";
      continue;
    }
    if (auto ifOp = dyn_cast<scf::IfOp>(op)) {
      if (variance.isVariant(ifOp.getCondition()))
        return "it is under an if whose condition may differ between the "
               "CTAs of a cluster";
      continue;
    }
    if (op != loop.getOperation())
      return "it is nested in a " + op->getName().getStringRef().str() +
             " the CTAs of a cluster may run differently";
  }
  return "";
}

/// Copies whose coordinates differ between the CTAs of a cluster only
/// through values computed before the loop from program_id(0) by pure
/// integer arithmetic: the CTAs compare those values, each computing them
/// for every program of the cluster, and multicast when they agree.
struct RuntimeShare {
  SmallVector<TMALoadOp> loads;
  /// The values compared (defined before the loop, in its block).
  SetVector<Value> inputs;
  /// The ops computing them from program_id(0), in block order.
  SmallVector<Operation *> slice;
  /// Where the comparison goes: before the first of the copies.
  Operation *point = nullptr;
};

/// Fills `share.inputs` and `share.slice` for the copies `share.loads` of
/// `loop`, or fails when their coordinates differ otherwise.
LogicalResult collectRuntimeShare(RuntimeShare &share, scf::ForOp loop,
                                  const ClusterVariance &variance) {
  Block *block = loop->getBlock();
  SmallVector<Value> worklist;
  for (TMALoadOp load : share.loads) {
    if (variance.isVariant(load.getDesc()))
      return failure();
    llvm::append_range(worklist, load.getCoords());
    if (load.getPred())
      worklist.push_back(load.getPred());
  }
  DenseSet<Value> seen;
  // From the coordinates back to values defined before the loop.
  while (!worklist.empty()) {
    Value v = worklist.pop_back_val();
    if (!variance.isVariant(v) || !seen.insert(v).second)
      continue;
    if (auto arg = dyn_cast<BlockArgument>(v)) {
      if (arg.getOwner() != loop.getBody() || arg == loop.getInductionVar())
        return failure();
      unsigned i = arg.getArgNumber() - 1;
      worklist.push_back(loop.getInitArgs()[i]);
      worklist.push_back(loop.getBody()->getTerminator()->getOperand(i));
      continue;
    }
    Operation *def = v.getDefiningOp();
    if (def->getBlock() == block && def->isBeforeInBlock(loop)) {
      if (!v.getType().isIntOrIndex())
        return failure();
      share.inputs.insert(v);
      continue;
    }
    // Pure ops passing on a difference that comes from before the loop
    // (not one that starts here, as inline assembly's).
    if (!loop->isAncestor(def) || !isMemoryEffectFree(def) ||
        def->getNumRegions() != 0 || variance.differsAnyway(def) ||
        !variance.anyVariant(def->getOperands()))
      return failure();
    llvm::append_range(worklist, def->getOperands());
  }
  if (share.inputs.empty())
    return failure();
  // From those values back to program_id(0): the ops to recompute.
  SetVector<Operation *> slice;
  SmallVector<Value> back(share.inputs.begin(), share.inputs.end());
  while (!back.empty()) {
    Value v = back.pop_back_val();
    if (!variance.isVariant(v))
      continue;
    Operation *def = v.getDefiningOp();
    if (!def || def->getBlock() != block || !isMemoryEffectFree(def) ||
        def->getNumRegions() != 0 || variance.differsAnyway(def))
      return failure();
    if (!slice.insert(def))
      continue;
    if (isa<tile::ProgramIdOp>(def))
      continue;
    // Every difference must come from program_id(0), which the clones
    // replace.
    if (!variance.anyVariant(def->getOperands()))
      return failure();
    llvm::append_range(back, def->getOperands());
  }
  // Values computed from program_id(0) without dividing it (no division,
  // remainder or right shift) differ between neighbours: not worth a test.
  if (llvm::none_of(slice, [](Operation *op) {
        return isa<arith::DivSIOp, arith::DivUIOp, arith::RemSIOp,
                   arith::RemUIOp, arith::FloorDivSIOp, arith::CeilDivSIOp,
                   arith::CeilDivUIOp, arith::ShRSIOp, arith::ShRUIOp>(op);
      }))
    return failure();
  share.slice.assign(slice.begin(), slice.end());
  llvm::sort(share.slice,
             [](Operation *a, Operation *b) { return a->isBeforeInBlock(b); });
  // Before the prologue's first copy (with its expect and the leader's
  // wait), after the slice.
  share.point = loop;
  for (Operation &op : *block) {
    if (&op == loop.getOperation())
      break;
    auto wait = dyn_cast<MBarrierWaitOp>(&op);
    if (isa<TMALoadOp, MBarrierExpectOp>(&op) || (wait && wait.getLeader())) {
      share.point = &op;
      break;
    }
  }
  if (!share.slice.empty() && !share.slice.back()->isBeforeInBlock(share.point))
    return failure();
  return success();
}

/// Emits, before `point`, whether `share.inputs` are the same for every
/// program of this CTA's cluster of `ctas` (programs (pid & -ctas) + r):
/// the same i1 in all of them.
Value emitSameInCluster(OpBuilder &b, Location loc, const RuntimeShare &share,
                        unsigned ctas) {
  Type i32 = b.getI32Type();
  auto constant = [&](int64_t v) {
    return arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(v)).getResult();
  };
  Value pid = tile::ProgramIdOp::create(b, loc, i32, b.getI32IntegerAttr(0));
  Value first = arith::AndIOp::create(b, loc, pid, constant(-int64_t(ctas)));
  SmallVector<SmallVector<Value>> versions;
  for (unsigned r = 0; r < ctas; ++r) {
    Value rank = r == 0 ? first
                        : arith::AddIOp::create(b, loc, first, constant(r)).getResult();
    IRMapping map;
    for (Operation *op : share.slice) {
      if (auto programId = dyn_cast<tile::ProgramIdOp>(op)) {
        map.map(programId.getResult(), rank);
        continue;
      }
      b.clone(*op, map);
    }
    versions.emplace_back();
    for (Value input : share.inputs)
      versions.back().push_back(map.lookupOrDefault(input));
  }
  Value same;
  for (unsigned r = 1; r < ctas; ++r)
    for (auto [x, y] : llvm::zip(versions[0], versions[r])) {
      Value eq = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, x, y);
      same = same ? arith::AndIOp::create(b, loc, same, eq).getResult() : eq;
    }
  return same;
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
    // A persistent kernel launches as a 1-D grid of single CTAs
    // (tilegpu-persistent; the runtime refuses clusters there).
    if (func->hasAttr(TileGPUDialect::getPersistentAttrName())) {
      for (scf::ForOp loop : loops)
        if (!loop->hasAttr(TileGPUDialect::getPersistentAttrName()))
          emitRemark(loop.getLoc())
              << "loop's copies not multicast in clusters of " << unsigned(numCTAs)
              << " CTAs: the kernel is persistent (launched as single CTAs)";
      return;
    }
    // A cluster barrier waits for every thread of the cluster that has not
    // exited; with a producer warpgroup, the one at the end of a loop would
    // wait for a producer still copying for a later loop, which waits for
    // the consumers: one TMA loop per kernel.
    if (loops.size() > 1) {
      for (scf::ForOp loop : loops)
        emitRemark(loop.getLoc())
            << "loop's copies not multicast in clusters of " << unsigned(numCTAs)
            << " CTAs: the kernel has " << loops.size()
            << " loops of TMA copies (clusters take one)";
      return;
    }
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
    SmallVector<RuntimeShare> runtime;
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
      int64_t boxes = cast<SharedMemoryType>(ring.getType()).getBoxCount();
      auto refuse = [&](std::string why) {
        if (!llvm::is_contained(whyNot, why))
          whyNot.push_back(std::move(why));
      };
      RuntimeShare share{ringLoads, {}, {}, nullptr};
      bool atRuntime = llvm::any_of(ringLoads, differs);
      if (llvm::any_of(ringLoads, outside))
        refuse("a copy into a ring is outside the loop and its prologue");
      else if (atRuntime && failed(collectRuntimeShare(share, loop, variance)))
        refuse("copies' coordinates depend on program_id(0), so the CTAs "
               "of a cluster load different blocks");
      else if (boxes % numCTAs != 0)
        refuse("a block of " + std::to_string(boxes) +
               " swizzle-wide box(es) cannot be shared out among " +
               std::to_string(numCTAs) + " CTAs");
      else {
        for (TMALoadOp load : ringLoads) {
          loads.push_back(load);
          full.insert(load.getBarriers());
        }
        if (atRuntime)
          runtime.push_back(std::move(share));
      }
    }
    if (loads.empty())
      return llvm::join(whyNot, "; ");
    // The barriers serve this loop alone: their init before it, their
    // inval after it, the release, the waits and the copies.
    SmallVector<MBarrierInitOp> inits;
    SmallVector<MBarrierInvalOp> invals;
    SmallVector<MBarrierArriveOp> releases;
    // What every CTA must do alike (they wait for each other's releases):
    // operands the analysis proves equal in all of them.
    auto alike = [&](Operation *op) {
      return !variance.anyVariant(op->getOperands());
    };
    Block *block = loop->getBlock();
    for (Value bars : llvm::concat<const Value>(empty, full)) {
      for (Operation *user : bars.getUsers()) {
        if (auto init = dyn_cast<MBarrierInitOp>(user)) {
          if (init->getBlock() != block || !init->isBeforeInBlock(loop))
            return "one of its mbarriers is not initialized before it";
          inits.push_back(init);
          continue;
        }
        if (auto inval = dyn_cast<MBarrierInvalOp>(user)) {
          if (inval->getBlock() != block || inval->isBeforeInBlock(loop))
            return "one of its mbarriers is not invalidated after it";
          if (empty.contains(bars))
            invals.push_back(inval);
          continue;
        }
        if (auto arrive = dyn_cast<MBarrierArriveOp>(user)) {
          if (!empty.contains(bars))
            return "a warp arrives on the barrier its copies complete on";
          if (arrive->getBlock() != body || !alike(arrive))
            return "its slots are released outside the loop's body or "
                   "under a condition the CTAs of a cluster may not share";
          releases.push_back(arrive);
          continue;
        }
        if (!isa<MBarrierWaitOp, MBarrierExpectOp, TMALoadOp>(user))
          return "one of its mbarriers is used by a '" +
                 user->getName().getStringRef().str() + "'";
        if (user->getBlock() != body && user->getBlock() != block)
          return "one of its mbarriers is used outside the loop and its "
                 "prologue";
        // Waits, expects and copies: their slots and predicates alike
        // (a copy's coordinates may differ: rings not shared).
        bool same = alike(user);
        if (auto copy = dyn_cast<TMALoadOp>(user))
          same = !variance.anyVariant({copy.getIndex(), copy.getBarrierIndex()}) &&
                 !(copy.getPred() && variance.isVariant(copy.getPred()));
        if (!same)
          return "a copy or wait on its mbarriers depends on program_id(0) "
                 "(its slot or predicate)";
      }
    }
    if (releases.empty() || invals.empty() || inits.empty())
      return "its empty barriers are not initialized before the loop, "
             "released in it and invalidated after it";
    // One cluster barrier, after the last of the inits.
    MBarrierInitOp lastInit;
    for (MBarrierInitOp init : inits)
      if (!lastInit || lastInit->isBeforeInBlock(init))
        lastInit = init;
    // From here on the loop is taken: nothing below refuses.
    for (TMALoadOp load : loads)
      load.setMulticast(numCTAs);
    for (RuntimeShare &share : runtime) {
      OpBuilder b(share.point);
      Value same = emitSameInCluster(b, loop.getLoc(), share, numCTAs);
      for (TMALoadOp load : share.loads)
        load.getMulticastIfMutable().assign(same);
    }
    for (MBarrierArriveOp release : releases)
      release.setClusterCTAs(numCTAs);
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
        << " of their boxes"
        << (runtime.empty() ? ""
                            : " (those whose coordinates depend on "
                              "program_id(0) when the CTAs find them equal at "
                              "run time)");
    return "";
  }
};

} // namespace
