//===- Persistent.cpp - each CTA loops over programs of the grid ----------===//
//
// Part of tilec, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// The tilegpu-persistent pass (see Passes.td): the kernel's body becomes the
// body of a loop over virtual programs, the caller's grid arrives as three
// hidden i32 arguments, and the program ids come from the loop's induction
// variable.
//
//===----------------------------------------------------------------------===//

#include "tilec/Dialect/TileGPU/Transforms/Passes.h"
#include "tilec/Dialect/TileGPU/Transforms/ProgramOrder.h"

#include "tilec/Dialect/Tile/IR/Tile.h"
#include "tilec/Dialect/TileGPU/IR/TileGPU.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinOps.h"

namespace tilec::tilegpu {
#define GEN_PASS_DEF_TILEGPUPERSISTENT
#include "tilec/Dialect/TileGPU/Transforms/Passes.h.inc"
} // namespace tilec::tilegpu

using namespace mlir;
using namespace tilec;
using namespace tilec::tilegpu;

namespace {

/// Rewrites `func` into its persistent form, or says (a remark) why not.
void makePersistent(func::FuncOp func) {
  Location loc = func.getLoc();
  auto refuse = [&](const Twine &why) {
    emitRemark(loc) << "kernel not made persistent: " << why;
  };
  if (getPersistentLoop(func))
    return;
  if (func.getBody().getBlocks().size() != 1)
    return refuse("it has more than one block");
  if (func.getNumResults() != 0)
    return refuse("it returns values");
  if (std::string why = whyProgramsMayObserveEachOther(func); !why.empty())
    return refuse(why + " (one CTA runs several programs in turn: a program "
                        "waiting for a later one would wait forever)");
  // tl.device_print and tl.device_assert name the program they run in by
  // the CTA's indices; in a persistent kernel those are not the program's.
  bool debugOutput = false;
  func.walk([&](Operation *op) { debugOutput |= isa<tile::PrintOp, tile::AssertOp>(op); });
  if (debugOutput)
    return refuse("it prints or asserts (tl.device_print, tl.device_assert), "
                  "whose output names the program by its CTA");
  // Programs of unequal work: a launch hands a freed SM the next program,
  // a persistent kernel's static rounds do not; causal attention (bf16,
  // head dim 128, 2048 programs) ran 8-28 % slower persistent on an H100
  // (bench/RESULTS.md, ninth session).
  if (scf::ForOp loop = analyzeProgramWork(func).varying) {
    std::string line;
    if (auto at = dyn_cast<FileLineColLoc>(loop.getLoc()))
      line = " (written at line " + std::to_string(at.getLine()) + ")";
    return refuse("its programs run different numbers of iterations of a "
                  "loop" + line + ", which the hardware's schedule of a "
                  "non-persistent launch balances better than a persistent "
                  "kernel's fixed rounds");
  }

  // The caller's grid, after the kernel's own arguments.
  MLIRContext *ctx = func.getContext();
  Type i32 = IntegerType::get(ctx, 32);
  SmallVector<Value, 3> grid;
  for (unsigned axis = 0; axis < 3; ++axis) {
    unsigned index = func.getNumArguments();
    NamedAttrList attrs;
    attrs.set(kProgramGridAttrName, IntegerAttr::get(i32, axis));
    if (failed(func.insertArgument(index, i32, attrs.getDictionary(ctx), loc))) {
      func.emitError("internal error: tilegpu-persistent could not add the "
                     "grid arguments");
      return;
    }
    grid.push_back(func.getArgument(index));
  }

  // scf.for %vid = program_id(0) to grid_x * grid_y * grid_z
  //     step num_programs(0), the body moved in.
  Block &entry = func.getBody().front();
  Operation *ret = entry.getTerminator();
  OpBuilder b = OpBuilder::atBlockBegin(&entry);
  Value first = tile::ProgramIdOp::create(b, loc, i32, 0);
  Value count = tile::NumProgramsOp::create(b, loc, i32, 0);
  Value total = arith::MulIOp::create(
      b, loc, arith::MulIOp::create(b, loc, grid[0], grid[1]), grid[2]);
  Operation *firstBodyOp = total.getDefiningOp()->getNextNode();
  auto loop = scf::ForOp::create(b, loc, first, total, count);
  // Unsigned: vid + CTAs must not wrap negative for grids near 2^31.
  loop.setUnsignedCmp(true);
  loop->setAttr(TileGPUDialect::getPersistentAttrName(), UnitAttr::get(ctx));
  func->setAttr(TileGPUDialect::getPersistentAttrName(), UnitAttr::get(ctx));
  Block *body = loop.getBody();
  body->getOperations().splice(body->begin(), entry.getOperations(),
                               firstBodyOp->getIterator(), ret->getIterator());

  // Slot k of the launch runs virtual program k: the CTAs running at once
  // work on consecutive programs, as a non-persistent launch's do. (Odd
  // rounds in reverse, so that after one of the longest programs of a
  // longest-first kernel a CTA runs one of the shortest, measured no
  // better: causal attention at N_CTX 4096 ran 769.5 against 642.4 µs on
  // an H100, ninth session.)
  Value vid = loop.getInductionVar();

  // Program ids from the virtual program, counts from the caller's grid.
  body->walk([&](Operation *op) {
    OpBuilder at(op);
    if (auto pid = dyn_cast<tile::ProgramIdOp>(op)) {
      Value id = PersistentProgramIdOp::create(at, pid.getLoc(), i32, vid, grid[0],
                                               grid[1], at.getI32IntegerAttr(pid.getAxis()));
      pid.replaceAllUsesWith(id);
      pid.erase();
    } else if (auto num = dyn_cast<tile::NumProgramsOp>(op)) {
      num.replaceAllUsesWith(grid[num.getAxis()]);
      num.erase();
    }
  });
  emitRemark(loc) << "kernel made persistent: each CTA runs the programs "
                     "pid, pid + CTAs, ... of the grid the caller asked for "
                     "(the runtime launches min(programs, SMs x CTAs per SM) "
                     "CTAs)";
}

struct TileGPUPersistentPass
    : tilegpu::impl::TileGPUPersistentBase<TileGPUPersistentPass> {
  void runOnOperation() override {
    for (auto func : getOperation().getOps<func::FuncOp>())
      if (func->hasAttr(tile::kKernelAttrName) && !func.isExternal())
        makePersistent(func);
  }
};

} // namespace
