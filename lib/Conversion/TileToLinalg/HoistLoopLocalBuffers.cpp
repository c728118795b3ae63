//===- HoistLoopLocalBuffers.cpp - one allocation per loop ----------------===//
//
// Part of tilec, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// `hoist-loop-local-buffers` (see Passes.td).
//
//===----------------------------------------------------------------------===//

#include "tilec/Conversion/Passes.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

namespace tilec {
#define GEN_PASS_DEF_HOISTLOOPLOCALBUFFERS
#include "tilec/Conversion/Passes.h.inc"
} // namespace tilec

using namespace mlir;

namespace {

/// The `memref.dealloc` of `alloc` in `block` when that is its only
/// deallocation and the loop does not yield it; else null.
memref::DeallocOp getLocalDealloc(memref::AllocOp alloc, Block *block) {
  memref::DeallocOp dealloc;
  for (Operation *user : alloc->getUsers()) {
    if (user == block->getTerminator())
      return nullptr;
    auto candidate = dyn_cast<memref::DeallocOp>(user);
    if (!candidate)
      continue;
    if (dealloc || candidate->getBlock() != block)
      return nullptr;
    dealloc = candidate;
  }
  return dealloc;
}

struct HoistLoopLocalBuffersPass
    : tilec::impl::HoistLoopLocalBuffersBase<HoistLoopLocalBuffersPass> {
  void runOnOperation() override {
    // Post-order: inner loops first, so that a buffer hoisted out of an inner
    // loop can leave the outer one too.
    getOperation()->walk([](scf::ForOp loop) {
      Block *body = loop.getBody();
      SmallVector<memref::AllocOp> allocs(body->getOps<memref::AllocOp>());
      for (memref::AllocOp alloc : allocs) {
        if (!alloc.getDynamicSizes().empty() ||
            !alloc.getSymbolOperands().empty())
          continue;
        memref::DeallocOp dealloc = getLocalDealloc(alloc, body);
        if (!dealloc)
          continue;
        alloc->moveBefore(loop);
        dealloc->moveAfter(loop);
      }
    });
  }
};

} // namespace
