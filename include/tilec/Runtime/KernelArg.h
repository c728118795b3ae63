//===- KernelArg.h - One launch argument ------------------------*- C++ -*-===//

#ifndef TILEC_RUNTIME_KERNELARG_H
#define TILEC_RUNTIME_KERNELARG_H

#include "tilec/Runtime/ScalarType.h"

#include <array>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

namespace tilec::runtime {

/// A device (global memory) address, as `CUdeviceptr` holds it.
using DevicePtr = std::uint64_t;

/// One argument for a source parameter of a kernel: a device pointer or a
/// scalar value with its type. `Kernel::launch` checks a list of these
/// against the metadata (count, kind, scalar type and size, divisibility).
class KernelArg {
public:
  enum class Kind { Pointer, Scalar };

  /// A pointer argument (a 64-bit global address).
  static KernelArg pointer(DevicePtr address);

  /// Scalar arguments of the matching type ("i1" for bool, "i32" for
  /// int32_t, "fp32" for float, ...).
  static KernelArg scalar(bool value);
  static KernelArg scalar(std::int8_t value);
  static KernelArg scalar(std::uint8_t value);
  static KernelArg scalar(std::int16_t value);
  static KernelArg scalar(std::uint16_t value);
  static KernelArg scalar(std::int32_t value);
  static KernelArg scalar(std::uint32_t value);
  static KernelArg scalar(std::int64_t value);
  static KernelArg scalar(std::uint64_t value);
  static KernelArg scalar(float value);
  static KernelArg scalar(double value);

  /// A scalar given by its raw bits (the low `scalarTypeSize(type)` bytes of
  /// `bits`, little-endian), for types without a C++ counterpart: fp16 and
  /// bf16 (see FloatConversion.h), fp8.
  static KernelArg scalarBits(ScalarType type, std::uint64_t bits);

  Kind kind() const { return kind_; }
  /// The scalar's type (meaningless for a pointer).
  ScalarType type() const { return type_; }
  /// Size of the value in the kernel parameter space: 8 for a pointer.
  std::size_t size() const { return size_; }
  /// The value's bytes (little-endian), `size()` of them.
  const void *data() const { return bytes_.data(); }
  /// The value's bits zero-extended to 64 (the address for a pointer).
  std::uint64_t bits() const;

  /// "pointer 0x7f0000001000" or "i32 42" / "fp32 1.5", for messages.
  std::string describe() const;

private:
  KernelArg(Kind kind, ScalarType type, const void *data, std::size_t size);

  Kind kind_;
  ScalarType type_;
  std::size_t size_;
  std::array<std::uint8_t, 8> bytes_{};
};

/// A read-only view of a list of arguments (a vector or a braced list that
/// outlives the call).
class KernelArgs {
public:
  KernelArgs(const std::vector<KernelArg> &args)
      : data_(args.data()), size_(args.size()) {}
  // A braced list lives until the end of the full expression of the call it
  // is written in, which is as long as a KernelArgs parameter is used (the
  // same contract as llvm::ArrayRef).
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Winit-list-lifetime"
#endif
  KernelArgs(std::initializer_list<KernelArg> args)
      : data_(args.begin()), size_(args.size()) {}
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif
  KernelArgs(const KernelArg *data, std::size_t size)
      : data_(data), size_(size) {}

  const KernelArg *begin() const { return data_; }
  const KernelArg *end() const { return data_ + size_; }
  std::size_t size() const { return size_; }
  const KernelArg &operator[](std::size_t i) const { return data_[i]; }

private:
  const KernelArg *data_;
  std::size_t size_;
};

} // namespace tilec::runtime

#endif // TILEC_RUNTIME_KERNELARG_H
