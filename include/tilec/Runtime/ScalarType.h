//===- ScalarType.h - Element and scalar types of the kernel ABI -*- C++ -*-===//
//
// The type names used by signatures ("*fp32:16, i32") and by the kernel
// metadata ("type": "fp32"), with their sizes in the kernel ABI.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_RUNTIME_SCALARTYPE_H
#define TILEC_RUNTIME_SCALARTYPE_H

#include <cstddef>
#include <optional>
#include <string_view>

namespace tilec::runtime {

/// A scalar type of the tile language, spelled as in Triton signatures.
enum class ScalarType {
  I1,      ///< "i1": a boolean, 1 byte in memory and as a kernel parameter.
  I8,      ///< "i8"
  I16,     ///< "i16"
  I32,     ///< "i32"
  I64,     ///< "i64"
  U8,      ///< "u8"
  U16,     ///< "u16"
  U32,     ///< "u32"
  U64,     ///< "u64"
  FP16,    ///< "fp16": IEEE binary16.
  BF16,    ///< "bf16": bfloat16 (the upper half of a binary32).
  FP32,    ///< "fp32": IEEE binary32.
  FP64,    ///< "fp64": IEEE binary64.
  FP8E4NV, ///< "fp8e4nv": OCP e4m3 (finite-only, NaN = 0x7f/0xff).
  FP8E5,   ///< "fp8e5": OCP e5m2.
};

/// Parses a type name ("fp32", "i32", ...). Returns nullopt for anything not
/// in the list above (names are case-sensitive, as in Triton).
std::optional<ScalarType> parseScalarType(std::string_view name);

/// The canonical name ("fp32").
const char *scalarTypeName(ScalarType type);

/// Size in bytes, both as an element in memory and as a by-value kernel
/// parameter: 1 for i1/i8/u8/fp8*, 2 for i16/u16/fp16/bf16, 4 for
/// i32/u32/fp32, 8 for i64/u64/fp64.
std::size_t scalarTypeSize(ScalarType type);

/// True for fp16, bf16, fp32, fp64 and the fp8 types.
bool isFloatType(ScalarType type);

/// True for i1 and the signed and unsigned integer types.
bool isIntegerType(ScalarType type);

} // namespace tilec::runtime

#endif // TILEC_RUNTIME_SCALARTYPE_H
