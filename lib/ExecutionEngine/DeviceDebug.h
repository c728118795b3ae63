//===- DeviceDebug.h - tl.device_print and tl.device_assert on the host -*- C++ -*-===//
//
// Part of tilec, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// The run-time half of `tile.print` and `tile.assert` on the CPU backend
// (their contract: TileToLinalg.h): the host functions kernels call, which
// print in the GPU's line format and record failed assertions of the
// launch, with the program that made them.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_LIB_EXECUTIONENGINE_DEVICEDEBUG_H
#define TILEC_LIB_EXECUTIONENGINE_DEVICEDEBUG_H

#include "GridLauncher.h"
#include "ProgramOrderReports.h"

#include "llvm/Support/Error.h"

#include <array>
#include <atomic>
#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

namespace tilec::cpu {

/// The failed device assertions of one launch (from every worker thread).
class AssertSession {
public:
  AssertSession(std::string kernelName, unsigned maxReports)
      : kernelName(std::move(kernelName)), reports(maxReports) {}

  /// Records that element `index` of the assertion described by `desc`
  /// (TileToLinalg.h) failed in `program`.
  void fail(const char *desc, std::int64_t index, ProgramId program);

  /// Success if no assertion failed, else an error with one line per
  /// reported failure (the first ones in program order) and the count.
  llvm::Error takeError();

private:
  std::string kernelName;
  /// The failures: counted, the first ones in program order described.
  ProgramOrderReports reports;
};

/// Sets the program the calling thread runs (printed by tl.device_print)
/// and where its failed assertions go (null: nowhere).
void setDebugProgram(AssertSession *session, ProgramId program);

} // namespace tilec::cpu

/// The host functions of kPrintFunction and kAssertFailFunction.
extern "C" void __tilec_cpu_print(const char *desc, std::int64_t index,
                                  std::uint64_t bits);
extern "C" void __tilec_cpu_assert_fail(const char *desc, std::int64_t index);

#endif // TILEC_LIB_EXECUTIONENGINE_DEVICEDEBUG_H
