//===- Event.cpp - A CUDA event, for timing and bounded waits -------------===//

#include "tilec/Runtime/Event.h"

#include "tilec/Runtime/Device.h"
#include "tilec/Runtime/Driver.h"
#include "tilec/Runtime/Stream.h"

#include "DriverApi.h"

#include <thread>
#include <utility>

namespace tilec::runtime {

Expected<Event> Event::create(const Device &device) {
  CUevent event = nullptr;
  TILEC_RETURN_IF_ERROR(device.driver().check(
      device.driver().api().eventCreate(&event, CU_EVENT_DEFAULT),
      "cuEventCreate"));
  return Event(&device, event);
}

Event::Event(Event &&other) noexcept
    : device_(other.device_), event_(std::exchange(other.event_, nullptr)) {}

Event &Event::operator=(Event &&other) noexcept {
  if (this != &other) {
    if (event_)
      (void)device_->driver().api().eventDestroy(event_);
    device_ = other.device_;
    event_ = std::exchange(other.event_, nullptr);
  }
  return *this;
}

Event::~Event() {
  if (event_)
    (void)device_->driver().api().eventDestroy(event_);
}

Status Event::record(const Stream *stream) {
  return device_->driver().check(
      device_->driver().api().eventRecord(event_,
                                          stream ? stream->handle() : nullptr),
      "cuEventRecord");
}

Status Event::wait(std::chrono::milliseconds timeout) const {
  const Driver &driver = device_->driver();
  auto deadline = std::chrono::steady_clock::now() + timeout;
  auto pause = std::chrono::microseconds(20);
  while (true) {
    CUresult result = driver.api().eventQuery(event_);
    if (result != CUDA_ERROR_NOT_READY)
      return driver.check(result, "cuEventQuery");
    if (std::chrono::steady_clock::now() >= deadline)
      return Status::error(ErrorCode::Timeout,
                           "GPU work did not finish within " +
                               std::to_string(timeout.count()) +
                               " ms (a hung kernel?)");
    std::this_thread::sleep_for(pause);
    // Back off up to 1 ms so long kernels do not spin a core.
    if (pause < std::chrono::microseconds(1000))
      pause *= 2;
  }
}

Expected<float> Event::elapsedMilliseconds(const Event &start,
                                           const Event &end) {
  float milliseconds = 0;
  const Driver &driver = start.device_->driver();
  TILEC_RETURN_IF_ERROR(driver.check(
      driver.api().eventElapsedTime(&milliseconds, start.event_, end.event_),
      "cuEventElapsedTime"));
  return milliseconds;
}

} // namespace tilec::runtime
