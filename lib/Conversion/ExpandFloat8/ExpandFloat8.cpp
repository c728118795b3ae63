//===- ExpandFloat8.cpp - fp8 conversions as integer arithmetic -----------===//
//
// Part of tilec, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// The expand-fp8-conversions pass (see Conversion/Passes.td). The narrowing
// is the branch-free float-to-small-float conversion of F. Giesen's
// "float_to_half_fast3_rtne", generalized to E exponent and M mantissa
// bits, with saturation instead of overflow to infinity.
//
//===----------------------------------------------------------------------===//

#include "tilec/Conversion/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/PatternMatch.h"
#include "llvm/ADT/bit.h"

#include <cmath>
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace tilec {
#define GEN_PASS_DEF_EXPANDFLOAT8CONVERSIONS
#include "tilec/Conversion/Passes.h.inc"
} // namespace tilec

#define DEBUG_TYPE "expand-fp8-conversions"

using namespace mlir;
using namespace tilec;

namespace {

/// The layout of an fp8 format.
struct Float8Format {
  unsigned mantissaBits; ///< M
  int bias;              ///< B
  uint32_t maxFinite;    ///< Code of the largest finite magnitude.
  bool ieeeLike;         ///< Has infinities (e5m2) or not (e4m3fn).
};

std::optional<Float8Format> getFormat(Type type) {
  if (isa<Float8E4M3FNType>(type))
    return Float8Format{3, 7, 0x7e, false};
  if (isa<Float8E5M2Type>(type))
    return Float8Format{2, 15, 0x7b, true};
  return std::nullopt;
}

/// The canonical NaN both formats produce.
constexpr uint32_t kNaNCode = 0x7f;

struct IntBuilder {
  OpBuilder &b;
  Location loc;
  Type i32;

  Value c(uint32_t value) {
    return arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(value));
  }
  Value f32(float value) {
    return arith::ConstantOp::create(b, loc, b.getF32FloatAttr(value));
  }
  Value f32Bits(uint32_t bits) {
    return arith::ConstantOp::create(
        b, loc, b.getF32FloatAttr(llvm::bit_cast<float>(bits)));
  }
  Value toBits(Value f) { return arith::BitcastOp::create(b, loc, i32, f); }
  Value toFloat(Value i) {
    return arith::BitcastOp::create(b, loc, b.getF32Type(), i);
  }
  Value select(Value cond, Value t, Value f) {
    return arith::SelectOp::create(b, loc, cond, t, f);
  }
  Value cmp(arith::CmpIPredicate pred, Value x, Value y) {
    return arith::CmpIOp::create(b, loc, pred, x, y);
  }
};

/// Widens or narrows a float to f32 for narrowToFloat8Bits: exact from
/// f16/bf16; from f64 rounded to odd (toward zero, then the last bit set if
/// anything was lost). Rounded to nearest instead, an f64 just beyond an fp8
/// midpoint would become the midpoint in f32 and then round to the even fp8
/// value, the wrong way; rounded to odd, the one fp8 rounding after it is
/// the correctly rounded fp8 of the f64 (f32 keeps more than twice fp8's
/// precision plus two bits).
Value toF32(OpBuilder &b, Location loc, Value value) {
  Type f32 = b.getF32Type();
  unsigned width = value.getType().getIntOrFloatBitWidth();
  if (value.getType() == f32)
    return value;
  if (width <= 32)
    return arith::ExtFOp::create(b, loc, f32, value);
  IntBuilder ib{b, loc, b.getI32Type()};
  Value nearest = arith::TruncFOp::create(b, loc, f32, value);
  Value back = arith::ExtFOp::create(b, loc, value.getType(), nearest);
  // Inexact (a NaN compares unordered: left as it is).
  Value inexact =
      arith::CmpFOp::create(b, loc, arith::CmpFPredicate::ONE, back, value);
  Value bits = ib.toBits(nearest);
  Value even = ib.cmp(arith::CmpIPredicate::eq,
                      arith::AndIOp::create(b, loc, bits, ib.c(1)), ib.c(0));
  // An inexact, even result is one of the two f32 neighbours of the value;
  // the other one, odd, is a step of the magnitude toward the value: down
  // where the rounding went away from zero (an overflow to infinity becomes
  // the largest finite value), up where it went toward zero (an underflow
  // to zero becomes the smallest subnormal).
  Value zero = arith::ConstantOp::create(
      b, loc, b.getFloatAttr(value.getType(), 0.0));
  Value positive =
      arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGT, value, zero);
  Value above = ib.select(
      positive,
      arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGT, back, value),
      arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT, back, value));
  Value odd = ib.select(above, arith::SubIOp::create(b, loc, bits, ib.c(1)),
                        arith::AddIOp::create(b, loc, bits, ib.c(1)));
  Value fix = arith::AndIOp::create(b, loc, inexact, even);
  return ib.toFloat(ib.select(fix, odd, bits));
}

/// f32 -> fp8 bits (an i32 holding the byte), rounding to nearest even with
/// saturation.
Value narrowToFloat8Bits(OpBuilder &b, Location loc, Value x,
                         const Float8Format &format) {
  IntBuilder ib{b, loc, b.getI32Type()};
  unsigned m = format.mantissaBits;
  int bias = format.bias;
  unsigned shift = 23 - m;
  Value bits = ib.toBits(x);
  Value sign = arith::AndIOp::create(b, loc, bits, ib.c(0x80000000u));
  Value abs = arith::XOrIOp::create(b, loc, bits, sign);
  Value isNaN = ib.cmp(arith::CmpIPredicate::ugt, abs, ib.c(0x7f800000u));
  // Below the smallest normal fp8 magnitude: adding 2^(1 - B) scaled so that
  // one f32 ulp is one fp8 subnormal step rounds to nearest even in the
  // adder; subtracting the magic's bits leaves the fp8 code.
  uint32_t magicBits = uint32_t((127 - bias) + shift + 1) << 23;
  Value isSubnormal = ib.cmp(arith::CmpIPredicate::ult, abs,
                             ib.c(uint32_t(127 - bias + 1) << 23));
  Value subnormal = arith::SubIOp::create(
      b, loc,
      ib.toBits(arith::AddFOp::create(b, loc, ib.toFloat(abs),
                                      ib.f32Bits(magicBits))),
      ib.c(magicBits));
  // Normal: rebias the exponent and round the dropped bits to nearest even
  // (add half an fp8 ulp minus one, plus one if the kept mantissa is odd).
  Value odd = arith::AndIOp::create(
      b, loc, arith::ShRUIOp::create(b, loc, abs, ib.c(shift)), ib.c(1));
  Value rounded = arith::AddIOp::create(
      b, loc, abs,
      ib.c(uint32_t(int32_t(bias - 127) * (1 << 23)) +
           ((1u << (shift - 1)) - 1)));
  rounded = arith::AddIOp::create(b, loc, rounded, odd);
  Value normal = arith::ShRUIOp::create(b, loc, rounded, ib.c(shift));
  Value code = ib.select(isSubnormal, subnormal, normal);
  // Saturate (satfinite): anything beyond the largest finite value, and
  // infinities, become it.
  code = arith::MinUIOp::create(b, loc, code, ib.c(format.maxFinite));
  code = ib.select(isNaN, ib.c(kNaNCode), code);
  Value signByte = arith::ShRUIOp::create(b, loc, sign, ib.c(24));
  return ib.select(isNaN, code, arith::OrIOp::create(b, loc, code, signByte));
}

/// fp8 bits (an i32 holding the byte) -> f32, exactly.
Value widenFloat8Bits(OpBuilder &b, Location loc, Value byte,
                      const Float8Format &format) {
  IntBuilder ib{b, loc, b.getI32Type()};
  unsigned m = format.mantissaBits;
  unsigned expBits = 7 - m;
  uint32_t expMask = (1u << expBits) - 1;
  Value sign = arith::ShLIOp::create(
      b, loc, arith::AndIOp::create(b, loc, byte, ib.c(0x80)), ib.c(24));
  Value exponent = arith::AndIOp::create(
      b, loc, arith::ShRUIOp::create(b, loc, byte, ib.c(m)), ib.c(expMask));
  Value mantissa = arith::AndIOp::create(b, loc, byte, ib.c((1u << m) - 1));
  // Normal: rebias the exponent, move the mantissa to the top of f32's.
  Value normal = arith::OrIOp::create(
      b, loc,
      arith::ShLIOp::create(
          b, loc,
          arith::AddIOp::create(b, loc, exponent,
                                ib.c(uint32_t(127 - format.bias))),
          ib.c(23)),
      arith::ShLIOp::create(b, loc, mantissa, ib.c(23 - m)));
  // Subnormal (exponent 0): mantissa * 2^(1 - B - M), exact in f32.
  Value subnormal = ib.toBits(arith::MulFOp::create(
      b, loc, arith::UIToFPOp::create(b, loc, b.getF32Type(), mantissa),
      ib.f32(std::ldexp(1.0f, 1 - format.bias - int(m)))));
  Value isSubnormal =
      ib.cmp(arith::CmpIPredicate::eq, exponent, ib.c(0));
  Value magnitude = ib.select(isSubnormal, subnormal, normal);
  // Specials: e4m3fn has only NaN (S.1111.111); e5m2 has IEEE inf/NaN.
  Value low7 = arith::AndIOp::create(b, loc, byte, ib.c(0x7f));
  if (format.ieeeLike) {
    Value isSpecial = ib.cmp(arith::CmpIPredicate::eq, exponent, ib.c(expMask));
    Value special = arith::OrIOp::create(
        b, loc, ib.c(0x7f800000u),
        arith::ShLIOp::create(b, loc, mantissa, ib.c(23 - m)));
    magnitude = ib.select(isSpecial, special, magnitude);
  } else {
    Value isNaN = ib.cmp(arith::CmpIPredicate::eq, low7, ib.c(0x7f));
    magnitude = ib.select(isNaN, ib.c(0x7fc00000u), magnitude);
  }
  return ib.toFloat(arith::OrIOp::create(b, loc, magnitude, sign));
}

struct TruncFToFloat8 : OpRewritePattern<arith::TruncFOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(arith::TruncFOp op,
                                PatternRewriter &rewriter) const override {
    std::optional<Float8Format> format = getFormat(op.getType());
    if (!format)
      return rewriter.notifyMatchFailure(op, "not a scalar fp8 result");
    Location loc = op.getLoc();
    Value code = narrowToFloat8Bits(
        rewriter, loc, toF32(rewriter, loc, op.getIn()), *format);
    Value byte =
        arith::TruncIOp::create(rewriter, loc, rewriter.getI8Type(), code);
    rewriter.replaceOpWithNewOp<arith::BitcastOp>(op, op.getType(), byte);
    return success();
  }
};

struct ExtFFromFloat8 : OpRewritePattern<arith::ExtFOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(arith::ExtFOp op,
                                PatternRewriter &rewriter) const override {
    std::optional<Float8Format> format = getFormat(op.getIn().getType());
    if (!format)
      return rewriter.notifyMatchFailure(op, "not a scalar fp8 source");
    Location loc = op.getLoc();
    Value byte = arith::BitcastOp::create(rewriter, loc, rewriter.getI8Type(),
                                          op.getIn());
    Value word =
        arith::ExtUIOp::create(rewriter, loc, rewriter.getI32Type(), byte);
    Value f32 = widenFloat8Bits(rewriter, loc, word, *format);
    // Every fp8 value is exact in f16, bf16 and f64.
    if (op.getType() != f32.getType())
      f32 = op.getType().getIntOrFloatBitWidth() > 32
                ? arith::ExtFOp::create(rewriter, loc, op.getType(), f32)
                      .getResult()
                : arith::TruncFOp::create(rewriter, loc, op.getType(), f32)
                      .getResult();
    rewriter.replaceOp(op, f32);
    return success();
  }
};

/// `arith.constant 1.0 : f8E4M3FN` -> its byte, bitcast.
struct Float8Constant : OpRewritePattern<arith::ConstantOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(arith::ConstantOp op,
                                PatternRewriter &rewriter) const override {
    auto value = dyn_cast<FloatAttr>(op.getValue());
    if (!value || !getFormat(value.getType()))
      return rewriter.notifyMatchFailure(op, "not a scalar fp8 constant");
    Value byte = arith::ConstantOp::create(
        rewriter, op.getLoc(),
        rewriter.getIntegerAttr(rewriter.getI8Type(),
                                value.getValue().bitcastToAPInt()));
    rewriter.replaceOpWithNewOp<arith::BitcastOp>(op, op.getType(), byte);
    return success();
  }
};

struct ExpandFloat8ConversionsPass
    : tilec::impl::ExpandFloat8ConversionsBase<ExpandFloat8ConversionsPass> {
  void runOnOperation() override {
    // Most kernels have no fp8 scalar left: no rewrite to drive.
    auto isFloat8 = [](Type t) { return getFormat(t).has_value(); };
    WalkResult found = getOperation()->walk([&](Operation *op) {
      return llvm::any_of(op->getResultTypes(), isFloat8) ||
                     llvm::any_of(op->getOperandTypes(), isFloat8)
                 ? WalkResult::interrupt()
                 : WalkResult::advance();
    });
    if (!found.wasInterrupted())
      return;
    RewritePatternSet patterns(&getContext());
    patterns.add<TruncFToFloat8, ExtFFromFloat8, Float8Constant>(
        &getContext());
    // The constants' bitcasts would fold back into fp8 constants. No
    // region simplification: on a kernel's long block it costs more than
    // the rewrite (the cleanups after the conversion to LLVM do it).
    GreedyRewriteConfig config;
    config.enableFolding(false).setRegionSimplificationLevel(
        GreedySimplifyRegionLevel::Disabled);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns),
                                     config))) {
      getOperation()->emitError("expand-fp8-conversions did not converge");
      return signalPassFailure();
    }
  }
};

} // namespace
