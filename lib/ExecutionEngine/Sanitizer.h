//===- Sanitizer.h - out-of-bounds checks of sanitized kernels --*- C++ -*-===//
//
// Part of tilec, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// The run-time half of `convert-tile-to-linalg{sanitize}`: the hook the
// kernel calls before every access (TileToLinalg.h) checks the address
// against the buffers registered for the launch and records violations,
// with the kernel, the program and the access site.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_LIB_EXECUTIONENGINE_SANITIZER_H
#define TILEC_LIB_EXECUTIONENGINE_SANITIZER_H

#include "GridLauncher.h"
#include "ProgramOrderReports.h"

#include "tilec/ExecutionEngine/CpuKernel.h"

#include "llvm/Support/Error.h"

#include <atomic>
#include <mutex>
#include <string>
#include <vector>

namespace tilec::cpu {

/// One sanitized launch: the buffers its kernel may access and the
/// violations seen so far (checked from every worker thread).
class SanitizerSession {
public:
  SanitizerSession(std::string kernelName, std::vector<HostBuffer> buffers,
                   unsigned maxReports);

  /// Whether `[address, address + bytes)` lies inside one buffer; if not,
  /// records a violation by `program` at element `element` of the access
  /// described by `site`. The reported violations are the first ones in
  /// program order, whatever the thread schedule.
  /// `kind` is an AccessKind (TileToLinalg.h).
  bool check(std::uint64_t address, std::uint64_t bytes, std::int32_t kind,
             std::int64_t element, const char *site, ProgramId program);

  /// Success if nothing was out of bounds, else an error with one line per
  /// reported violation and the total count.
  llvm::Error takeError();

private:
  /// The buffer whose bytes are nearest to `address`.
  const HostBuffer *findNearest(std::uint64_t address) const;

  std::string kernelName;
  /// Sorted by start address.
  std::vector<HostBuffer> buffers;
  /// The violations: counted, the first ones in program order described.
  ProgramOrderReports reports;
};

/// Routes the calling thread's checks to `session` as `program` (null
/// session: none).
void setSanitizerProgram(SanitizerSession *session, ProgramId program);

} // namespace tilec::cpu

/// The hook sanitized kernels call (its contract: TileToLinalg.h). Returns
/// 1 when the access may proceed.
extern "C" std::int32_t __tilec_cpu_check_access(std::uint64_t address,
                                                 std::uint64_t bytes,
                                                 std::int32_t kind,
                                                 std::int64_t element,
                                                 const char *site);

#endif // TILEC_LIB_EXECUTIONENGINE_SANITIZER_H
