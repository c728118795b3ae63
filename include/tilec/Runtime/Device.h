//===- Device.h - A GPU and its primary context -----------------*- C++ -*-===//

#ifndef TILEC_RUNTIME_DEVICE_H
#define TILEC_RUNTIME_DEVICE_H

#include "tilec/Runtime/Status.h"

#include <cstddef>
#include <memory>
#include <string>

struct CUctx_st;

namespace tilec::runtime {

class Driver;

/// Static facts about a device, read once when it is opened.
struct DeviceInfo {
  int ordinal = 0;
  std::string name;            ///< "NVIDIA H200".
  int computeMajor = 0;        ///< 9 for Hopper.
  int computeMinor = 0;
  int multiprocessors = 0;     ///< SM count (132 on an H200).
  std::size_t totalMemory = 0; ///< Bytes of device memory.
  /// Largest dynamic + static shared memory one block may opt into (bytes).
  std::size_t maxSharedPerBlockOptin = 0;
  int maxThreadsPerBlock = 0;
  int l2CacheBytes = 0;
};

/// A device with its primary context retained and made current on the
/// calling thread. Kernels, buffers, streams and events made from a Device
/// refer to it and must be destroyed before it.
class Device {
public:
  /// Loads the driver (`Driver::load`), then retains device `ordinal`'s
  /// primary context and makes it current. Errors: `DriverUnavailable` when
  /// there is no driver or no device (callers should skip GPU work and print
  /// the message), `InvalidArgument` for an ordinal out of range, `CudaError`
  /// otherwise.
  static Expected<std::unique_ptr<Device>> open(int ordinal = 0);

  ~Device();
  Device(const Device &) = delete;
  Device &operator=(const Device &) = delete;

  Driver &driver() const { return *driver_; }
  const DeviceInfo &info() const { return info_; }
  /// The primary context (a `CUcontext`).
  CUctx_st *context() const { return context_; }

  /// Makes this device's context current on the calling thread (needed once
  /// per thread other than the one that opened it).
  Status makeCurrent() const;

  /// Makes this device's context current on the calling thread if the
  /// thread has no current context (leaves a caller's own context alone).
  /// Cheap (one driver call that reads thread-local state): callers may do it
  /// before every launch from a thread they do not control.
  Status ensureCurrent() const;

  /// Waits for all work in the context (`cuCtxSynchronize`). An error from an
  /// earlier asynchronous launch (an illegal address, say) is reported here.
  Status synchronize() const;

private:
  Device() = default;

  Driver *driver_ = nullptr;
  int cuDevice_ = 0;
  CUctx_st *context_ = nullptr;
  DeviceInfo info_;
};

} // namespace tilec::runtime

#endif // TILEC_RUNTIME_DEVICE_H
