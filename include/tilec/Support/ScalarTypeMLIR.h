//===- ScalarTypeMLIR.h - Scalar types as MLIR and APFloat types -*- C++ -*-===//
//
// Part of tilec, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// The MLIR and LLVM columns of ScalarTypes.def: the builtin type of each
// scalar type and its APFloat semantics. For the compiler's libraries and
// tools; the runtime uses ScalarType.h only.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_SUPPORT_SCALARTYPEMLIR_H
#define TILEC_SUPPORT_SCALARTYPEMLIR_H

#include "tilec/Support/ScalarType.h"

#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/APFloat.h"

#include <optional>

namespace tilec {

/// The builtin MLIR type of `type`: a signless integer (`u8` and `i8` are
/// both `i8`) or a builtin float.
inline mlir::Type getMLIRType(ScalarType type, mlir::MLIRContext *context) {
  switch (type) {
#define TILEC_INTEGER_TYPE(Enum, Name, DTypeName, Bits, IsSigned, CType)       \
  case ScalarType::Enum:                                                       \
    return mlir::IntegerType::get(context, Bits);
#define TILEC_FLOAT_TYPE(Enum, Name, DTypeName, LanguageName, Bits,            \
                         MantissaBits, CType, MLIRName, MLIRType, Semantics)   \
  case ScalarType::Enum:                                                       \
    return mlir::MLIRType::get(context);
#include "tilec/Support/ScalarTypes.def"
  }
  return {};
}

/// The scalar type of a builtin MLIR type: a signless integer reads as the
/// signed type of its width (`i1` as i1); nullopt for other types.
inline std::optional<ScalarType> getScalarTypeOf(mlir::Type type) {
#define TILEC_INTEGER_TYPE(Enum, Name, DTypeName, Bits, IsSigned, CType)       \
  if (IsSigned || Bits == 1)                                                   \
    if (type.isInteger(Bits))                                                  \
      return ScalarType::Enum;
#define TILEC_FLOAT_TYPE(Enum, Name, DTypeName, LanguageName, Bits,            \
                         MantissaBits, CType, MLIRName, MLIRType, Semantics)   \
  if (llvm::isa<mlir::MLIRType>(type))                                         \
    return ScalarType::Enum;
#include "tilec/Support/ScalarTypes.def"
  return std::nullopt;
}

/// The APFloat semantics of a float type; null for an integer type.
inline const llvm::fltSemantics *getFloatSemantics(ScalarType type) {
  switch (type) {
#define TILEC_FLOAT_TYPE(Enum, Name, DTypeName, LanguageName, Bits,            \
                         MantissaBits, CType, MLIRName, MLIRType, Semantics)   \
  case ScalarType::Enum:                                                       \
    return &llvm::APFloat::EnumToSemantics(llvm::APFloat::Semantics);
#include "tilec/Support/ScalarTypes.def"
  default:
    return nullptr;
  }
}

} // namespace tilec

#endif // TILEC_SUPPORT_SCALARTYPEMLIR_H
