//===- Stream.cpp - A CUDA stream -----------------------------------------===//

#include "tilec/Runtime/Stream.h"

#include "tilec/Runtime/Device.h"
#include "tilec/Runtime/Driver.h"

#include "DriverApi.h"

#include <utility>

namespace tilec::runtime {

Expected<Stream> Stream::create(const Device &device) {
  CUstream stream = nullptr;
  TILEC_RETURN_IF_ERROR(device.driver().check(
      device.driver().api().streamCreate(&stream, CU_STREAM_NON_BLOCKING),
      "cuStreamCreate"));
  return Stream(&device, stream);
}

Stream::Stream(Stream &&other) noexcept
    : device_(other.device_), stream_(std::exchange(other.stream_, nullptr)) {}

Stream &Stream::operator=(Stream &&other) noexcept {
  if (this != &other) {
    if (stream_)
      (void)device_->driver().api().streamDestroy(stream_);
    device_ = other.device_;
    stream_ = std::exchange(other.stream_, nullptr);
  }
  return *this;
}

Stream::~Stream() {
  if (stream_)
    (void)device_->driver().api().streamDestroy(stream_);
}

Status Stream::synchronize() const {
  return device_->driver().check(
      device_->driver().api().streamSynchronize(stream_),
      "cuStreamSynchronize");
}

} // namespace tilec::runtime
