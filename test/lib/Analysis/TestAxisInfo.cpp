//===- TestAxisInfo.cpp - print tile-axis-info results --------------------===//
//
// Part of tilec, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// `-test-print-axis-info`: emits a remark on every op result that carries a
// name (`tile.name` attribute) with its AxisInfo, for FileCheck.
//
//===----------------------------------------------------------------------===//

#include "tilec/Analysis/AxisInfo.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassRegistry.h"

using namespace mlir;

namespace {
struct TestAxisInfoPass
    : PassWrapper<TestAxisInfoPass, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(TestAxisInfoPass)
  StringRef getArgument() const override { return "test-print-axis-info"; }
  StringRef getDescription() const override {
    return "Print the tile-axis-info facts of named values as remarks";
  }
  void runOnOperation() override {
    tilec::ModuleAxisInfo axisInfo(getOperation());
    getOperation().walk([&](Operation *op) {
      auto name = op->getAttrOfType<StringAttr>("tile.name");
      if (!name || op->getNumResults() != 1)
        return;
      std::string text;
      llvm::raw_string_ostream os(text);
      axisInfo.lookup(op->getResult(0)).print(os);
      op->emitRemark() << name.getValue() << ": " << text;
    });
  }
};
} // namespace

namespace tilec::test {
void registerTestAxisInfoPass() { PassRegistration<TestAxisInfoPass>(); }
} // namespace tilec::test
