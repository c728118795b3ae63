//===- Status.h - Error values for the tilec runtime ------------*- C++ -*-===//
//
// The runtime reports every failure as a value: a `Status` (success or an
// error code with a readable message) or an `Expected<T>` (a `T` or such an
// error). Nothing in the runtime throws or aborts on a failed CUDA call, a
// missing driver or bad metadata. This file has no dependency beyond the C++17
// standard library, because the runtime must not link LLVM (whose `Error` and
// `Expected` would otherwise be the natural choice).
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_RUNTIME_STATUS_H
#define TILEC_RUNTIME_STATUS_H

#include <optional>
#include <string>
#include <utility>

namespace tilec::runtime {

/// What kind of failure a `Status` describes. Callers branch on the code (for
/// example, to skip GPU work when the driver is absent) and print the message.
enum class ErrorCode {
  Ok = 0,
  /// libcuda.so.1 could not be loaded, lacks an entry point, or `cuInit`
  /// reported that there is no usable device. GPU work should be skipped.
  DriverUnavailable,
  /// A CUDA driver call returned an error; `Status::cudaResult()` holds it.
  CudaError,
  /// The kernel metadata JSON is malformed or inconsistent.
  InvalidMetadata,
  /// Arguments given to a runtime call do not fit (wrong count, kind, size,
  /// alignment, grid dimensions...).
  InvalidArgument,
  /// A file could not be read.
  IoError,
  /// A wait on the GPU did not finish within its deadline.
  Timeout,
  /// The request is valid but this runtime does not implement it yet.
  Unsupported,
};

/// Returns a short stable name for `code` ("CudaError", ...).
const char *errorCodeName(ErrorCode code);

/// Success, or an error code with a human-readable message.
///
/// The message is complete in itself (it names the failed call, the CUDA
/// error and what was being done), so callers can print it as is.
class [[nodiscard]] Status {
public:
  /// A success value.
  Status() = default;

  /// Returns a success value.
  static Status success() { return Status(); }

  /// Returns an error. `code` must not be `ErrorCode::Ok`. `cudaResult` is
  /// the raw `CUresult` for `ErrorCode::CudaError`, 0 otherwise.
  static Status error(ErrorCode code, std::string message, int cudaResult = 0);

  /// True for success.
  bool ok() const { return code_ == ErrorCode::Ok; }
  ErrorCode code() const { return code_; }
  /// The message; empty for success.
  const std::string &message() const { return message_; }
  /// The `CUresult` of a failed driver call, 0 if the error is not one.
  int cudaResult() const { return cudaResult_; }

  /// Returns this error with " while <context>" appended to the message
  /// (success stays success).
  Status withContext(const std::string &context) const;

  /// "ok", or "<CodeName>: <message>".
  std::string toString() const;

private:
  ErrorCode code_ = ErrorCode::Ok;
  std::string message_;
  int cudaResult_ = 0;
};

/// Either a `T` or an error `Status`.
///
/// Usage:
///   Expected<KernelMetadata> md = KernelMetadata::loadFile(path);
///   if (!md)
///     return md.status();
///   use(*md);
template <typename T> class [[nodiscard]] Expected {
public:
  /// Holds a value.
  Expected(T value) : value_(std::move(value)) {}
  /// Holds an error. An ok `Status` here is a programming error and is turned
  /// into an `InvalidArgument` error rather than an empty success.
  Expected(Status error) : status_(std::move(error)) {
    if (status_.ok())
      status_ = Status::error(ErrorCode::InvalidArgument,
                              "internal error: Expected<T> built from an ok "
                              "Status without a value");
  }

  /// True when a value is held.
  explicit operator bool() const { return value_.has_value(); }
  bool ok() const { return value_.has_value(); }

  T &operator*() & { return *value_; }
  const T &operator*() const & { return *value_; }
  T &&operator*() && { return std::move(*value_); }
  T *operator->() { return &*value_; }
  const T *operator->() const { return &*value_; }

  /// The error (an ok `Status` when a value is held).
  const Status &status() const { return status_; }

  /// Moves the value out. Only valid when a value is held.
  T take() { return std::move(*value_); }

private:
  std::optional<T> value_;
  Status status_;
};

} // namespace tilec::runtime

/// Evaluates `expr` (a `Status`) and returns it from the enclosing function
/// when it is an error.
#define TILEC_RETURN_IF_ERROR(expr)                                            \
  do {                                                                         \
    ::tilec::runtime::Status tilecStatus_ = (expr);                            \
    if (!tilecStatus_.ok())                                                    \
      return tilecStatus_;                                                     \
  } while (false)

#endif // TILEC_RUNTIME_STATUS_H
