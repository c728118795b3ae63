//===- Value.cpp - Values of the code generator ---------------------------===//
//
// Part of tilec, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#include "Value.h"

#include "tilec/Dialect/Tile/IR/Tile.h"
#include "tilec/Frontend/AST.h"

#include "mlir/IR/BuiltinTypes.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>

using namespace tilec::frontend;

std::string tilec::frontend::shapeToString(llvm::ArrayRef<int64_t> shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i)
      s += ", ";
    s += std::to_string(shape[i]);
  }
  return s + "]";
}

std::string tilec::frontend::getAssignedNumberHint(const CGValue &value) {
  if (!value.isAssignedNumber())
    return "";
  return " (assigning the number " + value.getAssignedNumber().str() +
         " to a variable makes a run-time scalar, as in Triton; annotate the "
         "assignment with ': tl.constexpr' to keep a constant)";
}

bool CGValue::isTile() const {
  return isRuntime() && llvm::isa<mlir::RankedTensorType>(value.getType());
}

llvm::SmallVector<int64_t> CGValue::getShape() const {
  if (!isRuntime())
    return {};
  mlir::Type type = value.getType();
  if (auto tensor = llvm::dyn_cast<mlir::RankedTensorType>(type))
    return llvm::to_vector(tensor.getShape());
  if (auto blockPtr = llvm::dyn_cast<tile::BlockPointerType>(type))
    return llvm::to_vector(blockPtr.getBlockType().getShape());
  return {};
}

bool CGValue::isTruthy() const {
  switch (kind) {
  case Kind::None:
    return false;
  case Kind::Bool:
  case Kind::Int:
    return intValue != 0;
  case Kind::Float:
    return floatValue != 0.0;
  case Kind::Str:
    return !text.empty();
  case Kind::Tuple:
  case Kind::Dict:
    return !elements.empty();
  default:
    return true;
  }
}

/// Python's repr of a float: shortest round-trip form, with `.0` for
/// integral values, `inf`, `nan`.
static std::string floatRepr(double value) {
  if (std::isnan(value))
    return "nan";
  if (std::isinf(value))
    return value < 0 ? "-inf" : "inf";
  for (int precision = 1; precision <= 17; ++precision) {
    std::string s;
    llvm::raw_string_ostream os(s);
    os << llvm::format("%.*g", precision, value);
    if (std::strtod(s.c_str(), nullptr) == value) {
      if (s.find_first_of(".eEn") == std::string::npos)
        s += ".0";
      return s;
    }
  }
  return std::to_string(value);
}

std::string CGValue::repr() const {
  switch (kind) {
  case Kind::Poison:
    return "<error>";
  case Kind::None:
    return "None";
  case Kind::Bool:
    return intValue ? "True" : "False";
  case Kind::Int:
    return std::to_string(intValue);
  case Kind::Float:
    return floatRepr(floatValue);
  case Kind::Str:
    return pythonStringRepr(text);
  case Kind::Tuple: {
    std::string s = "(";
    for (size_t i = 0; i < elements.size(); ++i) {
      if (i)
        s += ", ";
      s += elements[i].repr();
    }
    if (elements.size() == 1)
      s += ",";
    return s + ")";
  }
  case Kind::Dict: {
    std::string s = "{";
    for (size_t i = 0; i < elements.size(); ++i) {
      if (i)
        s += ", ";
      s += elements[i].elements[0].repr() + ": " +
           elements[i].elements[1].repr();
    }
    return s + "}";
  }
  case Kind::DTypeObj:
    return dtype.str();
  case Kind::Module:
    return "<module '" + text + "'>";
  case Kind::Builtin:
    return "<built-in function " + text + ">";
  case Kind::JitFunction:
  case Kind::Closure: {
    std::string name = "<lambda>";
    if (const auto *def = llvm::dyn_cast_or_null<FunctionDef>(node))
      name = def->getName().str();
    return "<function " + name + ">";
  }
  case Kind::BoundMethod:
    return "<method " + text + ">";
  case Kind::Runtime:
    return describe();
  }
  return "?";
}

std::string CGValue::str() const {
  return isStr() ? text : repr();
}

std::string CGValue::describe() const {
  switch (kind) {
  case Kind::Runtime: {
    if (dtype.isBlockPointer()) {
      return "block_ptr<" + DType::get(dtype.getScalar()).str() +
             shapeToString(getShape()) + ">";
    }
    if (dtype.isTensorDescriptor()) {
      return "tensor_descriptor<" + DType::get(dtype.getScalar()).str() +
             shapeToString(getShape()) +
             (dtype.hasNanPadding() ? ", padding nan>" : ">");
    }
    std::string s = dtype.str();
    if (isTile())
      s += shapeToString(getShape());
    return s;
  }
  case Kind::None:
  case Kind::Bool:
  case Kind::Int:
  case Kind::Float:
    return "constexpr " + repr();
  case Kind::Str:
    return "str " + repr();
  case Kind::Tuple:
    return "tuple " + repr();
  case Kind::Dict:
    return "dict " + repr();
  case Kind::DTypeObj:
    return "dtype " + dtype.getSpelling();
  case Kind::Module:
    return "module '" + text + "'";
  case Kind::Builtin:
    return "builtin '" + text + "'";
  case Kind::JitFunction:
  case Kind::Closure:
    if (const auto *def = llvm::dyn_cast_or_null<FunctionDef>(node))
      return "function '" + def->getName().str() + "'";
    return "lambda";
  case Kind::BoundMethod:
    return "method '" + text + "'";
  case Kind::Poison:
    return "<error>";
  }
  return "?";
}

bool CGValue::constexprEquals(const CGValue &other) const {
  if (isNumber() && other.isNumber()) {
    if (isFloat() || other.isFloat())
      return getNumber() == other.getNumber();
    return intValue == other.intValue;
  }
  if (kind != other.kind)
    return false;
  switch (kind) {
  case Kind::None:
    return true;
  case Kind::Str:
  case Kind::Module:
  case Kind::Builtin:
    return text == other.text;
  case Kind::Tuple:
  case Kind::Dict:
    if (elements.size() != other.elements.size())
      return false;
    for (size_t i = 0; i < elements.size(); ++i)
      if (!elements[i].constexprEquals(other.elements[i]))
        return false;
    return true;
  case Kind::DTypeObj:
    return dtype == other.dtype;
  case Kind::JitFunction:
  case Kind::Closure:
    return node == other.node && frame == other.frame;
  default:
    return false;
  }
}
