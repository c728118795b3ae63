//===- StoreViaTMA.cpp - tile stores as TMA stores from shared memory ------===//
//
// Part of tilec, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// The tilegpu-store-via-tma pass (see Passes.td).
//
//===----------------------------------------------------------------------===//

#include "tilec/Dialect/TileGPU/Transforms/Passes.h"
#include "tilec/Dialect/TileGPU/Transforms/TMAStaging.h"
#include "tilec/Dialect/TileGPU/Transforms/TMADescriptor.h"

#include "tilec/Analysis/AffineAccess.h"
#include "tilec/Dialect/Tile/IR/Tile.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/Debug.h"

namespace tilec::tilegpu {
#define GEN_PASS_DEF_TILEGPUSTOREVIATMA
#include "tilec/Dialect/TileGPU/Transforms/Passes.h.inc"
} // namespace tilec::tilegpu

#define DEBUG_TYPE "tilegpu-store-via-tma"

using namespace mlir;
using namespace tilec;
using namespace tilec::tilegpu;

namespace {

class StoreRewriter {
public:
  explicit StoreRewriter(func::FuncOp func)
      : func(func), affine(func), writer(func, affine) {}

  void run();

private:
  /// Rewrites `store` (in `block`, see getStagingBlock) into a TMA store, or
  /// leaves it as it is when its staging buffer does not fit (a remark).
  void rewrite(tile::StoreOp store, const TMABox &box, Block *block);

  func::FuncOp func;
  AffineAccessAnalysis affine;
  StagedTMAWriter writer;
};

void StoreRewriter::run() {
  bool hasWgmma = false;
  func.walk([&](WarpgroupDotOp) { hasWgmma = true; });
  if (!hasWgmma || mayPublishWrites(func))
    return;
  SmallVector<tile::StoreOp> stores;
  func.walk([&](tile::StoreOp store) { stores.push_back(store); });
  for (tile::StoreOp store : stores) {
    auto type = dyn_cast<RankedTensorType>(store.getValue().getType());
    if (!type || type.getRank() != 2 || isReplicated(type))
      continue;
    // Directly in the kernel's body or consumer region, or in the loop over
    // programs of a persistent kernel (whose threads all run it the same
    // number of times).
    Block *block = getStagingBlock(store, [](Operation *parent) {
      return isa<scf::ForOp>(parent) &&
             parent->hasAttr(TileGPUDialect::getPersistentAttrName());
    });
    if (!block)
      continue;
    std::string whyNot;
    FailureOr<TMABox> box = affine.getTMABox(store, whyNot);
    if (failed(box)) {
      LLVM_DEBUG(llvm::dbgs() << "not a TMA store: " << whyNot << "\n");
      continue;
    }
    if (accessesArgumentOtherwise(func, box->baseArg,
                                  [&](Operation *op) { return op == store; }))
      continue;
    rewrite(store, *box, block);
  }
}

void StoreRewriter::rewrite(tile::StoreOp store, const TMABox &box, Block *block) {
  // In the loop over programs, the previous program's copy must have read
  // the buffer before it is written again.
  int64_t bytes;
  Value value = getStagedValue(store.getValue());
  if (succeeded(writer.write(store, value, box, block, /*staging=*/Value(),
                             /*waitFirst=*/store->getBlock() != block, /*add=*/false,
                             bytes))) {
    store.erase();
    return;
  }
  if (bytes == 0)
    return;
  auto type = cast<RankedTensorType>(value.getType());
  store.emitRemark() << "tl.store stays a store from registers, not a TMA store: its "
                     << type.getNumElements() * type.getElementTypeBitWidth() / 8 / 1024
                     << " KB staging buffer would take the kernel's shared memory to "
                     << bytes / 1024 << " KB, past the 227 KB a CTA can have (fewer "
                        "pipeline stages, num_stages, make room)";
}

struct TileGPUStoreViaTMAPass
    : tilegpu::impl::TileGPUStoreViaTMABase<TileGPUStoreViaTMAPass> {
  using TileGPUStoreViaTMABase::TileGPUStoreViaTMABase;

  void runOnOperation() override {
    for (auto func : getOperation().getOps<func::FuncOp>())
      StoreRewriter(func).run();
  }
};

} // namespace
