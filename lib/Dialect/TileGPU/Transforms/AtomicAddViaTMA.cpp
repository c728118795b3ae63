//===- AtomicAddViaTMA.cpp - tile atomic adds as TMA reductions -----------===//
//
// Part of tilec, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// The tilegpu-atomic-add-via-tma pass (see Passes.td).
//
//===----------------------------------------------------------------------===//

#include "tilec/Dialect/TileGPU/Transforms/Passes.h"
#include "tilec/Dialect/TileGPU/Transforms/TMADescriptor.h"
#include "tilec/Dialect/TileGPU/Transforms/TMAStaging.h"

#include "tilec/Analysis/AffineAccess.h"
#include "tilec/Dialect/Tile/IR/Tile.h"
#include "tilec/Dialect/TileGPU/IR/TileGPU.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallPtrSet.h"

namespace tilec::tilegpu {
#define GEN_PASS_DEF_TILEGPUATOMICADDVIATMA
#include "tilec/Dialect/TileGPU/Transforms/Passes.h.inc"
} // namespace tilec::tilegpu

using namespace mlir;
using namespace tilec;
using namespace tilec::tilegpu;

namespace {

class AtomicRewriter {
public:
  explicit AtomicRewriter(func::FuncOp func)
      : func(func), affine(func), writer(func, affine) {}

  void run();

private:
  /// Rewrites `atomic` (in `block`, see getStagingBlock) into a TMA
  /// reduction of `value`, or leaves it when its staging buffer does not
  /// fit (a remark).
  void rewrite(tile::AtomicRMWOp atomic, Value value, const TMABox &box, Block *block);

  func::FuncOp func;
  AffineAccessAnalysis affine;
  StagedTMAWriter writer;
  /// One staging buffer per tile type, shared by the reductions of the
  /// kernel (each waits for the previous one's read before it writes).
  llvm::DenseMap<Type, Value> stagingBuffers;
};

void AtomicRewriter::run() {
  // Ping-pong turns (tilegpu-warp-specialize, which runs after this pass
  // in tilec's pipeline) refuse loops with barriers; the barriers added
  // after them would deadlock the two consumer warpgroups.
  bool hasWgmma = false, hasTurns = false;
  func.walk([&](Operation *op) {
    hasWgmma |= isa<WarpgroupDotOp>(op);
    hasTurns |= isa<TurnWaitOp, TurnPassOp>(op);
  });
  if (!hasWgmma || hasTurns)
    return;
  SmallVector<tile::AtomicRMWOp> atomics;
  llvm::SmallPtrSet<Operation *, 4> candidates;
  func.walk([&](tile::AtomicRMWOp atomic) {
    // A relaxed f32 add at gpu scope whose old values nobody reads: TMA
    // reductions are relaxed, per element, and return nothing.
    auto type = dyn_cast<RankedTensorType>(atomic.getValue().getType());
    if (atomic.isReduction() && atomic.getSem() == "relaxed" &&
        atomic.getScope() == "gpu" && type && type.getRank() == 2 &&
        type.getElementType().isF32()) {
      atomics.push_back(atomic);
      candidates.insert(atomic);
    }
  });
  // Another atomic, inline assembly or a call may tell other CTAs that the
  // sums are complete (split-K's "last CTA adds up"): a release does not
  // order the reductions' global writes, made through the async proxy.
  if (atomics.empty() ||
      mayPublishWrites(func, [&](Operation *op) { return candidates.contains(op); }))
    return;
  for (tile::AtomicRMWOp atomic : atomics) {
    // In the kernel's body or consumer region, through loops and ifs (their
    // bounds and conditions are scalars, alike in every thread).
    Block *block = getStagingBlock(
        atomic, [](Operation *parent) { return isa<scf::ForOp, scf::IfOp>(parent); });
    Value value = getStagedValue(atomic.getValue());
    if (!block || isReplicated(cast<RankedTensorType>(value.getType())))
      continue;
    std::string whyNot;
    FailureOr<TMABox> box = affine.getTMABox(atomic, whyNot);
    // Its tensor is touched by nothing else but this kernel's other
    // reductions (adds commute; relaxed, they need no order).
    auto isOurs = [&](Operation *op) {
      auto reduce = dyn_cast<TMAStoreOp>(op);
      return candidates.contains(op) || (reduce && reduce.getAdd());
    };
    if (failed(box) || accessesArgumentOtherwise(func, box->baseArg, isOurs))
      continue;
    rewrite(atomic, value, *box, block);
  }
}

void AtomicRewriter::rewrite(tile::AtomicRMWOp atomic, Value value, const TMABox &box,
                             Block *block) {
  // The previous reduction from the buffer (an earlier iteration's, or
  // another atomic's) has read it before it is written again.
  RankedTensorType tile = getBufferTile(cast<RankedTensorType>(value.getType()),
                                        box.transposed);
  Value &staging = stagingBuffers[tile];
  int64_t bytes;
  FailureOr<Value> written = writer.write(atomic, value, box, block, staging,
                                          /*waitFirst=*/true, /*add=*/true, bytes);
  int64_t kb = tile.getNumElements() * 4 / 1024;
  if (failed(written)) {
    if (!staging)
      stagingBuffers.erase(tile);
    if (bytes != 0)
      atomic.emitRemark() << "tl.atomic_add stays red.global from registers, not a "
                             "TMA reduction: its "
                          << kb << " KB staging buffer would take the kernel's shared "
                          << "memory to " << bytes / 1024
                          << " KB, past the 227 KB a CTA can have (fewer pipeline "
                             "stages, num_stages, make room)";
    return;
  }
  staging = *written;
  atomic.emitRemark() << "tl.atomic_add becomes a TMA reduction "
                         "(cp.reduce.async.bulk.tensor .add) from a "
                      << kb << " KB shared-memory staging buffer";
  // The register value's gathering and the pointer (and mask) tiles are
  // dead now.
  SmallVector<Value> operands(atomic->getOperands());
  atomic.erase();
  eraseDeadDefinitions(operands);
}

struct TileGPUAtomicAddViaTMAPass
    : tilegpu::impl::TileGPUAtomicAddViaTMABase<TileGPUAtomicAddViaTMAPass> {
  void runOnOperation() override {
    for (auto func : getOperation().getOps<func::FuncOp>())
      AtomicRewriter(func).run();
  }
};

} // namespace
