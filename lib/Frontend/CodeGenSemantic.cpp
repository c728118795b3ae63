//===- CodeGenSemantic.cpp - Triton's operator semantics ------------------===//
//
// Part of tilec, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// Operators on run-time values, following Triton's semantic.py: implicit
// type promotion (computation_type_impl, with Python numbers weakly typed),
// broadcasting (prepend unit dimensions, then expand dimensions of size 1),
// pointer arithmetic, true division of integers in fp32, `//` and `%`
// truncating toward zero on integers, and the cast rules.
//
//===----------------------------------------------------------------------===//

#include "CodeGen.h"

#include "tilec/Dialect/Tile/IR/Tile.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"

#include <cmath>

using namespace tilec;
using namespace tilec::frontend;
using llvm::SMLoc;
using llvm::StringRef;
using mlir::failure;
using mlir::FailureOr;
using mlir::LogicalResult;
using mlir::success;
namespace arith = mlir::arith;

//===----------------------------------------------------------------------===//
// Construction helpers
//===----------------------------------------------------------------------===//

mlir::Type CodeGen::getType(DType dtype, llvm::ArrayRef<int64_t> shape) {
  mlir::Type element = dtype.toMLIR(&context);
  if (shape.empty())
    return element;
  return mlir::RankedTensorType::get(shape, element);
}

mlir::Value CodeGen::makeScalarConstant(DType dtype, double floatValue,
                                        int64_t intValue, bool isFloat) {
  mlir::Type type = dtype.toMLIR(&context);
  mlir::TypedAttr attr;
  if (dtype.isFloat()) {
    attr = mlir::FloatAttr::get(type, isFloat ? floatValue
                                              : static_cast<double>(intValue));
  } else {
    int64_t value = isFloat ? saturatingFloatToInt(floatValue) : intValue;
    unsigned width = dtype.getBitWidth();
    attr = mlir::IntegerAttr::get(
        type, llvm::APInt(width, static_cast<uint64_t>(value),
                          /*isSigned=*/value < 0, /*implicitTrunc=*/true));
  }
  return arith::ConstantOp::create(builder, loc(), attr);
}

CGValue CodeGen::makeConstant(const CGValue &number, DType dtype) {
  mlir::Value value = makeScalarConstant(dtype, number.getNumber(),
                                         number.isFloat() ? 0 : number.getInt(),
                                         number.isFloat());
  return CGValue::runtime(value, dtype);
}

/// The type Triton gives a Python number (to_tensor).
static DType pythonNumberType(const CGValue &number) {
  if (number.isBool())
    return DType::get(ScalarType::I1);
  if (number.isInt())
    return pythonIntType(number.getInt());
  return pythonFloatType(number.getFloat());
}

FailureOr<CGValue> CodeGen::toRuntime(const CGValue &value, SMLoc loc) {
  if (value.isRuntime())
    return value;
  if (value.isNumber())
    return makeConstant(value, pythonNumberType(value));
  return error(loc, "expected a number or a tile, got " + value.describe());
}

CGValue CodeGen::splat(const CGValue &scalar, llvm::ArrayRef<int64_t> shape) {
  if (shape.empty())
    return scalar;
  auto type =
      mlir::cast<mlir::RankedTensorType>(getType(scalar.getDType(), shape));
  mlir::Value result =
      tile::SplatOp::create(builder, loc(), type, scalar.getValue());
  return CGValue::runtime(result, scalar.getDType());
}

CGValue CodeGen::expandDims(const CGValue &value, int64_t axis) {
  llvm::SmallVector<int64_t> shape = value.getShape();
  if (!value.isTile())
    return splat(value, {1});
  shape.insert(shape.begin() + axis, 1);
  mlir::Value result = tile::ExpandDimsOp::create(
      builder, loc(), getType(value.getDType(), shape), value.getValue(),
      static_cast<uint32_t>(axis));
  return CGValue::runtime(result, value.getDType());
}

CGValue CodeGen::reshape(const CGValue &value, llvm::ArrayRef<int64_t> shape,
                         bool allowReorder) {
  if (llvm::ArrayRef<int64_t>(value.getShape()) == shape)
    return value;
  if (!value.isTile())
    return splat(value, shape);
  mlir::Value result =
      tile::ReshapeOp::create(builder, loc(), getType(value.getDType(), shape),
                              value.getValue(), allowReorder);
  return CGValue::runtime(result, value.getDType());
}

FailureOr<CGValue> CodeGen::broadcastTo(const CGValue &value,
                                        llvm::ArrayRef<int64_t> shape,
                                        SMLoc errLoc, StringRef what) {
  if (!value.isTile())
    return splat(value, shape);
  llvm::SmallVector<int64_t> src = value.getShape();
  if (llvm::ArrayRef<int64_t>(src) == shape)
    return value;
  auto fail = [&]() {
    return error(errLoc, "cannot broadcast " + what.str() + " of shape " +
                             shapeToString(src) + " to " +
                             shapeToString(shape));
  };
  if (src.size() > shape.size())
    return fail();
  for (size_t i = 0; i < src.size(); ++i) {
    int64_t s = src[src.size() - 1 - i], d = shape[shape.size() - 1 - i];
    if (s != d && s != 1)
      return fail();
  }
  CGValue result = value;
  while (result.getShape().size() < shape.size())
    result = expandDims(result, 0);
  if (llvm::ArrayRef<int64_t>(result.getShape()) != shape) {
    mlir::Value b = tile::BroadcastOp::create(
        builder, loc(), getType(result.getDType(), shape), result.getValue());
    result = CGValue::runtime(b, result.getDType());
  }
  return result;
}

LogicalResult CodeGen::broadcastPair(CGValue &lhs, CGValue &rhs, SMLoc opLoc,
                                     SMLoc lhsLoc, SMLoc rhsLoc) {
  bool lTile = lhs.isTile(), rTile = rhs.isTile();
  if (!lTile && !rTile)
    return success();
  if (lTile && !rTile) {
    rhs = splat(rhs, lhs.getShape());
    return success();
  }
  if (!lTile && rTile) {
    lhs = splat(lhs, rhs.getShape());
    return success();
  }
  llvm::SmallVector<int64_t> ls = lhs.getShape(), rs = rhs.getShape();
  if (ls == rs)
    return success();
  size_t rank = std::max(ls.size(), rs.size());
  llvm::SmallVector<int64_t> la(rank - ls.size(), 1), ra(rank - rs.size(), 1);
  la.append(ls.begin(), ls.end());
  ra.append(rs.begin(), rs.end());
  llvm::SmallVector<int64_t> result(rank);
  for (size_t i = 0; i < rank; ++i) {
    if (la[i] == ra[i] || ra[i] == 1) {
      result[i] = la[i];
    } else if (la[i] == 1) {
      result[i] = ra[i];
    } else {
      return error(opLoc, "cannot broadcast " + shapeToString(ls) + " with " +
                              shapeToString(rs))
          .note(lhsLoc, "the left operand is " + lhs.describe())
          .note(rhsLoc, "the right operand is " + rhs.describe());
    }
  }
  auto apply = [&](CGValue &v) {
    while (v.getShape().size() < rank)
      v = expandDims(v, 0);
    if (llvm::ArrayRef<int64_t>(v.getShape()) != llvm::ArrayRef(result)) {
      mlir::Value b = tile::BroadcastOp::create(
          builder, loc(), getType(v.getDType(), result), v.getValue());
      v = CGValue::runtime(b, v.getDType());
    }
  };
  apply(lhs);
  apply(rhs);
  return success();
}

//===----------------------------------------------------------------------===//
// Casts
//===----------------------------------------------------------------------===//

FailureOr<CGValue> CodeGen::cast(const CGValue &value, DType dst, SMLoc errLoc,
                                 bool bitcast) {
  DType src = value.getDType();
  if (value.isBlockLike() || dst.isBlockPointer() || dst.isTensorDescriptor())
    return error(errLoc,
                 "cannot convert " + value.describe() + " to " + dst.str());
  llvm::SmallVector<int64_t> shape = value.getShape();
  mlir::Type dstType = getType(dst, shape);
  mlir::Value v = value.getValue();
  auto result = [&](mlir::Value r) { return CGValue::runtime(r, dst); };

  if (bitcast && !src.isPointer() && !dst.isPointer()) {
    if (src == dst)
      return value;
    if (src.getBitWidth() != dst.getBitWidth())
      return error(errLoc, "cannot bitcast " + src.str() + " to " + dst.str() +
                               ": they have different sizes (" +
                               std::to_string(src.getBitWidth()) + " and " +
                               std::to_string(dst.getBitWidth()) + " bits)");
    if (v.getType() == dstType)
      return result(v);
    return result(tile::BitcastOp::create(builder, loc(), dstType, v));
  }
  if (src == dst)
    return value;

  DType fp32 = DType::get(ScalarType::FP32);
  auto viaFP32 = [&]() -> FailureOr<CGValue> {
    FailureOr<CGValue> mid = cast(value, fp32, errLoc);
    if (failed(mid))
      return failure();
    return cast(*mid, dst, errLoc);
  };

  // Float to float.
  if (src.isFloat() && dst.isFloat()) {
    // Triton: fp16/bf16 go through fp32 unless the other side is fp32.
    if ((src.isFP16() || src.isBF16()) && !dst.isFP32())
      return viaFP32();
    if (src.getBitWidth() == dst.getBitWidth())
      return viaFP32();
    if (src.getBitWidth() > dst.getBitWidth())
      return result(arith::TruncFOp::create(builder, loc(), dstType, v));
    return result(arith::ExtFOp::create(builder, loc(), dstType, v));
  }
  // Integer to integer.
  if (src.isInt() && dst.isInt()) {
    if (dst.isBool()) {
      mlir::Value zero = makeScalarConstant(src, 0, 0, false);
      CGValue z = splat(CGValue::runtime(zero, src), shape);
      return result(arith::CmpIOp::create(
          builder, loc(), arith::CmpIPredicate::ne, v, z.getValue()));
    }
    unsigned sw = src.getBitWidth(), dw = dst.getBitWidth();
    if (sw == dw)
      return result(v);
    if (sw > dw)
      return result(arith::TruncIOp::create(builder, loc(), dstType, v));
    if (src.isSigned())
      return result(arith::ExtSIOp::create(builder, loc(), dstType, v));
    return result(arith::ExtUIOp::create(builder, loc(), dstType, v));
  }
  // Float to integer.
  if (src.isFloat() && dst.isInt()) {
    if (src.isFP8() || src.isFP16() || src.isBF16())
      return viaFP32();
    if (dst.isBool()) {
      mlir::Value zero = makeScalarConstant(src, 0.0, 0, true);
      CGValue z = splat(CGValue::runtime(zero, src), shape);
      return result(arith::CmpFOp::create(
          builder, loc(), arith::CmpFPredicate::UNE, v, z.getValue()));
    }
    if (dst.isSigned())
      return result(arith::FPToSIOp::create(builder, loc(), dstType, v));
    return result(arith::FPToUIOp::create(builder, loc(), dstType, v));
  }
  // Integer to float.
  if (src.isInt() && dst.isFloat()) {
    if (dst.isFP8())
      return viaFP32();
    if (src.isSigned())
      return result(arith::SIToFPOp::create(builder, loc(), dstType, v));
    return result(arith::UIToFPOp::create(builder, loc(), dstType, v));
  }
  // Pointers.
  if (src.isPointer() && dst.isInt()) {
    mlir::Type i64 = getType(DType::get(ScalarType::I64), shape);
    if (dst.getBitWidth() == 64)
      return result(tile::PtrToIntOp::create(builder, loc(), dstType, v));
    if (dst.isBool()) {
      CGValue asInt =
          CGValue::runtime(tile::PtrToIntOp::create(builder, loc(), i64, v),
                           DType::get(ScalarType::I64));
      return cast(asInt, dst, errLoc);
    }
    return error(errLoc, "cannot convert " + value.describe() + " to " +
                             dst.str() +
                             " (pointers convert to int64 or "
                             "int1 only)");
  }
  if (src.isInt() && dst.isPointer())
    return result(tile::IntToPtrOp::create(builder, loc(), dstType, v));
  if (src.isPointer() && dst.isPointer())
    return result(tile::BitcastOp::create(builder, loc(), dstType, v));
  return error(errLoc,
               "cannot convert " + value.describe() + " to " + dst.str());
}

FailureOr<CGValue> CodeGen::convertTo(const CGValue &value, DType dtype,
                                      SMLoc errLoc, StringRef what) {
  if (value.isNumber())
    return makeConstant(value, dtype);
  if (value.isRuntime())
    return cast(value, dtype, errLoc);
  return error(errLoc, what.str() + " must be a number or a tile, got " +
                           value.describe());
}

FailureOr<CGValue> CodeGen::toBool(const CGValue &value, SMLoc errLoc) {
  if (value.isConstexpr())
    return makeConstant(CGValue::boolean(value.isTruthy()),
                        DType::get(ScalarType::I1));
  if (value.isBlockLike())
    return error(errLoc, std::string(value.isTensorDescriptor()
                                         ? "a tensor descriptor"
                                         : "a block pointer") +
                             " has no truth value");
  if (value.getDType().isBool())
    return value;
  return cast(value, DType::get(ScalarType::I1), errLoc);
}

FailureOr<bool> CodeGen::constexprTruth(const CGValue &value, SMLoc errLoc) {
  if (value.isConstexpr())
    return value.isTruthy();
  return error(errLoc, "expected a compile-time constant, got a run-time " +
                           value.describe());
}

//===----------------------------------------------------------------------===//
// Binary operators
//===----------------------------------------------------------------------===//

/// Reports `cannot broadcast` for operands whose shapes are incompatible,
/// describing the operands as written (before any conversion).
static LogicalResult checkBroadcastable(CodeGen &cg, const CGValue &lhs,
                                        const CGValue &rhs, SMLoc opLoc,
                                        SMLoc lhsLoc, SMLoc rhsLoc) {
  if (!lhs.isTile() || !rhs.isTile())
    return success();
  llvm::SmallVector<int64_t> ls = lhs.getShape(), rs = rhs.getShape();
  for (size_t i = 0; i < std::min(ls.size(), rs.size()); ++i) {
    int64_t l = ls[ls.size() - 1 - i], r = rs[rs.size() - 1 - i];
    if (l != r && l != 1 && r != 1) {
      cg.error(opLoc, "cannot broadcast " + shapeToString(ls) + " with " +
                          shapeToString(rs))
          .note(lhsLoc, "the left operand is " + lhs.describe())
          .note(rhsLoc, "the right operand is " + rhs.describe());
      return failure();
    }
  }
  return success();
}

/// Whether a Python integer fits in `dtype` (Triton's "Scalar ... is out of
/// range for type ..." check).
static bool fitsIn(int64_t value, DType dtype) {
  unsigned width = dtype.getBitWidth();
  if (dtype.isBool())
    return value == 0 || value == 1;
  if (dtype.isSigned()) {
    if (width >= 64)
      return true;
    int64_t min = -(int64_t(1) << (width - 1)),
            max = (int64_t(1) << (width - 1)) - 1;
    return value >= min && value <= max;
  }
  if (value < 0)
    return false;
  if (width >= 64)
    return true;
  return uint64_t(value) <= (uint64_t(1) << width) - 1;
}

FailureOr<CGValue> CodeGen::binaryOp(BinaryOp op, const CGValue &lhsIn,
                                     const CGValue &rhsIn, SMLoc opLoc,
                                     SMLoc lhsLoc, SMLoc rhsLoc) {
  if (lhsIn.isPoison() || rhsIn.isPoison())
    return failure();
  if (lhsIn.isConstexpr() && rhsIn.isConstexpr())
    return foldBinary(op, lhsIn, rhsIn, opLoc);
  LocationScope scope(*this, opLoc);
  std::string opName = getSpelling(op).str();
  auto unsupported = [&]() {
    return error(opLoc, "unsupported operand types for '" + opName + "': " +
                            lhsIn.describe() + " and " + rhsIn.describe());
  };
  if ((lhsIn.isConstexpr() && !lhsIn.isNumber()) ||
      (rhsIn.isConstexpr() && !rhsIn.isNumber()))
    return unsupported();
  if (lhsIn.isTensorDescriptor() || rhsIn.isTensorDescriptor()) {
    if (op == BinaryOp::Add || op == BinaryOp::Sub)
      return error(opLoc, "'" + opName +
                              "' is not defined on tensor descriptors; give "
                              "the block's offsets to desc.load(offsets) and "
                              "desc.store(offsets, value)");
    return unsupported();
  }
  if (lhsIn.isBlockLike() || rhsIn.isBlockLike()) {
    if (op == BinaryOp::Add || op == BinaryOp::Sub)
      return error(opLoc, "'" + opName +
                              "' is not defined on block pointers; use "
                              "tl.advance(ptr, offsets) to move a block "
                              "pointer");
    return unsupported();
  }
  if (op == BinaryOp::MatMul)
    return error(opLoc, "'@' is not supported in a tilec kernel; use "
                        "tl.dot(a, b) for a matrix product");
  if (op == BinaryOp::Pow)
    return error(opLoc, "'**' is only supported on compile-time constants; "
                        "for run-time values multiply explicitly or use "
                        "tl.exp2(y * tl.log2(x))");

  if (failed(checkBroadcastable(*this, lhsIn, rhsIn, opLoc, lhsLoc, rhsLoc)))
    return failure();
  bool lhsPy = lhsIn.isConstexpr(), rhsPy = rhsIn.isConstexpr();
  DType lt = lhsPy ? pythonNumberType(lhsIn) : lhsIn.getDType();
  DType rt = rhsPy ? pythonNumberType(rhsIn) : rhsIn.getDType();

  // A Python integer operand must fit the computation type (Triton's
  // binary_op_type_checking_impl).
  auto checkPythonInts = [&](DType ret) -> LogicalResult {
    for (auto [isPy, value, vloc] : {std::tuple(lhsPy, &lhsIn, lhsLoc),
                                     std::tuple(rhsPy, &rhsIn, rhsLoc)}) {
      if (!isPy || !ret.isInt() || value->isFloat())
        continue;
      if (!fitsIn(value->getInt(), ret)) {
        if (value->getInt() < 0 && ret.isUnsigned())
          return error(vloc, "cannot combine the negative constant " +
                                 value->repr() + " with an unsigned " +
                                 ret.str() +
                                 " value; convert one of them explicitly");
        return error(vloc, "the constant " + value->repr() +
                               " does not fit in " + ret.str() +
                               ", the type of the other operand");
      }
    }
    return success();
  };

  // Bitwise operators: integers only; a Python number is weakly typed as
  // in the arithmetic below (Triton's bitwise_op_type_checking_impl runs
  // binary_op_type_checking_impl first: `x_u8 >> 2` stays uint8).
  if (op == BinaryOp::BitAnd || op == BinaryOp::BitOr ||
      op == BinaryOp::BitXor || op == BinaryOp::LShift ||
      op == BinaryOp::RShift) {
    if (!lt.isInt() || !rt.isInt())
      return error(opLoc, "'" + opName +
                              "' needs integer (or int1) "
                              "operands, got " +
                              lhsIn.describe() + " and " + rhsIn.describe());
    std::string reason;
    std::optional<DType> computed = computationType(
        lt, lhsPy, rt, rhsPy, /*divOrMod=*/false, reason);
    if (!computed)
      return error(opLoc, "invalid operands for '" + opName + "': " + reason);
    DType ret = *computed;
    if (failed(checkPythonInts(ret)))
      return failure();
    FailureOr<CGValue> lhs = convertTo(lhsIn, ret, lhsLoc, "left operand");
    FailureOr<CGValue> rhs = convertTo(rhsIn, ret, rhsLoc, "right operand");
    if (failed(lhs) || failed(rhs))
      return failure();
    if (failed(broadcastPair(*lhs, *rhs, opLoc, lhsLoc, rhsLoc)))
      return failure();
    mlir::Value a = lhs->getValue(), b = rhs->getValue();
    mlir::Value r;
    switch (op) {
    case BinaryOp::BitAnd:
      r = arith::AndIOp::create(builder, loc(), a, b);
      break;
    case BinaryOp::BitOr:
      r = arith::OrIOp::create(builder, loc(), a, b);
      break;
    case BinaryOp::BitXor:
      r = arith::XOrIOp::create(builder, loc(), a, b);
      break;
    case BinaryOp::LShift:
      r = arith::ShLIOp::create(builder, loc(), a, b);
      break;
    default:
      if (ret.isSigned())
        r = arith::ShRSIOp::create(builder, loc(), a, b);
      else
        r = arith::ShRUIOp::create(builder, loc(), a, b);
      break;
    }
    return CGValue::runtime(r, ret);
  }

  // Pointer arithmetic.
  if (lt.isPointer() || rt.isPointer()) {
    bool ok = (op == BinaryOp::Add && (lt.isPointer() != rt.isPointer())) ||
              (op == BinaryOp::Sub && lt.isPointer() && !rt.isPointer());
    if (!ok) {
      if (lt.isPointer() && rt.isPointer())
        return error(opLoc, "'" + opName +
                                "' is not defined between two "
                                "pointers (" +
                                lhsIn.describe() + " and " + rhsIn.describe() +
                                ")");
      return unsupported();
    }
    bool ptrOnLeft = lt.isPointer();
    const CGValue &ptrIn = ptrOnLeft ? lhsIn : rhsIn;
    const CGValue &offIn = ptrOnLeft ? rhsIn : lhsIn;
    SMLoc offLoc = ptrOnLeft ? rhsLoc : lhsLoc;
    DType ot = ptrOnLeft ? rt : lt;
    if (!ot.isInt()) {
      auto diag = error(opLoc, "pointer arithmetic needs an integer offset, "
                               "but the offset is " +
                                   offIn.describe());
      if (offIn.isRuntime())
        diag.note(offLoc, "the offset is " + offIn.describe() +
                              "; convert it with .to(tl.int32) if that is "
                              "what you mean");
      else
        diag.note(offLoc, "the offset is the float " + offIn.repr());
      return failure();
    }
    CGValue offset;
    if (offIn.isConstexpr()) {
      int64_t v = offIn.getInt();
      if (op == BinaryOp::Sub) {
        if (v == INT64_MIN)
          return error(opLoc, "pointer offset overflows");
        v = -v;
      }
      offset = makeConstant(CGValue::integer(v), pythonIntType(v));
      if (!offset.getDType().isSigned())
        offset =
            makeConstant(CGValue::integer(v), DType::get(ScalarType::I64));
    } else {
      offset = offIn;
      if (op == BinaryOp::Sub) {
        mlir::Value zero = makeScalarConstant(offset.getDType(), 0, 0, false);
        CGValue z =
            splat(CGValue::runtime(zero, offset.getDType()), offset.getShape());
        offset =
            CGValue::runtime(arith::SubIOp::create(builder, loc(), z.getValue(),
                                                   offset.getValue()),
                             offset.getDType());
      }
      // addptr sign-extends: zero-extend narrow unsigned offsets first.
      if (offset.getDType().isUnsigned() &&
          offset.getDType().getBitWidth() < 64) {
        FailureOr<CGValue> wide =
            cast(offset, DType::get(ScalarType::I64), offLoc);
        if (failed(wide))
          return failure();
        // The unsigned source zero-extends.
        offset = *wide;
      }
    }
    CGValue ptr = ptrIn;
    if (failed(broadcastPair(ptr, offset, opLoc, ptrOnLeft ? lhsLoc : rhsLoc,
                             offLoc)))
      return failure();
    mlir::Value r =
        tile::AddPtrOp::create(builder, loc(), ptr.getValue().getType(),
                               ptr.getValue(), offset.getValue());
    return CGValue::runtime(r, ptr.getDType());
  }

  // Arithmetic.
  bool divOrMod =
      op == BinaryOp::Div || op == BinaryOp::FloorDiv || op == BinaryOp::Mod;
  std::string reason;
  std::optional<DType> ret =
      computationType(lt, lhsPy, rt, rhsPy, divOrMod, reason);
  if (!ret)
    return error(opLoc, "invalid operands for '" + opName + "': " + reason);
  if (failed(checkPythonInts(*ret)))
    return failure();
  FailureOr<CGValue> lhs = convertTo(lhsIn, *ret, lhsLoc, "left operand");
  FailureOr<CGValue> rhs = convertTo(rhsIn, *ret, rhsLoc, "right operand");
  if (failed(lhs) || failed(rhs))
    return failure();
  if (failed(broadcastPair(*lhs, *rhs, opLoc, lhsLoc, rhsLoc)))
    return failure();
  mlir::Value a = lhs->getValue(), b = rhs->getValue();
  bool isFloat = ret->isFloat();
  switch (op) {
  case BinaryOp::Add:
    return CGValue::runtime(
        isFloat ? arith::AddFOp::create(builder, loc(), a, b).getResult()
                : arith::AddIOp::create(builder, loc(), a, b).getResult(),
        *ret);
  case BinaryOp::Sub:
    return CGValue::runtime(
        isFloat ? arith::SubFOp::create(builder, loc(), a, b).getResult()
                : arith::SubIOp::create(builder, loc(), a, b).getResult(),
        *ret);
  case BinaryOp::Mul:
    return CGValue::runtime(
        isFloat ? arith::MulFOp::create(builder, loc(), a, b).getResult()
                : arith::MulIOp::create(builder, loc(), a, b).getResult(),
        *ret);
  case BinaryOp::Div: {
    // `/` is Triton's: not rounded as IEEE requires (`arcp`: a GPU divides
    // f32 with the 2-ulp `div.full.f32`, as Triton does); tl.div_rn and
    // tl.fdiv(..., ieee_rounding=True) are (builtinFdiv clears the flag).
    // fp64's `/` is IEEE-rounded, as Triton's (`div.rn.f64`): with `arcp`
    // LLVM would divide by a constant or a loop-invariant divisor as a
    // product with its rounded reciprocal, on both backends.
    auto approx = arith::FastMathFlagsAttr::get(
        builder.getContext(), ret->isFP64() ? arith::FastMathFlags::none
                                            : arith::FastMathFlags::arcp);
    if (!isFloat) {
      // int / int is computed in fp32.
      DType fp32 = DType::get(ScalarType::FP32);
      FailureOr<CGValue> fa = cast(*lhs, fp32, lhsLoc);
      FailureOr<CGValue> fb = cast(*rhs, fp32, rhsLoc);
      if (failed(fa) || failed(fb))
        return failure();
      return CGValue::runtime(arith::DivFOp::create(builder, loc(), fa->getValue(),
                                                    fb->getValue(), approx),
                              fp32);
    }
    return CGValue::runtime(arith::DivFOp::create(builder, loc(), a, b, approx), *ret);
  }
  case BinaryOp::FloorDiv:
    if (isFloat)
      return error(opLoc, "'//' needs integer operands in a tilec kernel "
                          "(as in Triton), got " +
                              lhsIn.describe() + " and " + rhsIn.describe() +
                              "; use tl.floor(a / b) for floats");
    return CGValue::runtime(
        ret->isSigned()
            ? arith::DivSIOp::create(builder, loc(), a, b).getResult()
            : arith::DivUIOp::create(builder, loc(), a, b).getResult(),
        *ret);
  case BinaryOp::Mod:
    if (isFloat)
      return CGValue::runtime(arith::RemFOp::create(builder, loc(), a, b),
                              *ret);
    return CGValue::runtime(
        ret->isSigned()
            ? arith::RemSIOp::create(builder, loc(), a, b).getResult()
            : arith::RemUIOp::create(builder, loc(), a, b).getResult(),
        *ret);
  default:
    break;
  }
  return unsupported();
}

//===----------------------------------------------------------------------===//
// Comparisons
//===----------------------------------------------------------------------===//

FailureOr<CGValue> CodeGen::compareOp(CmpOp op, const CGValue &lhsIn,
                                      const CGValue &rhsIn, SMLoc opLoc,
                                      SMLoc lhsLoc, SMLoc rhsLoc) {
  if (lhsIn.isPoison() || rhsIn.isPoison())
    return failure();
  if (lhsIn.isConstexpr() && rhsIn.isConstexpr())
    return foldCompare(op, lhsIn, rhsIn, opLoc);
  LocationScope scope(*this, opLoc);
  std::string opName = getSpelling(op).str();
  if (op == CmpOp::Is || op == CmpOp::IsNot) {
    // A run-time value is never None, and is itself.
    bool same = lhsIn.isRuntime() && rhsIn.isRuntime() &&
                lhsIn.getValue() == rhsIn.getValue();
    return CGValue::boolean(op == CmpOp::Is ? same : !same);
  }
  if (op == CmpOp::In || op == CmpOp::NotIn)
    return error(opLoc, "'" + opName + "' needs compile-time constants, got " +
                            lhsIn.describe() + " and " + rhsIn.describe());
  if ((lhsIn.isConstexpr() && !lhsIn.isNumber()) ||
      (rhsIn.isConstexpr() && !rhsIn.isNumber()) || lhsIn.isBlockLike() ||
      rhsIn.isBlockLike())
    return error(opLoc, "unsupported operand types for '" + opName + "': " +
                            lhsIn.describe() + " and " + rhsIn.describe());
  if (failed(checkBroadcastable(*this, lhsIn, rhsIn, opLoc, lhsLoc, rhsLoc)))
    return failure();
  bool lhsPy = lhsIn.isConstexpr(), rhsPy = rhsIn.isConstexpr();
  DType lt = lhsPy ? pythonNumberType(lhsIn) : lhsIn.getDType();
  DType rt = rhsPy ? pythonNumberType(rhsIn) : rhsIn.getDType();
  if (lt.isPointer() || rt.isPointer())
    return error(opLoc, "pointers cannot be compared with '" + opName + "' (" +
                            lhsIn.describe() + " and " + rhsIn.describe() +
                            ")");
  std::string reason;
  std::optional<DType> ret =
      computationType(lt, lhsPy, rt, rhsPy, /*divOrMod=*/false, reason);
  if (!ret)
    return error(opLoc, "invalid operands for '" + opName + "': " + reason);
  FailureOr<CGValue> lhs = convertTo(lhsIn, *ret, lhsLoc, "left operand");
  FailureOr<CGValue> rhs = convertTo(rhsIn, *ret, rhsLoc, "right operand");
  if (failed(lhs) || failed(rhs))
    return failure();
  if (failed(broadcastPair(*lhs, *rhs, opLoc, lhsLoc, rhsLoc)))
    return failure();
  mlir::Value a = lhs->getValue(), b = rhs->getValue();
  DType i1 = DType::get(ScalarType::I1);
  if (ret->isFloat()) {
    // Exact equality of computed floats is rarely what is meant. Comparing
    // with 0 or an infinity (sentinels) and `x != x` (a NaN test) are fine.
    auto isSentinel = [](const CGValue &v) {
      return v.isConstexpr() && v.isNumber() &&
             (v.getNumber() == 0.0 || std::isinf(v.getNumber()));
    };
    if ((op == CmpOp::Eq || op == CmpOp::NotEq) && !isSentinel(lhsIn) &&
        !isSentinel(rhsIn) && a != b && combineFunctionDepth == 0)
      warning(opLoc, "comparing floating-point values with '" + opName +
                         "' is exact and sensitive to rounding; compare the "
                         "difference with a tolerance (tl.abs(a - b) < eps) "
                         "if that is what you mean");
    arith::CmpFPredicate pred;
    switch (op) {
    case CmpOp::Eq:
      pred = arith::CmpFPredicate::OEQ;
      break;
    case CmpOp::NotEq:
      pred = arith::CmpFPredicate::UNE;
      break;
    case CmpOp::Lt:
      pred = arith::CmpFPredicate::OLT;
      break;
    case CmpOp::LtE:
      pred = arith::CmpFPredicate::OLE;
      break;
    case CmpOp::Gt:
      pred = arith::CmpFPredicate::OGT;
      break;
    default:
      pred = arith::CmpFPredicate::OGE;
      break;
    }
    return CGValue::runtime(arith::CmpFOp::create(builder, loc(), pred, a, b),
                            i1);
  }
  bool isSigned = ret->isSigned();
  arith::CmpIPredicate pred;
  switch (op) {
  case CmpOp::Eq:
    pred = arith::CmpIPredicate::eq;
    break;
  case CmpOp::NotEq:
    pred = arith::CmpIPredicate::ne;
    break;
  case CmpOp::Lt:
    pred = isSigned ? arith::CmpIPredicate::slt : arith::CmpIPredicate::ult;
    break;
  case CmpOp::LtE:
    pred = isSigned ? arith::CmpIPredicate::sle : arith::CmpIPredicate::ule;
    break;
  case CmpOp::Gt:
    pred = isSigned ? arith::CmpIPredicate::sgt : arith::CmpIPredicate::ugt;
    break;
  default:
    pred = isSigned ? arith::CmpIPredicate::sge : arith::CmpIPredicate::uge;
    break;
  }
  return CGValue::runtime(arith::CmpIOp::create(builder, loc(), pred, a, b),
                          i1);
}

//===----------------------------------------------------------------------===//
// Unary operators
//===----------------------------------------------------------------------===//

FailureOr<CGValue> CodeGen::unaryOp(UnaryOp op, const CGValue &operand,
                                    SMLoc opLoc) {
  if (operand.isPoison())
    return failure();
  if (operand.isConstexpr())
    return foldUnary(op, operand, opLoc);
  LocationScope scope(*this, opLoc);
  DType dtype = operand.getDType();
  if (operand.isBlockLike())
    return error(opLoc, "unary '" + getSpelling(op) + "' is not defined on " +
                            (operand.isTensorDescriptor()
                                 ? "tensor descriptors"
                                 : "block pointers"));
  mlir::Value v = operand.getValue();
  switch (op) {
  case UnaryOp::Plus:
    return operand;
  case UnaryOp::Minus: {
    if (dtype.isPointer())
      return error(opLoc, "unary '-' is not defined on pointers (" +
                              operand.describe() + ")");
    if (dtype.isFloat())
      return CGValue::runtime(arith::NegFOp::create(builder, loc(), v), dtype);
    mlir::Value zero = makeScalarConstant(dtype, 0, 0, false);
    CGValue z = splat(CGValue::runtime(zero, dtype), operand.getShape());
    return CGValue::runtime(
        arith::SubIOp::create(builder, loc(), z.getValue(), v), dtype);
  }
  case UnaryOp::Invert: {
    if (!dtype.isInt())
      return error(opLoc, "'~' needs an integer (or int1) operand, got " +
                              operand.describe());
    mlir::Value ones = makeScalarConstant(dtype, 0, -1, false);
    CGValue o = splat(CGValue::runtime(ones, dtype), operand.getShape());
    return CGValue::runtime(
        arith::XOrIOp::create(builder, loc(), v, o.getValue()), dtype);
  }
  case UnaryOp::Not: {
    if (operand.isTile() && !dtype.isBool())
      return error(opLoc, "'not' is not supported on a " + operand.describe() +
                              " tile; use '~' on int1 masks or compare with "
                              "'== 0'");
    FailureOr<CGValue> b = toBool(operand, opLoc);
    if (failed(b))
      return failure();
    DType i1 = DType::get(ScalarType::I1);
    mlir::Value t = makeScalarConstant(i1, 0, 1, false);
    CGValue tv = splat(CGValue::runtime(t, i1), operand.getShape());
    return CGValue::runtime(
        arith::XOrIOp::create(builder, loc(), b->getValue(), tv.getValue()),
        i1);
  }
  }
  return failure();
}
