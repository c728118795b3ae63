//===- Value.h - Values of the code generator -------------------*- C++ -*-===//
//
// Part of tilec, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// What an expression of a kernel evaluates to while it is compiled. Like in
// Triton's code generator there are two worlds:
//
// - compile-time values (constexprs): Python's None, bool, int (64-bit here;
//   a larger value is an error), float, str, tuples, the dtype objects
//   (`tl.float16`), modules (`tl`, `tl.math`), builtins (`tl.load`), @jit
//   functions, nested functions and lambdas with the frame they close over,
//   bound methods (`x.to`). Operators on them fold with Python's semantics.
// - run-time values: an mlir::Value with its Triton dtype (signedness
//   included, which MLIR's signless integers lack). Its shape is the MLIR
//   type's: a scalar, a tile (ranked tensor), or a block pointer.
//
// `Poison` stands for the result of an expression that failed (an error was
// reported): any use of it fails silently, so one mistake gives one message.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_LIB_FRONTEND_VALUE_H
#define TILEC_LIB_FRONTEND_VALUE_H

#include "DType.h"

#include "mlir/IR/Value.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

#include <memory>
#include <string>
#include <vector>

namespace tilec::frontend {

class Node;
struct Frame;

/// A value of the code generator: a constexpr or a run-time value.
class CGValue {
public:
  enum class Kind : uint8_t {
    Poison,
    None,
    Bool,
    Int,
    Float,
    Str,
    Tuple,
    /// The keyword arguments a helper's `**kwargs` collected, in call order:
    /// `elements` are (name, value) tuples.
    Dict,
    /// A dtype object (`tl.float32`, `tl.pointer_type(tl.int8)`).
    DTypeObj,
    /// A module: `triton`, `triton.language`, `triton.language.math`,
    /// Python's `math`.
    Module,
    /// A builtin function, named canonically (`tl.load`, `range`, `len`).
    Builtin,
    /// A module-level @jit function.
    JitFunction,
    /// A nested `def` or a `lambda`, with the frame it closes over.
    Closure,
    /// A method bound to its receiver (`x.to`, `p.advance`).
    BoundMethod,
    /// A run-time value.
    Runtime,
  };

  CGValue() = default;

  static CGValue poison() { return CGValue(Kind::Poison); }
  static CGValue none() { return CGValue(Kind::None); }
  static CGValue boolean(bool value) {
    CGValue v(Kind::Bool);
    v.intValue = value;
    return v;
  }
  static CGValue integer(int64_t value) {
    CGValue v(Kind::Int);
    v.intValue = value;
    return v;
  }
  static CGValue floating(double value) {
    CGValue v(Kind::Float);
    v.floatValue = value;
    return v;
  }
  static CGValue string(llvm::StringRef value) {
    CGValue v(Kind::Str);
    v.text = value.str();
    return v;
  }
  static CGValue tuple(std::vector<CGValue> elements) {
    CGValue v(Kind::Tuple);
    v.elements = std::move(elements);
    return v;
  }
  /// A `**kwargs` dict of (name, value) items, in order.
  static CGValue dict(std::vector<std::pair<std::string, CGValue>> items) {
    CGValue v(Kind::Dict);
    for (auto &[name, value] : items)
      v.elements.push_back(
          CGValue::tuple({CGValue::string(name), std::move(value)}));
    return v;
  }
  static CGValue dtypeObject(DType dtype) {
    CGValue v(Kind::DTypeObj);
    v.dtype = dtype;
    return v;
  }
  static CGValue module(llvm::StringRef path) {
    CGValue v(Kind::Module);
    v.text = path.str();
    return v;
  }
  static CGValue builtin(llvm::StringRef name) {
    CGValue v(Kind::Builtin);
    v.text = name.str();
    return v;
  }
  static CGValue jitFunction(const Node *def) {
    CGValue v(Kind::JitFunction);
    v.node = def;
    return v;
  }
  static CGValue closure(const Node *def, std::shared_ptr<Frame> frame) {
    CGValue v(Kind::Closure);
    v.node = def;
    v.frame = std::move(frame);
    return v;
  }
  static CGValue boundMethod(CGValue receiver, llvm::StringRef name) {
    CGValue v(Kind::BoundMethod);
    v.text = name.str();
    v.elements.push_back(std::move(receiver));
    return v;
  }
  static CGValue runtime(mlir::Value value, DType dtype) {
    CGValue v(Kind::Runtime);
    v.value = value;
    v.dtype = dtype;
    return v;
  }
  /// The run-time value of a (non-constexpr) kernel parameter; remembers the
  /// parameter so that a message needing a constant can suggest declaring it
  /// `tl.constexpr`.
  static CGValue kernelParameter(CGValue value, const Node *param) {
    value.node = param;
    return value;
  }
  /// A run-time scalar made from a Python number by a plain assignment
  /// (`n = 16` in a kernel is a run-time int32, as in Triton); remembers
  /// the number for messages.
  static CGValue assignedNumber(CGValue scalar, const CGValue &number) {
    scalar.text = number.repr();
    scalar.assignedFromNumber = true;
    return scalar;
  }

  Kind getKind() const { return kind; }
  bool isPoison() const { return kind == Kind::Poison; }
  bool isNone() const { return kind == Kind::None; }
  bool isBool() const { return kind == Kind::Bool; }
  bool isInt() const { return kind == Kind::Int; }
  bool isFloat() const { return kind == Kind::Float; }
  bool isStr() const { return kind == Kind::Str; }
  bool isTuple() const { return kind == Kind::Tuple; }
  bool isDict() const { return kind == Kind::Dict; }
  bool isDType() const { return kind == Kind::DTypeObj; }
  bool isModule() const { return kind == Kind::Module; }
  bool isBuiltin() const { return kind == Kind::Builtin; }
  bool isBuiltin(llvm::StringRef name) const {
    return kind == Kind::Builtin && text == name;
  }
  bool isJitFunction() const { return kind == Kind::JitFunction; }
  bool isClosure() const { return kind == Kind::Closure; }
  bool isBoundMethod() const { return kind == Kind::BoundMethod; }
  bool isRuntime() const { return kind == Kind::Runtime; }
  /// For a run-time value: whether a plain assignment made it from a
  /// Python number, and that number's spelling.
  bool isAssignedNumber() const { return isRuntime() && assignedFromNumber; }
  /// For a run-time value: the kernel Parameter it is the value of, or null.
  const Node *getKernelParameter() const {
    return isRuntime() ? node : nullptr;
  }
  llvm::StringRef getAssignedNumber() const { return text; }
  bool isConstexpr() const { return !isRuntime() && !isPoison(); }
  /// A Python number: bool, int or float.
  bool isNumber() const { return isBool() || isInt() || isFloat(); }
  /// A Python int or bool (bools are ints in Python).
  bool isIntLike() const { return isBool() || isInt(); }
  bool isCallable() const {
    return isBuiltin() || isJitFunction() || isClosure() || isBoundMethod();
  }

  bool getBool() const { return intValue != 0; }
  int64_t getInt() const { return intValue; }
  double getFloat() const { return floatValue; }
  /// A number as a double.
  double getNumber() const {
    return isFloat() ? floatValue : static_cast<double>(intValue);
  }
  llvm::StringRef getStr() const { return text; }
  /// Module path, builtin name, or method name.
  llvm::StringRef getName() const { return text; }
  llvm::ArrayRef<CGValue> getElements() const { return elements; }
  /// The value of key `name` of a dict, or null.
  const CGValue *lookupKey(llvm::StringRef name) const {
    for (const CGValue &item : elements)
      if (item.elements[0].text == name)
        return &item.elements[1];
    return nullptr;
  }
  std::vector<CGValue> &getElementsMutable() { return elements; }
  const CGValue &getReceiver() const { return elements.front(); }
  DType getDType() const { return dtype; }
  const Node *getNode() const { return node; }
  const std::shared_ptr<Frame> &getFrame() const { return frame; }
  mlir::Value getValue() const { return value; }

  /// For a run-time value: whether it is a tile (ranked tensor).
  bool isTile() const;
  /// For a run-time value: whether it is a block pointer.
  bool isBlockPointer() const { return isRuntime() && dtype.isBlockPointer(); }
  /// For a run-time value: whether it is a tensor descriptor
  /// (`tl.make_tensor_descriptor`; a block pointer at offset zero in the IR).
  bool isTensorDescriptor() const {
    return isRuntime() && dtype.isTensorDescriptor();
  }
  /// A block pointer or a tensor descriptor: a run-time value that is
  /// neither a number nor a tile (no arithmetic, truth value or indexing).
  bool isBlockLike() const { return isBlockPointer() || isTensorDescriptor(); }
  /// For a run-time value: the tile shape (empty for a scalar), or for a
  /// block pointer its block shape.
  llvm::SmallVector<int64_t> getShape() const;

  /// Python's truth value of a constexpr.
  bool isTruthy() const;

  /// A short description for messages: `fp32[64, 32]`, `int32`,
  /// `pointer<fp32>[128]`, `block_ptr<fp16[64, 32]>`,
  /// `tensor_descriptor<fp16[64, 32]>`, `constexpr 16`,
  /// `tuple (16, 32)`, `tl.float16`, `function 'helper'`, `module tl`.
  std::string describe() const;
  /// The constexpr as Python would print it: `16`, `1.5`, `True`, `'s'`,
  /// `(1, 2)`, `None`, `fp16`.
  std::string repr() const;
  /// Python's str() of a constexpr: a string is itself, anything else its
  /// repr().
  std::string str() const;

  /// Structural equality of constexprs (Python's ==).
  bool constexprEquals(const CGValue &other) const;

private:
  explicit CGValue(Kind kind) : kind(kind) {}

  Kind kind = Kind::Poison;
  int64_t intValue = 0;
  double floatValue = 0.0;
  std::string text;
  std::vector<CGValue> elements;
  DType dtype;
  const Node *node = nullptr;
  std::shared_ptr<Frame> frame;
  mlir::Value value;
  bool assignedFromNumber = false;
};

/// For a run-time value a plain assignment made from a Python number, a
/// parenthesized explanation for messages that needed a constant; "" for
/// anything else.
std::string getAssignedNumberHint(const CGValue &value);

/// Python's repr() of a string: quoted (single quotes unless the text has
/// one and no double quote), backslashes, the quote and unprintable
/// characters escaped.
std::string pythonStringRepr(llvm::StringRef text);
/// Python's ascii(): `repr` with every non-ASCII character escaped
/// (`\xe9`, `\u03c0`, `\U0001f600`).
std::string pythonAscii(llvm::StringRef repr);

/// Python's format(value, spec) of a constexpr (the format-spec
/// mini-language: `[[fill]align][sign][z][#][0][width][grouping][.precision]
/// [type]` for ints, bools, floats and strings; other values accept only an
/// empty spec). Returns false with Python's complaint in `error` when the
/// spec does not apply to the value.
bool formatConstexpr(const CGValue &value, llvm::StringRef spec,
                     std::string &result, std::string &error);

/// Prints a shape as `[64, 32]`.
std::string shapeToString(llvm::ArrayRef<int64_t> shape);

} // namespace tilec::frontend

#endif // TILEC_LIB_FRONTEND_VALUE_H
