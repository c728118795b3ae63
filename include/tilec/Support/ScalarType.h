//===- ScalarType.h - The scalar types of the tile language -----*- C++ -*-===//
//
// Part of tilec, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// tilec::ScalarType and its properties, generated from ScalarTypes.def (the
// one list of the language's scalar types). Plain C++17 with no MLIR or LLVM
// dependency: the runtime, which links neither, uses it as the frontend and
// the compiler do. The MLIR and APFloat side of each type is in
// ScalarTypeMLIR.h.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_SUPPORT_SCALARTYPE_H
#define TILEC_SUPPORT_SCALARTYPE_H

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace tilec {

/// A scalar (element) type of the tile language, spelled as in Triton
/// signatures (`i32`, `u8`, `fp16`, `bf16`, `fp8e4nv`, ...). The values are
/// the C API's `tilec_type`.
enum class ScalarType : std::uint8_t {
#define TILEC_SCALAR_TYPE(Enum, Name, DTypeName, LanguageName, Bits, CType)    \
  Enum,
#include "tilec/Support/ScalarTypes.def"
};

/// The columns of ScalarTypes.def that need no MLIR.
struct ScalarTypeInfo {
  ScalarType type;
  /// Signature and metadata spelling: `i32`, `fp16`.
  std::string_view name;
  /// Triton's `str(dtype)`: `int32`, `uint8`, `fp16`.
  std::string_view dtypeName;
  /// The `triton.language` attribute: `int32`, `float16`, `bfloat16`.
  std::string_view languageName;
  /// Bits of a value (1 for i1).
  unsigned bits;
  bool isFloat;
  /// A signed integer (`i8`..`i64`); false for i1, u* and floats.
  bool isSigned;
  /// Explicit mantissa bits of a float; 0 for integers.
  unsigned mantissaBits;
  /// The C type of a by-value parameter (`int32_t`, `float`; a float C has
  /// no arithmetic for is its bits, `uint16_t`).
  std::string_view cType;
  /// The builtin MLIR type as printed: `i32` (signless), `f16`, `f8E4M3FN`.
  std::string_view mlirName;

  /// Bytes of a value in memory and as a by-value kernel parameter: 1 for
  /// i1/i8/u8/fp8*, 2 for i16/u16/fp16/bf16, 4 for i32/u32/fp32, 8 for
  /// i64/u64/fp64.
  constexpr std::size_t getBytes() const { return (bits + 7) / 8; }
  constexpr bool isInteger() const { return !isFloat; }
};

/// Every scalar type, in enumerator order.
inline constexpr ScalarTypeInfo kScalarTypes[] = {
#define TILEC_INTEGER_TYPE(Enum, Name, DTypeName, Bits, IsSigned, CType)       \
  {ScalarType::Enum, Name, DTypeName, DTypeName, Bits, false, IsSigned, 0,     \
   CType, "i" #Bits},
#define TILEC_FLOAT_TYPE(Enum, Name, DTypeName, LanguageName, Bits,            \
                         MantissaBits, CType, MLIRName, MLIRType, Semantics)   \
  {ScalarType::Enum, Name, DTypeName, LanguageName, Bits, true, false,          \
   MantissaBits, CType, MLIRName},
#include "tilec/Support/ScalarTypes.def"
};

/// The number of scalar types.
inline constexpr std::size_t kNumScalarTypes =
    sizeof(kScalarTypes) / sizeof(kScalarTypes[0]);

/// The properties of `type`.
constexpr const ScalarTypeInfo &getScalarTypeInfo(ScalarType type) {
  return kScalarTypes[static_cast<std::size_t>(type)];
}

/// Parses a signature type name (`fp32`, `i32`, ...); nullopt for anything
/// else (names are case-sensitive, as in Triton).
constexpr std::optional<ScalarType> parseScalarType(std::string_view name) {
  for (const ScalarTypeInfo &info : kScalarTypes)
    if (info.name == name)
      return info.type;
  return std::nullopt;
}

/// The scalar type whose `triton.language` attribute is `name` (`float16`,
/// `bfloat16`, `uint8`, ...), or nullopt.
constexpr std::optional<ScalarType>
lookupScalarTypeByLanguageName(std::string_view name) {
  for (const ScalarTypeInfo &info : kScalarTypes)
    if (info.languageName == name)
      return info.type;
  return std::nullopt;
}

/// The signature spelling of `type` (`fp32`), NUL-terminated.
constexpr const char *scalarTypeName(ScalarType type) {
  return getScalarTypeInfo(type).name.data();
}

/// Bytes of `type` in memory and as a by-value kernel parameter.
constexpr std::size_t scalarTypeSize(ScalarType type) {
  return getScalarTypeInfo(type).getBytes();
}

/// Bytes of the type whose signature spelling is `name` ("i32" → 4, "fp16"
/// → 2, "i1" → 1); 0 for an unknown name.
constexpr std::size_t scalarTypeSize(std::string_view name) {
  std::optional<ScalarType> type = parseScalarType(name);
  return type ? scalarTypeSize(*type) : 0;
}

/// True for fp16, bf16, fp32, fp64 and the fp8 types.
constexpr bool isFloatType(ScalarType type) {
  return getScalarTypeInfo(type).isFloat;
}

/// True for i1 and the signed and unsigned integer types.
constexpr bool isIntegerType(ScalarType type) {
  return getScalarTypeInfo(type).isInteger();
}

/// True for the signed integer types i8..i64.
constexpr bool isSignedIntegerType(ScalarType type) {
  return getScalarTypeInfo(type).isSigned;
}

} // namespace tilec

#endif // TILEC_SUPPORT_SCALARTYPE_H
