//===- DType.cpp - Triton dtypes of the code generator --------------------===//
//
// Part of tilec, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#include "DType.h"

#include "tilec/Dialect/Tile/IR/Tile.h"
#include "tilec/Support/ScalarTypeMLIR.h"

#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/StringSwitch.h"

#include <cmath>

using namespace tilec;
using namespace tilec::frontend;

unsigned DType::getBitWidth() const {
  if (!isScalar())
    return 64;
  return getScalarTypeInfo(scalar).bits;
}

unsigned DType::getMantissaWidth() const {
  return getScalarTypeInfo(scalar).mantissaBits;
}

TypeClass DType::getTypeClass() const {
  if (isBool())
    return TypeClass::Boolean;
  if (isInt())
    return TypeClass::Integral;
  return TypeClass::Floating;
}

static std::string scalarName(ScalarType scalar) {
  return std::string(getScalarTypeInfo(scalar).dtypeName);
}

std::string DType::str() const {
  switch (kind) {
  case Kind::Scalar:
    return scalarName(scalar);
  case Kind::Pointer:
    return std::string("pointer<") + scalarName(scalar) + ">";
  case Kind::BlockPointer:
    return std::string("block_ptr<") + scalarName(scalar) + ">";
  case Kind::TensorDescriptor:
    return std::string("tensor_descriptor<") + scalarName(scalar) + ">";
  }
  return "?";
}

std::string DType::getSpelling() const {
  std::string base =
      "tl." + std::string(getScalarTypeInfo(scalar).languageName);
  if (kind == Kind::Pointer)
    return "tl.pointer_type(" + base + ")";
  return base;
}

mlir::Type DType::toMLIR(mlir::MLIRContext *context) const {
  mlir::Type element = getMLIRType(scalar, context);
  if (kind == Kind::Pointer)
    return tile::PointerType::get(element);
  return element;
}

std::optional<ScalarType>
tilec::frontend::lookupLanguageDType(llvm::StringRef name) {
  if (std::optional<ScalarType> scalar = lookupScalarTypeByLanguageName(name))
    return scalar;
  // The other names Triton and PyTorch users write.
  return llvm::StringSwitch<std::optional<ScalarType>>(name)
      .Case("float8_e4m3fn", ScalarType::FP8E4NV)
      .Case("float8_e5m2", ScalarType::FP8E5)
      .Case("half", ScalarType::FP16)
      .Case("float", ScalarType::FP32)
      .Case("double", ScalarType::FP64)
      .Default(std::nullopt);
}

DType tilec::frontend::integerPromote(DType a, DType b) {
  unsigned aRank = a.getBitWidth(), bRank = b.getBitWidth();
  bool aSigned = a.isSigned(), bSigned = b.isSigned();
  if (aSigned == bSigned)
    return aRank > bRank ? a : b;
  if (!aSigned)
    return aRank >= bRank ? a : b;
  return bRank >= aRank ? b : a;
}

std::optional<DType> tilec::frontend::computationType(DType a, bool aIsPython,
                                                      DType b, bool bIsPython,
                                                      bool divOrMod,
                                                      std::string &reason) {
  // 0) A Python number of a lower or equal kind does not take part.
  if (aIsPython != bIsPython) {
    DType scalarTy = aIsPython ? a : b;
    DType tensorTy = aIsPython ? b : a;
    if (static_cast<int>(scalarTy.getTypeClass()) <=
        static_cast<int>(tensorTy.getTypeClass())) {
      if (divOrMod && (tensorTy.isFP16() || tensorTy.isBF16()))
        return DType::get(ScalarType::FP32);
      return tensorTy;
    }
  }
  // 1) double wins.
  if (a.isFP64() || b.isFP64())
    return DType::get(ScalarType::FP64);
  // 2) then float.
  if (a.isFP32() || b.isFP32())
    return DType::get(ScalarType::FP32);
  // 3) half, except for / and % which PTX has no fp16 form of.
  if (a.isFP16() || b.isFP16())
    return DType::get(divOrMod ? ScalarType::FP32 : ScalarType::FP16);
  // 4) bf16 only if both are.
  if (a.isBF16() && b.isBF16())
    return DType::get(divOrMod ? ScalarType::FP32 : ScalarType::BF16);
  if (a.isBF16() || b.isBF16())
    return DType::get(ScalarType::FP32);
  // 5) two fp8s: the same one, or fp16.
  if (a.isFP8() && b.isFP8())
    return a == b ? a : DType::get(ScalarType::FP16);
  if (!a.isInt() || !b.isInt()) {
    reason = "unexpected types " + a.str() + " and " + b.str();
    return std::nullopt;
  }
  // 6) integer promotion.
  if (divOrMod && a.isSigned() != b.isSigned()) {
    reason = "cannot use /, // or % with " + a.str() + " and " + b.str() +
             " because they have different signedness; cast them to the "
             "same signedness";
    return std::nullopt;
  }
  return integerPromote(a, b);
}

DType tilec::frontend::pythonIntType(int64_t value) {
  if (value >= INT32_MIN && value <= INT32_MAX)
    return DType::get(ScalarType::I32);
  if (value > INT32_MAX && value <= int64_t(UINT32_MAX))
    return DType::get(ScalarType::U32);
  return DType::get(ScalarType::I64);
}

DType tilec::frontend::pythonFloatType(double value) {
  double absValue = std::fabs(value);
  const double minFloat32 = std::ldexp(1.0, -126);
  const double maxFloat32 = (2.0 - std::ldexp(1.0, -23)) * std::ldexp(1.0, 127);
  if (std::isinf(absValue) || absValue == 0.0 || std::isnan(value) ||
      (absValue >= minFloat32 && absValue <= maxFloat32))
    return DType::get(ScalarType::FP32);
  return DType::get(ScalarType::FP64);
}
