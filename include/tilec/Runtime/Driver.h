//===- Driver.h - The dynamically loaded CUDA driver ------------*- C++ -*-===//
//
// The runtime never links libcuda: it loads libcuda.so.1 with dlopen at run
// time, so programs built with it start (and report a clear reason to skip
// GPU work) on machines without an NVIDIA driver, such as CI.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_RUNTIME_DRIVER_H
#define TILEC_RUNTIME_DRIVER_H

#include "tilec/Runtime/Status.h"

#include <memory>
#include <string>

namespace tilec::runtime {

struct DriverApi;

/// The loaded CUDA driver library and its entry points, initialized with
/// `cuInit(0)`.
class Driver {
public:
  /// The process-wide driver, loaded on first use (thread-safe) from
  /// `$TILEC_LIBCUDA` if set, else "libcuda.so.1". The outcome, success or
  /// error, is cached for the life of the process. Errors are
  /// `DriverUnavailable`:
  ///  - "no CUDA driver: libcuda.so.1 not found (dlopen: ...)";
  ///  - "no CUDA driver: libcuda.so.1 does not export cuInit (...)";
  ///  - "no usable CUDA device: cuInit failed: CUDA_ERROR_NO_DEVICE (...)".
  static Expected<Driver *> load();

  /// Loads a driver library from `libraryPath` (a file name searched like
  /// dlopen does, or a path), independently of `load()`. For tests and
  /// tools; most code should call `load()`.
  static Expected<std::unique_ptr<Driver>> open(const std::string &libraryPath);

  ~Driver();
  Driver(const Driver &) = delete;
  Driver &operator=(const Driver &) = delete;

  /// The entry points (lib/Runtime/DriverApi.h; private to the runtime).
  const DriverApi &api() const { return *api_; }

  /// The library that was loaded.
  const std::string &libraryPath() const { return libraryPath_; }

  /// `cuDriverGetVersion`: 1000 * major + 10 * minor (13000 for CUDA 13.0).
  int version() const { return version_; }

  /// "CUDA_ERROR_INVALID_PTX (a PTX JIT compilation failed)" for a CUresult.
  std::string describeResult(int result) const;

  /// Success for CUDA_SUCCESS; otherwise a `CudaError` Status reading
  /// "<call> failed: <describeResult(result)>".
  Status check(int result, const char *call) const;

  /// Number of CUDA devices visible to this process.
  Expected<int> deviceCount() const;

private:
  Driver();

  void *handle_ = nullptr;
  std::unique_ptr<DriverApi> api_;
  std::string libraryPath_;
  int version_ = 0;
};

} // namespace tilec::runtime

#endif // TILEC_RUNTIME_DRIVER_H
