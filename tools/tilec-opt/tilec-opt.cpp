//===- tilec-opt.cpp - mlir-opt with tilec's dialects and passes ----------===//
//
// Part of tilec, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// The driver of the lit tests: parses MLIR, runs passes given on the command
// line (`-convert-tile-to-tilegpu`, upstream `-canonicalize`, …), prints the
// result. Same flags as upstream `mlir-opt`.
//
//===----------------------------------------------------------------------===//

#include "tilec/Compiler/Registration.h"

#include "mlir/IR/DialectRegistry.h"

namespace tilec::test {
void registerTestAxisInfoPass();
} // namespace tilec::test
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  tilec::registerAllDialects(registry);
  tilec::registerAllPasses();
  tilec::test::registerTestAxisInfoPass();
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "tilec optimizer driver\n", registry));
}
