//===- Argument.h - Launch arguments of a JIT kernel ------------*- C++ -*-===//
//
// Part of tilec, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// What Kernel::launch takes: a grid, a stream, and one Arg per kernel
// parameter, in order. An Arg is made implicitly from the C++ value:
//
//   float *x (device pointer)   -> pointer to fp32   (`*fp32`, `*fp32:16`)
//   int32_t n                   -> i32 scalar        (`i32`, `i32:16`, `1`)
//   int64_t, uint32_t, ...      -> i64, u32, ...
//   float / double              -> fp32 / fp64 scalar
//   bool                        -> i1 scalar
//   const char * / std::string  -> a string (constexpr parameters only)
//
// For a parameter annotated `tl.constexpr` the value itself is compiled in
// (`BLOCK=1024` becomes the signature literal `1024`). Pointers to element
// types without a C++ counterpart (fp16, bf16, fp8), untyped pointers and
// raw `CUdeviceptr` addresses are written Arg::pointer(address, type); a
// `CUdeviceptr` passed bare is an integer (u64), as it is in C++.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_JIT_ARGUMENT_H
#define TILEC_JIT_ARGUMENT_H

#include "tilec/Runtime/KernelArg.h"
#include "tilec/Runtime/ScalarType.h"

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <type_traits>

struct CUstream_st;

namespace tilec::jit {

using runtime::ScalarType;

/// A CUDA stream (`CUstream`, which is also what `cudaStream_t` is); null is
/// the legacy default stream.
using Stream = CUstream_st *;

/// Number of programs along each axis: `tl.program_id(a)` runs over
/// [0, x), [0, y), [0, z) for a = 0, 1, 2.
struct Grid {
  Grid(unsigned x = 1, unsigned y = 1, unsigned z = 1) : x(x), y(y), z(z) {}
  unsigned x, y, z;
};

namespace detail {
/// The signature type of a C++ element or scalar type (void when none).
template <typename T> constexpr ScalarType elementTypeOf() {
  using U = std::remove_cv_t<T>;
  if constexpr (std::is_same_v<U, bool>)
    return ScalarType::I1;
  else if constexpr (std::is_same_v<U, float>)
    return ScalarType::FP32;
  else if constexpr (std::is_same_v<U, double>)
    return ScalarType::FP64;
  else if constexpr (std::is_integral_v<U> && std::is_signed_v<U>)
    return sizeof(U) == 1   ? ScalarType::I8
           : sizeof(U) == 2 ? ScalarType::I16
           : sizeof(U) == 4 ? ScalarType::I32
                            : ScalarType::I64;
  else
    return sizeof(U) == 1   ? ScalarType::U8
           : sizeof(U) == 2 ? ScalarType::U16
           : sizeof(U) == 4 ? ScalarType::U32
                            : ScalarType::U64;
}
template <typename T>
constexpr bool hasElementType =
    std::is_arithmetic_v<std::remove_cv_t<T>> &&
    !std::is_same_v<std::remove_cv_t<T>, long double>;
} // namespace detail

/// One launch argument: a device pointer with its element type, an integer,
/// a float or a bool with its type, or a string. Cheap to copy; a string
/// argument refers to the caller's characters until the launch returns.
class Arg {
public:
  enum class Kind : std::uint8_t { Pointer, Int, Float, Bool, String };

  /// Integers: their C++ type decides the signature type (i8 ... u64).
  template <typename T,
            std::enable_if_t<std::is_integral_v<T> && !std::is_same_v<T, bool>,
                             int> = 0>
  Arg(T value)
      : kind_(Kind::Int), type_(detail::elementTypeOf<T>()),
        bits_(static_cast<std::uint64_t>(value)) {}
  Arg(bool value) : kind_(Kind::Bool), type_(ScalarType::I1), bits_(value) {}
  Arg(float value) : kind_(Kind::Float), type_(ScalarType::FP32) {
    double wide = value;
    std::memcpy(&bits_, &wide, sizeof(wide));
  }
  Arg(double value) : kind_(Kind::Float), type_(ScalarType::FP64) {
    std::memcpy(&bits_, &value, sizeof(value));
  }
  /// A typed device pointer (`float *`, `const int32_t *`, ...).
  template <typename T> Arg(T *pointer) : kind_(Kind::Pointer) {
    static_assert(detail::hasElementType<T>,
                  "tilec::jit::Arg: a pointer's element type must be a C++ "
                  "arithmetic type; write Arg::pointer(address, "
                  "ScalarType::FP16) for void pointers and other types");
    type_ = detail::elementTypeOf<T>();
    bits_ = reinterpret_cast<std::uintptr_t>(pointer);
  }
  Arg(const char *text)
      : kind_(Kind::String), type_(ScalarType::I8), text_(text),
        size_(std::strlen(text)) {}
  Arg(const std::string &text)
      : kind_(Kind::String), type_(ScalarType::I8), text_(text.data()),
        size_(text.size()) {}

  /// A device pointer to elements of `elementType`.
  static Arg pointer(const void *address, ScalarType elementType) {
    return pointer(reinterpret_cast<std::uintptr_t>(address), elementType);
  }
  /// A device address (a `CUdeviceptr`) to elements of `elementType`.
  static Arg pointer(std::uint64_t address, ScalarType elementType) {
    Arg arg(Kind::Pointer, elementType);
    arg.bits_ = address;
    return arg;
  }
  /// A scalar given by its raw bits (the low bytes of `bits`), for types
  /// without a C++ counterpart: fp16 and bf16 (FloatConversion.h), fp8.
  static Arg scalarBits(ScalarType type, std::uint64_t bits) {
    Arg arg(isFloatType(type) ? Kind::Float : Kind::Int, type);
    arg.bits_ = bits;
    arg.rawBits_ = true;
    return arg;
  }

  Kind kind() const { return kind_; }
  /// The pointee type of a pointer, the type of a scalar.
  ScalarType type() const { return type_; }
  /// The address of a pointer; an integer's value converted to 64 bits
  /// (sign-extended for signed types); a float's value as the bits of a
  /// double (unless made by scalarBits); a bool as 0 or 1.
  std::uint64_t bits() const { return bits_; }
  /// Whether a float holds raw bits of its own type (scalarBits) rather
  /// than a double.
  bool hasRawBits() const { return rawBits_; }
  /// An integer's value, sign-extended for signed types.
  std::int64_t intValue() const;
  /// A float's value (made from a double or a float).
  double floatValue() const {
    double value;
    std::memcpy(&value, &bits_, sizeof(value));
    return value;
  }
  std::string_view text() const { return {text_, size_}; }

  /// "pointer to fp32 0x7f0000001000", "i32 42", "fp32 1.5", for messages.
  std::string describe() const;

  /// The value as the runtime passes it to a kernel parameter of this type
  /// (a string has no such value: it is only a constexpr).
  runtime::KernelArg toRuntimeArg() const;

private:
  Arg(Kind kind, ScalarType type) : kind_(kind), type_(type) {}

  Kind kind_;
  bool rawBits_ = false;
  ScalarType type_;
  std::uint64_t bits_ = 0;
  const char *text_ = nullptr;
  std::size_t size_ = 0;
};

} // namespace tilec::jit

#endif // TILEC_JIT_ARGUMENT_H
