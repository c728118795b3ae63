//===- CpuBackend.h - Running cases on the host CPU -------------*- C++ -*-===//
//
// The CPU backend of the harness (docs/cpu-backend.md): compiles a case's
// kernel in process (frontend, CPU pipeline, ORC JIT) and runs it on the
// Problem's host tensors in place. Used by tilec-e2e-cpu, which links the
// compiler; tilec-e2e (the GPU harness carried to the device machine) does
// not link it.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_E2E_CPUBACKEND_H
#define TILEC_E2E_CPUBACKEND_H

#include "Backend.h"

#include <map>
#include <memory>
#include <string>

namespace tilec::cpu {
class CpuKernel;
} // namespace tilec::cpu

namespace mlir {
class MLIRContext;
} // namespace mlir

namespace tilec::e2e {

class CpuBackend : public Backend {
public:
  struct Options {
    /// Compile with the sanitizer: every access is checked against the
    /// Problem's tensors, and an out-of-bounds one fails the case.
    bool sanitize = false;
    /// Worker threads (0: one per hardware thread).
    unsigned threads = 0;
  };

  explicit CpuBackend(Options options);
  ~CpuBackend() override;

  std::string name() const override { return "cpu"; }
  /// "host CPU (znver4, 2 threads, sanitizer)".
  std::string describe() const;

  /// Compiles `spec`'s kernel from `examplesDir` for the host. On success
  /// returns the kernel's metadata (what `tilec --emit cubin` would write
  /// next to a cubin, so the harness checks it against the case the same
  /// way) and keeps the kernel for `run`; on failure returns nullopt and
  /// sets `error` (the compiler's diagnostics included).
  std::optional<runtime::KernelMetadata>
  compile(const CaseSpec &spec, const std::string &examplesDir,
          double &seconds, std::string &error);

  /// Runs the kernel compiled for `metadata` once (then `options.repeat`
  /// timed runs, after one warm-up) on the Problem's tensors.
  RunOutcome run(const runtime::KernelMetadata &metadata, Problem &problem,
                 const RunOptions &options) override;

private:
  Options options_;
  std::unique_ptr<mlir::MLIRContext> context_;
  /// Compiled kernels by name and signature.
  std::map<std::string, std::unique_ptr<cpu::CpuKernel>> kernels_;
};

} // namespace tilec::e2e

#endif // TILEC_E2E_CPUBACKEND_H
