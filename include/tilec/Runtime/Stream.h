//===- Stream.h - A CUDA stream ---------------------------------*- C++ -*-===//

#ifndef TILEC_RUNTIME_STREAM_H
#define TILEC_RUNTIME_STREAM_H

#include "tilec/Runtime/Status.h"

struct CUstream_st;

namespace tilec::runtime {

class Device;

/// An owned, non-blocking CUDA stream (`CU_STREAM_NON_BLOCKING`: it does not
/// synchronize with the legacy default stream). Move-only.
class Stream {
public:
  static Expected<Stream> create(const Device &device);

  Stream(Stream &&other) noexcept;
  Stream &operator=(Stream &&other) noexcept;
  Stream(const Stream &) = delete;
  Stream &operator=(const Stream &) = delete;
  ~Stream();

  /// The `CUstream`.
  CUstream_st *handle() const { return stream_; }

  /// Waits for all work queued on the stream; reports errors of earlier
  /// asynchronous work.
  Status synchronize() const;

private:
  Stream(const Device *device, CUstream_st *stream)
      : device_(device), stream_(stream) {}

  const Device *device_ = nullptr;
  CUstream_st *stream_ = nullptr;
};

} // namespace tilec::runtime

#endif // TILEC_RUNTIME_STREAM_H
