//===- CodeGenConstexpr.cpp - Folding operators on constexprs -------------===//
//
// Part of tilec, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// Operators on two compile-time values fold with Python's semantics: `//`
// floors and `%` takes the divisor's sign, `/` is true division, bools are
// ints in arithmetic, tuples and strings concatenate. Integers are 64-bit
// here; a result that does not fit is an error, not a wrap-around.
//
//===----------------------------------------------------------------------===//

#include "CodeGen.h"

#include "llvm/Support/MathExtras.h"

#include <cmath>

using namespace tilec;
using namespace tilec::frontend;
using llvm::SMLoc;
using llvm::StringRef;
using mlir::failure;
using mlir::FailureOr;

/// Python's float floor division and modulo.
static double pyFloatMod(double a, double b) {
  double m = std::fmod(a, b);
  if (m != 0.0 && ((m < 0) != (b < 0)))
    m += b;
  return m;
}

static double pyFloatFloorDiv(double a, double b) {
  double m = std::fmod(a, b);
  double div = (a - m) / b;
  if (m != 0.0 && ((b < 0) != (m < 0)))
    div -= 1.0;
  double floorDiv = std::floor(div);
  if (div - floorDiv > 0.5)
    floorDiv += 1.0;
  return floorDiv;
}

FailureOr<CGValue> CodeGen::foldBinary(BinaryOp op, const CGValue &lhs,
                                       const CGValue &rhs, SMLoc opLoc) {
  std::string opName = getSpelling(op).str();
  auto unsupported = [&]() {
    return error(opLoc, "unsupported operand types for '" + opName +
                            "': " + lhs.describe() + " and " + rhs.describe());
  };
  auto overflow = [&]() {
    return error(opLoc, "integer overflow in the constant expression: the "
                        "result of '" +
                            opName + "' does not fit in 64 bits");
  };

  // Sequences.
  if (lhs.isTuple() || lhs.isStr()) {
    if (op == BinaryOp::Add && lhs.getKind() == rhs.getKind()) {
      if (lhs.isStr())
        return CGValue::string(lhs.getStr().str() + rhs.getStr().str());
      std::vector<CGValue> elements(lhs.getElements().begin(),
                                    lhs.getElements().end());
      elements.insert(elements.end(), rhs.getElements().begin(),
                      rhs.getElements().end());
      return CGValue::tuple(std::move(elements));
    }
    if (op == BinaryOp::Mul && rhs.isIntLike()) {
      int64_t n = std::max<int64_t>(0, rhs.getInt());
      if (n > 4096)
        return error(opLoc, "sequence repetition is too large");
      if (lhs.isStr()) {
        std::string s;
        for (int64_t i = 0; i < n; ++i)
          s += lhs.getStr().str();
        return CGValue::string(s);
      }
      std::vector<CGValue> elements;
      for (int64_t i = 0; i < n; ++i)
        elements.insert(elements.end(), lhs.getElements().begin(),
                        lhs.getElements().end());
      return CGValue::tuple(std::move(elements));
    }
    return unsupported();
  }
  if (!lhs.isNumber() || !rhs.isNumber())
    return unsupported();

  if (lhs.isIntLike() && rhs.isIntLike()) {
    int64_t a = lhs.getInt(), b = rhs.getInt();
    bool bothBool = lhs.isBool() && rhs.isBool();
    int64_t r = 0;
    switch (op) {
    case BinaryOp::Add:
      if (llvm::AddOverflow(a, b, r))
        return overflow();
      return CGValue::integer(r);
    case BinaryOp::Sub:
      if (llvm::SubOverflow(a, b, r))
        return overflow();
      return CGValue::integer(r);
    case BinaryOp::Mul:
      if (llvm::MulOverflow(a, b, r))
        return overflow();
      return CGValue::integer(r);
    case BinaryOp::Div:
      if (b == 0)
        return error(opLoc, "division by zero in a constant expression");
      return CGValue::floating(static_cast<double>(a) / static_cast<double>(b));
    case BinaryOp::FloorDiv: {
      if (b == 0)
        return error(opLoc, "division by zero in a constant expression");
      if (a == INT64_MIN && b == -1)
        return overflow();
      int64_t q = a / b;
      if ((a % b != 0) && ((a < 0) != (b < 0)))
        --q;
      return CGValue::integer(q);
    }
    case BinaryOp::Mod: {
      if (b == 0)
        return error(opLoc, "modulo by zero in a constant expression");
      if (b == -1)
        return CGValue::integer(0);
      int64_t m = a % b;
      if (m != 0 && ((m < 0) != (b < 0)))
        m += b;
      return CGValue::integer(m);
    }
    case BinaryOp::Pow: {
      if (b < 0) {
        if (a == 0)
          return error(opLoc, "0 cannot be raised to a negative power");
        return CGValue::floating(
            std::pow(static_cast<double>(a), static_cast<double>(b)));
      }
      int64_t result = 1;
      for (int64_t i = 0; i < b; ++i) {
        if (llvm::MulOverflow(result, a, result))
          return overflow();
        if (result == 0 || result == 1)
          break;
      }
      if (result == 1 && a == -1)
        result = (b % 2 == 0) ? 1 : -1;
      return CGValue::integer(result);
    }
    case BinaryOp::LShift: {
      if (b < 0)
        return error(opLoc, "negative shift count");
      if (a == 0)
        return CGValue::integer(0);
      if (b >= 63)
        return overflow();
      int64_t shifted = static_cast<int64_t>(static_cast<uint64_t>(a) << b);
      if ((shifted >> b) != a)
        return overflow();
      return CGValue::integer(shifted);
    }
    case BinaryOp::RShift:
      if (b < 0)
        return error(opLoc, "negative shift count");
      if (b >= 64)
        return CGValue::integer(a < 0 ? -1 : 0);
      return CGValue::integer(a >> b);
    case BinaryOp::BitAnd:
      return bothBool ? CGValue::boolean(a & b) : CGValue::integer(a & b);
    case BinaryOp::BitOr:
      return bothBool ? CGValue::boolean(a | b) : CGValue::integer(a | b);
    case BinaryOp::BitXor:
      return bothBool ? CGValue::boolean(a ^ b) : CGValue::integer(a ^ b);
    case BinaryOp::MatMul:
      return unsupported();
    }
    return unsupported();
  }

  double a = lhs.getNumber(), b = rhs.getNumber();
  switch (op) {
  case BinaryOp::Add:
    return CGValue::floating(a + b);
  case BinaryOp::Sub:
    return CGValue::floating(a - b);
  case BinaryOp::Mul:
    return CGValue::floating(a * b);
  case BinaryOp::Div:
    if (b == 0.0)
      return error(opLoc, "float division by zero in a constant expression");
    return CGValue::floating(a / b);
  case BinaryOp::FloorDiv:
    if (b == 0.0)
      return error(opLoc, "float division by zero in a constant expression");
    return CGValue::floating(pyFloatFloorDiv(a, b));
  case BinaryOp::Mod:
    if (b == 0.0)
      return error(opLoc, "float modulo by zero in a constant expression");
    return CGValue::floating(pyFloatMod(a, b));
  case BinaryOp::Pow:
    if (a == 0.0 && b < 0)
      return error(opLoc, "0.0 cannot be raised to a negative power");
    return CGValue::floating(std::pow(a, b));
  default:
    return unsupported();
  }
}

FailureOr<CGValue> CodeGen::foldCompare(CmpOp op, const CGValue &lhs,
                                        const CGValue &rhs, SMLoc opLoc) {
  std::string opName = getSpelling(op).str();
  switch (op) {
  case CmpOp::Eq:
    return CGValue::boolean(lhs.constexprEquals(rhs));
  case CmpOp::NotEq:
    return CGValue::boolean(!lhs.constexprEquals(rhs));
  case CmpOp::Is:
  case CmpOp::IsNot: {
    bool same = lhs.getKind() == rhs.getKind() && lhs.constexprEquals(rhs);
    return CGValue::boolean(op == CmpOp::Is ? same : !same);
  }
  case CmpOp::In:
  case CmpOp::NotIn: {
    bool found = false;
    if (rhs.isTuple()) {
      for (const CGValue &element : rhs.getElements())
        found |= element.constexprEquals(lhs);
    } else if (rhs.isStr() && lhs.isStr()) {
      found = rhs.getStr().contains(lhs.getStr());
    } else {
      return error(opLoc, "'" + opName +
                              "' needs a tuple or a string on its "
                              "right, got " +
                              rhs.describe());
    }
    return CGValue::boolean(op == CmpOp::In ? found : !found);
  }
  default:
    break;
  }
  int order;
  if (lhs.isNumber() && rhs.isNumber()) {
    if (lhs.isIntLike() && rhs.isIntLike())
      order = lhs.getInt() < rhs.getInt()   ? -1
              : lhs.getInt() > rhs.getInt() ? 1
                                            : 0;
    else {
      double a = lhs.getNumber(), b = rhs.getNumber();
      if (std::isnan(a) || std::isnan(b))
        return CGValue::boolean(false);
      order = a < b ? -1 : a > b ? 1 : 0;
    }
  } else if (lhs.isStr() && rhs.isStr()) {
    order = lhs.getStr().compare(rhs.getStr());
  } else {
    return error(opLoc, "'" + opName + "' is not supported between " +
                            lhs.describe() + " and " + rhs.describe());
  }
  switch (op) {
  case CmpOp::Lt:
    return CGValue::boolean(order < 0);
  case CmpOp::LtE:
    return CGValue::boolean(order <= 0);
  case CmpOp::Gt:
    return CGValue::boolean(order > 0);
  case CmpOp::GtE:
    return CGValue::boolean(order >= 0);
  default:
    return failure();
  }
}

FailureOr<CGValue> CodeGen::foldUnary(UnaryOp op, const CGValue &operand,
                                      SMLoc opLoc) {
  switch (op) {
  case UnaryOp::Not:
    return CGValue::boolean(!operand.isTruthy());
  case UnaryOp::Plus:
    if (operand.isIntLike())
      return CGValue::integer(operand.getInt());
    if (operand.isFloat())
      return operand;
    break;
  case UnaryOp::Minus:
    if (operand.isIntLike()) {
      if (operand.getInt() == INT64_MIN)
        return error(opLoc, "integer overflow in the constant expression");
      return CGValue::integer(-operand.getInt());
    }
    if (operand.isFloat())
      return CGValue::floating(-operand.getFloat());
    break;
  case UnaryOp::Invert:
    if (operand.isIntLike())
      return CGValue::integer(~operand.getInt());
    break;
  }
  return error(opLoc, "bad operand type for unary '" + getSpelling(op) +
                          "': " + operand.describe());
}
