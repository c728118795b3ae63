//===- DType.h - Triton dtypes of the code generator ------------*- C++ -*-===//
//
// Part of tilec, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// The language's element types, as Triton's `tl.dtype` models them: unlike
// MLIR's signless integers they carry signedness (`uint8` and `int8` are both
// `i8` in the IR but compare, divide, extend and convert differently). A
// DType is a scalar type, a pointer to a scalar in global memory, or a block
// pointer (whose block shape lives in the MLIR type).
//
// The promotion rules are Triton's (python/triton/language/semantic.py:
// integer_promote_impl, computation_type_impl).
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_LIB_FRONTEND_DTYPE_H
#define TILEC_LIB_FRONTEND_DTYPE_H

#include "tilec/Support/ScalarType.h"

#include "mlir/IR/Types.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <optional>
#include <string>

namespace mlir {
class MLIRContext;
} // namespace mlir

namespace tilec::frontend {

/// Triton's dtype kinds, ordered as its weak-typing rule compares them.
enum class TypeClass : uint8_t { Boolean = 0, Integral = 1, Floating = 2 };

/// An element type of the language.
class DType {
public:
  enum class Kind : uint8_t { Scalar, Pointer, BlockPointer, TensorDescriptor };

  constexpr DType() = default;
  /// A scalar of kind `scalar`.
  static constexpr DType get(ScalarType scalar) {
    return DType(Kind::Scalar, scalar);
  }
  /// A pointer to `pointee` in global memory.
  static constexpr DType pointer(ScalarType pointee) {
    return DType(Kind::Pointer, pointee);
  }
  /// A block pointer to blocks of `element`.
  static constexpr DType blockPointer(ScalarType element) {
    return DType(Kind::BlockPointer, element);
  }
  /// A tensor descriptor (`tl.make_tensor_descriptor`) of blocks of
  /// `element`. In the IR it is a block pointer at offset zero; the IR type
  /// has no padding, so the descriptor's `padding_option` travels here:
  /// with `nanPadding` the out-of-bounds elements of its loads read NaN.
  static constexpr DType tensorDescriptor(ScalarType element,
                                          bool nanPadding = false) {
    return DType(Kind::TensorDescriptor, element, nanPadding);
  }

  Kind getKind() const { return kind; }
  /// The scalar kind; for pointers the pointee, for block pointers the
  /// element.
  ScalarType getScalar() const { return scalar; }
  /// Whether this tensor descriptor pads with NaN (padding_option="nan").
  bool hasNanPadding() const { return nanPadding; }

  bool isScalar() const { return kind == Kind::Scalar; }
  bool isPointer() const { return kind == Kind::Pointer; }
  bool isBlockPointer() const { return kind == Kind::BlockPointer; }
  bool isTensorDescriptor() const { return kind == Kind::TensorDescriptor; }

  /// `int1` (Python bool).
  bool isBool() const { return isScalar() && scalar == ScalarType::I1; }
  /// Any integer, `int1` included.
  bool isInt() const { return isScalar() && isIntegerType(scalar); }
  /// Signed integers `int8`..`int64`.
  bool isSigned() const { return isScalar() && isSignedIntegerType(scalar); }
  /// `int1` and `uint8`..`uint64` (Triton counts `int1` as unsigned).
  bool isUnsigned() const { return isInt() && !isSigned(); }
  bool isFloat() const { return isScalar() && isFloatType(scalar); }
  bool isFP8() const {
    return isFloat() && getScalarTypeInfo(scalar).bits == 8;
  }
  bool isFP16() const { return isScalar() && scalar == ScalarType::FP16; }
  bool isBF16() const { return isScalar() && scalar == ScalarType::BF16; }
  bool isFP32() const { return isScalar() && scalar == ScalarType::FP32; }
  bool isFP64() const { return isScalar() && scalar == ScalarType::FP64; }

  /// Bits of a scalar (1 for int1, 64 for pointers).
  unsigned getBitWidth() const;
  /// Mantissa bits of a float (Triton's fp_mantissa_width).
  unsigned getMantissaWidth() const;
  /// Boolean < Integral < Floating.
  TypeClass getTypeClass() const;

  /// Triton's name: `int32`, `uint8`, `fp16`, `bf16`, `fp8e4nv`,
  /// `pointer<fp32>`, `block_ptr<fp16>`, `tensor_descriptor<fp16>`.
  std::string str() const;
  /// The `tl.` spelling: `tl.float32`, `tl.int8`, `tl.pointer_type(...)`.
  std::string getSpelling() const;

  /// The element type in the IR: signless integers, builtin floats,
  /// `!tile.ptr<T>`. Block pointers have no element type of their own (their
  /// MLIR type carries the block shape); this returns the element's type.
  mlir::Type toMLIR(mlir::MLIRContext *context) const;

  bool operator==(const DType &other) const {
    return kind == other.kind && scalar == other.scalar &&
           nanPadding == other.nanPadding;
  }
  bool operator!=(const DType &other) const { return !(*this == other); }

private:
  constexpr DType(Kind kind, ScalarType scalar, bool nanPadding = false)
      : kind(kind), scalar(scalar), nanPadding(nanPadding) {}

  Kind kind = Kind::Scalar;
  ScalarType scalar = ScalarType::I32;
  bool nanPadding = false;
};

/// The scalar named `name` as an attribute of `triton.language` (`float32`,
/// `float16`, `bfloat16`, `int8`, `uint16`, `float8e4nv`, ...), or none.
std::optional<ScalarType> lookupLanguageDType(llvm::StringRef name);

/// Triton's integer_promote_impl: the C "usual arithmetic conversions" for
/// two integer types.
DType integerPromote(DType a, DType b);

/// Triton's computation_type_impl: the type both operands of an arithmetic
/// operator are converted to. `aIsPython`/`bIsPython` mark Python numbers
/// (weakly typed: they do not promote a tile of the same or a higher kind).
/// Returns none (with `reason` set) for an invalid combination.
std::optional<DType> computationType(DType a, bool aIsPython, DType b,
                                     bool bIsPython, bool divOrMod,
                                     std::string &reason);

/// `v` converted to an integer as fptosi.sat does: truncated toward zero,
/// saturated at the int64 range, NaN to 0 (a plain static_cast of a value
/// out of range is undefined behavior).
inline int64_t saturatingFloatToInt(double v) {
  if (v != v)
    return 0;
  if (v >= 9223372036854775807.0)
    return INT64_MAX;
  if (v <= -9223372036854775808.0)
    return INT64_MIN;
  return static_cast<int64_t>(v);
}

/// Triton's to_tensor type of a Python number: bool -> int1, int -> int32
/// (uint32, int64, uint64 as needed), float -> fp32 (fp64 outside fp32's
/// range).
DType pythonIntType(int64_t value);
DType pythonFloatType(double value);

} // namespace tilec::frontend

#endif // TILEC_LIB_FRONTEND_DTYPE_H
