//===- Status.cpp - Error values for the tilec runtime --------------------===//

#include "tilec/Runtime/Status.h"

namespace tilec::runtime {

const char *errorCodeName(ErrorCode code) {
  switch (code) {
  case ErrorCode::Ok:
    return "Ok";
  case ErrorCode::DriverUnavailable:
    return "DriverUnavailable";
  case ErrorCode::CudaError:
    return "CudaError";
  case ErrorCode::InvalidMetadata:
    return "InvalidMetadata";
  case ErrorCode::InvalidArgument:
    return "InvalidArgument";
  case ErrorCode::IoError:
    return "IoError";
  case ErrorCode::Timeout:
    return "Timeout";
  case ErrorCode::Unsupported:
    return "Unsupported";
  }
  return "Unknown";
}

Status Status::error(ErrorCode code, std::string message, int cudaResult) {
  Status status;
  // An "error" with the Ok code would read as success; keep it an error.
  status.code_ = code == ErrorCode::Ok ? ErrorCode::InvalidArgument : code;
  status.message_ = std::move(message);
  status.cudaResult_ = cudaResult;
  return status;
}

Status Status::withContext(const std::string &context) const {
  if (ok())
    return *this;
  Status result = *this;
  result.message_ += " while " + context;
  return result;
}

std::string Status::toString() const {
  if (ok())
    return "ok";
  return std::string(errorCodeName(code_)) + ": " + message_;
}

} // namespace tilec::runtime
