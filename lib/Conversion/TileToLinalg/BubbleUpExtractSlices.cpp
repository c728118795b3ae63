//===- BubbleUpExtractSlices.cpp - compute only the sliced part -----------===//
//
// Part of tilec, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// `bubble-up-extract-slices` (see Passes.td): upstream's patterns that move
// a `tensor.extract_slice` above the single-use `linalg.generic` it slices,
// which no upstream pass runs.
//
//===----------------------------------------------------------------------===//

#include "tilec/Conversion/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace tilec {
#define GEN_PASS_DEF_BUBBLEUPEXTRACTSLICES
#include "tilec/Conversion/Passes.h.inc"
} // namespace tilec

using namespace mlir;

namespace {

struct BubbleUpExtractSlicesPass
    : tilec::impl::BubbleUpExtractSlicesBase<BubbleUpExtractSlicesPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    linalg::populateBubbleUpExtractSliceOpPatterns(patterns);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
  }
};

} // namespace
