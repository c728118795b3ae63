//===- BuiltinsReduce.cpp - Reductions
//--------------------------------------===//
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
// Reductions
//===----------------------------------------------------------------------===//

/// A binary combine op on scalars of one dtype.
enum class Combine { Add, Max, Min, Xor };

static CGValue combineScalars(CodeGen &cg, Combine kind, const CGValue &x,
                              const CGValue &y) {
  DType d = x.getDType();
  mlir::Value a = x.getValue(), b = y.getValue();
  mlir::Value r;
  switch (kind) {
  case Combine::Add:
    r = d.isFloat()
            ? arith::AddFOp::create(cg.builder, cg.loc(), a, b).getResult()
            : arith::AddIOp::create(cg.builder, cg.loc(), a, b).getResult();
    break;
  case Combine::Max:
    r = d.isFloat()
            ? arith::MaxNumFOp::create(cg.builder, cg.loc(), a, b).getResult()
        : d.isSigned()
            ? arith::MaxSIOp::create(cg.builder, cg.loc(), a, b).getResult()
            : arith::MaxUIOp::create(cg.builder, cg.loc(), a, b).getResult();
    break;
  case Combine::Xor:
    r = arith::XOrIOp::create(cg.builder, cg.loc(), a, b);
    break;
  case Combine::Min:
    r = d.isFloat()
            ? arith::MinNumFOp::create(cg.builder, cg.loc(), a, b).getResult()
        : d.isSigned()
            ? arith::MinSIOp::create(cg.builder, cg.loc(), a, b).getResult()
            : arith::MinUIOp::create(cg.builder, cg.loc(), a, b).getResult();
    break;
  }
  return CGValue::runtime(r, d);
}

static FailureOr<CGValue> simpleReduce(CodeGen &cg, Args &a,
                                       const CGValue &input,
                                       std::optional<int64_t> axis,
                                       bool keepDims, SMLoc axisLoc,
                                       Combine kind) {
  FailureOr<llvm::SmallVector<CGValue>> results =
      cg.reduce({input}, axis, keepDims, a.call.loc, axisLoc,
                [&](llvm::ArrayRef<CGValue> lhs, llvm::ArrayRef<CGValue> rhs)
                    -> FailureOr<llvm::SmallVector<CGValue>> {
                  return llvm::SmallVector<CGValue>{
                      combineScalars(cg, kind, lhs[0], rhs[0])};
                });
  if (failed(results))
    return failure();
  return results->front();
}

static FailureOr<CGValue> builtinSum(CodeGen &cg, Args &a) {
  CGValue x = a.value(0);
  DType d = x.getDType();
  std::optional<DType> outType;
  if (a.has(3)) {
    outType = a.dtype(3);
  } else if (d.isBool()) {
    outType = DType::get(ScalarType::I32);
  } else if (d.isInt() && d.getBitWidth() < 32) {
    outType = DType::get(d.isSigned() ? ScalarType::I32 : ScalarType::U32);
  }
  if (d.isPointer())
    return cg.error(a.loc(0), "tl.sum() of pointers is not supported");
  if (outType) {
    FailureOr<CGValue> c = cg.cast(x, *outType, a.loc(0));
    if (failed(c))
      return failure();
    x = *c;
  }
  return simpleReduce(cg, a, x, a.optInteger(1), a.flag(2), a.loc(1),
                      Combine::Add);
}

static FailureOr<CGValue> builtinXorSum(CodeGen &cg, Args &a) {
  const CGValue &input = a.value(0);
  if (!input.getDType().isScalar() || !input.getDType().isInt())
    return cg.error(a.loc(0), "tl.xor_sum() needs an integer tile, got " +
                                  input.describe());
  return simpleReduce(cg, a, input, a.optInteger(1), a.flag(2), a.loc(1),
                      Combine::Xor);
}

/// tl.softmax as Triton defines it: x - max(x, dim), exp, divided by the
/// sum along dim (dim None is 0; keep_dims applies to the max and the sum,
/// whose results broadcast back on the right).
static FailureOr<CGValue> builtinSoftmax(CodeGen &cg, Args &a) {
  const CGValue *x = &a.value(0);
  bool keepDims = a.flag(2);
  int64_t dim = a.optInteger(1).value_or(0);
  const CallArgs &call = a.call;
  if (!x->getDType().isFloat())
    return cg.error(a.loc(0), "tl.softmax() needs a floating-point tile, got " +
                                  x->describe() + "; use .to(tl.float32)");
  auto reduceCall = [&](StringRef name,
                        const CGValue &input) -> FailureOr<CGValue> {
    CallArgs inner;
    inner.loc = call.loc;
    inner.calleeName = call.calleeName;
    inner.positional.push_back(CallArg{input, a.loc(0), "", SMLoc()});
    inner.positional.push_back(
        CallArg{CGValue::integer(dim), a.loc(1), "", SMLoc()});
    inner.keywords.push_back(
        CallArg{CGValue::boolean(keepDims), call.loc, "keep_dims", call.loc});
    return cg.callBuiltin(name, inner);
  };
  FailureOr<CGValue> max = reduceCall("tl.max", *x);
  if (failed(max))
    return failure();
  FailureOr<CGValue> z =
      cg.binaryOp(BinaryOp::Sub, *x, *max, call.loc, a.loc(0), call.loc);
  if (failed(z))
    return failure();
  FailureOr<CGValue> num =
      callBuiltinWith(cg, "tl.exp", call.calleeName, a.loc(0), {*z});
  if (failed(num))
    return failure();
  FailureOr<CGValue> den = reduceCall("tl.sum", *num);
  if (failed(den))
    return failure();
  FailureOr<CGValue> q =
      cg.binaryOp(BinaryOp::Div, *num, *den, call.loc, a.loc(0), call.loc);
  // ieee_rounding=True: an IEEE-rounded division, as tl.div_rn (`/` is not).
  if (succeeded(q) && a.flag(3))
    if (auto div = q->getValue().getDefiningOp<arith::DivFOp>())
      div.setFastmath(arith::FastMathFlags::none);
  return q;
}

/// argmax/argmin: a two-operand reduction of (value, index), keeping the
/// larger (smaller) value and, on ties, the smaller index.
static FailureOr<llvm::SmallVector<CGValue>>
reduceWithIndices(CodeGen &cg, const CallArgs &call, CGValue input,
                  std::optional<int64_t> axis, bool keepDims, SMLoc axisLoc,
                  bool isMax, bool tieBreakLeft) {
  llvm::SmallVector<int64_t> shape = input.getShape();
  if (!axis) {
    int64_t numel = 1;
    for (int64_t d : shape)
      numel *= d;
    // Flatten in row-major order so that indices are positions.
    input = cg.reshape(input, {numel}, /*allowReorder=*/false);
    shape = {numel};
  }
  int64_t rank = static_cast<int64_t>(shape.size());
  int64_t ax = axis.value_or(0);
  if (ax < -rank || ax >= rank)
    return cg.error(axisLoc, "axis " + std::to_string(ax) +
                                 " is out of range for a tile of rank " +
                                 std::to_string(rank) + " (shape " +
                                 shapeToString(shape) + ")");
  if (ax < 0)
    ax += rank;
  int64_t n = shape[ax];
  auto rangeType = mlir::RankedTensorType::get({n}, cg.builder.getI32Type());
  CGValue index = CGValue::runtime(
      tile::MakeRangeOp::create(cg.builder, cg.loc(), rangeType,
                                cg.builder.getI32IntegerAttr(0),
                                cg.builder.getI32IntegerAttr(n)),
      DType::get(ScalarType::I32));
  for (int64_t d = 0; d < rank; ++d)
    if (d != ax)
      index = cg.expandDims(index, d);
  FailureOr<CGValue> bIndex = cg.broadcastTo(index, shape, call.loc, "index");
  if (failed(bIndex))
    return failure();
  DType d = input.getDType();
  return cg.reduce(
      {input, *bIndex}, std::optional<int64_t>(ax), keepDims, call.loc, axisLoc,
      [&](llvm::ArrayRef<CGValue> lhs, llvm::ArrayRef<CGValue> rhs)
          -> FailureOr<llvm::SmallVector<CGValue>> {
        mlir::Value v1 = lhs[0].getValue(), i1 = lhs[1].getValue();
        mlir::Value v2 = rhs[0].getValue(), i2 = rhs[1].getValue();
        mlir::Value better, equal;
        if (d.isFloat()) {
          better = arith::CmpFOp::create(cg.builder, cg.loc(),
                                         isMax ? arith::CmpFPredicate::OGT
                                               : arith::CmpFPredicate::OLT,
                                         v1, v2);
          equal = arith::CmpFOp::create(cg.builder, cg.loc(),
                                        arith::CmpFPredicate::OEQ, v1, v2);
        } else {
          bool s = d.isSigned();
          better = arith::CmpIOp::create(
              cg.builder, cg.loc(),
              isMax
                  ? (s ? arith::CmpIPredicate::sgt : arith::CmpIPredicate::ugt)
                  : (s ? arith::CmpIPredicate::slt : arith::CmpIPredicate::ult),
              v1, v2);
          equal = arith::CmpIOp::create(cg.builder, cg.loc(),
                                        arith::CmpIPredicate::eq, v1, v2);
        }
        mlir::Value take = better;
        if (tieBreakLeft) {
          mlir::Value smaller = arith::CmpIOp::create(
              cg.builder, cg.loc(), arith::CmpIPredicate::slt, i1, i2);
          mlir::Value tie =
              arith::AndIOp::create(cg.builder, cg.loc(), equal, smaller);
          take = arith::OrIOp::create(cg.builder, cg.loc(), better, tie);
        }
        mlir::Value v =
            arith::SelectOp::create(cg.builder, cg.loc(), take, v1, v2);
        mlir::Value i =
            arith::SelectOp::create(cg.builder, cg.loc(), take, i1, i2);
        return llvm::SmallVector<CGValue>{
            CGValue::runtime(v, d),
            CGValue::runtime(i, DType::get(ScalarType::I32))};
      });
}

static FailureOr<CGValue> maxMin(CodeGen &cg, Args &a, bool isMax) {
  enum { kInput, kAxis, kReturnIndices, kTieLeft, kKeepDims };
  const CGValue *input = &a.value(kInput);
  std::optional<int64_t> axis = a.optInteger(kAxis);
  const CallArgs &call = a.call;
  if (input->getDType().isPointer())
    return cg.error(a.loc(0), call.calleeName + "() of pointers is not "
                                                "supported");
  if (a.flag(kReturnIndices)) {
    FailureOr<llvm::SmallVector<CGValue>> results =
        reduceWithIndices(cg, call, *input, axis, a.flag(kKeepDims),
                          a.loc(kAxis), isMax, a.flag(kTieLeft));
    if (failed(results))
      return failure();
    return CGValue::tuple({(*results)[0], (*results)[1]});
  }
  CGValue x = *input;
  DType d = x.getDType();
  if (d.getBitWidth() < 32) {
    FailureOr<CGValue> c = cg.cast(
        x, DType::get(d.isFloat() ? ScalarType::FP32 : ScalarType::I32),
        a.loc(0));
    if (failed(c))
      return failure();
    x = *c;
  }
  return simpleReduce(cg, a, x, axis, a.flag(kKeepDims), a.loc(kAxis),
                      isMax ? Combine::Max : Combine::Min);
}

static FailureOr<CGValue> argMaxMin(CodeGen &cg, Args &a, bool isMax) {
  const CGValue &input = a.value(0);
  if (input.getDType().isPointer())
    return cg.error(a.loc(0), a.call.calleeName + "() of pointers is not "
                                                  "supported");
  FailureOr<llvm::SmallVector<CGValue>> results =
      reduceWithIndices(cg, a.call, input, a.optInteger(1), a.flag(3), a.loc(1),
                        isMax, a.flag(2));
  if (failed(results))
    return failure();
  return (*results)[1];
}

FailureOr<llvm::SmallVector<CGValue>>
tilec::frontend::callCombineFn(CodeGen &cg, const CGValue &fn, SMLoc loc,
                               llvm::ArrayRef<CGValue> lhs,
                               llvm::ArrayRef<CGValue> rhs) {
  CallArgs fnArgs;
  fnArgs.loc = loc;
  fnArgs.calleeName = "combine_fn";
  for (const CGValue &v : lhs)
    fnArgs.positional.push_back({v, loc, "", SMLoc()});
  for (const CGValue &v : rhs)
    fnArgs.positional.push_back({v, loc, "", SMLoc()});
  // A combine compares its operands exactly by design (argmax-style
  // tie-breaks): no float-== warnings inside.
  ++cg.combineFunctionDepth;
  FailureOr<CGValue> r = cg.callFunction(fn, fnArgs);
  --cg.combineFunctionDepth;
  if (failed(r))
    return failure();
  llvm::SmallVector<CGValue> out;
  if (r->isTuple())
    out.append(r->getElements().begin(), r->getElements().end());
  else
    out.push_back(*r);
  return out;
}

CGValue tilec::frontend::packResults(llvm::ArrayRef<CGValue> results,
                                     bool isTuple) {
  if (!isTuple)
    return results.front();
  return CGValue::tuple(std::vector<CGValue>(results.begin(), results.end()));
}
static FailureOr<CGValue> builtinReduce(CodeGen &cg, Args &a) {
  const CGValue &fnValue = a.value(2);
  if (!fnValue.isJitFunction() && !fnValue.isClosure())
    return cg.error(a.loc(2), "the combine_fn of tl.reduce() must be a @jit "
                              "function or a lambda, got " +
                                  fnValue.describe());
  llvm::SmallVector<CGValue> inputs;
  const CGValue &in = a.value(0);
  bool isTuple = in.isTuple();
  if (isTuple)
    inputs.append(in.getElements().begin(), in.getElements().end());
  else
    inputs.push_back(in);
  for (const CGValue &v : inputs)
    if (!v.isTile())
      return cg.error(a.loc(0), "the input of tl.reduce() must be a tile or "
                                "a tuple of tiles, got " +
                                    v.describe());
  SMLoc fnLoc = a.loc(2);
  FailureOr<llvm::SmallVector<CGValue>> results =
      cg.reduce(inputs, a.optInteger(1), a.flag(3), a.call.loc, a.loc(1),
                [&](llvm::ArrayRef<CGValue> lhs, llvm::ArrayRef<CGValue> rhs) {
                  return callCombineFn(cg, fnValue, fnLoc, lhs, rhs);
                });
  if (failed(results))
    return failure();
  return packResults(*results, isTuple);
}

//===----------------------------------------------------------------------===//
// Table
//===----------------------------------------------------------------------===//

llvm::ArrayRef<BuiltinSpec> tilec::frontend::getReduceBuiltins() {
  using K = ArgType;
  static const BuiltinSpec specs[] = {
      {"tl.sum",
       builtinSum,
       {req("input", K::Tile), opt("axis", K::Int), optBool("keep_dims", false),
        opt("dtype", K::DType)}},
      {"tl.xor_sum",
       builtinXorSum,
       {req("input", K::Tile), opt("axis", K::Int),
        optBool("keep_dims", false)}},
      {"tl.softmax",
       builtinSoftmax,
       {req("x", K::Tile), opt("dim", K::Int), optBool("keep_dims", false),
        optBool("ieee_rounding", false)}},
      {"tl.max",
       [](CodeGen &cg, Args &a) { return maxMin(cg, a, true); },
       {req("input", K::Tile), opt("axis", K::Int),
        optBool("return_indices", false),
        optBool("return_indices_tie_break_left", true),
        optBool("keep_dims", false)}},
      {"tl.min",
       [](CodeGen &cg, Args &a) { return maxMin(cg, a, false); },
       {req("input", K::Tile), opt("axis", K::Int),
        optBool("return_indices", false),
        optBool("return_indices_tie_break_left", true),
        optBool("keep_dims", false)}},
      {"tl.argmax",
       [](CodeGen &cg, Args &a) { return argMaxMin(cg, a, true); },
       {req("input", K::Tile), req("axis", K::Int),
        optBool("tie_break_left", true), optBool("keep_dims", false)}},
      {"tl.argmin",
       [](CodeGen &cg, Args &a) { return argMaxMin(cg, a, false); },
       {req("input", K::Tile), req("axis", K::Int),
        optBool("tie_break_left", true), optBool("keep_dims", false)}},
      {"tl.reduce",
       builtinReduce,
       {req("input"), req("axis", K::Int), req("combine_fn"),
        optBool("keep_dims", false)}},
  };
  return specs;
}
