//===- StageTimes.h - Where a compilation's time went -----------*- C++ -*-===//
//
// Part of tilec, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_COMPILER_STAGETIMES_H
#define TILEC_COMPILER_STAGETIMES_H

namespace tilec {

/// Wall-clock seconds spent in each stage of one compilation.
struct StageTimes {
  /// Source to `tile` IR: parsing and the code generator.
  double frontend = 0;
  /// The MLIR pass pipeline, `tile` to the LLVM dialect.
  double passes = 0;
  /// Translation to LLVM IR, libdevice linking and LLVM's -O3.
  double llvm = 0;
  /// LLVM's NVPTX backend, LLVM IR to PTX.
  double ptx = 0;
  /// ptxas, PTX to cubin (a separate process).
  double ptxas = 0;

  double total() const { return frontend + passes + llvm + ptx + ptxas; }
};

} // namespace tilec

#endif // TILEC_COMPILER_STAGETIMES_H
