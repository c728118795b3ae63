//===- TMALowering.cpp - wgmma operands copied with TMA -------------------===//
//
// Part of tilec, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// The tilegpu-tma-lowering pass (see Passes.td).
//
//===----------------------------------------------------------------------===//

#include "tilec/Dialect/TileGPU/Transforms/Passes.h"

#include "tilec/Analysis/TMA.h"
#include "tilec/Dialect/Tile/IR/Tile.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Builders.h"

namespace tilec::tilegpu {
#define GEN_PASS_DEF_TILEGPUTMALOWERING
#include "tilec/Dialect/TileGPU/Transforms/Passes.h.inc"
} // namespace tilec::tilegpu

#define DEBUG_TYPE "tilegpu-tma-lowering"

using namespace mlir;
using namespace tilec;
using namespace tilec::tilegpu;

namespace {

/// The tile type of a shared-memory ring for `type` (no layout encoding).
RankedTensorType plainTile(RankedTensorType type) {
  return RankedTensorType::get(type.getShape(), type.getElementType());
}

int64_t tileBytes(RankedTensorType type) {
  return type.getNumElements() * type.getElementTypeBitWidth() / 8;
}

/// The phase parity the single-stage barrier is in at `op`: the iteration
/// number of the enclosing loop modulo 2 (0 outside loops).
Value emitPhase(OpBuilder &b, Operation *op) {
  Location loc = op->getLoc();
  auto forOp = dyn_cast<scf::ForOp>(op->getParentOp());
  if (!forOp)
    return arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(0));
  Value it = arith::DivSIOp::create(
      b, loc,
      arith::SubIOp::create(b, loc, forOp.getInductionVar(), forOp.getLowerBound()),
      forOp.getStep());
  if (!it.getType().isInteger(32))
    it = arith::IndexCastOp::create(b, loc, b.getI32Type(), it);
  return arith::AndIOp::create(b, loc, it,
                               arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(1)));
}

/// Erases the make_block_ptr / advance ops behind `ptr` that nothing reads.
void eraseDeadPointerChain(Value ptr) {
  while (Operation *def = ptr.getDefiningOp()) {
    if (!isa<tile::AdvanceOp, tile::MakeBlockPtrOp>(def) || !def->use_empty())
      return;
    auto advance = dyn_cast<tile::AdvanceOp>(def);
    ptr = advance ? advance.getPtr() : Value();
    def->erase();
    if (!ptr)
      return;
  }
}

LogicalResult lowerDot(func::FuncOp func, tile::DotOp dot) {
  auto loadA = dot.getA().getDefiningOp<tile::BlockLoadOp>();
  auto loadB = dot.getB().getDefiningOp<tile::BlockLoadOp>();
  if (!isa<WarpgroupMMAEncodingAttr>(dot.getC().getType().getEncoding()))
    return dot.emitOpError("has TMA operands but its accumulator is not in a "
                           "#tilegpu.wgmma layout");
  std::string whyNot;
  auto recipeA = getTMARecipe(loadA, &whyNot);
  auto recipeB = getTMARecipe(loadB, &whyNot);
  if (!recipeA || !recipeB)
    return dot.emitOpError() << "operand marked for TMA has no descriptor recipe: "
                             << whyNot;
  MLIRContext *ctx = func.getContext();
  Location loc = dot.getLoc();
  auto typeA = plainTile(loadA.getType()), typeB = plainTile(loadB.getType());

  // Kernel-lifetime resources at the entry, descriptors as new arguments.
  OpBuilder b(ctx);
  b.setInsertionPointToStart(&func.getBody().front());
  Value smemA = LocalAllocOp::create(b, loc, SharedMemoryType::get(ctx, 1, typeA));
  Value smemB = LocalAllocOp::create(b, loc, SharedMemoryType::get(ctx, 1, typeB));
  Value bars = MBarrierAllocOp::create(b, loc, MBarriersType::get(ctx, 1));
  unsigned argA = func.getNumArguments();
  if (failed(func.insertArgument(argA, TMADescriptorType::get(ctx, typeA),
                                 b.getDictionaryAttr(b.getNamedAttr(
                                     kTMARecipeAttrName, recipeA->toAttr(ctx))),
                                 loc)) ||
      failed(func.insertArgument(argA + 1, TMADescriptorType::get(ctx, typeB),
                                 b.getDictionaryAttr(b.getNamedAttr(
                                     kTMARecipeAttrName, recipeB->toAttr(ctx))),
                                 loc)))
    return failure();
  Value descA = func.getArgument(argA), descB = func.getArgument(argA + 1);

  b.setInsertionPoint(dot);
  Value zero = arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(0));
  // Earlier readers of the tiles (the previous iteration's wgmma, in every
  // warpgroup) are done before thread 0 overwrites them.
  BarrierOp::create(b, loc);
  MBarrierExpectOp::create(b, loc, bars, zero,
                           b.getI32IntegerAttr(tileBytes(typeA) + tileBytes(typeB)),
                           /*pred=*/Value());
  auto coordsA = emitBlockOffsets(b, loc, loadA.getPtr());
  auto coordsB = emitBlockOffsets(b, loc, loadB.getPtr());
  if (failed(coordsA) || failed(coordsB))
    return dot.emitOpError("TMA operand's block pointer is not a make_block_ptr "
                           "followed by advances (tilegpu-prepare-tma missing?)");
  TMALoadOp::create(b, loc, descA, *coordsA, smemA, zero, bars, zero,
                    /*pred=*/Value());
  TMALoadOp::create(b, loc, descB, *coordsB, smemB, zero, bars, zero,
                    /*pred=*/Value());
  MBarrierWaitOp::create(b, loc, bars, zero, emitPhase(b, dot));
  Value result = WarpgroupDotOp::create(b, loc, dot.getType(), smemA, zero,
                                        smemB, zero, dot.getC(),
                                        /*isAsync=*/false);
  dot.getResult().replaceAllUsesWith(result);
  dot.erase();
  for (tile::BlockLoadOp load : {loadA, loadB}) {
    Value ptr = load.getPtr();
    load.erase();
    eraseDeadPointerChain(ptr);
  }
  return success();
}

struct TileGPUTMALoweringPass
    : tilegpu::impl::TileGPUTMALoweringBase<TileGPUTMALoweringPass> {
  void runOnOperation() override {
    for (auto func : getOperation().getOps<func::FuncOp>()) {
      SmallVector<tile::DotOp> dots;
      func.walk([&](tile::DotOp dot) {
        auto a = dot.getA().getDefiningOp<tile::BlockLoadOp>();
        auto b = dot.getB().getDefiningOp<tile::BlockLoadOp>();
        if (a && b && a->hasAttr(kTMALoadAttrName) && b->hasAttr(kTMALoadAttrName))
          dots.push_back(dot);
      });
      for (tile::DotOp dot : dots)
        if (failed(lowerDot(func, dot)))
          return signalPassFailure();
      // Block loads left unclaimed here have lost their way.
      WalkResult stray = func.walk([&](tile::BlockLoadOp load) {
        load.emitOpError("block load left for TMA without a wgmma dot to feed");
        return WalkResult::interrupt();
      });
      if (stray.wasInterrupted())
        return signalPassFailure();
    }
  }
};

} // namespace
