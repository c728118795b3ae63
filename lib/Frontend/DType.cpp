//===- DType.cpp - Triton dtypes of the code generator --------------------===//
//
// Part of tilec, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#include "DType.h"

#include "tilec/Dialect/Tile/IR/Tile.h"

#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/StringSwitch.h"

#include <cmath>

using namespace tilec::frontend;

bool DType::isInt() const {
  if (!isScalar())
    return false;
  switch (scalar) {
  case ScalarKind::Int1:
  case ScalarKind::Int8:
  case ScalarKind::Int16:
  case ScalarKind::Int32:
  case ScalarKind::Int64:
  case ScalarKind::UInt8:
  case ScalarKind::UInt16:
  case ScalarKind::UInt32:
  case ScalarKind::UInt64:
    return true;
  default:
    return false;
  }
}

bool DType::isSigned() const {
  if (!isScalar())
    return false;
  switch (scalar) {
  case ScalarKind::Int8:
  case ScalarKind::Int16:
  case ScalarKind::Int32:
  case ScalarKind::Int64:
    return true;
  default:
    return false;
  }
}

bool DType::isFloat() const { return isScalar() && !isInt(); }

bool DType::isFP8() const {
  return isScalar() &&
         (scalar == ScalarKind::FP8E4NV || scalar == ScalarKind::FP8E5);
}

static unsigned scalarBitWidth(ScalarKind scalar) {
  switch (scalar) {
  case ScalarKind::Int1:
    return 1;
  case ScalarKind::Int8:
  case ScalarKind::UInt8:
  case ScalarKind::FP8E4NV:
  case ScalarKind::FP8E5:
    return 8;
  case ScalarKind::Int16:
  case ScalarKind::UInt16:
  case ScalarKind::FP16:
  case ScalarKind::BF16:
    return 16;
  case ScalarKind::Int32:
  case ScalarKind::UInt32:
  case ScalarKind::FP32:
    return 32;
  case ScalarKind::Int64:
  case ScalarKind::UInt64:
  case ScalarKind::FP64:
    return 64;
  }
  return 32;
}

unsigned DType::getBitWidth() const {
  if (!isScalar())
    return 64;
  return scalarBitWidth(scalar);
}

unsigned DType::getMantissaWidth() const {
  switch (scalar) {
  case ScalarKind::FP8E4NV:
    return 3;
  case ScalarKind::FP8E5:
    return 2;
  case ScalarKind::FP16:
    return 10;
  case ScalarKind::BF16:
    return 7;
  case ScalarKind::FP32:
    return 23;
  case ScalarKind::FP64:
    return 52;
  default:
    return 0;
  }
}

TypeClass DType::getTypeClass() const {
  if (isBool())
    return TypeClass::Boolean;
  if (isInt())
    return TypeClass::Integral;
  return TypeClass::Floating;
}

static const char *scalarName(ScalarKind scalar) {
  switch (scalar) {
  case ScalarKind::Int1:
    return "int1";
  case ScalarKind::Int8:
    return "int8";
  case ScalarKind::Int16:
    return "int16";
  case ScalarKind::Int32:
    return "int32";
  case ScalarKind::Int64:
    return "int64";
  case ScalarKind::UInt8:
    return "uint8";
  case ScalarKind::UInt16:
    return "uint16";
  case ScalarKind::UInt32:
    return "uint32";
  case ScalarKind::UInt64:
    return "uint64";
  case ScalarKind::FP8E4NV:
    return "fp8e4nv";
  case ScalarKind::FP8E5:
    return "fp8e5";
  case ScalarKind::FP16:
    return "fp16";
  case ScalarKind::BF16:
    return "bf16";
  case ScalarKind::FP32:
    return "fp32";
  case ScalarKind::FP64:
    return "fp64";
  }
  return "?";
}

static const char *scalarSpelling(ScalarKind scalar) {
  switch (scalar) {
  case ScalarKind::FP8E4NV:
    return "tl.float8e4nv";
  case ScalarKind::FP8E5:
    return "tl.float8e5";
  case ScalarKind::FP16:
    return "tl.float16";
  case ScalarKind::BF16:
    return "tl.bfloat16";
  case ScalarKind::FP32:
    return "tl.float32";
  case ScalarKind::FP64:
    return "tl.float64";
  default:
    break;
  }
  return nullptr;
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
  std::string base;
  if (const char *spelling = scalarSpelling(scalar))
    base = spelling;
  else
    base = std::string("tl.") + scalarName(scalar);
  if (kind == Kind::Pointer)
    return "tl.pointer_type(" + base + ")";
  return base;
}

static mlir::Type scalarToMLIR(ScalarKind scalar, mlir::MLIRContext *ctx) {
  switch (scalar) {
  case ScalarKind::FP8E4NV:
    return mlir::Float8E4M3FNType::get(ctx);
  case ScalarKind::FP8E5:
    return mlir::Float8E5M2Type::get(ctx);
  case ScalarKind::FP16:
    return mlir::Float16Type::get(ctx);
  case ScalarKind::BF16:
    return mlir::BFloat16Type::get(ctx);
  case ScalarKind::FP32:
    return mlir::Float32Type::get(ctx);
  case ScalarKind::FP64:
    return mlir::Float64Type::get(ctx);
  default:
    return mlir::IntegerType::get(ctx, scalarBitWidth(scalar));
  }
}

mlir::Type DType::toMLIR(mlir::MLIRContext *context) const {
  mlir::Type element = scalarToMLIR(scalar, context);
  if (kind == Kind::Pointer)
    return tile::PointerType::get(element);
  return element;
}

std::optional<ScalarKind>
tilec::frontend::parseSignatureTypeName(llvm::StringRef name) {
  return llvm::StringSwitch<std::optional<ScalarKind>>(name)
      .Case("i1", ScalarKind::Int1)
      .Case("i8", ScalarKind::Int8)
      .Case("i16", ScalarKind::Int16)
      .Case("i32", ScalarKind::Int32)
      .Case("i64", ScalarKind::Int64)
      .Case("u8", ScalarKind::UInt8)
      .Case("u16", ScalarKind::UInt16)
      .Case("u32", ScalarKind::UInt32)
      .Case("u64", ScalarKind::UInt64)
      .Case("fp8e4nv", ScalarKind::FP8E4NV)
      .Case("fp8e5", ScalarKind::FP8E5)
      .Case("fp16", ScalarKind::FP16)
      .Case("bf16", ScalarKind::BF16)
      .Case("fp32", ScalarKind::FP32)
      .Case("fp64", ScalarKind::FP64)
      .Default(std::nullopt);
}

llvm::StringRef tilec::frontend::getSignatureTypeName(ScalarKind scalar) {
  switch (scalar) {
  case ScalarKind::Int1:
    return "i1";
  case ScalarKind::Int8:
    return "i8";
  case ScalarKind::Int16:
    return "i16";
  case ScalarKind::Int32:
    return "i32";
  case ScalarKind::Int64:
    return "i64";
  case ScalarKind::UInt8:
    return "u8";
  case ScalarKind::UInt16:
    return "u16";
  case ScalarKind::UInt32:
    return "u32";
  case ScalarKind::UInt64:
    return "u64";
  case ScalarKind::FP8E4NV:
    return "fp8e4nv";
  case ScalarKind::FP8E5:
    return "fp8e5";
  case ScalarKind::FP16:
    return "fp16";
  case ScalarKind::BF16:
    return "bf16";
  case ScalarKind::FP32:
    return "fp32";
  case ScalarKind::FP64:
    return "fp64";
  }
  return "?";
}

std::optional<ScalarKind>
tilec::frontend::lookupLanguageDType(llvm::StringRef name) {
  return llvm::StringSwitch<std::optional<ScalarKind>>(name)
      .Case("int1", ScalarKind::Int1)
      .Case("int8", ScalarKind::Int8)
      .Case("int16", ScalarKind::Int16)
      .Case("int32", ScalarKind::Int32)
      .Case("int64", ScalarKind::Int64)
      .Case("uint8", ScalarKind::UInt8)
      .Case("uint16", ScalarKind::UInt16)
      .Case("uint32", ScalarKind::UInt32)
      .Case("uint64", ScalarKind::UInt64)
      .Cases({"float8e4nv", "float8_e4m3fn"}, ScalarKind::FP8E4NV)
      .Cases({"float8e5", "float8_e5m2"}, ScalarKind::FP8E5)
      .Cases({"float16", "half"}, ScalarKind::FP16)
      .Case("bfloat16", ScalarKind::BF16)
      .Cases({"float32", "float"}, ScalarKind::FP32)
      .Cases({"float64", "double"}, ScalarKind::FP64)
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
        return DType::get(ScalarKind::FP32);
      return tensorTy;
    }
  }
  // 1) double wins.
  if (a.isFP64() || b.isFP64())
    return DType::get(ScalarKind::FP64);
  // 2) then float.
  if (a.isFP32() || b.isFP32())
    return DType::get(ScalarKind::FP32);
  // 3) half, except for / and % which PTX has no fp16 form of.
  if (a.isFP16() || b.isFP16())
    return DType::get(divOrMod ? ScalarKind::FP32 : ScalarKind::FP16);
  // 4) bf16 only if both are.
  if (a.isBF16() && b.isBF16())
    return DType::get(divOrMod ? ScalarKind::FP32 : ScalarKind::BF16);
  if (a.isBF16() || b.isBF16())
    return DType::get(ScalarKind::FP32);
  // 5) two fp8s: the same one, or fp16.
  if (a.isFP8() && b.isFP8())
    return a == b ? a : DType::get(ScalarKind::FP16);
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
    return DType::get(ScalarKind::Int32);
  if (value > INT32_MAX && value <= int64_t(UINT32_MAX))
    return DType::get(ScalarKind::UInt32);
  return DType::get(ScalarKind::Int64);
}

DType tilec::frontend::pythonFloatType(double value) {
  double absValue = std::fabs(value);
  const double minFloat32 = std::ldexp(1.0, -126);
  const double maxFloat32 = (2.0 - std::ldexp(1.0, -23)) * std::ldexp(1.0, 127);
  if (std::isinf(absValue) || absValue == 0.0 || std::isnan(value) ||
      (absValue >= minFloat32 && absValue <= maxFloat32))
    return DType::get(ScalarKind::FP32);
  return DType::get(ScalarKind::FP64);
}
