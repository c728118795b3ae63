//===- BuiltinsScan.cpp - Scans, sort, histogram
//----------------------------===//
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

/// An inclusive scan of `inputs` (one shape) along `axis` with `combine`:
/// one tile.scan (CodeGenReduce.cpp).
static FailureOr<llvm::SmallVector<CGValue>>
scan(CodeGen &cg, SMLoc loc, llvm::ArrayRef<CGValue> inputs, int64_t axis,
     bool reverse, StringRef what, ValuesCombine combine) {
  return cg.scan(inputs, axis, reverse, loc, combine);
}

/// tl.cumsum / tl.cumprod (input, axis=0, reverse=False[, dtype]).
static FailureOr<CGValue> cumulative(CodeGen &cg, Args &a, bool isSum) {
  const CallArgs &call = a.call;
  const CGValue *input = &a.value(0);
  int64_t rank = static_cast<int64_t>(input->getShape().size());
  FailureOr<int64_t> axis = axisArg(cg, a, 1, rank, 0);
  if (failed(axis))
    return failure();
  CGValue x = *input;
  DType d = x.getDType();
  if (d.isPointer())
    return cg.error(a.loc(0),
                    call.calleeName + "() of pointers is not supported");
  // Triton's types: bf16 computed in fp32; for cumsum, integers narrower
  // than 32 bits (and booleans) in int32/uint32, or `dtype`.
  std::optional<DType> outType;
  if (isSum && a.has(3)) {
    outType = a.dtype(3);
  } else if (d == DType::get(ScalarType::BF16)) {
    outType = DType::get(ScalarType::FP32);
  } else if (isSum && d.isBool()) {
    outType = DType::get(ScalarType::I32);
  } else if (isSum && d.isInt() && d.getBitWidth() < 32) {
    outType = DType::get(d.isSigned() ? ScalarType::I32 : ScalarType::U32);
  }
  if (outType && *outType != d) {
    FailureOr<CGValue> c = cg.cast(x, *outType, a.loc(0));
    if (failed(c))
      return failure();
    x = *c;
  }
  DType t = x.getDType();
  FailureOr<llvm::SmallVector<CGValue>> r = scan(
      cg, call.loc, {x}, *axis, a.flag(2), call.calleeName + "()",
      [&](llvm::ArrayRef<CGValue> l,
          llvm::ArrayRef<CGValue> rr) -> FailureOr<llvm::SmallVector<CGValue>> {
        mlir::Value p = l[0].getValue(), q = rr[0].getValue(), v;
        if (isSum)
          v = t.isFloat() ? arith::AddFOp::create(cg.builder, cg.loc(), p, q)
                                .getResult()
                          : arith::AddIOp::create(cg.builder, cg.loc(), p, q)
                                .getResult();
        else
          v = t.isFloat() ? arith::MulFOp::create(cg.builder, cg.loc(), p, q)
                                .getResult()
                          : arith::MulIOp::create(cg.builder, cg.loc(), p, q)
                                .getResult();
        return llvm::SmallVector<CGValue>{CGValue::runtime(v, t)};
      });
  if (failed(r))
    return failure();
  return r->front();
}

/// tl.associative_scan(input, axis, combine_fn, reverse=False): input a
/// tile or a tuple of tiles of one shape.
static FailureOr<CGValue> builtinAssociativeScan(CodeGen &cg, Args &a) {
  const CallArgs &call = a.call;
  const CGValue &fnValue = a.value(2);
  if (!fnValue.isJitFunction() && !fnValue.isClosure())
    return cg.error(a.loc(2), "the combine_fn of tl.associative_scan() must "
                              "be a @jit function or a lambda, got " +
                                  fnValue.describe());
  llvm::SmallVector<CGValue> inputs;
  const CGValue &in = a.value(0);
  bool isTuple = in.isTuple();
  if (isTuple)
    inputs.append(in.getElements().begin(), in.getElements().end());
  else
    inputs.push_back(in);
  if (inputs.empty())
    return cg.error(a.loc(0), "tl.associative_scan() needs at least one tile");
  for (const CGValue &v : inputs) {
    if (!v.isRuntime() || !v.isTile())
      return cg.error(a.loc(0), "the input of tl.associative_scan() must be "
                                "a tile or a tuple of tiles, got " +
                                    v.describe());
    if (llvm::ArrayRef<int64_t>(v.getShape()) !=
        llvm::ArrayRef<int64_t>(inputs.front().getShape()))
      return cg.error(a.loc(0), "the tiles of tl.associative_scan() must "
                                "have one shape, got " +
                                    inputs.front().describe() + " and " +
                                    v.describe());
    if (v.getDType().isPointer())
      return cg.error(a.loc(0), "tl.associative_scan() of pointers is not "
                                "supported");
  }
  int64_t rank = static_cast<int64_t>(inputs.front().getShape().size());
  FailureOr<int64_t> axis = axisArg(cg, a, 1, rank, 0);
  if (failed(axis))
    return failure();
  SMLoc fnLoc = a.loc(2);
  FailureOr<llvm::SmallVector<CGValue>> results =
      scan(cg, call.loc, inputs, *axis, a.flag(3), "tl.associative_scan()",
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

llvm::ArrayRef<BuiltinSpec> tilec::frontend::getScanBuiltins() {
  using K = ArgType;
  static const BuiltinSpec specs[] = {
      {"tl.cumsum",
       [](CodeGen &cg, Args &a) { return cumulative(cg, a, true); },
       {req("input", K::Tile), opt("axis", K::Int), optBool("reverse", false),
        opt("dtype", K::DType)}},
      {"tl.cumprod",
       [](CodeGen &cg, Args &a) { return cumulative(cg, a, false); },
       {req("input", K::Tile), opt("axis", K::Int), optBool("reverse", false)}},
      {"tl.associative_scan",
       builtinAssociativeScan,
       {req("input"), req("axis", K::Int), req("combine_fn"),
        optBool("reverse", false)}},
  };
  return specs;
}
