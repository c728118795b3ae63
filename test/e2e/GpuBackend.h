//===- GpuBackend.h - Running cases on a CUDA device ------------*- C++ -*-===//

#ifndef TILEC_E2E_GPUBACKEND_H
#define TILEC_E2E_GPUBACKEND_H

#include "Backend.h"

#include "tilec/Runtime/Device.h"
#include "tilec/Runtime/DeviceBuffer.h"
#include "tilec/Runtime/Status.h"

#include <memory>
#include <vector>

namespace tilec::runtime {
class Kernel;
} // namespace tilec::runtime

namespace tilec::e2e {

/// Runs kernels on device 0 through TilecRuntime, on the legacy default
/// stream. Every CUDA call is checked; every launch is followed by a bounded
/// wait, so a fault is reported with its CUDA error and a hang becomes a
/// timeout (fatal: the process must exit, the kernel cannot be stopped).
class GpuBackend : public Backend {
public:
  /// Opens the device; `DriverUnavailable` when there is no driver or GPU.
  static runtime::Expected<std::unique_ptr<GpuBackend>> create();

  std::string name() const override { return "gpu"; }
  /// "NVIDIA H200 (sm_90, 132 SMs, driver 13000)".
  std::string describe() const;

  RunOutcome run(const runtime::KernelMetadata &metadata, Problem &problem,
                 const RunOptions &options) override;

private:
  explicit GpuBackend(std::unique_ptr<runtime::Device> device)
      : device_(std::move(device)) {}

  /// Times `options.repeat` launches; fills the timing fields of `outcome`.
  runtime::Status time(runtime::Kernel &kernel,
                       const std::vector<runtime::KernelArg> &args,
                       const Problem &problem, const RunOptions &options,
                       RunOutcome &outcome);

  std::unique_ptr<runtime::Device> device_;
  runtime::DeviceBuffer flushBuffer_;
};

} // namespace tilec::e2e

#endif // TILEC_E2E_GPUBACKEND_H
