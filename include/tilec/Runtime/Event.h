//===- Event.h - A CUDA event, for timing and bounded waits -----*- C++ -*-===//

#ifndef TILEC_RUNTIME_EVENT_H
#define TILEC_RUNTIME_EVENT_H

#include "tilec/Runtime/Status.h"

#include <chrono>

struct CUevent_st;

namespace tilec::runtime {

class Device;
class Stream;

/// An owned CUDA event (with timing enabled). Move-only.
class Event {
public:
  static Expected<Event> create(const Device &device);

  Event(Event &&other) noexcept;
  Event &operator=(Event &&other) noexcept;
  Event(const Event &) = delete;
  Event &operator=(const Event &) = delete;
  ~Event();

  /// Records the event on `stream` (the legacy default stream if null).
  Status record(const Stream *stream = nullptr);

  /// Waits until the work before the recorded event is done, polling, for
  /// at most `timeout`. Returns `Timeout` ("GPU work did not finish within
  /// N ms") if it is still running then (a hung kernel cannot be cancelled:
  /// the caller should report and exit), or the `CudaError` that an earlier
  /// launch raised (an illegal address, say).
  Status wait(std::chrono::milliseconds timeout) const;

  /// Milliseconds of GPU time between two completed events.
  static Expected<float> elapsedMilliseconds(const Event &start,
                                             const Event &end);

  CUevent_st *handle() const { return event_; }

private:
  Event(const Device *device, CUevent_st *event)
      : device_(device), event_(event) {}

  const Device *device_ = nullptr;
  CUevent_st *event_ = nullptr;
};

} // namespace tilec::runtime

#endif // TILEC_RUNTIME_EVENT_H
