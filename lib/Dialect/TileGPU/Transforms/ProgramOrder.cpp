//===- ProgramOrder.cpp - when a kernel's programs may run in any order ---===//
//
// Part of tilec, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#include "tilec/Dialect/TileGPU/Transforms/ProgramOrder.h"

#include "tilec/Dialect/Tile/IR/Tile.h"
#include "tilec/Dialect/TileGPU/IR/TileGPU.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Interfaces/CallInterfaces.h"

using namespace mlir;

std::string tilec::tilegpu::whyProgramsMayObserveEachOther(func::FuncOp func) {
  std::string why;
  func.walk([&](Operation *op) {
    if (isa<tile::AtomicRMWOp, tile::AtomicCASOp>(op))
      why = "it has atomics";
    else if (auto load = dyn_cast<tile::LoadOp>(op); load && load.getIsVolatile())
      why = "it has volatile loads";
    else if (isa<tile::InlineAsmElementwiseOp>(op))
      why = "it has inline assembly";
    else if (isa<CallOpInterface>(op))
      why = "it calls a function";
    else if (isa<scf::WhileOp>(op))
      why = "it has a while loop";
    return WalkResult(why.empty() ? WalkResult::advance()
                                  : WalkResult::interrupt());
  });
  return why;
}

scf::ForOp tilec::tilegpu::getPersistentLoop(FunctionOpInterface func) {
  if (func.getFunctionBody().empty())
    return {};
  Block &entry = func.getFunctionBody().front();
  auto find = [](Block &block) -> scf::ForOp {
    for (auto loop : block.getOps<scf::ForOp>())
      if (loop->hasAttr(TileGPUDialect::getPersistentAttrName()))
        return loop;
    return {};
  };
  if (scf::ForOp loop = find(entry))
    return loop;
  for (auto ws : entry.getOps<WarpSpecializeOp>())
    if (scf::ForOp loop = find(ws.getConsumer().front()))
      return loop;
  return {};
}
