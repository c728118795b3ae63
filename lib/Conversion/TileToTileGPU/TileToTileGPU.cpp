//===- TileToTileGPU.cpp - assign distributed layouts to tiles ------------===//
//
// Part of tilec, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// The convert-tile-to-tilegpu pass (see Conversion/Passes.td): splits cheap
// values whose uses want different layouts, infers layout classes
// (LayoutInference.h), rewrites every tile type with its layout, and inserts
// tilegpu.convert_layout where a conflict remains.
//
//===----------------------------------------------------------------------===//

#include "tilec/Conversion/Passes.h"

#include "LayoutInference.h"

#include "tilec/Dialect/Tile/IR/Tile.h"
#include "tilec/Dialect/TileGPU/IR/TileGPU.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Builders.h"

namespace tilec {
#define GEN_PASS_DEF_CONVERTTILETOTILEGPU
#include "tilec/Conversion/Passes.h.inc"
} // namespace tilec

#define DEBUG_TYPE "convert-tile-to-tilegpu"

using namespace mlir;
using namespace tilec;
using namespace tilec::tilegpu;

namespace {

/// Splits cheap values (cloning their producers per use) where two uses ask
/// for different slices, until no such split helps. A few rounds suffice:
/// each round removes the conflicts it can.
LogicalResult splitConflictingValues(func::FuncOp func,
                                     const LayoutOptions &options) {
  // An atomic's addresses take a layout from its value (a dot's
  // accumulator: the tensor-core layout, or its runs gathered to 16 bytes;
  // LayoutInference::resolveStores). Address arithmetic it shares with loads (FlashAttention-2's backward adds dQ at the offsets dO is
  // loaded from) would give the loads that layout too: the atomic gets a
  // copy of its own.
  func.walk([](Operation *op) {
    if (!isa<tile::AtomicRMWOp, tile::AtomicCASOp>(op) ||
        !isa<RankedTensorType>(op->getOperand(0).getType()))
      return;
    cloneCheapChainForUse(op->getOpOperand(0), /*onlyIfShared=*/true);
    if (auto rmw = dyn_cast<tile::AtomicRMWOp>(op); rmw && rmw.getMask())
      cloneCheapChainForUse(rmw.getMaskMutable()[0], /*onlyIfShared=*/true);
  });
  // A constant offset tile added to two pointer tiles (tutorial 06's
  // `qT_ptrs += step` and `do_ptrs += step`, one splat once folded) would
  // tie the layouts of the two loads: each addptr gets its own copy. (Other
  // shared constants stay shared: a zero that fills both a load's masked-off
  // elements and a dot's accumulator lets the load take the dot's layout.)
  func.walk([](arith::ConstantOp cst) {
    if (!isa<RankedTensorType>(cst.getType()) || cst->hasOneUse())
      return;
    SmallVector<OpOperand *> offsets;
    for (OpOperand &use : cst->getUses())
      if (isa<tile::AddPtrOp>(use.getOwner()) && use.getOperandNumber() == 1)
        offsets.push_back(&use);
    OpBuilder builder(cst);
    for (OpOperand *use : offsets)
      use->set(builder.clone(*cst)->getResult(0));
  });
  for (int round = 0; round < 8; ++round) {
    ModuleAxisInfo axisInfo(func);
    LayoutInference inference(func, options, axisInfo);
    if (failed(inference.run()))
      return failure();
    bool changed = false;
    for (Operation *op : inference.getConflicts()) {
      if (!isa<tile::ExpandDimsOp, tile::BroadcastOp>(op))
        continue;
      if (cloneCheapChainForUse(op->getOpOperand(0))) {
        changed = true;
        continue;
      }
      // A loaded tile expanded into another layout (tutorial 06's
      // m[None, :]) whose class is tied elsewhere through its address or
      // mask (a tl.arange the program shares with another pointer tile):
      // the load gets addresses of its own, so it can load in the slice
      // layout rather than convert through shared memory on every trip.
      if (auto load = op->getOperand(0).getDefiningOp<tile::LoadOp>())
        for (OpOperand &operand : load->getOpOperands())
          changed |= cloneCheapChainForUse(operand, /*onlyIfShared=*/true);
    }
    if (!changed)
      return success();
  }
  return success();
}

RankedTensorType withLayout(Type type, Attribute layout) {
  auto tensor = cast<RankedTensorType>(type);
  return RankedTensorType::get(tensor.getShape(), tensor.getElementType(),
                               layout);
}

/// Sets every tile type in `func` to its inferred layout.
void applyLayouts(func::FuncOp func, LayoutInference &inference) {
  auto retype = [&](Value value) {
    if (Attribute layout = inference.getLayout(value))
      value.setType(withLayout(value.getType(), layout));
  };
  func.walk([&](Operation *op) {
    for (Region &region : op->getRegions())
      for (Block &block : region)
        for (BlockArgument arg : block.getArguments())
          retype(arg);
    for (Value result : op->getResults())
      retype(result);
    if (auto cst = dyn_cast<arith::ConstantOp>(op))
      if (auto dense = dyn_cast<DenseElementsAttr>(cst.getValue()))
        cst.setValueAttr(dense.reshape(cast<ShapedType>(cst.getType())));
  });
  // Function signatures (tiles only appear in non-kernel test functions).
  SmallVector<Type> inputs(func.getBody().getArgumentTypes());
  SmallVector<Type> outputs;
  func.walk([&](func::ReturnOp ret) {
    outputs.assign(ret.getOperandTypes().begin(), ret.getOperandTypes().end());
  });
  if (func.getFunctionType().getNumResults() == outputs.size())
    func.setType(FunctionType::get(func.getContext(), inputs, outputs));
}

/// Inserts convert_layout where an expand_dims, broadcast or reduce did not
/// get the layout relation it implies (the conflicts left after splitting),
/// and where a store's value has another layout than its addresses.
void insertConversions(func::FuncOp func) {
  OpBuilder builder(func.getContext());
  func.walk([&](Operation *op) {
    if (auto expand = dyn_cast<tile::ExpandDimsOp>(op)) {
      Attribute expected = SliceEncodingAttr::get(
          op->getContext(), expand.getAxis(), getEncoding(expand.getType()));
      if (getEncoding(expand.getSrc().getType()) == expected)
        return;
      builder.setInsertionPoint(op);
      Value converted = ConvertLayoutOp::create(
          builder, op->getLoc(), withLayout(expand.getSrc().getType(), expected),
          expand.getSrc());
      expand.getSrcMutable().assign(converted);
      return;
    }
    if (auto bcast = dyn_cast<tile::BroadcastOp>(op)) {
      Attribute expected = getEncoding(bcast.getType());
      if (getEncoding(bcast.getSrc().getType()) == expected)
        return;
      builder.setInsertionPoint(op);
      Value converted = ConvertLayoutOp::create(
          builder, op->getLoc(), withLayout(bcast.getSrc().getType(), expected),
          bcast.getSrc());
      bcast.getSrcMutable().assign(converted);
      return;
    }
    // The addresses of a stored (or atomically added) accumulator
    // (LayoutInference::resolveStores).
    if (isa<tile::StoreOp, tile::AtomicRMWOp>(op)) {
      auto ptrType = dyn_cast<RankedTensorType>(op->getOperand(0).getType());
      Value value = getStoredValue(op);
      if (!ptrType || !isa<RankedTensorType>(value.getType()) ||
          getEncoding(value.getType()) == ptrType.getEncoding())
        return;
      builder.setInsertionPoint(op);
      Value converted = ConvertLayoutOp::create(
          builder, op->getLoc(), withLayout(value.getType(), ptrType.getEncoding()),
          value);
      op->getOpOperand(1).assign(converted);
      return;
    }
    if (auto reduce = dyn_cast<tile::ReduceOp>(op)) {
      Attribute srcLayout = getEncoding(reduce.getSrcs().front().getType());
      Attribute expected = SliceEncodingAttr::get(op->getContext(),
                                                  reduce.getAxis(), srcLayout);
      builder.setInsertionPointAfter(op);
      for (Value result : reduce.getResult()) {
        if (!isa<RankedTensorType>(result.getType()) ||
            getEncoding(result.getType()) == expected)
          continue;
        Type wanted = result.getType();
        result.setType(withLayout(wanted, expected));
        auto convert =
            ConvertLayoutOp::create(builder, op->getLoc(), wanted, result);
        result.replaceAllUsesExcept(convert, convert);
      }
    }
  });
}

struct ConvertTileToTileGPUPass
    : tilec::impl::ConvertTileToTileGPUBase<ConvertTileToTileGPUPass> {
  using ConvertTileToTileGPUBase::ConvertTileToTileGPUBase;

  void runOnOperation() override {
    if (!isValidNumWarps(numWarps)) {
      getOperation().emitError() << "num-warps must be a power of two between 1 "
                                    "and 32, got "
                                 << numWarps;
      return signalPassFailure();
    }
    LayoutOptions options;
    options.numWarps = numWarps;
    options.useWarpgroupMMA = useWgmma;
    options.useMMA = useMma;
    options.vectorReductions = vectorReductions;
    for (auto func : getOperation().getOps<func::FuncOp>()) {
      if (failed(splitConflictingValues(func, options)))
        return signalPassFailure();
      ModuleAxisInfo axisInfo(func);
      LayoutInference inference(func, options, axisInfo);
      if (failed(inference.run()))
        return signalPassFailure();
      applyLayouts(func, inference);
      insertConversions(func);
      // tl.debug_barrier: a CTA barrier.
      func.walk([&](tile::DebugBarrierOp barrier) {
        OpBuilder b(barrier);
        BarrierOp::create(b, barrier.getLoc());
        barrier.erase();
      });
      func->setAttr(TileGPUDialect::getNumWarpsAttrName(),
                    Builder(func.getContext()).getI32IntegerAttr(numWarps));
    }
  }
};

} // namespace
