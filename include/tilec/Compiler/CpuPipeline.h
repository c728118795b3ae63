//===- CpuPipeline.h - the pass pipeline of the CPU backend -----*- C++ -*-===//
//
// Part of tilec, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// From the frontend's `tile` IR to the LLVM dialect for the host CPU
// (docs/cpu-backend.md): the tile-level passes shared with the GPU pipeline,
// `convert-tile-to-linalg`, then upstream linalg fusion, one-shot
// bufferization, buffer deallocation, loops and the standard conversions
// to LLVM.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_COMPILER_CPUPIPELINE_H
#define TILEC_COMPILER_CPUPIPELINE_H

#include <cstdint>

namespace mlir {
class OpPassManager;
} // namespace mlir

namespace tilec {

/// Options of the CPU pipeline.
struct CpuPipelineOptions {
  /// Check every accessed address against the caller's buffers
  /// (`convert-tile-to-linalg{sanitize}`).
  bool sanitize = false;
  /// The register block of `tile.dot` (`convert-tile-to-linalg{dot-tile-m
  /// dot-tile-n}`: rows, and columns = vector length); 0 lowers the dot to
  /// scalar loops. Negative: chosen for the host, 8 x 32 with AVX-512 (16
  /// of its 32 vector registers hold accumulators), else 4 x 16 (8 of 16).
  int64_t dotTileM = -1;
  int64_t dotTileN = -1;
};

/// Adds the passes from the frontend's `tile` IR to the LLVM dialect (one
/// per-program `llvm.func` per kernel, see
/// tilec/Conversion/TileToLinalg/TileToLinalg.h) to `pm`.
void buildCpuPipeline(mlir::OpPassManager &pm,
                      const CpuPipelineOptions &options);

} // namespace tilec

#endif // TILEC_COMPILER_CPUPIPELINE_H
