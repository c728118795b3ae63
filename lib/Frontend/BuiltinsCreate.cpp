//===- BuiltinsCreate.cpp - Program ids, tile creation, casts
//---------------===//
//
// Part of tilec, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#include "Builtins.h"

#include "tilec/Dialect/Tile/IR/Tile.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/ADT/StringSwitch.h"

#include <cmath>
#include <cstdint>

using namespace tilec;
using namespace tilec::frontend;
using llvm::SMLoc;
using llvm::StringRef;
using mlir::failure;
using mlir::FailureOr;
using mlir::LogicalResult;
using mlir::success;
namespace arith = mlir::arith;
namespace math = mlir::math;

//===----------------------------------------------------------------------===//
// Program ids and tile creation
//===----------------------------------------------------------------------===//

static FailureOr<CGValue> programIdLike(CodeGen &cg, Args &a,
                                        bool numPrograms) {
  int64_t axis = a.integer(0);
  if (axis < 0 || axis > 2)
    return cg.error(a.loc(0), a.call.calleeName +
                                  "() axis must be 0, 1 or 2, "
                                  "got " +
                                  std::to_string(axis));
  mlir::Value v;
  if (numPrograms)
    v = tile::NumProgramsOp::create(cg.builder, cg.loc(),
                                    cg.builder.getI32IntegerAttr(axis));
  else
    v = tile::ProgramIdOp::create(cg.builder, cg.loc(),
                                  cg.builder.getI32IntegerAttr(axis));
  return CGValue::runtime(v, DType::get(ScalarType::I32));
}

static FailureOr<CGValue> builtinArange(CodeGen &cg, Args &a) {
  int64_t start = a.integer(0), end = a.integer(1);
  SMLoc loc = a.call.loc;
  if (start < 0 || start > INT32_MAX || end < 0 || end > INT32_MAX)
    return cg.error(loc, "tl.arange() bounds must fit in int32 and be "
                         "non-negative, got " +
                             std::to_string(start) + " and " +
                             std::to_string(end));
  if (end <= start)
    return cg.error(a.loc(1), "tl.arange()'s end (" + std::to_string(end) +
                                  ") must be greater than its start (" +
                                  std::to_string(start) + ")");
  int64_t length = end - start;
  if ((length & (length - 1)) != 0)
    return cg.error(loc, "tl.arange()'s range must be a power of two, "
                         "but end - start = " +
                             std::to_string(length));
  if (length > kMaxTileElements)
    return cg.error(loc, "tl.arange() of " + std::to_string(length) +
                             " elements is larger than a tile may be (" +
                             std::to_string(kMaxTileElements) + ")");
  auto type = mlir::RankedTensorType::get({length}, cg.builder.getI32Type());
  mlir::Value v = tile::MakeRangeOp::create(cg.builder, cg.loc(), type,
                                            cg.builder.getI32IntegerAttr(start),
                                            cg.builder.getI32IntegerAttr(end));
  return CGValue::runtime(v, DType::get(ScalarType::I32));
}

/// Makes `value` (a number or a run-time scalar) a tile of `shape`, `dtype`.
static FailureOr<CGValue> fullTile(CodeGen &cg, llvm::ArrayRef<int64_t> shape,
                                   const CGValue &value, DType dtype,
                                   SMLoc valueLoc, StringRef what) {
  if (value.isNumber()) {
    if (value.isFloat() && !dtype.isFloat() &&
        !(std::isfinite(value.getFloat()) &&
          value.getFloat() == std::trunc(value.getFloat())))
      return cg.error(valueLoc, what.str() + " (" + value.describe() +
                                    ") is not an integer, so it cannot fill "
                                    "a tile of " +
                                    dtype.str());
    return denseConstant(cg, dtype, shape, value);
  }
  if (!value.isRuntime() || value.isTile() || value.isBlockLike())
    return cg.error(valueLoc, what.str() +
                                  " must be a number or a run-time scalar, "
                                  "got " +
                                  value.describe());
  FailureOr<CGValue> scalar = cg.cast(value, dtype, valueLoc);
  if (failed(scalar))
    return failure();
  return cg.splat(*scalar, shape);
}

/// tl.zeros(shape, dtype) and tl.full(shape, value, dtype).
static FailureOr<CGValue> zerosOrFull(CodeGen &cg, Args &a, bool isFull) {
  if (failed(checkShape(cg, a.ints(0), a.loc(0), a.call.calleeName)))
    return failure();
  if (!isFull)
    return denseConstant(cg, a.dtype(1), a.ints(0), CGValue::integer(0));
  return fullTile(cg, a.ints(0), a.value(1), a.dtype(2), a.loc(1),
                  "the value of tl.full()");
}

/// tl.zeros_like(input, dtype) and tl.full_like(input, value, dtype).
static FailureOr<CGValue> zerosOrFullLike(CodeGen &cg, Args &a, bool isFull) {
  const CGValue &input = a.value(0);
  size_t dtypeIndex = isFull ? 2 : 1;
  DType dtype = a.has(dtypeIndex) ? a.dtype(dtypeIndex) : input.getDType();
  if (!isFull)
    return denseConstant(cg, dtype, input.getShape(), CGValue::integer(0));
  return fullTile(cg, input.getShape(), a.value(1), dtype, a.loc(1),
                  "the value of tl.full_like()");
}

//===----------------------------------------------------------------------===//
// Conversions
//===----------------------------------------------------------------------===//

/// `x.to(dtype, fp_downcast_rounding="rtz")` for a float to a narrower
/// float (fp16, bf16, fp32): the conversion to nearest even, then one unit
/// toward zero wherever that rounded away from zero (|r| > |x|, compared
/// exactly in x's type). An overflow to infinity becomes the largest
/// finite value; NaN and infinities stay. Built from ordinary ops, so it
/// means the same on every backend.
static FailureOr<CGValue> castTowardZero(CodeGen &cg, const CGValue &x,
                                         DType dtype, SMLoc loc) {
  FailureOr<CGValue> rounded = cg.cast(x, dtype, loc);
  if (failed(rounded))
    return failure();
  FailureOr<CGValue> widened = cg.cast(*rounded, x.getDType(), loc);
  if (failed(widened))
    return failure();
  FailureOr<CGValue> absRounded =
      callBuiltinWith(cg, "tl.abs", "tl.abs", loc, {*widened});
  FailureOr<CGValue> absX = callBuiltinWith(cg, "tl.abs", "tl.abs", loc, {x});
  if (failed(absRounded) || failed(absX))
    return failure();
  FailureOr<CGValue> away =
      cg.compareOp(CmpOp::Gt, *absRounded, *absX, loc, loc, loc);
  DType bitsType = DType::get(dtype.getBitWidth() == 16 ? ScalarType::I16
                                                        : ScalarType::I32);
  FailureOr<CGValue> bits = cg.cast(*rounded, bitsType, loc, /*bitcast=*/true);
  if (failed(away) || failed(bits))
    return failure();
  // Sign and magnitude: one less in the magnitude bits is one unit toward
  // zero (r is never +-0 here: |r| > |x| >= 0).
  FailureOr<CGValue> stepped =
      cg.binaryOp(BinaryOp::Sub, *bits, CGValue::integer(1), loc, loc, loc);
  if (failed(stepped))
    return failure();
  FailureOr<CGValue> result = callBuiltinWith(cg, "tl.where", "tl.where", loc,
                                              {*away, *stepped, *bits});
  if (failed(result))
    return failure();
  return cg.cast(*result, dtype, loc, /*bitcast=*/true);
}

/// x.to(dtype, fp_downcast_rounding, bitcast) and tl.cast.
static FailureOr<CGValue> castLike(CodeGen &cg, Args &a) {
  enum { kInput, kDType, kRounding, kBitcast };
  DType dtype = a.dtype(kDType);
  bool bitcast = a.flag(kBitcast);
  std::optional<std::string> rounding;
  if (a.has(kRounding)) {
    StringRef r = a.str(kRounding);
    if (r != "rtne" && r != "rtz")
      return cg.error(a.loc(kRounding), "fp_downcast_rounding must be 'rtne' "
                                        "or 'rtz', got '" +
                                            r + "'");
    rounding = r.str();
  }
  const CGValue &input = a.value(kInput);
  if (input.isNumber() && !rounding)
    return cg.makeConstant(input, dtype);
  FailureOr<CGValue> x = a.toRuntime(kInput);
  if (failed(x))
    return failure();
  if (rounding) {
    // As in Triton: only a floating-point conversion to fewer bits rounds.
    DType from = x->getDType();
    if (bitcast || !from.isFloat() || !dtype.isFloat() ||
        from.getBitWidth() <= dtype.getBitWidth())
      return cg.error(a.loc(kRounding),
                      "fp_downcast_rounding applies only to a "
                      "conversion from a floating-point type to a "
                      "narrower one, not from " +
                          from.str() + " to " + dtype.str() +
                          (bitcast ? " (a bitcast)" : ""));
    if (*rounding == "rtz") {
      if (dtype.getBitWidth() < 16)
        return cg.error(a.loc(kRounding), "fp_downcast_rounding='rtz' to " +
                                              dtype.str() +
                                              " is not supported (fp16, bf16 "
                                              "and fp32 results are)");
      return castTowardZero(cg, *x, dtype, a.call.loc);
    }
  }
  return cg.cast(*x, dtype, a.call.loc, bitcast);
}

static FailureOr<CGValue> builtinPointerType(CodeGen &cg, Args &a) {
  if (!a.dtype(0).isScalar())
    return cg.error(a.loc(0), "pointers to pointers are not supported");
  if (a.has(1) && a.integer(1) != 1)
    return cg.error(a.loc(1), "only address space 1 (global memory) is "
                              "supported");
  return CGValue::dtypeObject(DType::pointer(a.dtype(0).getScalar()));
}

static FailureOr<CGValue> builtinConstexpr(CodeGen &cg, Args &a) {
  if (a.value(0).isRuntime())
    return cg.error(a.loc(0), "tl.constexpr() needs a compile-time value, got "
                              "a run-time " +
                                  a.value(0).describe());
  return a.value(0);
}

//===----------------------------------------------------------------------===//
// Table
//===----------------------------------------------------------------------===//

llvm::ArrayRef<BuiltinSpec> tilec::frontend::getCreateBuiltins() {
  using K = ArgType;
  static const BuiltinSpec specs[] = {
      {"tl.program_id",
       [](CodeGen &cg, Args &a) { return programIdLike(cg, a, false); },
       {req("axis", K::Int)}},
      {"tl.num_programs",
       [](CodeGen &cg, Args &a) { return programIdLike(cg, a, true); },
       {req("axis", K::Int)}},
      {"tl.arange", builtinArange, {req("start", K::Int), req("end", K::Int)}},
      {"tl.zeros",
       [](CodeGen &cg, Args &a) { return zerosOrFull(cg, a, false); },
       {req("shape", K::IntList), req("dtype", K::DType)}},
      {"tl.full",
       [](CodeGen &cg, Args &a) { return zerosOrFull(cg, a, true); },
       {req("shape", K::IntList), req("value"), req("dtype", K::DType)}},
      {"tl.zeros_like",
       [](CodeGen &cg, Args &a) { return zerosOrFullLike(cg, a, false); },
       {req("input", K::Runtime), opt("dtype", K::DType)}},
      {"tl.full_like",
       [](CodeGen &cg, Args &a) { return zerosOrFullLike(cg, a, true); },
       {req("input", K::Runtime), req("value"), opt("dtype", K::DType)}},
      {"tl.cast",
       castLike,
       {req("input"), req("dtype", K::DType),
        optStr("fp_downcast_rounding", ""), optBool("bitcast", false)}},
      {"tensor.to",
       castLike,
       {req("input"), req("dtype", K::DType),
        optStr("fp_downcast_rounding", ""), optBool("bitcast", false)}},
      {"tl.pointer_type",
       builtinPointerType,
       {req("element_ty", K::DType), opt("address_space", K::Int)}},
      {"tl.constexpr", builtinConstexpr, {req("value")}},
  };
  return specs;
}
