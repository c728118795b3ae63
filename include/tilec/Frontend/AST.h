//===- AST.h - Syntax tree of .tile files -----------------------*- C++ -*-===//
//
// Part of the tilec project.
//
//===----------------------------------------------------------------------===//
//
// The abstract syntax tree the parser builds for a `.tile` / Triton `.py`
// module. It mirrors Python's `ast` module for the subset a kernel uses, and
// keeps everything a later phase needs to report errors precisely:
//
// - Every node has a kind (LLVM-style RTTI: `llvm::isa/dyn_cast/cast` work on
//   `Node`, `Expr` and `Stmt`), a source range whose start is the first
//   character of the construct (`getLoc()`), and, for operators, calls,
//   subscripts and attribute accesses, the location of the operator token
//   itself (`getOpLoc()`), so that an error can point at the `+` of a bad
//   broadcast or the `(` of a bad call.
// - Nodes live in the ASTContext arena of their ModuleAST. They are immutable
//   after construction and trivially destructible: children are plain
//   pointers, lists are ArrayRefs into the arena, names are StringRefs into
//   the source buffer or the arena. Destroying a module frees everything at
//   once, whatever the depth of the tree.
// - Unless documented otherwise, pointer fields are non-null.
//
// The module keeps its top-level statements in source order: imports,
// constant assignments, `@jit` functions, and SkippedStmt placeholders for
// the host code that was skipped without being parsed.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_FRONTEND_AST_H
#define TILEC_FRONTEND_AST_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Allocator.h"
#include "llvm/Support/Casting.h"
#include "llvm/Support/SMLoc.h"

#include <algorithm>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>

namespace llvm {
class SourceMgr;
class raw_ostream;
} // namespace llvm

namespace tilec::frontend {

//===----------------------------------------------------------------------===//
// ASTContext
//===----------------------------------------------------------------------===//

/// Owns the memory of an AST: nodes, the arrays of child pointers, and
/// strings that are not spelled in the source (decoded string literals,
/// dotted module names).
class ASTContext {
public:
  ASTContext() = default;
  ASTContext(const ASTContext &) = delete;
  ASTContext &operator=(const ASTContext &) = delete;

  /// Allocates a node in the arena. Nodes are never destroyed individually.
  template <typename T, typename... Args> T *create(Args &&...args) {
    static_assert(std::is_trivially_destructible_v<T>,
                  "AST nodes must not own memory outside the arena");
    return new (allocator.Allocate<T>()) T(std::forward<Args>(args)...);
  }

  /// Copies an array into the arena.
  template <typename T> llvm::ArrayRef<T> copyArray(llvm::ArrayRef<T> array) {
    static_assert(std::is_trivially_destructible_v<T>);
    if (array.empty())
      return {};
    T *data = allocator.Allocate<T>(array.size());
    std::uninitialized_copy(array.begin(), array.end(), data);
    return llvm::ArrayRef<T>(data, array.size());
  }

  /// Copies a string into the arena.
  llvm::StringRef copyString(llvm::StringRef str) {
    if (str.empty())
      return {};
    char *data = allocator.Allocate<char>(str.size());
    std::copy(str.begin(), str.end(), data);
    return llvm::StringRef(data, str.size());
  }

private:
  llvm::BumpPtrAllocator allocator;
};

//===----------------------------------------------------------------------===//
// Node
//===----------------------------------------------------------------------===//

/// Base class of every AST node.
class Node {
public:
  enum class Kind : uint8_t {
    // Expressions.
    Name,
    IntegerLiteral,
    FloatLiteral,
    ImaginaryLiteral,
    StringLiteral,
    FString,
    BoolLiteral,
    NoneLiteral,
    EllipsisLiteral,
    Unary,
    Binary,
    BoolOp,
    Compare,
    IfExp,
    Lambda,
    Call,
    Attribute,
    Subscript,
    Slice,
    Tuple,
    List,
    Set,
    Dict,
    Starred,
    Comprehension,
    NamedExpr,
    UnsupportedExpr,
    // Statements.
    ExprStmt,
    Assign,
    AugAssign,
    AnnAssign,
    If,
    For,
    While,
    Break,
    Continue,
    Pass,
    Return,
    Assert,
    FunctionDef,
    Import,
    ImportFrom,
    Global,
    Nonlocal,
    UnsupportedStmt,
    Skipped,
    // Neither: a function or lambda parameter.
    Parameter,

    FirstExpr = Name,
    LastExpr = UnsupportedExpr,
    FirstStmt = ExprStmt,
    LastStmt = Skipped,
  };

  Kind getKind() const { return kind; }
  /// The characters of the construct: [Start, End) in the source buffer.
  llvm::SMRange getRange() const { return range; }
  /// The first character of the construct.
  llvm::SMLoc getLoc() const { return range.Start; }
  /// One past the last character of the construct.
  llvm::SMLoc getEndLoc() const { return range.End; }

protected:
  Node(Kind kind, llvm::SMRange range) : kind(kind), range(range) {}

private:
  Kind kind;
  llvm::SMRange range;
};

//===----------------------------------------------------------------------===//
// Expressions
//===----------------------------------------------------------------------===//

/// Base class of expressions.
class Expr : public Node {
public:
  /// Number of nodes on the longest path from this node to a leaf (1 for a
  /// leaf). The parser bounds it so that recursive walks cannot overflow the
  /// stack.
  unsigned getHeight() const { return height; }

  static bool classof(const Node *node) {
    return node->getKind() >= Kind::FirstExpr &&
           node->getKind() <= Kind::LastExpr;
  }

protected:
  Expr(Kind kind, llvm::SMRange range, unsigned height = 1)
      : Node(kind, range), height(height) {}

  static unsigned heightOf(const Expr *expr) {
    return expr ? expr->getHeight() : 0;
  }
  template <typename... Exprs>
  static unsigned heightOf(const Expr *first, Exprs... rest) {
    return std::max(heightOf(first), heightOf(rest...));
  }
  static unsigned heightOf(llvm::ArrayRef<Expr *> exprs) {
    unsigned result = 0;
    for (const Expr *expr : exprs)
      result = std::max(result, heightOf(expr));
    return result;
  }

private:
  unsigned height;
};

/// A reference to a variable, function or module: `x`, `tl`, `BLOCK`.
class NameExpr : public Expr {
public:
  NameExpr(llvm::StringRef name, llvm::SMRange range)
      : Expr(Kind::Name, range), name(name) {}
  llvm::StringRef getName() const { return name; }
  static bool classof(const Node *node) {
    return node->getKind() == Kind::Name;
  }

private:
  llvm::StringRef name;
};

/// An integer literal in any radix: `42`, `0xFF`, `1_000`.
class IntegerLiteral : public Expr {
public:
  IntegerLiteral(llvm::StringRef spelling, std::optional<uint64_t> value,
                 llvm::SMRange range)
      : Expr(Kind::IntegerLiteral, range), spelling(spelling),
        value(value.value_or(0)), fits(value.has_value()) {}
  /// The literal as written.
  llvm::StringRef getSpelling() const { return spelling; }
  /// The value, or std::nullopt if it does not fit in 64 bits (Python ints
  /// are unbounded; the code generator decides what to do with those).
  std::optional<uint64_t> getValue() const {
    return fits ? std::optional<uint64_t>(value) : std::nullopt;
  }
  static bool classof(const Node *node) {
    return node->getKind() == Kind::IntegerLiteral;
  }

private:
  llvm::StringRef spelling;
  uint64_t value;
  bool fits;
};

/// A floating-point literal: `1.5`, `.5`, `1.`, `1e-5`.
class FloatLiteral : public Expr {
public:
  FloatLiteral(llvm::StringRef spelling, double value, llvm::SMRange range)
      : Expr(Kind::FloatLiteral, range), spelling(spelling), value(value) {}
  llvm::StringRef getSpelling() const { return spelling; }
  double getValue() const { return value; }
  static bool classof(const Node *node) {
    return node->getKind() == Kind::FloatLiteral;
  }

private:
  llvm::StringRef spelling;
  double value;
};

/// An imaginary literal: `1j`, `2.5J` (parsed; kernels have no complex type).
class ImaginaryLiteral : public Expr {
public:
  ImaginaryLiteral(llvm::StringRef spelling, double imagValue,
                   llvm::SMRange range)
      : Expr(Kind::ImaginaryLiteral, range), spelling(spelling),
        imagValue(imagValue) {}
  llvm::StringRef getSpelling() const { return spelling; }
  double getImagValue() const { return imagValue; }
  static bool classof(const Node *node) {
    return node->getKind() == Kind::ImaginaryLiteral;
  }

private:
  llvm::StringRef spelling;
  double imagValue;
};

/// One string literal, or several adjacent ones concatenated (`"a" 'b'`).
class StringLiteral : public Expr {
public:
  StringLiteral(llvm::StringRef value, bool isBytes, bool isFormat,
                llvm::SMRange range)
      : Expr(Kind::StringLiteral, range), value(value), isBytesFlag(isBytes),
        isFormatFlag(isFormat) {}
  /// The decoded value (escapes processed, pieces concatenated). For bytes,
  /// one char per byte; for str, UTF-8.
  llvm::StringRef getValue() const { return value; }
  /// `b"..."` literal.
  bool isBytes() const { return isBytesFlag; }
  /// Always false for literals the parser builds: a literal with an f-string
  /// piece is an FStringExpr.
  bool isFormat() const { return isFormatFlag; }
  static bool classof(const Node *node) {
    return node->getKind() == Kind::StringLiteral;
  }

private:
  llvm::StringRef value;
  bool isBytesFlag;
  bool isFormatFlag;
};

class FStringExpr;

/// One piece of an f-string: literal text, or a replacement field
/// `{expr=!r:spec}`.
struct FStringPart {
  /// For literal text: the decoded characters (`{{` already made `{`).
  llvm::StringRef text;
  /// For a replacement field: its expression; null for literal text.
  Expr *expr = nullptr;
  /// The conversion `!r`, `!s` or `!a` as 'r', 's' or 'a'; 0 if absent.
  char conversion = 0;
  /// The format spec after `:`, itself an f-string (`{x:>{width}}`); null
  /// if absent.
  FStringExpr *formatSpec = nullptr;
  /// For a self-documenting field (`{x = }`): the text printed before the
  /// value, as written (`x = `); empty otherwise.
  llvm::StringRef selfDocText;
  /// The field from its `{` to its `}` (for literal text: the text).
  llvm::SMRange range;

  bool isField() const { return expr != nullptr; }
};

/// An f-string (Python's JoinedStr): literal text and replacement fields, in
/// order, adjacent string literals included (`"a" f"{x}"`). The field
/// expressions are parsed with their locations in the source file.
class FStringExpr : public Expr {
public:
  FStringExpr(llvm::ArrayRef<FStringPart> parts, llvm::SMRange range)
      : Expr(Kind::FString, range, 1 + computeHeight(parts)), parts(parts) {}
  llvm::ArrayRef<FStringPart> getParts() const { return parts; }
  static bool classof(const Node *node) {
    return node->getKind() == Kind::FString;
  }

private:
  static unsigned computeHeight(llvm::ArrayRef<FStringPart> parts) {
    unsigned result = 0;
    for (const FStringPart &part : parts) {
      result = std::max(result, heightOf(part.expr));
      if (part.formatSpec)
        result = std::max(result, part.formatSpec->getHeight());
    }
    return result;
  }

  llvm::ArrayRef<FStringPart> parts;
};

/// `True` or `False`.
class BoolLiteral : public Expr {
public:
  BoolLiteral(bool value, llvm::SMRange range)
      : Expr(Kind::BoolLiteral, range), value(value) {}
  bool getValue() const { return value; }
  static bool classof(const Node *node) {
    return node->getKind() == Kind::BoolLiteral;
  }

private:
  bool value;
};

/// `None`.
class NoneLiteral : public Expr {
public:
  explicit NoneLiteral(llvm::SMRange range) : Expr(Kind::NoneLiteral, range) {}
  static bool classof(const Node *node) {
    return node->getKind() == Kind::NoneLiteral;
  }
};

/// `...` (as in `x[...]`).
class EllipsisLiteral : public Expr {
public:
  explicit EllipsisLiteral(llvm::SMRange range)
      : Expr(Kind::EllipsisLiteral, range) {}
  static bool classof(const Node *node) {
    return node->getKind() == Kind::EllipsisLiteral;
  }
};

/// Unary operators.
enum class UnaryOp : uint8_t { Plus, Minus, Invert, Not };

/// Binary arithmetic and bitwise operators.
enum class BinaryOp : uint8_t {
  Add,
  Sub,
  Mul,
  MatMul,
  Div,
  FloorDiv,
  Mod,
  Pow,
  LShift,
  RShift,
  BitOr,
  BitXor,
  BitAnd,
};

/// Short-circuit boolean operators.
enum class BoolOp : uint8_t { And, Or };

/// Comparison operators.
enum class CmpOp : uint8_t {
  Eq,
  NotEq,
  Lt,
  LtE,
  Gt,
  GtE,
  Is,
  IsNot,
  In,
  NotIn
};

/// Source spelling of an operator: "+", "not", "is not", "//".
llvm::StringRef getSpelling(UnaryOp op);
llvm::StringRef getSpelling(BinaryOp op);
llvm::StringRef getSpelling(BoolOp op);
llvm::StringRef getSpelling(CmpOp op);

/// `-x`, `+x`, `~x`, `not x`. The operator is at getLoc().
class UnaryExpr : public Expr {
public:
  UnaryExpr(UnaryOp op, Expr *operand, llvm::SMRange range)
      : Expr(Kind::Unary, range, 1 + heightOf(operand)), op(op),
        operand(operand) {}
  UnaryOp getOp() const { return op; }
  Expr *getOperand() const { return operand; }
  llvm::SMLoc getOpLoc() const { return getLoc(); }
  static bool classof(const Node *node) {
    return node->getKind() == Kind::Unary;
  }

private:
  UnaryOp op;
  Expr *operand;
};

/// `lhs op rhs` for arithmetic and bitwise operators (`**` included).
class BinaryExpr : public Expr {
public:
  BinaryExpr(BinaryOp op, Expr *lhs, Expr *rhs, llvm::SMLoc opLoc,
             llvm::SMRange range)
      : Expr(Kind::Binary, range, 1 + heightOf(lhs, rhs)), op(op), lhs(lhs),
        rhs(rhs), opLoc(opLoc) {}
  BinaryOp getOp() const { return op; }
  Expr *getLHS() const { return lhs; }
  Expr *getRHS() const { return rhs; }
  /// Location of the operator token.
  llvm::SMLoc getOpLoc() const { return opLoc; }
  static bool classof(const Node *node) {
    return node->getKind() == Kind::Binary;
  }

private:
  BinaryOp op;
  Expr *lhs;
  Expr *rhs;
  llvm::SMLoc opLoc;
};

/// `lhs and rhs`, `lhs or rhs` (left-associative chains nest to the left).
class BoolOpExpr : public Expr {
public:
  BoolOpExpr(BoolOp op, Expr *lhs, Expr *rhs, llvm::SMLoc opLoc,
             llvm::SMRange range)
      : Expr(Kind::BoolOp, range, 1 + heightOf(lhs, rhs)), op(op), lhs(lhs),
        rhs(rhs), opLoc(opLoc) {}
  BoolOp getOp() const { return op; }
  Expr *getLHS() const { return lhs; }
  Expr *getRHS() const { return rhs; }
  llvm::SMLoc getOpLoc() const { return opLoc; }
  static bool classof(const Node *node) {
    return node->getKind() == Kind::BoolOp;
  }

private:
  BoolOp op;
  Expr *lhs;
  Expr *rhs;
  llvm::SMLoc opLoc;
};

/// One link of a comparison chain: `op rhs`.
struct Comparison {
  CmpOp op;
  /// Location of the operator (its first word for `not in` / `is not`).
  llvm::SMLoc opLoc;
  Expr *rhs;
};

/// A comparison chain `a < b <= c`, meaning `a < b and b <= c` with `b`
/// evaluated once. Has at least one Comparison.
class CompareExpr : public Expr {
public:
  CompareExpr(Expr *lhs, llvm::ArrayRef<Comparison> comparisons,
              llvm::SMRange range)
      : Expr(Kind::Compare, range, 1 + computeHeight(lhs, comparisons)),
        lhs(lhs), comparisons(comparisons) {}
  Expr *getLHS() const { return lhs; }
  llvm::ArrayRef<Comparison> getComparisons() const { return comparisons; }
  /// Location of the first operator.
  llvm::SMLoc getOpLoc() const { return comparisons.front().opLoc; }
  static bool classof(const Node *node) {
    return node->getKind() == Kind::Compare;
  }

private:
  static unsigned computeHeight(const Expr *lhs,
                                llvm::ArrayRef<Comparison> comparisons) {
    unsigned result = heightOf(lhs);
    for (const Comparison &c : comparisons)
      result = std::max(result, heightOf(c.rhs));
    return result;
  }

  Expr *lhs;
  llvm::ArrayRef<Comparison> comparisons;
};

/// The conditional expression `trueValue if condition else falseValue`.
class IfExpr : public Expr {
public:
  IfExpr(Expr *trueValue, Expr *condition, Expr *falseValue, llvm::SMLoc ifLoc,
         llvm::SMRange range)
      : Expr(Kind::IfExp, range,
             1 + heightOf(trueValue, condition, falseValue)),
        trueValue(trueValue), condition(condition), falseValue(falseValue),
        ifLoc(ifLoc) {}
  Expr *getCondition() const { return condition; }
  Expr *getTrueValue() const { return trueValue; }
  Expr *getFalseValue() const { return falseValue; }
  /// Location of the `if` keyword.
  llvm::SMLoc getOpLoc() const { return ifLoc; }
  static bool classof(const Node *node) {
    return node->getKind() == Kind::IfExp;
  }

private:
  Expr *trueValue;
  Expr *condition;
  Expr *falseValue;
  llvm::SMLoc ifLoc;
};

/// How a parameter binds its argument.
enum class ParamKind : uint8_t {
  Normal,         ///< Positional or keyword.
  PositionalOnly, ///< Before a `/` marker.
  KeywordOnly,    ///< After `*` or `*args`.
  VarPositional,  ///< `*args`.
  VarKeyword,     ///< `**kwargs`.
};

/// A parameter of a `def` or `lambda`. The `*` and `/` markers are not
/// parameters; they determine the kinds of the ones around them.
class Parameter : public Node {
public:
  Parameter(llvm::StringRef name, ParamKind paramKind, Expr *annotation,
            Expr *defaultValue, llvm::SMRange range)
      : Node(Kind::Parameter, range), name(name), paramKind(paramKind),
        annotation(annotation), defaultValue(defaultValue) {}
  llvm::StringRef getName() const { return name; }
  ParamKind getParamKind() const { return paramKind; }
  /// `x: tl.constexpr` -> `tl.constexpr`; null if absent (always for lambda).
  Expr *getAnnotation() const { return annotation; }
  /// `x=1` -> `1`; null if absent.
  Expr *getDefault() const { return defaultValue; }
  static bool classof(const Node *node) {
    return node->getKind() == Kind::Parameter;
  }

private:
  llvm::StringRef name;
  ParamKind paramKind;
  Expr *annotation;
  Expr *defaultValue;
};

/// `lambda params: body`.
class LambdaExpr : public Expr {
public:
  LambdaExpr(llvm::ArrayRef<Parameter *> params, Expr *body,
             llvm::SMRange range)
      : Expr(Kind::Lambda, range, 1 + computeHeight(params, body)),
        params(params), body(body) {}
  llvm::ArrayRef<Parameter *> getParams() const { return params; }
  Expr *getBody() const { return body; }
  static bool classof(const Node *node) {
    return node->getKind() == Kind::Lambda;
  }

private:
  static unsigned computeHeight(llvm::ArrayRef<Parameter *> params,
                                const Expr *body) {
    unsigned result = heightOf(body);
    for (const Parameter *param : params)
      result = std::max(result, heightOf(param->getDefault()));
    return result;
  }

  llvm::ArrayRef<Parameter *> params;
  Expr *body;
};

/// How an argument is passed in a call.
enum class ArgKind : uint8_t {
  Positional, ///< `f(x)`
  Keyword,    ///< `f(axis=1)`
  Star,       ///< `f(*xs)`
  DoubleStar, ///< `f(**kw)`
};

/// One argument of a call.
struct Argument {
  ArgKind kind;
  /// The keyword of a Keyword argument; empty otherwise.
  llvm::StringRef keyword;
  /// Location of the keyword, or of the `*` / `**`, or of the value.
  llvm::SMLoc loc;
  Expr *value;
};

/// A call `callee(args...)`; methods are calls whose callee is an
/// AttributeExpr (`x.to(tl.float16)`).
class CallExpr : public Expr {
public:
  CallExpr(Expr *callee, llvm::ArrayRef<Argument> args, llvm::SMLoc lParenLoc,
           llvm::SMRange range)
      : Expr(Kind::Call, range, 1 + computeHeight(callee, args)),
        callee(callee), args(args), lParenLoc(lParenLoc) {}
  Expr *getCallee() const { return callee; }
  /// Arguments in source order.
  llvm::ArrayRef<Argument> getArgs() const { return args; }
  /// The keyword argument named `keyword`, or null.
  const Argument *getKeywordArg(llvm::StringRef keyword) const {
    for (const Argument &arg : args)
      if (arg.kind == ArgKind::Keyword && arg.keyword == keyword)
        return &arg;
    return nullptr;
  }
  /// Location of the `(`.
  llvm::SMLoc getOpLoc() const { return lParenLoc; }
  static bool classof(const Node *node) {
    return node->getKind() == Kind::Call;
  }

private:
  static unsigned computeHeight(const Expr *callee,
                                llvm::ArrayRef<Argument> args) {
    unsigned result = heightOf(callee);
    for (const Argument &arg : args)
      result = std::max(result, heightOf(arg.value));
    return result;
  }

  Expr *callee;
  llvm::ArrayRef<Argument> args;
  llvm::SMLoc lParenLoc;
};

/// `base.name`.
class AttributeExpr : public Expr {
public:
  AttributeExpr(Expr *base, llvm::StringRef name, llvm::SMLoc dotLoc,
                llvm::SMLoc nameLoc, llvm::SMRange range)
      : Expr(Kind::Attribute, range, 1 + heightOf(base)), base(base),
        name(name), dotLoc(dotLoc), nameLoc(nameLoc) {}
  Expr *getBase() const { return base; }
  llvm::StringRef getName() const { return name; }
  /// Location of the `.`.
  llvm::SMLoc getOpLoc() const { return dotLoc; }
  llvm::SMLoc getNameLoc() const { return nameLoc; }
  static bool classof(const Node *node) {
    return node->getKind() == Kind::Attribute;
  }

private:
  Expr *base;
  llvm::StringRef name;
  llvm::SMLoc dotLoc;
  llvm::SMLoc nameLoc;
};

/// `base[index]`. Several comma-separated indices form a TupleExpr index
/// (`x[:, None]` is `x[(slice, None)]`); slices appear as SliceExpr.
class SubscriptExpr : public Expr {
public:
  SubscriptExpr(Expr *base, Expr *index, llvm::SMLoc lSquareLoc,
                llvm::SMRange range)
      : Expr(Kind::Subscript, range, 1 + heightOf(base, index)), base(base),
        index(index), lSquareLoc(lSquareLoc) {}
  Expr *getBase() const { return base; }
  Expr *getIndex() const { return index; }
  /// Location of the `[`.
  llvm::SMLoc getOpLoc() const { return lSquareLoc; }
  static bool classof(const Node *node) {
    return node->getKind() == Kind::Subscript;
  }

private:
  Expr *base;
  Expr *index;
  llvm::SMLoc lSquareLoc;
};

/// `lower:upper:step` inside a subscript; each part may be null (`:`).
class SliceExpr : public Expr {
public:
  SliceExpr(Expr *lower, Expr *upper, Expr *step, llvm::SMRange range)
      : Expr(Kind::Slice, range, 1 + heightOf(lower, upper, step)),
        lower(lower), upper(upper), step(step) {}
  Expr *getLower() const { return lower; }
  Expr *getUpper() const { return upper; }
  Expr *getStep() const { return step; }
  static bool classof(const Node *node) {
    return node->getKind() == Kind::Slice;
  }

private:
  Expr *lower;
  Expr *upper;
  Expr *step;
};

/// A tuple display: `(a, b)`, `a, b`, `(a,)`, `()`.
class TupleExpr : public Expr {
public:
  TupleExpr(llvm::ArrayRef<Expr *> elements, bool parenthesized,
            llvm::SMRange range)
      : Expr(Kind::Tuple, range, 1 + heightOf(elements)), elements(elements),
        parenthesized(parenthesized) {}
  llvm::ArrayRef<Expr *> getElements() const { return elements; }
  /// Written with its own parentheses.
  bool isParenthesized() const { return parenthesized; }
  static bool classof(const Node *node) {
    return node->getKind() == Kind::Tuple;
  }

private:
  llvm::ArrayRef<Expr *> elements;
  bool parenthesized;
};

/// A list display `[a, b]`.
class ListExpr : public Expr {
public:
  ListExpr(llvm::ArrayRef<Expr *> elements, llvm::SMRange range)
      : Expr(Kind::List, range, 1 + heightOf(elements)), elements(elements) {}
  llvm::ArrayRef<Expr *> getElements() const { return elements; }
  static bool classof(const Node *node) {
    return node->getKind() == Kind::List;
  }

private:
  llvm::ArrayRef<Expr *> elements;
};

/// A set display `{a, b}` (never empty: `{}` is a dict).
class SetExpr : public Expr {
public:
  SetExpr(llvm::ArrayRef<Expr *> elements, llvm::SMRange range)
      : Expr(Kind::Set, range, 1 + heightOf(elements)), elements(elements) {}
  llvm::ArrayRef<Expr *> getElements() const { return elements; }
  static bool classof(const Node *node) { return node->getKind() == Kind::Set; }

private:
  llvm::ArrayRef<Expr *> elements;
};

/// One entry of a dict display: `key: value`, or `**value` (key null).
struct DictEntry {
  Expr *key;
  Expr *value;
};

/// A dict display `{k: v, **d}`.
class DictExpr : public Expr {
public:
  DictExpr(llvm::ArrayRef<DictEntry> entries, llvm::SMRange range)
      : Expr(Kind::Dict, range, 1 + computeHeight(entries)), entries(entries) {}
  llvm::ArrayRef<DictEntry> getEntries() const { return entries; }
  static bool classof(const Node *node) {
    return node->getKind() == Kind::Dict;
  }

private:
  static unsigned computeHeight(llvm::ArrayRef<DictEntry> entries) {
    unsigned result = 0;
    for (const DictEntry &entry : entries)
      result = std::max(result, heightOf(entry.key, entry.value));
    return result;
  }

  llvm::ArrayRef<DictEntry> entries;
};

/// `*value` in a tuple/list/set display or an assignment target.
class StarredExpr : public Expr {
public:
  StarredExpr(Expr *value, llvm::SMRange range)
      : Expr(Kind::Starred, range, 1 + heightOf(value)), value(value) {}
  Expr *getValue() const { return value; }
  static bool classof(const Node *node) {
    return node->getKind() == Kind::Starred;
  }

private:
  Expr *value;
};

/// One `for target in iter if cond...` clause of a comprehension.
struct ComprehensionFor {
  Expr *target;
  Expr *iter;
  /// The `if` filters (possibly empty).
  llvm::ArrayRef<Expr *> conditions;
  bool isAsync;
  /// Location of the `for` (or `async`) keyword.
  llvm::SMLoc loc;
};

/// What a comprehension builds.
enum class ComprehensionKind : uint8_t { List, Set, Dict, Generator };

/// `[elt for ...]`, `{elt for ...}`, `{key: value for ...}`,
/// `(elt for ...)`. Parsed so that tools can report them; kernels have no
/// use for them.
class ComprehensionExpr : public Expr {
public:
  ComprehensionExpr(ComprehensionKind compKind, Expr *element, Expr *value,
                    llvm::ArrayRef<ComprehensionFor> clauses,
                    llvm::SMRange range)
      : Expr(Kind::Comprehension, range,
             1 + computeHeight(element, value, clauses)),
        compKind(compKind), element(element), value(value), clauses(clauses) {}
  ComprehensionKind getComprehensionKind() const { return compKind; }
  /// The element; for a dict comprehension, the key.
  Expr *getElement() const { return element; }
  /// The value of a dict comprehension; null for the other kinds.
  Expr *getValue() const { return value; }
  /// At least one clause.
  llvm::ArrayRef<ComprehensionFor> getClauses() const { return clauses; }
  static bool classof(const Node *node) {
    return node->getKind() == Kind::Comprehension;
  }

private:
  static unsigned computeHeight(const Expr *element, const Expr *value,
                                llvm::ArrayRef<ComprehensionFor> clauses) {
    unsigned result = heightOf(element, value);
    for (const ComprehensionFor &clause : clauses)
      result = std::max({result, heightOf(clause.target, clause.iter),
                         heightOf(clause.conditions)});
    return result;
  }

  ComprehensionKind compKind;
  Expr *element;
  Expr *value;
  llvm::ArrayRef<ComprehensionFor> clauses;
};

/// The assignment expression `target := value` (walrus).
class NamedExpr : public Expr {
public:
  NamedExpr(NameExpr *target, Expr *value, llvm::SMLoc opLoc,
            llvm::SMRange range)
      : Expr(Kind::NamedExpr, range, 1 + heightOf(target, value)),
        target(target), value(value), opLoc(opLoc) {}
  NameExpr *getTarget() const { return target; }
  Expr *getValue() const { return value; }
  llvm::SMLoc getOpLoc() const { return opLoc; }
  static bool classof(const Node *node) {
    return node->getKind() == Kind::NamedExpr;
  }

private:
  NameExpr *target;
  Expr *value;
  llvm::SMLoc opLoc;
};

/// An expression form that is valid Python but has no meaning in a kernel:
/// `await x`, `yield x`, `yield from x`. The code generator reports it.
class UnsupportedExpr : public Expr {
public:
  UnsupportedExpr(llvm::StringRef construct, Expr *operand, llvm::SMRange range)
      : Expr(Kind::UnsupportedExpr, range, 1 + heightOf(operand)),
        construct(construct), operand(operand) {}
  /// The construct's keyword(s): "await", "yield", "yield from".
  llvm::StringRef getConstruct() const { return construct; }
  /// The operand; null for a bare `yield`.
  Expr *getOperand() const { return operand; }
  static bool classof(const Node *node) {
    return node->getKind() == Kind::UnsupportedExpr;
  }

private:
  llvm::StringRef construct;
  Expr *operand;
};

/// Whether `decorator` marks a jit function: `jit`, `<anything>.jit`
/// (`triton.jit`, `tilec.jit`), or a call of one of those
/// (`triton.jit(do_not_specialize=[...])`).
bool isJitDecorator(const Expr *decorator);

//===----------------------------------------------------------------------===//
// Statements
//===----------------------------------------------------------------------===//

/// Base class of statements.
class Stmt : public Node {
public:
  static bool classof(const Node *node) {
    return node->getKind() >= Kind::FirstStmt &&
           node->getKind() <= Kind::LastStmt;
  }

protected:
  Stmt(Kind kind, llvm::SMRange range) : Node(kind, range) {}
};

/// An expression evaluated for its effect (a call), or a docstring.
class ExprStmt : public Stmt {
public:
  ExprStmt(Expr *expr, llvm::SMRange range)
      : Stmt(Kind::ExprStmt, range), expr(expr) {}
  Expr *getExpr() const { return expr; }
  static bool classof(const Node *node) {
    return node->getKind() == Kind::ExprStmt;
  }

private:
  Expr *expr;
};

/// `t1 = t2 = value`. Targets are names, attributes, subscripts, or
/// tuples/lists (possibly starred) of those; the parser rejects the rest.
class AssignStmt : public Stmt {
public:
  AssignStmt(llvm::ArrayRef<Expr *> targets, Expr *value, llvm::SMLoc opLoc,
             llvm::SMRange range)
      : Stmt(Kind::Assign, range), targets(targets), value(value),
        opLoc(opLoc) {}
  /// At least one target, leftmost first.
  llvm::ArrayRef<Expr *> getTargets() const { return targets; }
  Expr *getValue() const { return value; }
  /// Location of the first `=`.
  llvm::SMLoc getOpLoc() const { return opLoc; }
  static bool classof(const Node *node) {
    return node->getKind() == Kind::Assign;
  }

private:
  llvm::ArrayRef<Expr *> targets;
  Expr *value;
  llvm::SMLoc opLoc;
};

/// `target op= value`; the target is a name, attribute or subscript.
class AugAssignStmt : public Stmt {
public:
  AugAssignStmt(Expr *target, BinaryOp op, Expr *value, llvm::SMLoc opLoc,
                llvm::SMRange range)
      : Stmt(Kind::AugAssign, range), target(target), op(op), value(value),
        opLoc(opLoc) {}
  Expr *getTarget() const { return target; }
  BinaryOp getOp() const { return op; }
  Expr *getValue() const { return value; }
  /// Location of the `op=` token.
  llvm::SMLoc getOpLoc() const { return opLoc; }
  static bool classof(const Node *node) {
    return node->getKind() == Kind::AugAssign;
  }

private:
  Expr *target;
  BinaryOp op;
  Expr *value;
  llvm::SMLoc opLoc;
};

/// `target: annotation = value` (value may be null).
class AnnAssignStmt : public Stmt {
public:
  AnnAssignStmt(Expr *target, Expr *annotation, Expr *value,
                llvm::SMRange range)
      : Stmt(Kind::AnnAssign, range), target(target), annotation(annotation),
        value(value) {}
  Expr *getTarget() const { return target; }
  Expr *getAnnotation() const { return annotation; }
  /// Null for a bare declaration `x: int`.
  Expr *getValue() const { return value; }
  static bool classof(const Node *node) {
    return node->getKind() == Kind::AnnAssign;
  }

private:
  Expr *target;
  Expr *annotation;
  Expr *value;
};

/// `if cond: then else: else`. An `elif` is an IfStmt marked isElif() that
/// is the only statement of its parent's else body.
class IfStmt : public Stmt {
public:
  IfStmt(Expr *condition, llvm::ArrayRef<Stmt *> thenBody,
         llvm::ArrayRef<Stmt *> elseBody, bool isElif, llvm::SMRange range)
      : Stmt(Kind::If, range), condition(condition), thenBody(thenBody),
        elseBody(elseBody), isElifFlag(isElif) {}
  Expr *getCondition() const { return condition; }
  llvm::ArrayRef<Stmt *> getThenBody() const { return thenBody; }
  /// Empty if there is no else/elif.
  llvm::ArrayRef<Stmt *> getElseBody() const { return elseBody; }
  bool isElif() const { return isElifFlag; }
  static bool classof(const Node *node) { return node->getKind() == Kind::If; }

private:
  Expr *condition;
  llvm::ArrayRef<Stmt *> thenBody;
  llvm::ArrayRef<Stmt *> elseBody;
  bool isElifFlag;
};

/// `for target in iter: body else: orElse`.
class ForStmt : public Stmt {
public:
  ForStmt(Expr *target, Expr *iter, llvm::ArrayRef<Stmt *> body,
          llvm::ArrayRef<Stmt *> orElse, llvm::SMRange range)
      : Stmt(Kind::For, range), target(target), iter(iter), body(body),
        orElse(orElse) {}
  Expr *getTarget() const { return target; }
  Expr *getIter() const { return iter; }
  llvm::ArrayRef<Stmt *> getBody() const { return body; }
  /// The `else` clause; empty if absent.
  llvm::ArrayRef<Stmt *> getElseBody() const { return orElse; }
  static bool classof(const Node *node) { return node->getKind() == Kind::For; }

private:
  Expr *target;
  Expr *iter;
  llvm::ArrayRef<Stmt *> body;
  llvm::ArrayRef<Stmt *> orElse;
};

/// `while cond: body else: orElse`.
class WhileStmt : public Stmt {
public:
  WhileStmt(Expr *condition, llvm::ArrayRef<Stmt *> body,
            llvm::ArrayRef<Stmt *> orElse, llvm::SMRange range)
      : Stmt(Kind::While, range), condition(condition), body(body),
        orElse(orElse) {}
  Expr *getCondition() const { return condition; }
  llvm::ArrayRef<Stmt *> getBody() const { return body; }
  /// The `else` clause; empty if absent.
  llvm::ArrayRef<Stmt *> getElseBody() const { return orElse; }
  static bool classof(const Node *node) {
    return node->getKind() == Kind::While;
  }

private:
  Expr *condition;
  llvm::ArrayRef<Stmt *> body;
  llvm::ArrayRef<Stmt *> orElse;
};

/// `break`.
class BreakStmt : public Stmt {
public:
  explicit BreakStmt(llvm::SMRange range) : Stmt(Kind::Break, range) {}
  static bool classof(const Node *node) {
    return node->getKind() == Kind::Break;
  }
};

/// `continue`.
class ContinueStmt : public Stmt {
public:
  explicit ContinueStmt(llvm::SMRange range) : Stmt(Kind::Continue, range) {}
  static bool classof(const Node *node) {
    return node->getKind() == Kind::Continue;
  }
};

/// `pass`.
class PassStmt : public Stmt {
public:
  explicit PassStmt(llvm::SMRange range) : Stmt(Kind::Pass, range) {}
  static bool classof(const Node *node) {
    return node->getKind() == Kind::Pass;
  }
};

/// `return value`; `return a, b` returns a TupleExpr.
class ReturnStmt : public Stmt {
public:
  ReturnStmt(Expr *value, llvm::SMRange range)
      : Stmt(Kind::Return, range), value(value) {}
  /// Null for a bare `return`.
  Expr *getValue() const { return value; }
  static bool classof(const Node *node) {
    return node->getKind() == Kind::Return;
  }

private:
  Expr *value;
};

/// `assert test, message`.
class AssertStmt : public Stmt {
public:
  AssertStmt(Expr *test, Expr *message, llvm::SMRange range)
      : Stmt(Kind::Assert, range), test(test), message(message) {}
  Expr *getTest() const { return test; }
  /// Null if absent.
  Expr *getMessage() const { return message; }
  static bool classof(const Node *node) {
    return node->getKind() == Kind::Assert;
  }

private:
  Expr *test;
  Expr *message;
};

/// A function definition: a `@jit` kernel or helper at module level, or any
/// `def` nested in a function body. The range starts at the first decorator.
class FunctionDef : public Stmt {
public:
  FunctionDef(llvm::StringRef name, llvm::SMLoc nameLoc,
              llvm::ArrayRef<Expr *> decorators,
              llvm::ArrayRef<Parameter *> params, Expr *returns,
              llvm::ArrayRef<Stmt *> body, llvm::SMLoc defLoc,
              llvm::SMRange range)
      : Stmt(Kind::FunctionDef, range), name(name), nameLoc(nameLoc),
        decorators(decorators), params(params), returns(returns), body(body),
        defLoc(defLoc) {}
  llvm::StringRef getName() const { return name; }
  llvm::SMLoc getNameLoc() const { return nameLoc; }
  /// Location of the `def` keyword.
  llvm::SMLoc getDefLoc() const { return defLoc; }
  /// Decorator expressions, outermost (first written) first.
  llvm::ArrayRef<Expr *> getDecorators() const { return decorators; }
  llvm::ArrayRef<Parameter *> getParams() const { return params; }
  /// The `-> annotation`; null if absent.
  Expr *getReturns() const { return returns; }
  llvm::ArrayRef<Stmt *> getBody() const { return body; }
  /// Whether one of the decorators is a jit decorator.
  bool isJit() const {
    return llvm::any_of(decorators,
                        [](const Expr *d) { return isJitDecorator(d); });
  }
  static bool classof(const Node *node) {
    return node->getKind() == Kind::FunctionDef;
  }

private:
  llvm::StringRef name;
  llvm::SMLoc nameLoc;
  llvm::ArrayRef<Expr *> decorators;
  llvm::ArrayRef<Parameter *> params;
  Expr *returns;
  llvm::ArrayRef<Stmt *> body;
  llvm::SMLoc defLoc;
};

/// `name as asName` in an import.
struct ImportAlias {
  /// Dotted name (`triton.language`), or `*` for `from m import *`.
  llvm::StringRef name;
  /// Empty if there is no `as`.
  llvm::StringRef asName;
  llvm::SMLoc loc;
};

/// `import a.b as c, d`.
class ImportStmt : public Stmt {
public:
  ImportStmt(llvm::ArrayRef<ImportAlias> names, llvm::SMRange range)
      : Stmt(Kind::Import, range), names(names) {}
  llvm::ArrayRef<ImportAlias> getNames() const { return names; }
  static bool classof(const Node *node) {
    return node->getKind() == Kind::Import;
  }

private:
  llvm::ArrayRef<ImportAlias> names;
};

/// `from ..module import a as b, c` / `from m import *`.
class ImportFromStmt : public Stmt {
public:
  ImportFromStmt(llvm::StringRef module, unsigned level,
                 llvm::ArrayRef<ImportAlias> names, llvm::SMRange range)
      : Stmt(Kind::ImportFrom, range), module(module), level(level),
        names(names) {}
  /// Dotted module name; empty for `from . import x`.
  llvm::StringRef getModule() const { return module; }
  /// Number of leading dots (relative import level).
  unsigned getLevel() const { return level; }
  /// Imported names; a single `*` alias for a star import.
  llvm::ArrayRef<ImportAlias> getNames() const { return names; }
  static bool classof(const Node *node) {
    return node->getKind() == Kind::ImportFrom;
  }

private:
  llvm::StringRef module;
  unsigned level;
  llvm::ArrayRef<ImportAlias> names;
};

/// `global a, b` or `nonlocal a, b`.
class GlobalStmt : public Stmt {
public:
  GlobalStmt(bool isNonlocal, llvm::ArrayRef<llvm::StringRef> names,
             llvm::SMRange range)
      : Stmt(isNonlocal ? Kind::Nonlocal : Kind::Global, range), names(names) {}
  bool isNonlocal() const { return getKind() == Kind::Nonlocal; }
  llvm::ArrayRef<llvm::StringRef> getNames() const { return names; }
  static bool classof(const Node *node) {
    return node->getKind() == Kind::Global || node->getKind() == Kind::Nonlocal;
  }

private:
  llvm::ArrayRef<llvm::StringRef> names;
};

/// A statement inside a function that is valid Python but has no meaning in
/// a kernel (`try`, `with`, `class`, `raise`, `del`, `yield`, `async ...`,
/// `match`). Its text is skipped by indentation, not parsed; the code
/// generator reports it with getMessage().
class UnsupportedStmt : public Stmt {
public:
  UnsupportedStmt(llvm::StringRef construct, llvm::SMRange range)
      : Stmt(Kind::UnsupportedStmt, range), construct(construct) {}
  /// The leading keyword(s): "try", "with", "class", "async def", ...
  llvm::StringRef getConstruct() const { return construct; }
  /// "'try' statements are not supported in a kernel".
  std::string getMessage() const;
  static bool classof(const Node *node) {
    return node->getKind() == Kind::UnsupportedStmt;
  }

private:
  llvm::StringRef construct;
};

/// Top-level host code that was skipped without being parsed: a class, a
/// function without a jit decorator, `if __name__ == "__main__":`, a call,
/// an assignment that is not a constant, or a constant whose value did not
/// parse.
class SkippedStmt : public Stmt {
public:
  SkippedStmt(llvm::StringRef construct, llvm::ArrayRef<llvm::StringRef> names,
              llvm::SMRange range)
      : Stmt(Kind::Skipped, range), construct(construct), names(names) {}
  /// The leading keyword ("def", "class", "if", "async", "with", ...), or
  /// "assignment" / "expression" for simple statements.
  llvm::StringRef getConstruct() const { return construct; }
  /// Names the chunk defines, when they could be seen without parsing: the
  /// name of a skipped `def` or `class`, the targets of a skipped
  /// assignment. Empty otherwise.
  llvm::ArrayRef<llvm::StringRef> getNames() const { return names; }
  static bool classof(const Node *node) {
    return node->getKind() == Kind::Skipped;
  }

private:
  llvm::StringRef construct;
  llvm::ArrayRef<llvm::StringRef> names;
};

//===----------------------------------------------------------------------===//
// ModuleAST
//===----------------------------------------------------------------------===//

/// A parsed `.tile` / `.py` file.
class ModuleAST {
public:
  ModuleAST(std::unique_ptr<ASTContext> context, llvm::ArrayRef<Stmt *> body,
            llvm::SMRange range)
      : context(std::move(context)), body(body), range(range) {}

  /// Top-level statements in source order: ImportStmt, ImportFromStmt,
  /// AssignStmt / AnnAssignStmt (constants), FunctionDef (jit functions) and
  /// SkippedStmt.
  llvm::ArrayRef<Stmt *> getBody() const { return body; }
  /// The whole buffer.
  llvm::SMRange getRange() const { return range; }

  /// The jit functions, in source order.
  llvm::SmallVector<FunctionDef *> getFunctions() const;
  /// The jit function `name` (the last definition wins, as in Python), or
  /// null.
  FunctionDef *lookupFunction(llvm::StringRef name) const;
  /// The constant assignments (AssignStmt / AnnAssignStmt), in source order.
  llvm::SmallVector<Stmt *> getConstants() const;
  /// The last skipped top-level chunk that defines `name` (a host function,
  /// a class, a constant that did not parse), or null.
  SkippedStmt *lookupSkipped(llvm::StringRef name) const;

  ASTContext &getContext() { return *context; }

private:
  std::unique_ptr<ASTContext> context;
  llvm::ArrayRef<Stmt *> body;
  llvm::SMRange range;
};

//===----------------------------------------------------------------------===//
// Dumping
//===----------------------------------------------------------------------===//

/// Prints `node` as an indented S-expression (see ASTDump.cpp for the exact
/// format). Expressions print on one line; statements one per line, their
/// bodies indented by two spaces. If `srcMgr` is given, every node's head is
/// followed by `@line:col`.
void dumpAST(const Node &node, llvm::raw_ostream &os,
             const llvm::SourceMgr *srcMgr = nullptr);
/// Prints a whole module: `(module` then its statements.
void dumpAST(const ModuleAST &module, llvm::raw_ostream &os,
             const llvm::SourceMgr *srcMgr = nullptr);

} // namespace tilec::frontend

#endif // TILEC_FRONTEND_AST_H
