//===- AllocateShared.cpp - the kernel's shared-memory plan ---------------===//
//
// Part of tilec, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// The tilegpu-allocate-shared pass (see Passes.td).
//
//===----------------------------------------------------------------------===//

#include "tilec/Dialect/TileGPU/Transforms/Passes.h"
#include "tilec/Dialect/TileGPU/Transforms/SharedMemoryPlan.h"

#include "tilec/Dialect/TileGPU/IR/Scratch.h"
#include "tilec/Dialect/TileGPU/IR/TileGPU.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Interfaces/LoopLikeInterface.h"
#include "llvm/Support/MathExtras.h"

namespace tilec::tilegpu {
#define GEN_PASS_DEF_TILEGPUALLOCATESHARED
#include "tilec/Dialect/TileGPU/Transforms/Passes.h.inc"
} // namespace tilec::tilegpu

#define DEBUG_TYPE "tilegpu-allocate-shared"

using namespace mlir;
using namespace tilec;
using namespace tilec::tilegpu;

namespace {

struct Buffer {
  Operation *owner;
  int64_t size, alignment;
  /// Live range in op numbers, inclusive.
  int64_t first, last;
  /// The use that starts the range.
  Operation *firstUser;
  int64_t offset = -1;
};

class Allocator {
public:
  explicit Allocator(func::FuncOp func) : func(func) {}
  /// Lays out the kernel's shared memory; returns the total. With `apply`,
  /// also writes the offsets and inserts the barriers reused memory needs,
  /// and fails with a located error above the Hopper limit; without, only
  /// computes the total and changes nothing.
  FailureOr<int64_t> run(bool apply);

private:
  /// The range of op numbers `op` covers (with its nested ops).
  std::pair<int64_t, int64_t> span(Operation *op) {
    return {number.lookup(op), lastNested.lookup(op)};
  }
  /// A use's range: the whole of every loop around it; a use by the
  /// producer of a tilegpu.warp_specialize, see producerRange.
  std::pair<int64_t, int64_t> useRange(Operation *user) {
    WarpSpecializeOp ws;
    if (WarpSpecializeOp::isInProducer(user, &ws))
      return producerRange(ws, user);
    auto range = span(user);
    for (Operation *p = user->getParentOp(); p && p != func; p = p->getParentOp())
      if (isa<LoopLikeOpInterface>(p))
        range = span(p);
    return range;
  }

  /// The range of a use by the producer, which runs ahead of the consumers,
  /// unordered with their ops: the whole warp_specialize, narrowed by the
  /// ring handoffs around it (tilegpu.ring_handoff) to the span from the
  /// consumers' handoff before it to their handoff after it.
  std::pair<int64_t, int64_t> producerRange(WarpSpecializeOp ws, Operation *user) {
    Operation *top = user;
    while (top->getParentOp() != ws)
      top = top->getParentOp();
    int64_t segment = 0;
    for (auto handoff : ws.getProducer().front().getOps<RingHandoffOp>())
      if (handoff->isBeforeInBlock(top))
        segment = handoff.getIndex() + 1;
    SmallVector<RingHandoffOp> consumer(ws.getConsumer().front().getOps<RingHandoffOp>());
    auto range = span(ws);
    if (segment > 0)
      range.first = number.lookup(consumer[segment - 1]) + 1;
    if (segment < static_cast<int64_t>(consumer.size()))
      range.second = number.lookup(consumer[segment]);
    return range;
  }

  /// A CTA barrier before the outermost ancestor of `user` that starts
  /// after op `after` (none in a warp_specialize producer: its rings share
  /// memory only across a ring handoff, which orders them).
  void insertBarrierBefore(Operation *user, int64_t after) {
    Operation *op = user;
    while (Operation *parent = op->getParentOp()) {
      if (auto ws = dyn_cast<WarpSpecializeOp>(parent)) {
        if (op->getParentRegion() != &ws.getConsumer())
          return;
        break;
      }
      if (parent == func.getOperation() || number.lookup(parent) <= after)
        break;
      op = parent;
    }
    // One barrier serves every buffer reused here: none if the ops before
    // `op` that start after `after` hold one (inserted ones are unnumbered;
    // an mbarrier_inval begins with a CTA barrier).
    for (Operation *prev = op->getPrevNode(); prev; prev = prev->getPrevNode()) {
      if (number.contains(prev) && number.lookup(prev) <= after)
        break;
      if (isa<BarrierOp, MBarrierInvalOp>(prev))
        return;
    }
    OpBuilder b(op);
    BarrierOp::create(b, op->getLoc());
  }

  func::FuncOp func;
  DenseMap<Operation *, int64_t> number, lastNested;
};

FailureOr<int64_t> Allocator::run(bool apply) {
  int64_t next = 0;
  func.walk<WalkOrder::PreOrder>([&](Operation *op) { number[op] = next++; });
  func.walk<WalkOrder::PostOrder>([&](Operation *op) {
    int64_t last = number[op];
    for (Region &region : op->getRegions())
      for (Block &block : region)
        for (Operation &nested : block)
          last = std::max(last, lastNested[&nested]);
    lastNested[op] = last;
  });

  SmallVector<Buffer> buffers;
  auto addAllocation = [&](Operation *op, int64_t size, int64_t alignment) {
    Value result = op->getResult(0);
    if (result.use_empty())
      return;
    int64_t first = INT64_MAX, last = -1;
    Operation *firstUser = nullptr;
    for (Operation *user : result.getUsers()) {
      auto [f, l] = useRange(user);
      if (f < first || (f == first && number.lookup(user) < number.lookup(firstUser)))
        firstUser = user;
      first = std::min(first, f);
      last = std::max(last, l);
    }
    // A ring other CTAs of a cluster multicast into is written from their
    // first copy on, unordered with this CTA's ops before its own first
    // use: it shares memory with nothing before it.
    if (llvm::any_of(result.getUsers(), [](Operation *user) {
          auto load = dyn_cast<TMALoadOp>(user);
          return load && load.getMulticast();
        }))
      first = 0;
    buffers.push_back({op, size, alignment, first, last, firstUser});
  };
  func.walk([&](Operation *op) {
    if (auto alloc = dyn_cast<LocalAllocOp>(op))
      addAllocation(op, alloc.getType().getNumBuffers() * alloc.getType().getBufferBytes(),
                    1024);
    else if (auto bars = dyn_cast<MBarrierAllocOp>(op))
      addAllocation(op, 8 * bars.getType().getCount(), 8);
    else if (int64_t bytes = getScratchBytes(op); bytes > 0) {
      auto [f, l] = span(op);
      buffers.push_back({op, bytes, 128, f, l, op});
    }
  });

  // Largest first, each at the lowest offset where it overlaps no buffer
  // that is live at the same time.
  SmallVector<Buffer *> order;
  for (Buffer &b : buffers)
    order.push_back(&b);
  llvm::stable_sort(order, [](Buffer *a, Buffer *b) { return a->size > b->size; });
  SmallVector<Buffer *> placed;
  int64_t total = 0;
  for (Buffer *buffer : order) {
    SmallVector<std::pair<int64_t, int64_t>> taken;
    for (Buffer *other : placed)
      if (other->first <= buffer->last && buffer->first <= other->last)
        taken.push_back({other->offset, other->offset + other->size});
    llvm::sort(taken);
    int64_t offset = 0;
    for (auto [begin, end] : taken) {
      if (llvm::alignTo(offset, buffer->alignment) + buffer->size <= begin)
        break;
      offset = std::max(offset, end);
    }
    buffer->offset = llvm::alignTo(offset, buffer->alignment);
    total = std::max(total, buffer->offset + buffer->size);
    placed.push_back(buffer);
  }
  if (!apply)
    return total;
  if (total > kMaxSharedMemoryBytes) {
    InFlightDiagnostic diag =
        func.emitError() << "the kernel needs " << total
                         << " bytes of shared memory, more than the "
                         << kMaxSharedMemoryBytes
                         << " a Hopper CTA can have (fewer stages "
                            "(num_stages) or smaller blocks would fit)";
    // Where the bytes go: the largest user, at its op.
    Buffer *largest = &*llvm::max_element(
        buffers, [](const Buffer &a, const Buffer &b) { return a.size < b.size; });
    Diagnostic &note = diag.attachNote(largest->owner->getLoc());
    note << largest->size << " bytes of them are ";
    if (auto alloc = dyn_cast<LocalAllocOp>(largest->owner))
      note << alloc.getType().getNumBuffers() << " buffer"
           << (alloc.getType().getNumBuffers() == 1 ? "" : "s") << " of "
           << alloc.getType().getTileType() << " allocated for this op";
    else if (isa<MBarrierAllocOp>(largest->owner))
      note << "mbarriers";
    else
      note << "the scratch of this '" << largest->owner->getName()
           << "', which exchanges its tile through shared memory";
    diag.report();
    return failure();
  }

  // Memory reused by a ring or an mbarrier array: "after" in program order
  // is not after in another warpgroup, which may still be in the loop that
  // last used it (causal attention's second loop refills the first one's
  // rings), so a CTA barrier goes before the first use. Scratch users
  // begin with a barrier of their own. In program order, so that one
  // barrier serves the buffers after it.
  SmallVector<Buffer *> byFirstUse;
  for (Buffer &buffer : buffers)
    if (isa<LocalAllocOp, MBarrierAllocOp>(buffer.owner))
      byFirstUse.push_back(&buffer);
  llvm::stable_sort(byFirstUse, [&](Buffer *a, Buffer *b) {
    return number.lookup(a->firstUser) < number.lookup(b->firstUser);
  });
  for (Buffer *buffer : byFirstUse) {
    int64_t lastBefore = -1;
    for (Buffer &other : buffers)
      if (&other != buffer && other.last < buffer->first &&
          other.offset < buffer->offset + buffer->size &&
          buffer->offset < other.offset + other.size)
        lastBefore = std::max(lastBefore, other.last);
    if (lastBefore >= 0)
      insertBarrierBefore(buffer->firstUser, lastBefore);
  }

  Builder b(func.getContext());
  for (Buffer &buffer : buffers) {
    if (auto alloc = dyn_cast<LocalAllocOp>(buffer.owner))
      alloc.setOffsetAttr(b.getI64IntegerAttr(buffer.offset));
    else if (auto bars = dyn_cast<MBarrierAllocOp>(buffer.owner))
      bars.setOffsetAttr(b.getI64IntegerAttr(buffer.offset));
    else
      buffer.owner->setAttr(kScratchOffsetAttrName, b.getI64IntegerAttr(buffer.offset));
  }
  func->setAttr(TileGPUDialect::getSharedMemoryAttrName(), b.getI64IntegerAttr(total));
  return total;
}

struct TileGPUAllocateSharedPass
    : tilegpu::impl::TileGPUAllocateSharedBase<TileGPUAllocateSharedPass> {
  void runOnOperation() override {
    for (auto func : getOperation().getOps<func::FuncOp>())
      if (failed(Allocator(func).run(/*apply=*/true)))
        return signalPassFailure();
  }
};

} // namespace

int64_t tilec::tilegpu::planSharedMemoryBytes(func::FuncOp func) {
  return *Allocator(func).run(/*apply=*/false);
}
