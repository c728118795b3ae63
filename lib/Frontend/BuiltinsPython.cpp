//===- BuiltinsPython.cpp - Python builtins
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
// Python builtins
//===----------------------------------------------------------------------===//

/// isinstance(obj, T) or isinstance(obj, (T, ...)), decided at compile time
/// (every value's kind is known then): `tl.tensor` is a run-time value
/// (tile, scalar, pointer, block pointer), `tl.tensor_descriptor` a tensor
/// descriptor, `tl.constexpr` a compile-time value, `tl.dtype` a dtype;
/// Python's `int` (booleans included), `bool`, `float`, `str`, `tuple` and
/// `list` test compile-time values. The result is a compile-time bool, so
/// `if isinstance(...)` compiles one branch only.
static FailureOr<CGValue> builtinIsinstance(CodeGen &cg, Args &a) {
  const CGValue &v = a.value(0);
  const CGValue &types = a.value(1);
  std::vector<CGValue> classes;
  if (types.isTuple())
    classes.assign(types.getElements().begin(), types.getElements().end());
  else
    classes.push_back(types);
  bool result = false;
  for (const CGValue &c : classes) {
    StringRef name = c.isBuiltin() ? c.getName() : "";
    std::optional<bool> match =
        llvm::StringSwitch<std::optional<bool>>(name)
            .Case("tl.tensor", v.isRuntime() && !v.isTensorDescriptor())
            .Case("tl.tensor_descriptor", v.isTensorDescriptor())
            .Case("tl.constexpr", v.isConstexpr())
            .Case("tl.dtype", v.isDType())
            .Case("int", v.isIntLike())
            .Case("bool", v.isBool())
            .Case("float", v.isFloat())
            .Case("str", v.isStr())
            .Cases("tuple", "list", v.isTuple())
            .Default(std::nullopt);
    if (!match)
      return cg.error(a.loc(1),
                      "isinstance() in a kernel tests for tl.tensor, "
                      "tl.tensor_descriptor, tl.constexpr, tl.dtype, int, "
                      "bool, float, str, tuple or list, not " +
                          c.describe());
    result |= *match;
  }
  return CGValue::boolean(result);
}

static FailureOr<CGValue> builtinLen(CodeGen &cg, Args &a) {
  const CGValue &v = a.value(0);
  if (v.isTuple() || v.isDict())
    return CGValue::integer(static_cast<int64_t>(v.getElements().size()));
  if (v.isStr())
    return CGValue::integer(static_cast<int64_t>(v.getStr().size()));
  if (v.isTile())
    return CGValue::integer(v.getShape().front());
  return cg.error(a.loc(0), "len() of " + v.describe() + " is not defined");
}

static FailureOr<CGValue> pyMinMax(CodeGen &cg, Args &a, bool isMax) {
  const CallArgs &call = a.call;
  llvm::SmallVector<CallArg> items;
  if (call.positional.size() == 1 && call.positional[0].value.isTuple()) {
    for (const CGValue &v : call.positional[0].value.getElements())
      items.push_back({v, call.positional[0].loc, "", SMLoc()});
  } else {
    items.append(call.positional.begin(), call.positional.end());
  }
  if (!call.keywords.empty())
    return cg.error(call.keywords.front().keywordLoc,
                    call.calleeName + "() takes no keyword arguments here");
  if (items.empty())
    return cg.error(call.loc, call.calleeName + "() needs at least one value");
  CGValue result = items.front().value;
  for (size_t i = 1; i < items.size(); ++i) {
    const CGValue &v = items[i].value;
    if (result.isNumber() && v.isNumber()) {
      bool better = isMax ? v.getNumber() > result.getNumber()
                          : v.getNumber() < result.getNumber();
      if (better)
        result = v;
      continue;
    }
    CallArgs pair;
    pair.loc = call.loc;
    pair.calleeName = call.calleeName;
    pair.positional = {CallArg{result, items[0].loc, "", SMLoc()}, items[i]};
    FailureOr<CGValue> r =
        cg.callBuiltin(isMax ? "tl.maximum" : "tl.minimum", pair);
    if (failed(r))
      return failure();
    result = *r;
  }
  return result;
}

static FailureOr<CGValue> builtinPyInt(CodeGen &cg, Args &a) {
  if (!a.has(0))
    return CGValue::integer(0);
  const CGValue &v = a.value(0);
  if (v.isIntLike())
    return CGValue::integer(v.getInt());
  if (v.isFloat()) {
    double f = std::trunc(v.getFloat());
    if (!std::isfinite(f) || f < -9.2e18 || f > 9.2e18)
      return cg.error(a.loc(0), "int() of " + v.repr() +
                                    " does not fit in 64 "
                                    "bits");
    return CGValue::integer(static_cast<int64_t>(f));
  }
  if (v.isStr()) {
    int64_t result;
    if (!v.getStr().trim().getAsInteger(10, result))
      return CGValue::integer(result);
  }
  if (v.isRuntime())
    return cg.error(a.loc(0), "int() of a run-time value is not supported; "
                              "use x.to(tl.int32)");
  return cg.error(a.loc(0), "int() of " + v.describe() + " is not defined");
}

static FailureOr<CGValue> builtinPyFloat(CodeGen &cg, Args &a) {
  if (!a.has(0))
    return CGValue::floating(0.0);
  const CGValue &v = a.value(0);
  if (v.isNumber())
    return CGValue::floating(v.getNumber());
  if (v.isStr()) {
    std::string s = v.getStr().trim().lower();
    bool negative = false;
    StringRef t(s);
    if (t.consume_front("-"))
      negative = true;
    else
      t.consume_front("+");
    double result;
    if (t == "inf" || t == "infinity")
      result = std::numeric_limits<double>::infinity();
    else if (t == "nan")
      result = std::numeric_limits<double>::quiet_NaN();
    else if (t.getAsDouble(result))
      return cg.error(a.loc(0), "could not convert the string '" + v.getStr() +
                                    "' to float");
    return CGValue::floating(negative ? -result : result);
  }
  if (v.isRuntime())
    return cg.error(a.loc(0), "float() of a run-time value is not supported; "
                              "use x.to(tl.float32)");
  return cg.error(a.loc(0), "float() of " + v.describe() + " is not defined");
}

static FailureOr<CGValue> builtinPyBool(CodeGen &cg, Args &a) {
  if (!a.has(0))
    return CGValue::boolean(false);
  const CGValue &v = a.value(0);
  if (v.isRuntime())
    return cg.error(a.loc(0), "bool() of a run-time value is not supported; "
                              "compare it (x != 0)");
  return CGValue::boolean(v.isTruthy());
}

static FailureOr<CGValue> builtinPyTuple(CodeGen &cg, Args &a) {
  const CallArgs &call = a.call;
  if (!a.has(0))
    return CGValue::tuple({});
  if (a.value(0).isTuple())
    return a.value(0);
  return cg.error(a.loc(0), call.calleeName + "() of " + a.value(0).describe() +
                                " is not supported");
}

static FailureOr<CGValue> builtinNextPowerOf2(CodeGen &cg, Args &a) {
  int64_t p = 1;
  while (p < a.integer(0)) {
    if (p > (INT64_MAX >> 1))
      return cg.error(a.loc(0), "next_power_of_2() overflows");
    p <<= 1;
  }
  return CGValue::integer(p);
}

/// Python's `math` functions on compile-time numbers.
static FailureOr<CGValue> pyMath(CodeGen &cg, Args &a, double (*fn)(double),
                                 bool toInt) {
  const CallArgs &call = a.call;
  const CGValue &v = a.value(0);
  if (!v.isNumber())
    return cg.error(a.loc(0),
                    call.calleeName +
                        "() needs a compile-time "
                        "number, got " +
                        v.describe() +
                        (v.isRuntime() ? "; use tl.math for tiles" : ""));
  double r = fn(v.getNumber());
  if (toInt) {
    if (!std::isfinite(r) || std::fabs(r) > 9.2e18)
      return cg.error(a.loc(0), call.calleeName + "() result does not fit in "
                                                  "64 bits");
    return CGValue::integer(static_cast<int64_t>(r));
  }
  return CGValue::floating(r);
}

//===----------------------------------------------------------------------===//
// Table
//===----------------------------------------------------------------------===//

llvm::ArrayRef<BuiltinSpec> tilec::frontend::getPythonBuiltins() {
#define PY_MATH(NAME, FN, TOINT)                                               \
  {                                                                            \
    NAME,                                                                      \
        [](CodeGen &cg, Args &a) {                                             \
          return pyMath(                                                       \
              cg, a, [](double x) { return FN(x); }, TOINT);                   \
        },                                                                     \
    {                                                                          \
      req("x")                                                                 \
    }                                                                          \
  }
  static const BuiltinSpec specs[] = {
      {"isinstance", builtinIsinstance, {req("obj"), req("class_or_tuple")}},
      {"len", builtinLen, {req("obj")}},
      {"min",
       [](CodeGen &cg, Args &a) { return pyMinMax(cg, a, false); },
       {},
       BuiltinBinding::Raw},
      {"max",
       [](CodeGen &cg, Args &a) { return pyMinMax(cg, a, true); },
       {},
       BuiltinBinding::Raw},
      {"int", builtinPyInt, {opt("x")}},
      {"float", builtinPyFloat, {opt("x")}},
      {"bool", builtinPyBool, {opt("x")}},
      {"tuple", builtinPyTuple, {opt("iterable")}},
      {"list", builtinPyTuple, {opt("iterable")}},
      {"triton.next_power_of_2", builtinNextPowerOf2, {req("n", ArgType::Int)}},
      PY_MATH("math.log", std::log, false),
      PY_MATH("math.log2", std::log2, false),
      PY_MATH("math.log10", std::log10, false),
      PY_MATH("math.exp", std::exp, false),
      PY_MATH("math.sqrt", std::sqrt, false),
      PY_MATH("math.fabs", std::fabs, false),
      PY_MATH("math.ceil", std::ceil, true),
      PY_MATH("math.floor", std::floor, true),
  };
#undef PY_MATH
  return specs;
}
