//===- DeviceBuffer.cpp - Owned global memory -----------------------------===//

#include "tilec/Runtime/DeviceBuffer.h"

#include "tilec/Runtime/Device.h"
#include "tilec/Runtime/Driver.h"
#include "tilec/Runtime/Stream.h"

#include "DriverApi.h"

#include <utility>

namespace tilec::runtime {

Expected<DeviceBuffer> DeviceBuffer::allocate(const Device &device,
                                              std::size_t bytes) {
  DeviceBuffer buffer;
  buffer.device_ = &device;
  if (bytes == 0)
    return buffer;
  CUdeviceptr address = 0;
  Status status = device.driver().check(
      device.driver().api().memAlloc(&address, bytes), "cuMemAlloc");
  if (!status.ok())
    return status.withContext("allocating " + std::to_string(bytes) +
                              " bytes of device memory");
  buffer.address_ = address;
  buffer.size_ = bytes;
  return buffer;
}

DeviceBuffer::DeviceBuffer(DeviceBuffer &&other) noexcept
    : device_(other.device_), address_(std::exchange(other.address_, 0)),
      size_(std::exchange(other.size_, 0)) {}

DeviceBuffer &DeviceBuffer::operator=(DeviceBuffer &&other) noexcept {
  if (this != &other) {
    release();
    device_ = other.device_;
    address_ = std::exchange(other.address_, 0);
    size_ = std::exchange(other.size_, 0);
  }
  return *this;
}

DeviceBuffer::~DeviceBuffer() { release(); }

void DeviceBuffer::release() {
  if (address_ && device_)
    (void)device_->driver().api().memFree(address_);
  address_ = 0;
  size_ = 0;
}

Status DeviceBuffer::checkRange(std::size_t bytes, std::size_t offset,
                                const char *what) const {
  if (offset > size_ || bytes > size_ - offset)
    return Status::error(ErrorCode::InvalidArgument,
                         std::string(what) + " of " + std::to_string(bytes) +
                             " bytes at offset " + std::to_string(offset) +
                             " exceeds the " + std::to_string(size_) +
                             "-byte device buffer");
  return Status::success();
}

Status DeviceBuffer::copyFromHost(const void *source, std::size_t bytes,
                                  std::size_t offset) {
  TILEC_RETURN_IF_ERROR(checkRange(bytes, offset, "host-to-device copy"));
  if (bytes == 0)
    return Status::success();
  const Driver &driver = device_->driver();
  return driver.check(driver.api().memcpyHtoD(address_ + offset, source, bytes),
                      "cuMemcpyHtoD");
}

Status DeviceBuffer::copyToHost(void *destination, std::size_t bytes,
                                std::size_t offset) const {
  TILEC_RETURN_IF_ERROR(checkRange(bytes, offset, "device-to-host copy"));
  if (bytes == 0)
    return Status::success();
  const Driver &driver = device_->driver();
  return driver.check(
      driver.api().memcpyDtoH(destination, address_ + offset, bytes),
      "cuMemcpyDtoH");
}

Status DeviceBuffer::fillBytes(std::uint8_t value) {
  if (size_ == 0)
    return Status::success();
  const Driver &driver = device_->driver();
  return driver.check(driver.api().memsetD8(address_, value, size_),
                      "cuMemsetD8");
}

Status DeviceBuffer::checkWords(const char *what) const {
  if (size_ % 4 != 0)
    return Status::error(ErrorCode::InvalidArgument,
                         std::string(what) + " on a buffer of " +
                             std::to_string(size_) +
                             " bytes (not a multiple of 4)");
  return Status::success();
}

Status DeviceBuffer::fillWords(std::uint32_t value) {
  TILEC_RETURN_IF_ERROR(checkWords("fillWords"));
  if (size_ == 0)
    return Status::success();
  const Driver &driver = device_->driver();
  return driver.check(driver.api().memsetD32(address_, value, size_ / 4),
                      "cuMemsetD32");
}

Status DeviceBuffer::fillWordsAsync(std::uint32_t value,
                                    const Stream *stream) {
  TILEC_RETURN_IF_ERROR(checkWords("fillWordsAsync"));
  if (size_ == 0)
    return Status::success();
  const Driver &driver = device_->driver();
  return driver.check(
      driver.api().memsetD32Async(address_, value, size_ / 4,
                                  stream ? stream->handle() : nullptr),
      "cuMemsetD32Async");
}

} // namespace tilec::runtime
