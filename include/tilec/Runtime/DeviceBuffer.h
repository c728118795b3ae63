//===- DeviceBuffer.h - Owned global memory ---------------------*- C++ -*-===//

#ifndef TILEC_RUNTIME_DEVICEBUFFER_H
#define TILEC_RUNTIME_DEVICEBUFFER_H

#include "tilec/Runtime/KernelArg.h"
#include "tilec/Runtime/Status.h"

#include <cstddef>
#include <cstdint>

namespace tilec::runtime {

class Device;
class Stream;

/// A block of device global memory (`cuMemAlloc`), freed when destroyed.
/// Move-only. The address is at least 256-byte aligned, so it satisfies any
/// pointer divisibility promise up to 256.
class DeviceBuffer {
public:
  /// Allocates `bytes` bytes (contents undefined). A zero-byte buffer has the
  /// null address and allocates nothing.
  static Expected<DeviceBuffer> allocate(const Device &device,
                                         std::size_t bytes);

  DeviceBuffer() = default;
  DeviceBuffer(DeviceBuffer &&other) noexcept;
  DeviceBuffer &operator=(DeviceBuffer &&other) noexcept;
  DeviceBuffer(const DeviceBuffer &) = delete;
  DeviceBuffer &operator=(const DeviceBuffer &) = delete;
  ~DeviceBuffer();

  DevicePtr address() const { return address_; }
  std::size_t size() const { return size_; }

  /// This buffer as a kernel pointer argument.
  KernelArg arg() const { return KernelArg::pointer(address_); }

  /// Copies `bytes` bytes from host memory into the buffer at byte `offset`
  /// (`cuMemcpyHtoD`). On return the source may be reused; the copy is
  /// ordered before later work on the legacy default stream, but from
  /// pageable memory its DMA may still be in flight, so call
  /// `Device::synchronize()` before using the data from a non-blocking
  /// stream. `InvalidArgument` if the range exceeds the buffer.
  Status copyFromHost(const void *source, std::size_t bytes,
                      std::size_t offset = 0);

  /// Copies `bytes` bytes at byte `offset` of the buffer into host memory
  /// (synchronous; waits for earlier work on the legacy default stream).
  Status copyToHost(void *destination, std::size_t bytes,
                    std::size_t offset = 0) const;

  /// Sets every byte to `value` (ordered like `copyFromHost`).
  Status fillBytes(std::uint8_t value);

  /// Sets every 32-bit word to `value` (ordered like `copyFromHost`); the
  /// size must be a multiple of 4.
  Status fillWords(std::uint32_t value);

  /// Queues a fill of every 32-bit word with `value` on `stream` (the legacy
  /// default stream if null) and returns at once; used, for example, to
  /// flush the L2 cache between timed runs.
  Status fillWordsAsync(std::uint32_t value, const Stream *stream = nullptr);

private:
  Status checkRange(std::size_t bytes, std::size_t offset,
                    const char *what) const;
  Status checkWords(const char *what) const;
  void release();

  const Device *device_ = nullptr;
  DevicePtr address_ = 0;
  std::size_t size_ = 0;
};

} // namespace tilec::runtime

#endif // TILEC_RUNTIME_DEVICEBUFFER_H
