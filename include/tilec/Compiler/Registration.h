//===- Registration.h - register tilec's dialects and passes ----*- C++ -*-===//
//
// Part of tilec, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_COMPILER_REGISTRATION_H
#define TILEC_COMPILER_REGISTRATION_H

namespace mlir {
class DialectRegistry;
} // namespace mlir

namespace tilec {

/// Adds every dialect a tilec pipeline creates or reads (tile, tilegpu and
/// the upstream dialects they lower through: arith, math, scf, cf, func,
/// llvm, nvvm; for the CPU backend also tensor, linalg, bufferization,
/// memref, affine) plus the external interface models those pipelines need
/// (bufferization, deallocation) and the LLVM IR translations to `registry`.
void registerAllDialects(mlir::DialectRegistry &registry);

/// Registers tilec's passes and the upstream passes its pipeline uses, so
/// that `tilec-opt` and textual pipelines can name them.
void registerAllPasses();

} // namespace tilec

#endif // TILEC_COMPILER_REGISTRATION_H
