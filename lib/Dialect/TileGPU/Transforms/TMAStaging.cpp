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
#include "tilec/Dialect/TileGPU/Transforms/SharedMemoryPlan.h"
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

/// An i1 that is true when no size of `box` is 0 (each size is a constant
/// or a positive factor times kernel arguments: all of them positive), or
/// null when no size depends on an argument; the ops it creates are
/// appended to `ops`.
static Value emitNonEmpty(OpBuilder &b, Location loc, func::FuncOp func,
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

Block *tilegpu::getStagingBlock(Operation *op,
                                llvm::function_ref<bool(Operation *)> passes) {
  for (Operation *p = op->getParentOp(); p; p = p->getParentOp()) {
    if (auto func = dyn_cast<func::FuncOp>(p))
      return &func.getBody().front();
    if (auto ws = dyn_cast<WarpSpecializeOp>(p))
      return ws.getProducer().isAncestor(op->getParentRegion()) ? nullptr
                                                               : &ws.getConsumer().front();
    if (!passes(p))
      return nullptr;
  }
  return nullptr;
}

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

StagedTMAWriter::StagedTMAWriter(func::FuncOp func, AffineAccessAnalysis &affine)
    : func(func), affine(affine) {}

FailureOr<Value> StagedTMAWriter::write(Operation *at, Value value, const TMABox &box,
                                       Block *block, Value staging, bool waitFirst,
                                       bool add, int64_t &bytes) {
  auto func = cast<func::FuncOp>(this->func);
  bytes = 0;
  Location loc = at->getLoc();
  auto type = cast<RankedTensorType>(value.getType());
  RankedTensorType tile = getBufferTile(type, box.transposed);
  OpBuilder b(at);
  FailureOr<SmallVector<Value>> coords = materializeTMACoordinates(b, loc, affine, box);
  if (failed(coords))
    return failure();
  FailureOr<Value> desc = addTMADescriptorArgument(func, box, tile, loc);
  if (failed(desc)) {
    eraseDeadDefinitions(*coords);
    return failure();
  }
  unsigned descIndex = cast<BlockArgument>(*desc).getArgNumber();

  SmallVector<Operation *> ops;
  bool newBuffer = !staging;
  if (newBuffer) {
    OpBuilder entry = OpBuilder::atBlockBegin(&func.getBody().front());
    staging = LocalAllocOp::create(entry, loc,
                                   SharedMemoryType::get(func.getContext(), 1, tile),
                                   /*offset=*/IntegerAttr());
    ops.push_back(staging.getDefiningOp());
  }
  Value zero = arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(0));
  ops.push_back(zero.getDefiningOp());
  if (waitFirst)
    ops.push_back(TMAStoreWaitOp::create(b, loc, ValueRange{staging}));
  ops.push_back(LocalStoreOp::create(b, loc, value, staging, zero, box.transposed));
  ops.push_back(FenceAsyncSharedOp::create(b, loc));
  ops.push_back(BarrierOp::create(b, loc));
  Value nonEmpty = emitNonEmpty(b, loc, func, box, ops);
  auto copy = TMAStoreOp::create(b, loc, staging, zero, *desc, *coords, nonEmpty);
  copy.setAdd(add);
  ops.push_back(copy);

  // The block's last wait keeps the buffer live to the end: nothing after
  // the copy reuses its memory while the copy reads it.
  Operation *&lastWait = lastWaits[block];
  bool newWait = !lastWait;
  bool named = !newWait && llvm::is_contained(lastWait->getOperands(), staging);
  if (newWait) {
    OpBuilder end = OpBuilder::atBlockTerminator(block);
    lastWait = TMAStoreWaitOp::create(end, block->getTerminator()->getLoc(),
                                      ValueRange{staging});
  } else if (!named) {
    lastWait->insertOperands(lastWait->getNumOperands(), staging);
  }

  bytes = planSharedMemoryBytes(func);
  if (bytes <= kMaxSharedMemoryBytes)
    return staging;
  if (newWait) {
    lastWait->erase();
    lastWaits.erase(block);
  } else if (!named) {
    lastWait->eraseOperand(lastWait->getNumOperands() - 1);
  }
  for (Operation *op : llvm::reverse(ops))
    op->erase();
  eraseDeadDefinitions(*coords);
  (void)func.eraseArgument(descIndex);
  return failure();
}
