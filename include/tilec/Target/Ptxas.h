//===- Ptxas.h - PTX to cubin with ptxas ------------------------*- C++ -*-===//
//
// Part of tilec, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// Assembles PTX into a cubin with NVIDIA's `ptxas` (found through the
// TILEC_PTXAS environment variable, then /usr/local/cuda/bin/ptxas, then
// PATH) and reads its resource report (`-v`).
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_TARGET_PTXAS_H
#define TILEC_TARGET_PTXAS_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <optional>
#include <string>
#include <vector>

namespace tilec {

/// Resources of one kernel as reported by `ptxas -v`.
struct PtxasKernelInfo {
  std::string name;
  int64_t registers = 0;
  int64_t spillStores = 0, spillLoads = 0; ///< bytes
  int64_t stackFrame = 0;                  ///< bytes
  int64_t sharedBytes = 0;                 ///< static shared memory, bytes
  /// ptxas's performance warnings about this kernel (`(C75xx) Potential
  /// Performance Loss: wgmma.mma_async instructions are serialized ...`),
  /// each `C75xx: <message>` without the function name.
  std::vector<std::string> performanceWarnings;
};

/// A cubin and ptxas' report.
struct PtxasResult {
  std::vector<char> cubin;
  std::string log; ///< everything ptxas printed
  std::vector<PtxasKernelInfo> kernels;
};

/// The ptxas to use, or std::nullopt when none is found.
std::optional<std::string> findPtxas();

/// `ptxas --version` first line (e.g. "Cuda compilation tools, release
/// 13.0, V13.0.88"), or an error.
llvm::Expected<std::string> getPtxasVersion(llvm::StringRef ptxas);

/// Assembles `ptx` for `arch` (e.g. "sm_90a") with `-O3 -v`, and with
/// `-lineinfo` when `lineInfo` is set (keeps the PTX's `.loc` line table in
/// the cubin; no effect on the code). An error holds ptxas' messages when it
/// rejects the PTX.
llvm::Expected<PtxasResult> runPtxas(llvm::StringRef ptxas, llvm::StringRef ptx,
                                     llvm::StringRef arch,
                                     bool lineInfo = false);

/// Parses the `-v` report (exposed for tests).
std::vector<PtxasKernelInfo> parsePtxasReport(llvm::StringRef log);

} // namespace tilec

#endif // TILEC_TARGET_PTXAS_H
