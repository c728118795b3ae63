//===- Passes.h - tile dialect passes ---------------------------*- C++ -*-===//
//
// Part of tilec, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_DIALECT_TILE_TRANSFORMS_PASSES_H
#define TILEC_DIALECT_TILE_TRANSFORMS_PASSES_H

#include "mlir/Pass/Pass.h"
#include "tilec/Dialect/Tile/IR/Tile.h"

namespace tilec::tile {

#define GEN_PASS_DECL
#include "tilec/Dialect/Tile/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "tilec/Dialect/Tile/Transforms/Passes.h.inc"

} // namespace tilec::tile

#endif // TILEC_DIALECT_TILE_TRANSFORMS_PASSES_H
