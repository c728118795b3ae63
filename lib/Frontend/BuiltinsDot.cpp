//===- BuiltinsDot.cpp - tl.dot
//---------------------------------------------===//
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
// Dot
//===----------------------------------------------------------------------===//

static FailureOr<CGValue> builtinDot(CodeGen &cg, Args &a) {
  enum { kA, kB, kAcc, kPrecision, kAllowTF32, kImprecise, kOutDType };
  const CGValue *lhs = &a.value(kA), *rhs = &a.value(kB);
  SMLoc loc = a.call.loc;
  llvm::SmallVector<int64_t> as = lhs->getShape(), bs = rhs->getShape();
  if (!((as.size() == 2 && bs.size() == 2) ||
        (as.size() == 3 && bs.size() == 3)))
    return cg.error(loc, "tl.dot() needs two 2-d tiles (or two 3-d, "
                         "batched), got " +
                             lhs->describe() + " and " + rhs->describe());
  size_t r = as.size();
  if (as[r - 1] != bs[r - 2])
    return cg.error(loc, "tl.dot(): the inner dimensions differ: a is " +
                             lhs->describe() + " and b is " + rhs->describe());
  if (r == 3 && as[0] != bs[0])
    return cg.error(loc, "tl.dot(): the batch dimensions differ: a is " +
                             lhs->describe() + " and b is " + rhs->describe());
  int64_t m = as[r - 2], k = as[r - 1], n = bs[r - 1];
  if (m < 1 || n < 1 || k < 1)
    return cg.error(loc, "tl.dot() needs M, N and K of at least 1, got "
                         "M=" +
                             std::to_string(m) + ", N=" + std::to_string(n) +
                             ", K=" + std::to_string(k) + " (a is " +
                             lhs->describe() + ", b is " + rhs->describe() +
                             ")");
  DType at = lhs->getDType(), bt = rhs->getDType();
  if (at != bt && !(at.isFP8() && bt.isFP8()))
    return cg.error(loc, "tl.dot() needs operands of the same type, got " +
                             at.str() + " and " + bt.str() +
                             "; convert one with .to()");
  if (at.isFP8() && bt.isFP8() && at != bt)
    return cg.error(loc, "tl.dot() on two different fp8 types (" + at.str() +
                             " and " + bt.str() + ") is not supported yet");
  bool supported = at.isFP16() || at.isBF16() || at.isFP32() || at.isFP8() ||
                   at.getScalar() == ScalarType::I8;
  if (!supported)
    return cg.error(loc, "tl.dot() supports fp16, bf16, fp32, fp8 and "
                         "int8 operands, not " +
                             at.str());

  DType outDType =
      a.has(kOutDType) ? a.dtype(kOutDType) : DType::get(ScalarType::FP32);
  DType ret;
  if (at.isInt()) {
    ret = DType::get(ScalarType::I32);
  } else if (outDType.isBF16()) {
    return cg.error(a.loc(kOutDType), "out_dtype=tl.bfloat16 is not "
                                      "supported; use tl.float32 and convert "
                                      "with .to(tl.bfloat16)");
  } else if (at.isFP32() || at.isBF16()) {
    if (!outDType.isFP32())
      return cg.error(a.loc(kOutDType), "tl.dot() of " + at.str() +
                                            " operands accumulates in fp32; "
                                            "out_dtype must be tl.float32");
    ret = outDType;
  } else {
    if (!outDType.isFP32() && !outDType.isFP16())
      return cg.error(a.loc(kOutDType), "out_dtype must be tl.float32 or "
                                        "tl.float16, got " +
                                            outDType.str());
    ret = outDType;
  }

  tile::InputPrecision precision = tile::InputPrecision::TF32;
  if (a.has(kPrecision) && a.has(kAllowTF32))
    return cg.error(a.loc(kAllowTF32), "give only one of input_precision and "
                                       "allow_tf32");
  if (a.has(kPrecision)) {
    StringRef p = a.str(kPrecision);
    if (p == "tf32")
      precision = tile::InputPrecision::TF32;
    else if (p == "tf32x3")
      precision = tile::InputPrecision::TF32x3;
    else if (p == "ieee")
      precision = tile::InputPrecision::IEEE;
    else
      return cg.error(a.loc(kPrecision), "input_precision must be 'tf32', "
                                         "'tf32x3' or 'ieee', got '" +
                                             p + "'");
  } else if (a.has(kAllowTF32)) {
    precision = a.flag(kAllowTF32) ? tile::InputPrecision::TF32
                                   : tile::InputPrecision::IEEE;
  }

  llvm::SmallVector<int64_t> outShape;
  if (r == 3)
    outShape.push_back(as[0]);
  outShape.push_back(m);
  outShape.push_back(n);
  CGValue acc;
  if (a.has(kAcc)) {
    const CGValue *c = &a.value(kAcc);
    if (llvm::ArrayRef<int64_t>(c->getShape()) != llvm::ArrayRef(outShape))
      return cg.error(a.loc(kAcc), "the accumulator of tl.dot() must have "
                                   "shape " +
                                       shapeToString(outShape) + ", got " +
                                       c->describe());
    if (c->getDType() != ret)
      return cg.error(a.loc(kAcc), "the accumulator of tl.dot() must be " +
                                       ret.str() + " (out_dtype), got " +
                                       c->describe());
    acc = *c;
  } else {
    acc = denseConstant(cg, ret, outShape, CGValue::integer(0));
  }
  mlir::Value v = tile::DotOp::create(
      cg.builder, cg.loc(), acc.getValue().getType(), lhs->getValue(),
      rhs->getValue(), acc.getValue(), precision);
  return CGValue::runtime(v, ret);
}

//===----------------------------------------------------------------------===//
// Table
//===----------------------------------------------------------------------===//

llvm::ArrayRef<BuiltinSpec> tilec::frontend::getDotBuiltins() {
  using K = ArgType;
  static const BuiltinSpec specs[] = {
      {"tl.dot",
       builtinDot,
       {req("input", K::Tile), req("other", K::Tile), opt("acc", K::Tile),
        optStr("input_precision", "tf32"), optBool("allow_tf32", true),
        opt("max_num_imprecise_acc"), opt("out_dtype", K::DType)}},
  };
  return specs;
}
