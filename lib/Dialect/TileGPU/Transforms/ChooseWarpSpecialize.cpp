//===- ChooseWarpSpecialize.cpp - which loops auto warp-specializes -------===//
//
// Part of tilec, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// The tilegpu-choose-warp-specialize pass (see Passes.td): the loop-local
// half of `--warp-specialize=auto`, decided before
// tilegpu-assign-async-copies (which copies a loop to be split by TMA) and
// written on the loop as `tile.warp_specialize`, which
// tilegpu-warp-specialize follows.
//
//===----------------------------------------------------------------------===//

#include "tilec/Dialect/TileGPU/Transforms/Passes.h"
#include "tilec/Dialect/TileGPU/Transforms/WarpgroupRegisters.h"

#include "tilec/Dialect/Tile/IR/Tile.h"
#include "tilec/Dialect/TileGPU/IR/TileGPU.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"

namespace tilec::tilegpu {
#define GEN_PASS_DEF_TILEGPUCHOOSEWARPSPECIALIZE
#include "tilec/Dialect/TileGPU/Transforms/Passes.h.inc"
} // namespace tilec::tilegpu

using namespace mlir;
using namespace tilec;
using namespace tilec::tilegpu;

namespace {

/// The wgmma dots directly in `loop`'s body.
SmallVector<tile::DotOp> getWarpgroupDots(scf::ForOp loop) {
  SmallVector<tile::DotOp> dots;
  for (auto dot : loop.getBody()->getOps<tile::DotOp>())
    if (isa<WarpgroupMMAEncodingAttr>(dot.getC().getType().getEncoding()))
      dots.push_back(dot);
  return dots;
}

struct TileGPUChooseWarpSpecializePass
    : tilegpu::impl::TileGPUChooseWarpSpecializeBase<TileGPUChooseWarpSpecializePass> {
  void runOnOperation() override {
    for (auto func : getOperation().getOps<func::FuncOp>())
      if (func->hasAttr(tile::kKernelAttrName) && !func.isExternal())
        chooseInKernel(func);
  }

  void chooseInKernel(func::FuncOp func) {
    std::optional<unsigned> numWarps = lookupNumWarps(func);
    if (!numWarps)
      return;
    SmallVector<std::pair<scf::ForOp, SmallVector<tile::DotOp>>> loops;
    func.walk([&](scf::ForOp loop) {
      if (SmallVector<tile::DotOp> dots = getWarpgroupDots(loop); !dots.empty())
        loops.emplace_back(loop, std::move(dots));
    });
    Builder b(func.getContext());
    for (auto &[loop, dots] : loops) {
      if (loop->hasAttr(tile::kWarpSpecializeAttrName))
        continue; // written in the source
      // 8-bit dots stay pipelined: fp8 attention (tutorial 06, head dim
      // 128) ran 23 % slower split (531 against 690 TFLOP/s on an H100,
      // bench/RESULTS.md, 2026-12-06, fourth session). A split needs whole
      // consumer warpgroups, one or two.
      bool eightBit = llvm::any_of(dots, [](tile::DotOp dot) {
        return dot.getB().getType().getElementTypeBitWidth() == 8;
      });
      if (eightBit || (*numWarps != 4 && *numWarps != 8)) {
        loop->setAttr(tile::kWarpSpecializeAttrName, b.getBoolAttr(false));
        continue;
      }
      int64_t needed = getWarpgroupDotRegisters(loop, *numWarps);
      unsigned budget = getConsumerRegisters(*numWarps, kDefaultProducerRegisters);
      // A loop whose wgmma values alone outgrow a consumer thread's
      // registers stays pipelined: split, its consumers get `budget`,
      // unsplit, 255 (the one-sweep backward at head dim 128: 256 a
      // thread; ptxas spilled 252 bytes split, 16 not, and it ran 323
      // against 353 TFLOP/s, H100, fourteenth session).
      if (needed > int64_t(budget)) {
        emitRemark(loop.getLoc())
            << "loop not warp-specialized: its dots' accumulators and register "
               "operands take "
            << needed << " registers a thread, more than the " << budget
            << " a consumer thread gets (setmaxnreg)";
        loop->setAttr(tile::kWarpSpecializeAttrName, b.getBoolAttr(false));
        continue;
      }
      // A loop whose wgmma values alone leave no room for a second CTA on
      // the SM is split: the split's one CTA per SM costs no occupancy (the
      // one-sweep backward at head dim 64, 176 registers a thread on 8
      // warps: 9 % faster split, H100, fourteenth session). Only loops
      // tilegpu-warp-specialize can split, at the top of the kernel or of a
      // persistent kernel's loop over programs (a loop it would refuse
      // would keep TMA copies where cp.async was measured faster); kernels
      // of more than two loops with wgmma dots are left to its
      // shared-memory rule, which hands rings on between two loops only.
      Operation *parent = loop->getParentOp();
      bool splittable =
          isa<func::FuncOp>(parent) ||
          (isa<scf::ForOp>(parent) &&
           parent->hasAttr(TileGPUDialect::getPersistentAttrName()) &&
           isa<func::FuncOp>(parent->getParentOp()));
      int64_t threads = int64_t(*numWarps) * kThreadsPerWarp;
      if (splittable && loops.size() <= 2 && 2 * needed * threads > kRegistersPerSM) {
        emitRemark(loop.getLoc())
            << "loop chosen for warp specialization: its dots' accumulators and "
               "register operands take "
            << needed << " registers a thread, so its CTA runs alone on an SM";
        loop->setAttr(tile::kWarpSpecializeAttrName, b.getBoolAttr(true));
      }
    }
  }
};

} // namespace
