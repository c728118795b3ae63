//===- TMAStaging.cpp - tiles written by TMA from a staging buffer --------===//
//
// Part of tilec, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#include "tilec/Dialect/TileGPU/Transforms/TMAStaging.h"

#include "tilec/Analysis/AffineAccess.h"
#include "tilec/Dialect/Tile/IR/Tile.h"
#include "tilec/Dialect/TileGPU/IR/LinearLayout.h"
#include "tilec/Dialect/TileGPU/IR/TileGPU.h"
#include "tilec/Dialect/TileGPU/Transforms/TMADescriptor.h"

#include "mlir/Analysis/SliceAnalysis.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Interfaces/CallInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/SetVector.h"

using namespace mlir;
using namespace tilec;
using namespace tilec::tilegpu;

bool tilegpu::isReplicated(RankedTensorType type) {
  FailureOr<LinearLayout> layout = toLinearLayout(type.getShape(), type.getEncoding());
  return failed(layout) || layout->getReplicatedMask(HwDim::Register) != 0 ||
         layout->getReplicatedMask(HwDim::Lane) != 0 ||
         layout->getReplicatedMask(HwDim::Warp) != 0;
}

bool tilegpu::accessesArgumentOtherwise(func::FuncOp func, unsigned arg,
                                        llvm::function_ref<bool(Operation *)> isOurs) {
  for (unsigned i = 0, e = func.getNumArguments(); i < e; ++i)
    if (auto recipe = func.getArgAttrOfType<TMARecipeAttr>(i, kTMARecipeAttrName);
        recipe && recipe.getBase() == arg &&
        !llvm::all_of(func.getArgument(i).getUsers(), isOurs))
      return true;
  SetVector<Operation *> slice;
  getForwardSlice(func.getArgument(arg), &slice);
  return llvm::any_of(slice, [&](Operation *op) {
    return isa<tile::LoadOp, tile::StoreOp, tile::AtomicRMWOp, tile::AtomicCASOp,
               AsyncCopyOp>(op) &&
           !isOurs(op);
  });
}

Value tilegpu::emitNonEmpty(OpBuilder &b, Location loc, func::FuncOp func,
                           const TMABox &box, SmallVectorImpl<Operation *> &ops) {
  llvm::SetVector<unsigned> args;
  for (const TMABox::Dim &dim : box.dims)
    args.insert(dim.size.args.begin(), dim.size.args.end());
  Value all;
  for (unsigned arg : args) {
    Value value = func.getArgument(arg);
    Value zero = arith::ConstantOp::create(b, loc, b.getIntegerAttr(value.getType(), 0));
    Value positive = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sgt, value, zero);
    ops.push_back(zero.getDefiningOp());
    ops.push_back(positive.getDefiningOp());
    if (all) {
      all = arith::AndIOp::create(b, loc, all, positive);
      ops.push_back(all.getDefiningOp());
    } else {
      all = positive;
    }
  }
  return all;
}

void tilegpu::eraseDeadDefinitions(ArrayRef<Value> values) {
  llvm::SetVector<Operation *> worklist;
  for (Value v : values)
    if (Operation *def = v.getDefiningOp())
      worklist.insert(def);
  while (!worklist.empty()) {
    Operation *op = worklist.pop_back_val();
    if (!isOpTriviallyDead(op))
      continue;
    for (Value operand : op->getOperands())
      if (Operation *def = operand.getDefiningOp())
        worklist.insert(def);
    op->erase();
  }
}

Value tilegpu::getStagedValue(Value value) {
  if (auto convert = value.getDefiningOp<ConvertLayoutOp>();
      convert && !isReplicated(convert.getSrc().getType()))
    return convert.getSrc();
  return value;
}

bool tilegpu::mayPublishWrites(func::FuncOp func,
                               llvm::function_ref<bool(Operation *)> ignore) {
  return func
      .walk([&](Operation *op) {
        return isa<tile::AtomicRMWOp, tile::AtomicCASOp, tile::InlineAsmElementwiseOp,
                   CallOpInterface>(op) &&
                       !(ignore && ignore(op))
                   ? WalkResult::interrupt()
                   : WalkResult::advance();
      })
      .wasInterrupted();
}
