//===- WarpSpecialize.cpp - producer warpgroup for TMA-fed loops ----------===//
//
// Part of tilec, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// The tilegpu-warp-specialize pass (see Passes.td). For a kernel with loops
// tilegpu-pipeline expanded with the release through "empty" mbarriers:
//
// 1. collect, per loop, its copies (the roots: `mbarrier_wait ... leader`
//    on the empty barriers, `mbarrier_expect` and `tma_load` on the full
//    ones, in the loop's body and in its prologue) and their backward
//    slice; refuse (with a remark) where the slice reaches anything the
//    producer cannot recompute;
// 2. move the kernel's body into the consumer region of a
//    `tilegpu.warp_specialize`, the barriers' `mbarrier_init` before it;
// 3. clone the slice into the producer region (loops with the same bounds,
//    keeping only the loop-carried values the copies need), then erase the
//    roots from the consumer side. The arithmetic only the copies used is
//    left for the canonicalizer.
//
//===----------------------------------------------------------------------===//

#include "tilec/Dialect/TileGPU/Transforms/Passes.h"
#include "tilec/Dialect/TileGPU/Transforms/ProgramOrder.h"
#include "tilec/Dialect/TileGPU/Transforms/SharedMemoryPlan.h"
#include "tilec/Dialect/TileGPU/Transforms/WarpgroupRegisters.h"

#include "tilec/Dialect/Tile/IR/Tile.h"
#include "tilec/Dialect/TileGPU/IR/Scratch.h"
#include "tilec/Dialect/TileGPU/IR/TileGPU.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/StringSwitch.h"

namespace tilec::tilegpu {
#define GEN_PASS_DEF_TILEGPUWARPSPECIALIZE
#include "tilec/Dialect/TileGPU/Transforms/Passes.h.inc"
} // namespace tilec::tilegpu

#define DEBUG_TYPE "tilegpu-warp-specialize"

using namespace mlir;
using namespace tilec;
using namespace tilec::tilegpu;

namespace {

/// Warps of the producer: one warpgroup (setmaxnreg is per warpgroup).
constexpr unsigned kProducerWarps = kWarpsPerWarpgroup;


/// Shared memory the kernel needs when every ring lives through the whole
/// split (the producer runs ahead of the consumers, unordered with their
/// ops, so tilegpu-allocate-shared lets no buffer the producer fills share
/// memory): all rings and mbarriers side by side, plus the largest scratch.
int64_t estimateSplitSharedMemory(func::FuncOp func) {
  int64_t total = 0, scratch = 0;
  func.walk([&](Operation *op) {
    if (auto alloc = dyn_cast<LocalAllocOp>(op))
      total = llvm::alignTo(total, 1024) +
              alloc.getType().getNumBuffers() * alloc.getType().getBufferBytes();
    else if (auto bars = dyn_cast<MBarrierAllocOp>(op))
      total += 8 * bars.getType().getCount();
    else
      scratch = std::max(scratch, getScratchBytes(op));
  });
  return llvm::alignTo(total, 128) + scratch;
}

/// The shared memory of `func` as it is (not split): the most any of its
/// TMA loops holds at once, the allocations used in that loop (its rings,
/// the other rings it reads, its mbarriers), plus the largest scratch.
int64_t estimateSharedMemory(func::FuncOp func) {
  int64_t most = 0, scratch = 0;
  func.walk([&](Operation *op) { scratch = std::max(scratch, getScratchBytes(op)); });
  func.walk([&](scf::ForOp loop) {
    if (loop.getBody()->getOps<TMALoadOp>().empty())
      return;
    int64_t total = 0;
    auto usedIn = [&](Operation *alloc) {
      return llvm::any_of(alloc->getUsers(),
                          [&](Operation *user) { return loop->isAncestor(user); });
    };
    func.walk([&](Operation *op) {
      if (auto alloc = dyn_cast<LocalAllocOp>(op); alloc && usedIn(op))
        total = llvm::alignTo(total, 1024) +
                alloc.getType().getNumBuffers() * alloc.getType().getBufferBytes();
      else if (auto bars = dyn_cast<MBarrierAllocOp>(op); bars && usedIn(op))
        total += 8 * bars.getType().getCount();
    });
    most = std::max(most, total);
  });
  return llvm::alignTo(most, 128) + scratch;
}

enum class Mode { Off, Requested, Auto, All };

/// One loop to split: its copies (in the loop and its prologue) and the
/// barriers they use.
struct LoopPlan {
  scf::ForOp loop;
  /// The copies, in program order: the prologue's, then the loop body's.
  SmallVector<Operation *> roots;
  /// Full barriers (tma_load / expect) and empty ones (leader waits).
  SetVector<Value> full, empty;
};

/// The ops the producer needs for one kernel: the roots and their backward
/// slice (in the consumer's body), and the loop-carried values it keeps.
struct ProducerSlice {
  SetVector<Operation *> ops;
  DenseSet<Value> carried; // iter_args of the loops that the slice reads
};

/// Whether the producer can recompute `op`: a scalar op without memory
/// effects or regions (layouts index the consumer threads, so no tiles).
/// Ops that may trap (integer division) compute what the consumers compute
/// from the same operands.
bool isRecomputable(Operation *op) {
  if (!isMemoryEffectFree(op) || op->getNumRegions() != 0)
    return false;
  auto isTile = [](Type t) { return isa<RankedTensorType>(t); };
  return llvm::none_of(op->getResultTypes(), isTile) &&
         llvm::none_of(op->getOperandTypes(), isTile);
}

bool isRoot(Operation *op) {
  if (auto wait = dyn_cast<MBarrierWaitOp>(op))
    return wait.getLeader();
  return isa<TMALoadOp, MBarrierExpectOp>(op);
}

/// The rings `plan`'s copies fill.
SetVector<Operation *> getRings(const LoopPlan &plan) {
  SetVector<Operation *> rings;
  for (Operation *root : plan.roots)
    if (auto load = dyn_cast<TMALoadOp>(root))
      if (Operation *alloc = load.getDst().getDefiningOp())
        rings.insert(alloc);
  return rings;
}

/// The ops of the kernel's entry block after which the consumers hand
/// the rings of `plans[k]` on to `plans[k + 1]`: the first
/// `warpgroup_wait {pendings = 0}` after loop k (it retires every dot that
/// read its rings), when nothing after it but the copies uses them and it
/// comes before loop k + 1 and its copies; or failure and why not.
FailureOr<SmallVector<Operation *>> planHandoffs(ArrayRef<LoopPlan> plans,
                                                 Block &entry, std::string &whyNot) {
  if (plans.size() - 1 > kMaxRingHandoffs) {
    whyNot = "it has more than " + std::to_string(kMaxRingHandoffs + 1) +
             " loops to hand rings on between";
    return failure();
  }
  auto topLevel = [&](Operation *op) { return entry.findAncestorOpInBlock(*op); };
  SmallVector<Operation *> points;
  for (unsigned k = 0; k + 1 < plans.size(); ++k) {
    scf::ForOp loop = plans[k].loop, next = plans[k + 1].loop;
    Operation *nextStart = topLevel(plans[k + 1].roots.front());
    Operation *wait = nullptr;
    for (Operation *op = loop->getNextNode(); op && op != nextStart && op != next;
         op = op->getNextNode())
      if (auto w = dyn_cast<WarpgroupWaitOp>(op); w && w.getPendings() == 0) {
        wait = op;
        break;
      }
    // The producer waits for the handoff before loop k + 1's first copy:
    // every copy of loop k must come before it, every copy of loop k + 1
    // after the consumers' handoff (or the consumers would wait for copies
    // the producer holds back).
    auto beforeWait = [&](Operation *op) { return topLevel(op)->isBeforeInBlock(wait); };
    if (!wait || !llvm::all_of(plans[k].roots, beforeWait) ||
        llvm::any_of(plans[k + 1].roots, beforeWait)) {
      whyNot = "no wait retires the dots of one loop before the next loop's copies";
      return failure();
    }
    DenseSet<Operation *> roots(plans[k].roots.begin(), plans[k].roots.end());
    for (Operation *ring : getRings(plans[k]))
      for (Operation *user : ring->getUsers())
        if (!roots.contains(user) && wait->isBeforeInBlock(topLevel(user))) {
          whyNot = "a ring of one loop is used after the wait that retires its dots";
          return failure();
        }
    points.push_back(wait);
  }
  return points;
}

/// Collects the copies of `loop` (a loop in `body`, the kernel's entry
/// block), or fails and says why.
FailureOr<LoopPlan> planLoop(scf::ForOp loop, std::string &whyNot) {
  LoopPlan plan;
  plan.loop = loop;
  Block *body = loop.getBody();
  bool hasArrive = false;
  for (Operation &op : body->without_terminator()) {
    if (isa<AsyncCopyOp>(op)) {
      whyNot = "a ring it fills is filled by cp.async (every thread copies), "
               "not only by TMA";
      return failure();
    }
    if (auto load = dyn_cast<TMALoadOp>(op))
      plan.full.insert(load.getBarriers());
    else if (auto expect = dyn_cast<MBarrierExpectOp>(op))
      plan.full.insert(expect.getBarriers());
    else if (auto wait = dyn_cast<MBarrierWaitOp>(op); wait && wait.getLeader())
      plan.empty.insert(wait.getBarriers());
    else {
      hasArrive |= isa<MBarrierArriveOp>(op);
      continue;
    }
    plan.roots.push_back(&op);
  }
  if (plan.full.empty()) {
    whyNot = "it has no TMA copies";
    return failure();
  }
  if (plan.empty.empty() || !hasArrive) {
    whyNot = "it is not software-pipelined with the release through \"empty\" "
             "mbarriers (num_stages = 1?)";
    return failure();
  }
  // Copies in nested regions of the body are not in the pipelined form.
  bool nested = false;
  loop->walk([&](Operation *op) {
    if (op->getBlock() != body && op != loop && isRoot(op))
      nested = true;
  });
  if (nested) {
    whyNot = "a copy is inside nested control flow of the loop";
    return failure();
  }
  // The prologue: the same barriers' copies before the loop, back to an
  // earlier loop whose rings this one continues (tilegpu-pipeline).
  SmallVector<Operation *> prologue;
  auto usesPlanBarriers = [&](Value bars) {
    return plan.full.contains(bars) || plan.empty.contains(bars);
  };
  for (Operation *op = loop->getPrevNode(); op; op = op->getPrevNode()) {
    if (auto earlier = dyn_cast<scf::ForOp>(op)) {
      bool continues = false;
      earlier->walk([&](Operation *inner) {
        continues |= llvm::any_of(inner->getOperands(), usesPlanBarriers);
      });
      if (continues)
        break;
    }
    if (auto load = dyn_cast<TMALoadOp>(op); load && usesPlanBarriers(load.getBarriers()))
      prologue.push_back(op);
    else if (auto expect = dyn_cast<MBarrierExpectOp>(op);
             expect && usesPlanBarriers(expect.getBarriers()))
      prologue.push_back(op);
    else if (auto wait = dyn_cast<MBarrierWaitOp>(op);
             wait && wait.getLeader() && usesPlanBarriers(wait.getBarriers()))
      prologue.push_back(op);
  }
  std::reverse(prologue.begin(), prologue.end());
  plan.roots.insert(plan.roots.begin(), prologue.begin(), prologue.end());
  return plan;
}

/// Whether `op` is directly in the body of a persistent kernel's loop over
/// programs (tilegpu-persistent), which is split as a whole.
bool isInPersistentBody(Operation *op) {
  Operation *parent = op->getParentOp();
  return parent && parent->hasAttr(TileGPUDialect::getPersistentAttrName());
}

/// The backward slice of `roots` inside `region` (the kernel's body), or
/// failure and why.
LogicalResult collectSlice(ArrayRef<Operation *> roots, Region &region,
                           ProducerSlice &slice, std::string &whyNot) {
  SmallVector<Operation *> worklist(roots.begin(), roots.end());
  std::string failedOn;
  auto visitValue = [&](Value v) {
    if (auto arg = dyn_cast<BlockArgument>(v)) {
      auto loop = dyn_cast<scf::ForOp>(arg.getOwner()->getParentOp());
      if (!loop || !region.isAncestor(loop->getParentRegion()))
        return; // a kernel argument
      worklist.push_back(loop);
      if (arg == loop.getInductionVar())
        return;
      // A loop-carried value: its init and its recurrence.
      if (!slice.carried.insert(arg).second)
        return;
      unsigned n = arg.getArgNumber() - 1;
      worklist.push_back(loop.getBody()->getTerminator());
      if (Operation *def = loop.getInitArgs()[n].getDefiningOp())
        worklist.push_back(def);
      if (Operation *def = loop.getBody()->getTerminator()->getOperand(n).getDefiningOp())
        worklist.push_back(def);
      return;
    }
    Operation *def = v.getDefiningOp();
    // Shared-memory allocations stay before the split, seen by both sides.
    if (!def || isa<LocalAllocOp, MBarrierAllocOp>(def) ||
        !region.isAncestor(def->getParentRegion()))
      return;
    if (isa<scf::ForOp>(def)) {
      failedOn = "a copy's coordinates come from the results of another loop";
      return;
    }
    worklist.push_back(def);
  };
  while (!worklist.empty()) {
    if (!failedOn.empty()) {
      whyNot = failedOn;
      return failure();
    }
    Operation *op = worklist.pop_back_val();
    if (slice.ops.contains(op))
      continue;
    if (auto loop = dyn_cast<scf::ForOp>(op)) {
      if (loop->getBlock() != &region.front() && !isInPersistentBody(loop)) {
        whyNot = "a copy's loop is nested in other control flow";
        return failure();
      }
      slice.ops.insert(op);
      for (Value bound : {loop.getLowerBound(), loop.getUpperBound(), loop.getStep()})
        visitValue(bound);
      continue;
    }
    if (isa<scf::YieldOp>(op)) {
      // Only the yielded values of carried arguments are needed (added
      // with them); the yield itself is rebuilt.
      slice.ops.insert(op);
      continue;
    }
    if (!isRoot(op) && !isRecomputable(op)) {
      std::string name = op->getName().getStringRef().str();
      whyNot = "a copy's coordinates depend on '" + name +
               "', which the consumer warps compute (the producer recomputes "
               "only pure scalar arithmetic)";
      return failure();
    }
    slice.ops.insert(op);
    if (Operation *parent = op->getParentOp(); isa<scf::ForOp>(parent))
      worklist.push_back(parent);
    else if (op->getBlock() != &region.front()) {
      whyNot = "a copy's coordinates are computed inside nested control flow";
      return failure();
    }
    for (Value operand : op->getOperands())
      visitValue(operand);
  }
  if (!failedOn.empty()) {
    whyNot = failedOn;
    return failure();
  }
  return success();
}

/// Clones the ops of `block` that are in `slice` into `b`'s insertion
/// point; loops become loops over the same bounds that carry only the
/// values the slice reads.
void cloneSlice(OpBuilder &b, Block &block, const ProducerSlice &slice,
                IRMapping &map) {
  for (Operation &op : block) {
    if (!slice.ops.contains(&op) || isa<scf::YieldOp>(op))
      continue;
    auto loop = dyn_cast<scf::ForOp>(op);
    if (!loop) {
      b.clone(op, map);
      continue;
    }
    SmallVector<Value> inits;
    SmallVector<unsigned> kept;
    for (auto [i, arg] : llvm::enumerate(loop.getRegionIterArgs()))
      if (slice.carried.contains(arg)) {
        kept.push_back(i);
        inits.push_back(map.lookupOrDefault(loop.getInitArgs()[i]));
      }
    auto newLoop = scf::ForOp::create(
        b, loop.getLoc(), map.lookupOrDefault(loop.getLowerBound()),
        map.lookupOrDefault(loop.getUpperBound()),
        map.lookupOrDefault(loop.getStep()), inits,
        /*bodyBuilder=*/nullptr, loop.getUnsignedCmp());
    Block *newBody = newLoop.getBody();
    map.map(loop.getInductionVar(), newLoop.getInductionVar());
    for (auto [j, i] : llvm::enumerate(kept))
      map.map(loop.getRegionIterArgs()[i], newLoop.getRegionIterArgs()[j]);
    if (newBody->mightHaveTerminator())
      newBody->getTerminator()->erase();
    OpBuilder inner = OpBuilder::atBlockEnd(newBody);
    cloneSlice(inner, *loop.getBody(), slice, map);
    SmallVector<Value> yielded;
    Operation *yield = loop.getBody()->getTerminator();
    for (unsigned i : kept)
      yielded.push_back(map.lookupOrDefault(yield->getOperand(i)));
    scf::YieldOp::create(inner, loop.getLoc(), yielded);
  }
}

/// Why the two consumer warpgroups cannot take turns in `loop` (empty
/// when they can): the turns need a dot before and after the consumer
/// code between them, and nothing in the loop that waits for all the
/// consumer threads (a named barrier would meet the other warpgroup half
/// a turn away).
std::string whyNoTurns(scf::ForOp loop) {
  auto dots = loop.getBody()->getOps<WarpgroupDotOp>();
  if (std::distance(dots.begin(), dots.end()) < 2)
    return "its body has fewer than two warpgroup dots";
  // A warpgroup waiting for its turn before the last dot must have
  // released the ring slots the other warpgroup's next copies may need
  // (with two stages, the slot of the iteration before).
  Operation *lastDot = *std::prev(dots.end());
  for (auto release : loop.getBody()->getOps<MBarrierArriveOp>())
    if (lastDot->isBeforeInBlock(release))
      return "it releases a ring slot after its last dot (the turn before "
             "that dot could wait for copies the release holds back)";
  std::string why;
  loop.getBody()->walk([&](Operation *op) {
    if (why.empty() &&
        (isa<BarrierOp, MBarrierInvalOp, MBarrierInitOp>(op) ||
         getScratchBytes(op) > 0))
      why = "'" + op->getName().getStringRef().str() +
            "' in its body synchronizes all consumer threads";
  });
  return why;
}

/// The turns of `loop`'s two consumer warpgroups (tilegpu.turn_wait):
/// each issues its dots from the body's last dot of one iteration to its
/// first dot of the next while the other runs the code between. Before
/// the loop warpgroup 1 passes the first turn to warpgroup 0 and both
/// wait for theirs; after the wait that retires the loop's last dots
/// warpgroup 0 passes once more, for warpgroup 1's last wait in the loop:
/// n + 1 waits and n + 1 passes on each barrier. (A turn op of both
/// warpgroups there makes ptxas serialize every wgmma of the kernel,
/// C7515: the accumulators are live.)
void insertTurns(scf::ForOp loop) {
  Location loc = loop.getLoc();
  SmallVector<WarpgroupDotOp> dots(loop.getBody()->getOps<WarpgroupDotOp>());
  OpBuilder b(loop);
  TurnPassOp::create(b, loc, b.getI32IntegerAttr(1));
  TurnWaitOp::create(b, loc, IntegerAttr());
  b.setInsertionPointAfter(dots.front());
  TurnPassOp::create(b, loc, IntegerAttr());
  b.setInsertionPoint(dots.back());
  TurnWaitOp::create(b, loc, IntegerAttr());
  Operation *last = loop;
  for (Operation *op = loop->getNextNode(); op; op = op->getNextNode())
    if (auto wait = dyn_cast<WarpgroupWaitOp>(op);
        wait && llvm::any_of(wait.getInputs(), [&](Value v) {
          return v.getDefiningOp() == loop;
        })) {
      last = wait;
      break;
    }
  b.setInsertionPointAfter(last);
  TurnPassOp::create(b, loc, b.getI32IntegerAttr(0));
}

struct TileGPUWarpSpecializePass
    : tilegpu::impl::TileGPUWarpSpecializeBase<TileGPUWarpSpecializePass> {
  using TileGPUWarpSpecializeBase::TileGPUWarpSpecializeBase;

  void runOnOperation() override {
    std::optional<Mode> parsed = llvm::StringSwitch<std::optional<Mode>>(mode)
                                     .Case("off", Mode::Off)
                                     .Case("requested", Mode::Requested)
                                     .Case("auto", Mode::Auto)
                                     .Case("all", Mode::All)
                                     .Default(std::nullopt);
    if (!parsed) {
      getOperation().emitError()
          << "tilegpu-warp-specialize: mode '" << mode
          << "' is not one of off, requested, auto, all";
      return signalPassFailure();
    }
    if (*parsed == Mode::Off)
      return;
    if (pingPong != "off" && pingPong != "auto" && pingPong != "on") {
      getOperation().emitError()
          << "tilegpu-warp-specialize: ping-pong '" << pingPong
          << "' is not one of off, auto, on";
      return signalPassFailure();
    }
    for (auto func : getOperation().getOps<func::FuncOp>())
      if (func->hasAttr(tile::kKernelAttrName) && !func.isExternal())
        if (failed(runOnKernel(func, *parsed)))
          return signalPassFailure();
  }

  /// Registers per consumer thread: the option, or by the consumer
  /// warpgroups (getConsumerRegisters).
  unsigned getConsumerRegisters(unsigned numWarps) {
    return tilegpu::getConsumerRegisters(numWarps, producerRegisters,
                                         consumerRegisters);
  }

  /// Whether `loop` is asked to be warp-specialized. `alone`: the
  /// kernel's shared memory holds an SM to one CTA already.
  bool isWanted(scf::ForOp loop, Mode m, bool alone) {
    if (auto attr = loop->getAttrOfType<BoolAttr>(tile::kWarpSpecializeAttrName))
      return attr.getValue();
    if (m == Mode::All)
      return true;
    // `auto`, a loop tilegpu-choose-warp-specialize left undecided: one
    // with wgmma in a kernel whose shared memory holds an SM alone.
    if (m == Mode::Auto)
      return alone && !loop.getBody()->getOps<WarpgroupDotOp>().empty();
    return false;
  }

  /// The shared memory `func` needs split with ring handoffs, as
  /// tilegpu-allocate-shared lays it out: the split made on a copy of the
  /// kernel (next to it in the module, its remarks silenced, then erased);
  /// none when the copy could not be split.
  std::optional<int64_t> getSplitSharedMemory(func::FuncOp func, Mode m) {
    OpBuilder b(func);
    b.setInsertionPointAfter(func);
    auto copy = cast<func::FuncOp>(b.clone(*func));
    std::optional<int64_t> bytes;
    {
      ScopedDiagnosticHandler silence(func.getContext(),
                                      [](Diagnostic &) { return success(); });
      if (succeeded(runOnKernel(copy, m, /*trial=*/true)) &&
          !copy.getBody().getOps<WarpSpecializeOp>().empty())
        bytes = planSharedMemoryBytes(copy);
    }
    copy.erase();
    return bytes;
  }

  /// Splits `func`'s loops that are asked for and can be. `trial`: a copy
  /// made by getSplitSharedMemory (ring handoffs are taken without trying
  /// them first).
  LogicalResult runOnKernel(func::FuncOp func, Mode m, bool trial = false) {
    std::optional<unsigned> numWarps = lookupNumWarps(func);
    if (!numWarps)
      return success();
    // Candidates: loops with TMA copies anywhere in the kernel.
    SmallVector<scf::ForOp> candidates;
    // A warp-specialized kernel runs one CTA per SM (setmaxnreg rebalances
    // the SM's registers between its warpgroups): `auto` splits kernels
    // whose shared memory allows no second CTA anyway.
    bool alone = 2 * estimateSharedMemory(func) > kMaxSharedMemoryBytes;
    // A persistent kernel's loop over programs is not a candidate (its
    // body's are; the split takes it whole).
    scf::ForOp persistent = getPersistentLoop(func);
    func.walk([&](scf::ForOp loop) {
      if (loop != persistent && !loop.getBody()->getOps<TMALoadOp>().empty() &&
          isWanted(loop, m, alone))
        candidates.push_back(loop);
    });
    if (candidates.empty())
      return success();
    Block &entry = func.getBody().front();
    auto refuse = [&](scf::ForOp loop, const Twine &why) {
      emitRemark(loop.getLoc()) << "loop not warp-specialized: " << why;
    };

    // Whole-kernel conditions.
    std::string kernelWhyNot;
    if (*numWarps % 4 != 0)
      kernelWhyNot = "the kernel's " + std::to_string(*numWarps) +
                     " warps are not whole warpgroups (setmaxnreg)";
    else if ((*numWarps + kProducerWarps) * kThreadsPerWarp > 1024)
      kernelWhyNot = "the kernel's " + std::to_string(*numWarps) +
                     " warps and a producer warpgroup exceed 1024 threads";
    else if (func.getNumResults() != 0)
      kernelWhyNot = "the function returns values (only kernels are split)";
    else if (func.getBody().getBlocks().size() != 1)
      kernelWhyNot = "the kernel has more than one block";
    if (!kernelWhyNot.empty()) {
      for (scf::ForOp loop : candidates)
        refuse(loop, kernelWhyNot);
      return success();
    }

    SmallVector<LoopPlan> plans;
    ProducerSlice slice;
    for (scf::ForOp loop : candidates) {
      if (loop->getBlock() != &entry && !isInPersistentBody(loop)) {
        refuse(loop, "it is nested in other control flow (only loops at the "
                     "top of the kernel or of a persistent kernel's loop over "
                     "programs are split)");
        continue;
      }
      // Where the loop sits in the kernel's entry block (a persistent
      // kernel's loop over programs holds it).
      Operation *top = entry.findAncestorOpInBlock(*loop);
      std::string whyNot;
      FailureOr<LoopPlan> plan = planLoop(loop, whyNot);
      if (failed(plan)) {
        refuse(loop, whyNot);
        continue;
      }
      // Each barrier is initialized once, before the loop, and used by
      // nothing but the loop, its prologue, its init and its inval, or by
      // other loops that continue its rings and their prologues (split
      // with it or not at all: checked below).
      DenseSet<Operation *> rootSet(plan->roots.begin(), plan->roots.end());
      for (Value bars : llvm::concat<const Value>(plan->full, plan->empty)) {
        int inits = 0;
        for (Operation *user : bars.getUsers()) {
          if (isa<MBarrierInitOp>(user) && user->getBlock() == &entry &&
              user->isBeforeInBlock(top))
            ++inits;
          else if (!loop->isAncestor(user) && !rootSet.contains(user) &&
                   !isa<MBarrierInvalOp>(user) &&
                   !(user->getBlock() == &entry && isRoot(user)) &&
                   !isa_and_nonnull<scf::ForOp>(entry.findAncestorOpInBlock(*user)))
            whyNot = "one of its mbarriers is used outside the loop";
        }
        if (inits != 1 && whyNot.empty())
          whyNot = top != loop.getOperation()
                       ? "one of its mbarriers is initialized once per program "
                         "(its rings are not continued from one program of the "
                         "persistent kernel to the next)"
                       : "one of its mbarriers is not initialized exactly once "
                         "before it";
        if (!isa_and_nonnull<MBarrierAllocOp>(bars.getDefiningOp()) && whyNot.empty())
          whyNot = "one of its mbarrier arrays is not an allocation";
      }
      // The slice must be recomputable; collect it into a copy first.
      ProducerSlice trial = slice;
      if (whyNot.empty() &&
          failed(collectSlice(plan->roots, func.getBody(), trial, whyNot))) {
      }
      if (!whyNot.empty()) {
        refuse(loop, whyNot);
        continue;
      }
      slice = std::move(trial);
      plans.push_back(std::move(*plan));
    }
    // Loops that continue each other's rings are split together or not at
    // all: the producer fills a shared ring for every loop that reads it.
    // A plan sharing barriers with a loop of the kernel that is not split
    // is dropped (which may drop another: start again), then the
    // producer's slice is collected anew without its copies.
    auto sharesWithUnsplit = [&](const LoopPlan &plan) {
      for (Value bars : llvm::concat<const Value>(plan.full, plan.empty))
        for (Operation *user : bars.getUsers()) {
          auto other = dyn_cast_or_null<scf::ForOp>(
              plan.loop->getBlock()->findAncestorOpInBlock(*user));
          if (other && other != plan.loop &&
              llvm::none_of(plans, [&](const LoopPlan &p) { return p.loop == other; }))
            return true;
        }
      return false;
    };
    bool dropped = false;
    for (size_t i = 0; i < plans.size();) {
      if (!sharesWithUnsplit(plans[i])) {
        ++i;
        continue;
      }
      refuse(plans[i].loop, "it shares its rings with a loop that is not split");
      plans.erase(plans.begin() + i);
      dropped = true;
      i = 0;
    }
    if (dropped) {
      slice = ProducerSlice();
      for (LoopPlan &plan : plans) {
        std::string whyNot;
        if (failed(collectSlice(plan.roots, func.getBody(), slice, whyNot)))
          return func.emitError("internal error: tilegpu-warp-specialize lost "
                                "a producer slice: ") << whyNot;
      }
    }
    if (plans.empty())
      return success();
    // A persistent kernel's once-per-program copies (attention's Q: the
    // leader's wait for the previous program's release, the expect, the
    // copy, which tilegpu-pipeline marked `oncePerProgram`) go to the
    // producer with the loops of its body that are split, which then
    // copies the next program's tile while the consumers finish this one.
    // Any other copy stays with the consumers.
    if (persistent && llvm::any_of(plans, [](const LoopPlan &p) {
          return isInPersistentBody(p.loop);
        })) {
      LoopPlan plan;
      plan.loop = persistent;
      for (Operation &op : persistent.getBody()->without_terminator()) {
        if (auto wait = dyn_cast<MBarrierWaitOp>(&op); wait && wait.getOncePerProgram()) {
          plan.roots.push_back(wait);
          plan.empty.insert(wait.getBarriers());
        } else if (auto expect = dyn_cast<MBarrierExpectOp>(&op);
                   expect && expect.getOncePerProgram()) {
          plan.roots.push_back(expect);
        } else if (auto load = dyn_cast<TMALoadOp>(&op); load && load.getOncePerProgram()) {
          plan.roots.push_back(load);
          plan.full.insert(load.getBarriers());
        }
      }
      std::string whyNot;
      ProducerSlice trial = slice;
      if (!plan.roots.empty() &&
          succeeded(collectSlice(plan.roots, func.getBody(), trial, whyNot))) {
        slice = std::move(trial);
        plans.push_back(std::move(plan));
      }
    }
    // In program order: by their place in the entry block, a persistent
    // loop before the loops of its body.
    llvm::sort(plans, [&](const LoopPlan &a, const LoopPlan &b) {
      Operation *loopA = scf::ForOp(a.loop).getOperation();
      Operation *loopB = scf::ForOp(b.loop).getOperation();
      Operation *topA = entry.findAncestorOpInBlock(*loopA);
      Operation *topB = entry.findAncestorOpInBlock(*loopB);
      if (topA != topB)
        return topA->isBeforeInBlock(topB);
      if (loopA == loopB || loopB == topB)
        return false;
      return loopA == topA || loopA->isBeforeInBlock(loopB);
    });
    // The rings side by side, or else handed on from loop to loop (laid
    // out on a trial split of a copy of the kernel by
    // tilegpu-allocate-shared's own rule).
    SmallVector<Operation *> handoffPoints;
    if (int64_t bytes = estimateSplitSharedMemory(func);
        bytes > kMaxSharedMemoryBytes) {
      // `auto` hands rings on between two loops, one handoff: causal
      // attention at head dim 128 ran 7-14 % faster split so (H100,
      // bench/RESULTS.md, seventh session; its loops now continue one set
      // of rings and need no handoff), while the backward's four loops at
      // head dim 128, three handoffs, ran 3 % slower. `all` and loops
      // written warp_specialize=True take any number.
      bool asked = m != Mode::Auto || plans.size() == 2 ||
                   llvm::any_of(plans, [](const LoopPlan &plan) {
                     auto attr = plan.loop->getAttrOfType<BoolAttr>(
                         tile::kWarpSpecializeAttrName);
                     return attr && attr.getValue();
                   });
      std::string whyNot;
      // A persistent kernel's loops continue one set of rings (no handoffs
      // between the programs).
      if (persistent)
        whyNot = "the kernel is persistent";
      FailureOr<SmallVector<Operation *>> points =
          plans.size() > 1 && asked && !persistent
              ? planHandoffs(plans, entry, whyNot)
              : FailureOr<SmallVector<Operation *>>(failure());
      std::optional<int64_t> handedOn;
      if (succeeded(points))
        handedOn = trial ? 0 : getSplitSharedMemory(func, m);
      if (handedOn && *handedOn <= kMaxSharedMemoryBytes) {
        handoffPoints = std::move(*points);
      } else {
        std::string why = "the kernel's rings would need " + std::to_string(bytes) +
                          " bytes of shared memory side by side, more than " +
                          std::to_string(kMaxSharedMemoryBytes);
        if (plans.size() > 1 && !asked)
          why += " (--warp-specialize=auto hands rings on between two loops "
                 "only; warp_specialize=True on a loop, or "
                 "--warp-specialize=all, hands them on from loop to loop)";
        else if (!whyNot.empty())
          why += ", and its loops cannot hand their rings on: " + whyNot;
        else if (handedOn)
          why += ", and " + std::to_string(*handedOn) +
                 " with each loop's rings handed on to the next";
        for (LoopPlan &plan : plans)
          refuse(plan.loop, why);
        return success();
      }
    }

    // Allocations first (they stay before the split, seen by both sides),
    // then the kernel's body, but the return, in the consumer region.
    OpBuilder b(func.getContext());
    SmallVector<Operation *> allocs;
    for (Operation &op : entry.without_terminator())
      if (isa<LocalAllocOp, MBarrierAllocOp>(op))
        allocs.push_back(&op);
    for (Operation *alloc : llvm::reverse(allocs))
      alloc->moveBefore(&entry, entry.begin());
    Operation *firstBodyOp = nullptr;
    for (Operation &op : entry.without_terminator())
      if (!isa<LocalAllocOp, MBarrierAllocOp>(op)) {
        firstBodyOp = &op;
        break;
      }
    Operation *ret = entry.getTerminator();
    if (!firstBodyOp || ret->getNumOperands() != 0)
      return func.emitError("internal error: tilegpu-warp-specialize found no "
                            "body to split, or a kernel return with values");
    b.setInsertionPoint(firstBodyOp);
    auto ws = WarpSpecializeOp::create(
        b, func.getLoc(), b.getI32IntegerAttr(kProducerWarps),
        b.getI32IntegerAttr(producerRegisters),
        b.getI32IntegerAttr(getConsumerRegisters(*numWarps)));
    Block *consumer = &ws.getConsumer().emplaceBlock();
    Block *producer = &ws.getProducer().emplaceBlock();
    consumer->getOperations().splice(consumer->end(), entry.getOperations(),
                                     firstBodyOp->getIterator(),
                                     ret->getIterator());
    OpBuilder cb = OpBuilder::atBlockEnd(consumer);
    WarpYieldOp::create(cb, func.getLoc());
    // The inits of the producer's barriers run before the split, in the
    // whole CTA, in their order (a cluster's inits end with the one that
    // synchronizes the cluster, tilegpu-cluster-multicast).
    SmallVector<Operation *> inits;
    for (LoopPlan &plan : plans)
      for (Value bars : llvm::concat<const Value>(plan.full, plan.empty))
        for (Operation *user : bars.getUsers())
          if (isa<MBarrierInitOp>(user) && !llvm::is_contained(inits, user))
            inits.push_back(user);
    llvm::sort(inits, [](Operation *a, Operation *b) { return a->isBeforeInBlock(b); });
    for (Operation *init : inits)
      init->moveBefore(ws);

    // The producer: the slice, cloned in program order.
    IRMapping map;
    OpBuilder pb = OpBuilder::atBlockEnd(producer);
    cloneSlice(pb, *consumer, slice, map);
    WarpYieldOp::create(pb, func.getLoc());

    // Ring handoffs: the consumers' after the wait that retires loop k's
    // dots, the producer's before the first copy of loop k + 1.
    for (auto [k, point] : llvm::enumerate(handoffPoints)) {
      b.setInsertionPointAfter(point);
      RingHandoffOp::create(b, plans[k].loop.getLoc(), b.getI32IntegerAttr(k));
      Operation *first = map.lookupOrNull(plans[k + 1].roots.front());
      if (!first)
        return func.emitError("internal error: tilegpu-warp-specialize lost "
                              "the producer's copy of a loop's first copy");
      b.setInsertionPoint(producer->findAncestorOpInBlock(*first));
      RingHandoffOp::create(b, plans[k + 1].loop.getLoc(), b.getI32IntegerAttr(k));
    }

    // The consumers no longer copy.
    for (LoopPlan &plan : plans)
      for (Operation *root : llvm::reverse(plan.roots))
        root->erase();
    if (failed(ws.verify()))
      return failure();
    for (LoopPlan &plan : plans) {
      if (plan.loop == persistent)
        continue;
      {
        InFlightDiagnostic remark = emitRemark(plan.loop.getLoc())
            << "loop warp-specialized: a producer warpgroup issues its TMA "
               "copies; the CTA has "
            << (*numWarps + kProducerWarps) * kThreadsPerWarp << " threads";
        if (!handoffPoints.empty())
          remark << "; its rings share shared memory with the kernel's other "
                    "loops (the producer starts each loop's copies when the "
                    "consumers have finished the loop before)";
      }
      if (pingPong == "off")
        continue;
      std::string why = *numWarps == 2 * kWarpsPerWarpgroup
                            ? whyNoTurns(plan.loop)
                            : "it needs two consumer warpgroups (8 warps)";
      if (!why.empty()) {
        // `auto` takes what it can and says nothing about the rest (a
        // GEMM's one-dot loop is not a candidate there).
        if (pingPong == "on")
          emitRemark(plan.loop.getLoc()) << "no ping-pong: " << why;
        continue;
      }
      insertTurns(plan.loop);
      emitRemark(plan.loop.getLoc())
          << "loop ping-pongs its two consumer warpgroups at the tensor cores";
    }
    return success();
  }
};

} // namespace
