//===- BuiltinsDebug.cpp - Debugging and compile-time checks
//----------------===//
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
#include "llvm/Support/SourceMgr.h"

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
// Compile-time helpers
//===----------------------------------------------------------------------===//

static FailureOr<CGValue> builtinStaticAssert(CodeGen &cg, Args &a) {
  const CGValue &cond = a.value(0);
  if (cond.isRuntime())
    return cg
        .error(a.loc(0), "tl.static_assert() needs a compile-time "
                         "condition, got a run-time " +
                             cond.describe() + getAssignedNumberHint(cond))
        .constexprHint(cond);
  if (cond.isTruthy())
    return CGValue::none();
  std::string message = "static assertion failed";
  if (a.has(1))
    message += ": " + a.value(1).str();
  return cg.error(a.loc(0), message);
}

static FailureOr<CGValue> builtinStaticPrint(CodeGen &cg, Args &a) {
  const CallArgs &call = a.call;
  std::string text;
  for (const CallArg &arg : call.positional) {
    if (!text.empty())
      text += " ";
    text += arg.value.str();
  }
  cg.diags.report(DiagSeverity::Remark, call.loc, text);
  return CGValue::none();
}

static FailureOr<CGValue> builtinRangeOutsideFor(CodeGen &cg, Args &a) {
  const CallArgs &call = a.call;
  return cg.error(call.loc, call.calleeName +
                                "() can only be used as the iterable of a "
                                "'for' loop");
}

static FailureOr<CGValue> builtinNotInKernel(CodeGen &cg, Args &a) {
  const CallArgs &call = a.call;
  return cg.error(call.loc, call.calleeName +
                                "() is host-side Triton API and cannot be "
                                "called in a kernel");
}

/// `tl.tensor`, `tl.tensor_descriptor`, `tl.dtype`: types, for isinstance().
static FailureOr<CGValue> builtinTypeOnly(CodeGen &cg, Args &a) {
  const CallArgs &call = a.call;
  return cg.error(call.loc, call.calleeName +
                                " is a type; in a kernel it can only be "
                                "tested with isinstance()");
}

/// tl.debug_barrier(): a barrier across the program's threads.
static FailureOr<CGValue> builtinDebugBarrier(CodeGen &cg, Args &) {
  tile::DebugBarrierOp::create(cg.builder, cg.loc());
  return CGValue::none();
}

//===----------------------------------------------------------------------===//
// Device-side debugging: tl.device_print, tl.device_assert
//===----------------------------------------------------------------------===//

/// Triton's normalization of a device_print prefix: with operands it ends
/// in ": "; a prefix longer than two characters starts with a space.
static std::string normalizePrintPrefix(StringRef text, bool hasOperands) {
  std::string prefix = text.str();
  if (hasOperands && !StringRef(prefix).ends_with(" "))
    prefix += " ";
  if (hasOperands && !StringRef(prefix).ends_with(": "))
    prefix = prefix.substr(0, prefix.size() - 1) + ": ";
  if (prefix.size() > 2 && !StringRef(prefix).starts_with(" "))
    prefix = " " + prefix;
  return prefix;
}

/// `tl.device_print(prefix, *args, hex=False)` (and Python's `print`, as in
/// Triton): one `tile.print` of every argument.
static FailureOr<CGValue> builtinDevicePrint(CodeGen &cg, Args &a) {
  enum { kPrefix, kHex };
  const CallArgs &call = a.call;
  const CGValue &prefixValue = a.value(kPrefix);
  if (!prefixValue.isStr())
    return cg.error(a.loc(kPrefix),
                    a.name(kPrefix) + " must be a string constant, got " +
                        (prefixValue.isRuntime() ? "a run-time " : "") +
                        prefixValue.describe());
  StringRef prefixText = prefixValue.getStr();
  for (char c : prefixText)
    if (c < 0x20 || c > 0x7e)
      return cg.error(a.loc(kPrefix),
                      a.name(kPrefix) +
                          " must be printable ASCII (no control characters "
                          "or newlines)");
  llvm::SmallVector<mlir::Value> operands;
  llvm::SmallVector<bool> isSigned;
  for (auto [index, arg] : llvm::enumerate(a.varargs)) {
    const CGValue &v = arg->value;
    std::string what = "argument " + std::to_string(index + 1) + " of " +
                       call.calleeName + "()";
    if (v.isBlockLike())
      return cg.error(
          arg->loc,
          what + " cannot be a " +
              (v.isTensorDescriptor() ? "tensor descriptor" : "block pointer") +
              "; load the block with tl.load first");
    if (!v.isRuntime() && !v.isNumber())
      return cg.error(
          arg->loc,
          what + " must be a tile or a number, got " + v.describe() +
              (v.isStr() ? " (only the prefix may be a string)" : ""));
    FailureOr<CGValue> rt = cg.toRuntime(v, arg->loc);
    if (failed(rt))
      return failure();
    operands.push_back(rt->getValue());
    isSigned.push_back(rt->getDType().isInt() && rt->getDType().isSigned() &&
                       !rt->getDType().isBool());
  }
  tile::PrintOp::create(cg.builder, cg.loc(),
                        cg.builder.getStringAttr(normalizePrintPrefix(
                            prefixText, !operands.empty())),
                        cg.builder.getBoolAttr(a.flag(kHex)),
                        cg.builder.getDenseBoolArrayAttr(isSigned), operands);
  return CGValue::none();
}

mlir::LogicalResult CodeGen::emitDeviceAssert(const CGValue &cond,
                                              SMLoc condLoc, StringRef message,
                                              const CGValue *mask,
                                              SMLoc maskLoc, SMLoc loc) {
  auto check = [&](const CGValue &v, SMLoc at,
                   StringRef what) -> FailureOr<CGValue> {
    bool valid = v.isRuntime() ? !v.isBlockLike() && (v.getDType().isInt() ||
                                                      v.getDType().isBool())
                               : v.isIntLike();
    if (!valid)
      return error(at, what.str() +
                           " must be a tile or scalar of booleans or "
                           "integers, got " +
                           (v.isRuntime() ? "a run-time " : "") + v.describe());
    FailureOr<CGValue> rt = toRuntime(v, at);
    if (failed(rt))
      return failure();
    return toBool(*rt, at);
  };
  FailureOr<CGValue> ok = check(cond, condLoc, "the condition");
  if (failed(ok))
    return failure();
  if (mask) {
    FailureOr<CGValue> m = check(*mask, maskLoc, "the mask");
    if (failed(m))
      return failure();
    FailureOr<CGValue> notMask = unaryOp(UnaryOp::Not, *m, maskLoc);
    if (failed(notMask))
      return failure();
    ok = binaryOp(BinaryOp::BitOr, *ok, *notMask, maskLoc, condLoc, maskLoc);
    if (failed(ok))
      return failure();
  }
  if (!debug)
    return mlir::success();
  LocationScope scope(*this, loc);
  unsigned line = srcMgr.getLineAndColumn(loc, bufferId).first;
  tile::AssertOp::create(builder, this->loc(), ok->getValue(), message,
                         fileName.getValue(), line,
                         fn ? StringRef(fn->name) : StringRef("kernel"));
  return mlir::success();
}

/// `tl.device_assert(cond, msg="", mask=None)`: a device assertion in debug
/// mode, type-checked and dropped otherwise (Triton's semantics).
static FailureOr<CGValue> builtinDeviceAssert(CodeGen &cg, Args &a) {
  enum { kCond, kMsg, kMask };
  const CallArgs &call = a.call;
  const CGValue *mask = a.has(kMask) ? &a.value(kMask) : nullptr;
  if (failed(cg.emitDeviceAssert(a.value(kCond), a.loc(kCond), a.str(kMsg),
                                 mask, a.loc(kMask), call.loc)))
    return failure();
  return CGValue::none();
}

//===----------------------------------------------------------------------===//
// Table
//===----------------------------------------------------------------------===//

llvm::ArrayRef<BuiltinSpec> tilec::frontend::getDebugBuiltins() {
  static const BuiltinSpec specs[] = {
      {"tl.static_assert", builtinStaticAssert, {req("cond"), opt("msg")}},
      {"tl.static_print", builtinStaticPrint, {}, BuiltinBinding::Raw},
      {"tl.range", builtinRangeOutsideFor, {}, BuiltinBinding::Raw},
      {"tl.static_range", builtinRangeOutsideFor, {}, BuiltinBinding::Raw},
      {"range", builtinRangeOutsideFor, {}, BuiltinBinding::Raw},
      {"triton.jit", builtinNotInKernel, {}, BuiltinBinding::Raw},
      {"triton.autotune", builtinNotInKernel, {}, BuiltinBinding::Raw},
      {"triton.heuristics", builtinNotInKernel, {}, BuiltinBinding::Raw},
      {"triton.Config", builtinNotInKernel, {}, BuiltinBinding::Raw},
      {"tl.tensor", builtinTypeOnly, {}, BuiltinBinding::Raw},
      {"tl.tensor_descriptor", builtinTypeOnly, {}, BuiltinBinding::Raw},
      {"tl.dtype", builtinTypeOnly, {}, BuiltinBinding::Raw},
      {"tl.debug_barrier", builtinDebugBarrier, {}},
      {"tl.device_print",
       builtinDevicePrint,
       {req("prefix"), kwOnly(optBool("hex", false))},
       BuiltinBinding::Varargs},
      {"print",
       builtinDevicePrint,
       {req("prefix"), kwOnly(optBool("hex", false))},
       BuiltinBinding::Varargs},
      {"tl.device_assert",
       builtinDeviceAssert,
       {req("cond"), optStr("msg", ""), opt("mask")}},
  };
  return specs;
}
