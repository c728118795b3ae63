//===- BuiltinsMath.cpp - Element-wise math
//---------------------------------===//
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
#include <optional>

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
// Element-wise math
//===----------------------------------------------------------------------===//

/// A floating-point input for math. As in Triton, a run-time integer is an
/// error (Triton's math functions check the dtype); a Python number becomes
/// an fp32 scalar.
static FailureOr<CGValue> floatInput(CodeGen &cg, Args &a, size_t i) {
  bool fromNumber = a.value(i).isNumber();
  FailureOr<CGValue> x = a.toRuntime(i);
  if (failed(x))
    return failure();
  if (x->isBlockLike() || x->getDType().isPointer())
    return cg.error(a.loc(i), a.name(i) +
                                  " must be a number or a numeric "
                                  "tile, got " +
                                  x->describe());
  if (x->getDType().isInt()) {
    if (!fromNumber)
      return cg.error(
          a.loc(i), a.call.calleeName + " expects a floating-point tile, got " +
                        x->getDType().str() + "; use .to(tl.float32)");
    return cg.cast(*x, DType::get(ScalarType::FP32), a.loc(i));
  }
  return x;
}

/// fp8 has math functions of no kind (no hardware, and the GPU backend's
/// emulation of fp8 covers arith only): a math function of fp8 tiles
/// computes on their fp32 values, and its result is rounded back to the fp8
/// type once (the CPU backend's math-extend-to-supported-types did the same
/// for the functions it widens). `x` becomes the fp32 value; the returned
/// dtype is what the result is converted back to, if anything.
static FailureOr<std::optional<DType>> widenFP8(CodeGen &cg, CGValue &x,
                                                SMLoc loc) {
  if (!x.isRuntime() || !x.getDType().isFP8())
    return std::optional<DType>();
  DType fp8 = x.getDType();
  FailureOr<CGValue> wide = cg.cast(x, DType::get(ScalarType::FP32), loc);
  if (failed(wide))
    return failure();
  x = *wide;
  return std::optional<DType>(fp8);
}

/// `r` converted back to the fp8 type widenFP8 returned, if any.
static FailureOr<CGValue> narrowFP8(CodeGen &cg, FailureOr<CGValue> r,
                                    std::optional<DType> fp8, SMLoc loc) {
  if (failed(r) || !fp8)
    return r;
  return cg.cast(*r, *fp8, loc);
}

enum class MathFn {
  Exp,
  Exp2,
  Log,
  Log2,
  Sqrt,
  Rsqrt,
  Sin,
  Cos,
  Floor,
  Ceil,
  Tanh,
  Erf
};

static FailureOr<CGValue> unaryMath(CodeGen &cg, Args &a, MathFn kind) {
  FailureOr<CGValue> x = floatInput(cg, a, 0);
  if (failed(x))
    return failure();
  FailureOr<std::optional<DType>> fp8 = widenFP8(cg, *x, a.loc(0));
  if (failed(fp8))
    return failure();
  mlir::Value v = x->getValue();
  mlir::Value r;
  switch (kind) {
  case MathFn::Exp:
    r = math::ExpOp::create(cg.builder, cg.loc(), v);
    break;
  case MathFn::Exp2:
    r = math::Exp2Op::create(cg.builder, cg.loc(), v);
    break;
  case MathFn::Log:
    r = math::LogOp::create(cg.builder, cg.loc(), v);
    break;
  case MathFn::Log2:
    r = math::Log2Op::create(cg.builder, cg.loc(), v);
    break;
  case MathFn::Sqrt:
    r = math::SqrtOp::create(cg.builder, cg.loc(), v);
    break;
  case MathFn::Rsqrt:
    r = math::RsqrtOp::create(cg.builder, cg.loc(), v);
    break;
  case MathFn::Sin:
    r = math::SinOp::create(cg.builder, cg.loc(), v);
    break;
  case MathFn::Cos:
    r = math::CosOp::create(cg.builder, cg.loc(), v);
    break;
  case MathFn::Floor:
    r = math::FloorOp::create(cg.builder, cg.loc(), v);
    break;
  case MathFn::Ceil:
    r = math::CeilOp::create(cg.builder, cg.loc(), v);
    break;
  case MathFn::Tanh:
    r = math::TanhOp::create(cg.builder, cg.loc(), v);
    break;
  case MathFn::Erf:
    r = math::ErfOp::create(cg.builder, cg.loc(), v);
    break;
  }
  return narrowFP8(cg, CGValue::runtime(r, x->getDType()), *fp8, a.loc(0));
}

static FailureOr<CGValue> builtinAbs(CodeGen &cg, Args &a) {
  if (a.value(0).isNumber()) {
    const CGValue &v = a.value(0);
    if (v.isFloat())
      return CGValue::floating(std::fabs(v.getFloat()));
    if (v.getInt() == INT64_MIN)
      return cg.error(a.loc(0), "integer overflow in abs()");
    return CGValue::integer(v.getInt() < 0 ? -v.getInt() : v.getInt());
  }
  FailureOr<CGValue> x = a.toRuntime(0);
  if (failed(x))
    return failure();
  DType d = x->getDType();
  if (d.isPointer() || x->isBlockLike())
    return cg.error(a.loc(0), "abs() of " + x->describe() + " is not defined");
  if (d.isFloat()) {
    FailureOr<std::optional<DType>> fp8 = widenFP8(cg, *x, a.loc(0));
    if (failed(fp8))
      return failure();
    return narrowFP8(
        cg,
        CGValue::runtime(
            math::AbsFOp::create(cg.builder, cg.loc(), x->getValue()),
            x->getDType()),
        *fp8, a.loc(0));
  }
  if (d.isUnsigned())
    return *x;
  return CGValue::runtime(
      math::AbsIOp::create(cg.builder, cg.loc(), x->getValue()), d);
}

static FailureOr<CGValue> builtinSigmoid(CodeGen &cg, Args &a) {
  const CallArgs &call = a.call;
  FailureOr<CGValue> x = floatInput(cg, a, 0);
  if (failed(x))
    return failure();
  FailureOr<std::optional<DType>> fp8 = widenFP8(cg, *x, a.loc(0));
  if (failed(fp8))
    return failure();
  // 1 / (1 + exp(-x)), with Triton's promotion of the division.
  CGValue neg = CGValue::runtime(
      arith::NegFOp::create(cg.builder, cg.loc(), x->getValue()),
      x->getDType());
  CGValue e = CGValue::runtime(
      math::ExpOp::create(cg.builder, cg.loc(), neg.getValue()), x->getDType());
  FailureOr<CGValue> denom = cg.binaryOp(BinaryOp::Add, CGValue::integer(1), e,
                                         call.loc, call.loc, call.loc);
  if (failed(denom))
    return failure();
  return narrowFP8(cg,
                   cg.binaryOp(BinaryOp::Div, CGValue::integer(1), *denom,
                               call.loc, call.loc, call.loc),
                   *fp8, call.loc);
}

/// Promotes two arguments like an arithmetic operator and broadcasts them.
static LogicalResult promotePair(CodeGen &cg, CGValue &x, CGValue &y, SMLoc loc,
                                 SMLoc xLoc, SMLoc yLoc, StringRef what) {
  bool xPy = x.isConstexpr(), yPy = y.isConstexpr();
  auto typeOf = [](const CGValue &v) {
    if (v.isBool())
      return DType::get(ScalarType::I1);
    if (v.isInt())
      return pythonIntType(v.getInt());
    if (v.isFloat())
      return pythonFloatType(v.getFloat());
    return v.getDType();
  };
  if ((xPy && !x.isNumber()) || (yPy && !y.isNumber()))
    return cg.error(loc, what.str() + " needs numbers or tiles, got " +
                             x.describe() + " and " + y.describe());
  DType xt = typeOf(x), yt = typeOf(y);
  DType ret;
  if (x.isBlockLike() || y.isBlockLike())
    return cg.error(loc, what.str() +
                             " does not take block pointers or tensor "
                             "descriptors (" +
                             x.describe() + " and " + y.describe() + ")");
  if (xt.isPointer() || yt.isPointer()) {
    if (xt != yt)
      return cg.error(loc, what.str() + ": incompatible operands " +
                               x.describe() + " and " + y.describe());
    ret = xt;
  } else {
    std::string reason;
    std::optional<DType> t = computationType(xt, xPy, yt, yPy, false, reason);
    if (!t)
      return cg.error(loc, what.str() + ": " + reason);
    ret = *t;
  }
  FailureOr<CGValue> cx = cg.convertTo(x, ret, xLoc, "operand");
  FailureOr<CGValue> cy = cg.convertTo(y, ret, yLoc, "operand");
  if (failed(cx) || failed(cy))
    return failure();
  x = *cx;
  y = *cy;
  return cg.broadcastPair(x, y, loc, xLoc, yLoc);
}

static FailureOr<CGValue> maximumMinimum(CodeGen &cg, Args &a, bool isMax) {
  const CallArgs &call = a.call;
  CGValue x = a.value(0), y = a.value(1);
  if (x.isNumber() && y.isNumber()) {
    bool takeX = isMax ? !(x.getNumber() < y.getNumber())
                       : !(y.getNumber() < x.getNumber());
    return takeX ? x : y;
  }
  bool propagateNan = false;
  if (a.has(2)) {
    const CGValue &p = a.value(2);
    propagateNan = p.isIntLike() ? p.getInt() != 0
                   : p.isStr()   ? p.getStr() == "all"
                                 : false;
  }
  if (failed(promotePair(cg, x, y, call.loc, a.loc(0), a.loc(1),
                         call.calleeName + "()")))
    return failure();
  DType d = x.getDType();
  mlir::Value l = x.getValue(), r = y.getValue();
  mlir::Value v;
  if (d.isFloat()) {
    if (propagateNan)
      v = isMax ? arith::MaximumFOp::create(cg.builder, cg.loc(), l, r)
                      .getResult()
                : arith::MinimumFOp::create(cg.builder, cg.loc(), l, r)
                      .getResult();
    else
      v = isMax
              ? arith::MaxNumFOp::create(cg.builder, cg.loc(), l, r).getResult()
              : arith::MinNumFOp::create(cg.builder, cg.loc(), l, r)
                    .getResult();
  } else if (d.isSigned()) {
    v = isMax ? arith::MaxSIOp::create(cg.builder, cg.loc(), l, r).getResult()
              : arith::MinSIOp::create(cg.builder, cg.loc(), l, r).getResult();
  } else if (d.isInt()) {
    v = isMax ? arith::MaxUIOp::create(cg.builder, cg.loc(), l, r).getResult()
              : arith::MinUIOp::create(cg.builder, cg.loc(), l, r).getResult();
  } else {
    return cg.error(call.loc, call.calleeName + "() of " + x.describe() +
                                  " is not defined");
  }
  return CGValue::runtime(v, d);
}

static FailureOr<CGValue> builtinClamp(CodeGen &cg, Args &a) {
  const CallArgs &call = a.call;
  CallArgs maxArgs;
  maxArgs.loc = call.loc;
  maxArgs.calleeName = call.calleeName;
  maxArgs.positional = {*a.bound[0], *a.bound[1]};
  FailureOr<CGValue> lower = cg.callBuiltin("tl.maximum", maxArgs);
  if (failed(lower))
    return failure();
  CallArgs minArgs;
  minArgs.loc = call.loc;
  minArgs.calleeName = call.calleeName;
  minArgs.positional = {CallArg{*lower, a.loc(0), "", SMLoc()}, *a.bound[2]};
  return cg.callBuiltin("tl.minimum", minArgs);
}

static FailureOr<CGValue> builtinFma(CodeGen &cg, Args &a) {
  const CallArgs &call = a.call;
  CGValue x = a.value(0), y = a.value(1), z = a.value(2);
  for (CGValue *v : {&x, &y, &z})
    if (v->isRuntime() && v->getDType().isInt()) {
      FailureOr<CGValue> c =
          cg.cast(*v, DType::get(ScalarType::FP32), call.loc);
      if (failed(c))
        return failure();
      *v = *c;
    } else if (v->isIntLike()) {
      *v = CGValue::floating(static_cast<double>(v->getInt()));
    }
  if (failed(promotePair(cg, x, y, call.loc, a.loc(0), a.loc(1), "tl.fma()")))
    return failure();
  if (failed(promotePair(cg, x, z, call.loc, a.loc(0), a.loc(2), "tl.fma()")))
    return failure();
  if (failed(promotePair(cg, y, z, call.loc, a.loc(1), a.loc(2), "tl.fma()")))
    return failure();
  if (failed(cg.broadcastPair(x, y, call.loc, a.loc(0), a.loc(1))))
    return failure();
  if (!x.getDType().isFloat())
    return cg.error(call.loc, "tl.fma() needs floating-point operands");
  // fp8: one rounding of the fp32 fma (the product of two fp8 values is
  // exact in fp32).
  FailureOr<std::optional<DType>> fp8 = widenFP8(cg, x, call.loc);
  if (failed(fp8) || failed(widenFP8(cg, y, call.loc)) ||
      failed(widenFP8(cg, z, call.loc)))
    return failure();
  return narrowFP8(cg,
                   CGValue::runtime(math::FmaOp::create(cg.builder, cg.loc(),
                                                        x.getValue(),
                                                        y.getValue(),
                                                        z.getValue()),
                                    x.getDType()),
                   *fp8, call.loc);
}

/// tl.fdiv (ieee_rounding=False: `/`, not IEEE-rounded) and tl.div_rn
/// (always IEEE-rounded, as tl.fdiv(..., ieee_rounding=True)).
static FailureOr<CGValue> builtinFdiv(CodeGen &cg, Args &a, bool ieee) {
  FailureOr<CGValue> q = cg.binaryOp(BinaryOp::Div, a.value(0), a.value(1),
                                     a.call.loc, a.loc(0), a.loc(1));
  if (failed(q) || !(ieee || a.flag(2)))
    return q;
  if (auto div = q->getValue().getDefiningOp<arith::DivFOp>())
    div.setFastmath(arith::FastMathFlags::none);
  return q;
}

/// tl.umulhi: the high half of the unsigned product of two integers (as
/// CUDA's __umulhi), computed in twice the width.
static FailureOr<CGValue> builtinUmulhi(CodeGen &cg, Args &a) {
  const CallArgs &call = a.call;
  CGValue x = a.value(0), y = a.value(1);
  if (failed(
          promotePair(cg, x, y, call.loc, a.loc(0), a.loc(1), "tl.umulhi()")))
    return failure();
  DType d = x.getDType();
  if (!d.isScalar() || !d.isInt() || d.isBool())
    return cg.error(call.loc,
                    "tl.umulhi() needs integer operands, got " + x.describe());
  unsigned width = d.getBitWidth();
  mlir::Type narrow = x.getValue().getType();
  auto constant = [&](int64_t value) -> mlir::Value {
    mlir::Attribute attr =
        cg.builder.getIntegerAttr(tile::getElementTypeOrSelf(narrow), value);
    if (auto tensor = llvm::dyn_cast<mlir::RankedTensorType>(narrow))
      attr = mlir::DenseElementsAttr::get(tensor, attr);
    return arith::ConstantOp::create(cg.builder, cg.loc(),
                                     llvm::cast<mlir::TypedAttr>(attr));
  };
  if (width == 64) {
    // No wider type: schoolbook on 32-bit halves, every partial product
    // exact in 64 bits (as CUDA's __umul64hi).
    mlir::Location loc = cg.loc();
    mlir::OpBuilder &b = cg.builder;
    mlir::Value c32 = constant(32), lowMask = constant(0xffffffffLL);
    auto lo = [&](mlir::Value v) {
      return arith::AndIOp::create(b, loc, v, lowMask).getResult();
    };
    auto hi = [&](mlir::Value v) {
      return arith::ShRUIOp::create(b, loc, v, c32).getResult();
    };
    auto mul = [&](mlir::Value p, mlir::Value q) {
      return arith::MulIOp::create(b, loc, p, q).getResult();
    };
    auto add = [&](mlir::Value p, mlir::Value q) {
      return arith::AddIOp::create(b, loc, p, q).getResult();
    };
    mlir::Value xl = lo(x.getValue()), xh = hi(x.getValue());
    mlir::Value yl = lo(y.getValue()), yh = hi(y.getValue());
    mlir::Value ll = mul(xl, yl), lh = mul(xl, yh), hl = mul(xh, yl),
                hh = mul(xh, yh);
    mlir::Value mid = add(add(hi(ll), lo(lh)), lo(hl));
    mlir::Value high = add(add(hh, hi(lh)), add(hi(hl), hi(mid)));
    return CGValue::runtime(high, d);
  }
  mlir::Type wideElem = cg.builder.getIntegerType(2 * width);
  mlir::Type wide = wideElem;
  if (auto tensor = llvm::dyn_cast<mlir::RankedTensorType>(narrow))
    wide = mlir::RankedTensorType::get(tensor.getShape(), wideElem);
  mlir::Value wx =
      arith::ExtUIOp::create(cg.builder, cg.loc(), wide, x.getValue());
  mlir::Value wy =
      arith::ExtUIOp::create(cg.builder, cg.loc(), wide, y.getValue());
  mlir::Value product = arith::MulIOp::create(cg.builder, cg.loc(), wx, wy);
  mlir::Attribute shiftAttr = cg.builder.getIntegerAttr(wideElem, width);
  if (auto tensor = llvm::dyn_cast<mlir::RankedTensorType>(wide))
    shiftAttr = mlir::DenseElementsAttr::get(tensor, shiftAttr);
  mlir::Value shift = arith::ConstantOp::create(
      cg.builder, cg.loc(), llvm::cast<mlir::TypedAttr>(shiftAttr));
  mlir::Value high =
      arith::ShRUIOp::create(cg.builder, cg.loc(), product, shift);
  return CGValue::runtime(
      arith::TruncIOp::create(cg.builder, cg.loc(), narrow, high), d);
}

/// tl.inline_asm_elementwise(asm, constraints, args, dtype, is_pure, pack):
/// Triton's. The arguments are broadcast to one shape (no type promotion);
/// one result per dtype, a tuple when `dtype` is a tuple.
static FailureOr<CGValue> builtinInlineAsmElementwise(CodeGen &cg, Args &a) {
  // asm and constraints: compile-time strings.
  std::string strings[2];
  for (size_t i : {0, 1}) {
    const CGValue &v = a.value(i);
    if (!v.isStr())
      return cg
          .error(a.loc(i), a.name(i) + " must be a compile-time string, got " +
                               (v.isRuntime() ? "a run-time " : "") +
                               v.describe())
          .constexprHint(v);
    strings[i] = v.getStr().str();
  }
  bool isPure = a.flag(4);
  int64_t pack = a.integer(5);
  if (pack < 1 || pack > 1024 || !llvm::isPowerOf2_64(pack))
    return cg.error(a.loc(5), a.name(5) +
                                  " must be a power of two (at most 1024), "
                                  "got " +
                                  std::to_string(pack));

  // dtype: one dtype or a tuple of them.
  const CGValue &dtypeArg = a.value(3);
  bool multipleResults = dtypeArg.isTuple();
  llvm::SmallVector<DType> dtypes;
  llvm::SmallVector<CGValue> dtypeValues;
  if (multipleResults)
    dtypeValues.append(dtypeArg.getElements().begin(),
                       dtypeArg.getElements().end());
  else
    dtypeValues.push_back(dtypeArg);
  for (const CGValue &v : dtypeValues) {
    if (!v.isDType() || !v.getDType().isScalar() || v.getDType().isBool())
      return cg.error(a.loc(3), a.name(3) +
                                    " must be a dtype such as tl.int32 (not "
                                    "tl.int1) or a tuple of them, got " +
                                    v.describe());
    dtypes.push_back(v.getDType());
  }
  if (dtypes.empty())
    return cg.error(a.loc(3), a.name(3) + " must name at least one dtype");

  // args: a list or tuple of tiles and numbers, broadcast to one shape.
  const CGValue &argsArg = a.value(2);
  if (!argsArg.isTuple())
    return cg.error(a.loc(2), a.name(2) +
                                  " must be a list or tuple of tiles and "
                                  "scalars, got " +
                                  argsArg.describe());
  llvm::SmallVector<CGValue> args;
  for (const CGValue &v : argsArg.getElements()) {
    if (v.isBlockLike() || (!v.isRuntime() && !v.isNumber()))
      return cg.error(a.loc(2), "the elements of " + a.name(2) +
                                    " must be tiles or scalars, got " +
                                    v.describe());
    FailureOr<CGValue> rt = cg.toRuntime(v, a.loc(2));
    if (failed(rt))
      return failure();
    if (rt->getDType().isBool())
      return cg.error(a.loc(2), "tl.inline_asm_elementwise() does not take "
                                "int1 values (convert them with .to(tl.int8) "
                                "first), got " +
                                    rt->describe());
    args.push_back(*rt);
  }
  llvm::SmallVector<int64_t> shape;
  if (!args.empty()) {
    CGValue common = args.front();
    for (CGValue arg : args)
      if (failed(cg.broadcastPair(arg, common, a.loc(2), a.loc(2), a.loc(2))))
        return failure();
    shape = common.getShape();
    for (CGValue &arg : args) {
      FailureOr<CGValue> b =
          cg.broadcastTo(arg, shape, a.loc(2), "an argument");
      if (failed(b))
        return failure();
      arg = *b;
    }
  }
  int64_t numElements = 1;
  for (int64_t d : shape)
    numElements *= d;
  if (numElements % pack != 0)
    return cg.error(a.loc(5), a.name(5) + " is " + std::to_string(pack) +
                                  ", which does not divide the " +
                                  std::to_string(numElements) + " element" +
                                  (numElements == 1 ? "" : "s") +
                                  " of the arguments");

  // The registers the constraints must list (TileOps.td).
  using tile::InlineAsmElementwiseOp;
  auto regs = [&](DType dtype) {
    return InlineAsmElementwiseOp::getNumRegisters(dtype.toMLIR(&cg.context),
                                                   pack);
  };
  unsigned wantOut = 0, wantIn = 0;
  for (DType dtype : dtypes)
    wantOut += regs(dtype);
  for (const CGValue &arg : args)
    wantIn += regs(arg.getDType());
  auto [out, in] = InlineAsmElementwiseOp::countConstraints(strings[1]);
  if (out != wantOut || in != wantIn)
    return cg.error(a.loc(1),
                    "the constraints list " + std::to_string(out) + " output" +
                        (out == 1 ? "" : "s") + " and " + std::to_string(in) +
                        " input" + (in == 1 ? "" : "s") +
                        ", but with pack=" + std::to_string(pack) +
                        " the results take " + std::to_string(wantOut) +
                        " register" + (wantOut == 1 ? "" : "s") +
                        " and the arguments " + std::to_string(wantIn) +
                        " (an element narrower than 32 bits shares a "
                        "register with the next ones of its pack)");

  llvm::SmallVector<mlir::Type> resultTypes;
  for (DType dtype : dtypes)
    resultTypes.push_back(cg.getType(dtype, shape));
  llvm::SmallVector<mlir::Value> operands;
  for (const CGValue &arg : args)
    operands.push_back(arg.getValue());
  auto op = InlineAsmElementwiseOp::create(cg.builder, cg.loc(), resultTypes,
                                           operands, strings[0], strings[1],
                                           isPure, static_cast<uint32_t>(pack));
  if (!multipleResults)
    return CGValue::runtime(op.getResult(0), dtypes.front());
  std::vector<CGValue> results;
  for (auto [result, dtype] : llvm::zip(op.getResults(), dtypes))
    results.push_back(CGValue::runtime(result, dtype));
  return CGValue::tuple(std::move(results));
}

static FailureOr<CGValue> builtinWhere(CodeGen &cg, Args &a) {
  const CallArgs &call = a.call;
  const CGValue &condIn = a.value(0);
  CGValue x = a.value(1), y = a.value(2);
  if (condIn.isConstexpr() && !condIn.isNumber())
    return cg.error(a.loc(0), "the condition of tl.where() must be a tile or "
                              "a bool, got " +
                                  condIn.describe());
  FailureOr<CGValue> cond = cg.toBool(condIn, a.loc(0));
  if (failed(cond))
    return failure();
  if (failed(promotePair(cg, x, y, call.loc, a.loc(1), a.loc(2), "tl.where()")))
    return failure();
  CGValue c = *cond;
  if (failed(cg.broadcastPair(c, x, call.loc, a.loc(0), a.loc(1))) ||
      failed(cg.broadcastPair(c, y, call.loc, a.loc(0), a.loc(2))) ||
      failed(cg.broadcastPair(x, y, call.loc, a.loc(1), a.loc(2))))
    return failure();
  return CGValue::runtime(arith::SelectOp::create(cg.builder, cg.loc(),
                                                  c.getValue(), x.getValue(),
                                                  y.getValue()),
                          x.getDType());
}

static FailureOr<CGValue> builtinCdiv(CodeGen &cg, Args &a) {
  const CallArgs &call = a.call;
  const CGValue &x = a.value(0), &div = a.value(1);
  // (x + div - 1) // div
  FailureOr<CGValue> sum =
      cg.binaryOp(BinaryOp::Add, x, div, call.loc, a.loc(0), a.loc(1));
  if (failed(sum))
    return failure();
  FailureOr<CGValue> minus1 = cg.binaryOp(
      BinaryOp::Sub, *sum, CGValue::integer(1), call.loc, a.loc(0), a.loc(1));
  if (failed(minus1))
    return failure();
  return cg.binaryOp(BinaryOp::FloorDiv, *minus1, div, call.loc, a.loc(0),
                     a.loc(1));
}

/// tl.pow(x, y) (tl.math.pow, libdevice.pow): math.powf in the promoted
/// floating-point type (CUDA's libdevice on the GPU, libm on the CPU).
static FailureOr<CGValue> builtinPow(CodeGen &cg, Args &a) {
  const CallArgs &call = a.call;
  CGValue x = a.value(0), y = a.value(1);
  for (CGValue *v : {&x, &y})
    if (v->isRuntime() && v->getDType().isInt()) {
      FailureOr<CGValue> c =
          cg.cast(*v, DType::get(ScalarType::FP32), call.loc);
      if (failed(c))
        return failure();
      *v = *c;
    } else if (v->isIntLike()) {
      *v = CGValue::floating(static_cast<double>(v->getInt()));
    }
  if (x.isNumber() && y.isNumber())
    return CGValue::floating(std::pow(x.getNumber(), y.getNumber()));
  if (failed(promotePair(cg, x, y, call.loc, a.loc(0), a.loc(1), "tl.pow()")))
    return failure();
  if (failed(cg.broadcastPair(x, y, call.loc, a.loc(0), a.loc(1))))
    return failure();
  if (!x.getDType().isFloat() || x.getDType().isPointer())
    return cg.error(call.loc, "tl.pow() needs floating-point operands, got " +
                                  x.describe());
  FailureOr<std::optional<DType>> fp8 = widenFP8(cg, x, call.loc);
  if (failed(fp8) || failed(widenFP8(cg, y, call.loc)))
    return failure();
  return narrowFP8(cg,
                   CGValue::runtime(math::PowFOp::create(cg.builder, cg.loc(),
                                                         x.getValue(),
                                                         y.getValue()),
                                    x.getDType()),
                   *fp8, call.loc);
}

//===----------------------------------------------------------------------===//
// Table
//===----------------------------------------------------------------------===//

llvm::ArrayRef<BuiltinSpec> tilec::frontend::getMathBuiltins() {
#define UNARY(NAME, KIND)                                                      \
  {                                                                            \
    NAME, [](CodeGen &cg, Args &a) { return unaryMath(cg, a, MathFn::KIND); }, \
    {                                                                          \
      req("x")                                                                 \
    }                                                                          \
  }
  static const BuiltinSpec specs[] = {
      UNARY("tl.exp", Exp),
      UNARY("tl.exp2", Exp2),
      UNARY("tl.log", Log),
      UNARY("tl.log2", Log2),
      UNARY("tl.sqrt", Sqrt),
      UNARY("tl.sqrt_rn", Sqrt),
      UNARY("tl.rsqrt", Rsqrt),
      UNARY("tl.sin", Sin),
      UNARY("tl.cos", Cos),
      UNARY("tl.floor", Floor),
      UNARY("tl.ceil", Ceil),
      UNARY("tl.tanh", Tanh),
      UNARY("tl.erf", Erf),
      {"tl.abs", builtinAbs, {req("x")}},
      {"abs", builtinAbs, {req("x")}},
      {"tl.sigmoid", builtinSigmoid, {req("x")}},
      {"tl.maximum",
       [](CodeGen &cg, Args &a) { return maximumMinimum(cg, a, true); },
       {req("x"), req("y"), opt("propagate_nan")}},
      {"tl.minimum",
       [](CodeGen &cg, Args &a) { return maximumMinimum(cg, a, false); },
       {req("x"), req("y"), opt("propagate_nan")}},
      {"tl.clamp",
       builtinClamp,
       {req("x"), req("min"), req("max"), opt("propagate_nan")}},
      {"tl.fma", builtinFma, {req("x"), req("y"), req("z")}},
      {"tl.fdiv",
       [](CodeGen &cg, Args &a) { return builtinFdiv(cg, a, /*ieee=*/false); },
       {req("x"), req("y"), optBool("ieee_rounding", false)}},
      {"tl.div_rn",
       [](CodeGen &cg, Args &a) { return builtinFdiv(cg, a, /*ieee=*/true); },
       {req("x"), req("y"), optBool("ieee_rounding", false)}},
      {"tl.umulhi", builtinUmulhi, {req("x"), req("y")}},
      {"tl.inline_asm_elementwise",
       builtinInlineAsmElementwise,
       {req("asm"), req("constraints"), req("args"), req("dtype"),
        req("is_pure", ArgType::Bool), req("pack", ArgType::Int)}},
      {"tl.where", builtinWhere, {req("condition"), req("x"), req("y")}},
      {"tl.cdiv", builtinCdiv, {req("x"), req("div")}},
      {"tl.pow", builtinPow, {req("x"), req("y")}},
  };
#undef UNARY
  return specs;
}
