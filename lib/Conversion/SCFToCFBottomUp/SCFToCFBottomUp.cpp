//===- SCFToCFBottomUp.cpp - scf to cf from the last op up ----------------===//
//
// Part of tilec, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// Upstream's SCF to ControlFlow patterns through the greedy driver, bottom
// up (Passes.td, SCFToControlFlowBottomUp, says why).
//
//===----------------------------------------------------------------------===//

#include "tilec/Conversion/Passes.h"

#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace tilec {
#define GEN_PASS_DEF_SCFTOCONTROLFLOWBOTTOMUP
#include "tilec/Conversion/Passes.h.inc"
} // namespace tilec

using namespace mlir;

namespace {

struct SCFToControlFlowBottomUpPass
    : tilec::impl::SCFToControlFlowBottomUpBase<SCFToControlFlowBottomUpPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    populateSCFToControlFlowConversionPatterns(patterns);
    // Post-order worklist popped from the back: the last op of a block
    // first. Only the lowering: no folding, no region simplification (the
    // cleanups after the conversion to LLVM do that).
    GreedyRewriteConfig config;
    config.setUseTopDownTraversal(false)
        .enableFolding(false)
        .enableConstantCSE(false)
        .setRegionSimplificationLevel(GreedySimplifyRegionLevel::Disabled);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns),
                                     config)))
      return signalPassFailure();
    // Whatever the patterns could not lower is an error, as in
    // convert-scf-to-cf (which fails its conversion).
    WalkResult left = getOperation()->walk([](Operation *op) {
      if (isa<scf::ForOp, scf::IfOp, scf::WhileOp, scf::ParallelOp,
              scf::IndexSwitchOp, scf::ExecuteRegionOp, scf::ForallOp>(op)) {
        op->emitOpError("internal error: not lowered to control flow");
        return WalkResult::interrupt();
      }
      return WalkResult::advance();
    });
    if (left.wasInterrupted())
      signalPassFailure();
  }
};

} // namespace
