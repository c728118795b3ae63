//===- Backend.h - Where a case's kernel runs -------------------*- C++ -*-===//

#ifndef TILEC_E2E_BACKEND_H
#define TILEC_E2E_BACKEND_H

#include "Case.h"

#include "tilec/Runtime/KernelMetadata.h"

#include <chrono>
#include <string>

namespace tilec::e2e {

struct RunOptions {
  /// Timed runs after warm-up (0: run once for correctness only).
  int repeat = 0;
  /// Write a buffer larger than the L2 cache before each timed run, so that
  /// every run starts cold, as torch/Triton benchmarks do.
  bool flushL2 = true;
  /// Longest wait for one launch (or for the batch of timed launches).
  std::chrono::milliseconds timeout{60000};
};

struct RunOutcome {
  /// The kernel ran and the outputs of the Problem hold its results.
  bool ran = false;
  /// Why it did not run or failed: load, launch, fault or timeout.
  std::string error;
  /// The backend cannot run further cases (a hung kernel, a lost context).
  bool fatal = false;
  /// Timing over `RunOptions::repeat` runs, in microseconds.
  int timedRuns = 0;
  double medianMicros = 0;
  /// Registers per thread as the loader reports them (-1 when unknown).
  int registers = -1;
  /// The image was PTX, JIT-compiled by the driver (no cubin).
  bool loadedFromPtx = false;
};

/// Runs a compiled kernel on a Problem's host tensors. The GPU backend copies
/// them to the device and back; a CPU backend could run in place.
class Backend {
public:
  virtual ~Backend() = default;
  virtual std::string name() const = 0;
  /// Loads the kernel that `metadata` describes (its artifacts next to it),
  /// runs it once on `problem` and writes the outputs back into `problem`,
  /// then times it if asked.
  virtual RunOutcome run(const runtime::KernelMetadata &metadata,
                         Problem &problem, const RunOptions &options) = 0;
};

} // namespace tilec::e2e

#endif // TILEC_E2E_BACKEND_H
