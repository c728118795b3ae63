//===- Passes.h - tilegpu passes --------------------------------*- C++ -*-===//
//
// Part of tilec, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_DIALECT_TILEGPU_TRANSFORMS_PASSES_H
#define TILEC_DIALECT_TILEGPU_TRANSFORMS_PASSES_H

#include "mlir/Pass/Pass.h"
#include "tilec/Dialect/TileGPU/IR/TileGPU.h"

namespace mlir {
namespace arith {
class ArithDialect;
} // namespace arith
namespace scf {
class SCFDialect;
} // namespace scf
} // namespace mlir

namespace tilec::tilegpu {

#define GEN_PASS_DECL
#include "tilec/Dialect/TileGPU/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "tilec/Dialect/TileGPU/Transforms/Passes.h.inc"

} // namespace tilec::tilegpu

#endif // TILEC_DIALECT_TILEGPU_TRANSFORMS_PASSES_H
