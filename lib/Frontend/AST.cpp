//===- AST.cpp - Syntax tree of .tile files -------------------------------===//
//
// Part of the tilec project.
//
//===----------------------------------------------------------------------===//

#include "tilec/Frontend/AST.h"

#include "llvm/ADT/Twine.h"

using namespace tilec::frontend;
using llvm::StringRef;

StringRef tilec::frontend::getSpelling(UnaryOp op) {
  switch (op) {
  case UnaryOp::Plus:
    return "+";
  case UnaryOp::Minus:
    return "-";
  case UnaryOp::Invert:
    return "~";
  case UnaryOp::Not:
    return "not";
  }
  return "?";
}

StringRef tilec::frontend::getSpelling(BinaryOp op) {
  switch (op) {
  case BinaryOp::Add:
    return "+";
  case BinaryOp::Sub:
    return "-";
  case BinaryOp::Mul:
    return "*";
  case BinaryOp::MatMul:
    return "@";
  case BinaryOp::Div:
    return "/";
  case BinaryOp::FloorDiv:
    return "//";
  case BinaryOp::Mod:
    return "%";
  case BinaryOp::Pow:
    return "**";
  case BinaryOp::LShift:
    return "<<";
  case BinaryOp::RShift:
    return ">>";
  case BinaryOp::BitOr:
    return "|";
  case BinaryOp::BitXor:
    return "^";
  case BinaryOp::BitAnd:
    return "&";
  }
  return "?";
}

StringRef tilec::frontend::getSpelling(BoolOp op) {
  return op == BoolOp::And ? "and" : "or";
}

StringRef tilec::frontend::getSpelling(CmpOp op) {
  switch (op) {
  case CmpOp::Eq:
    return "==";
  case CmpOp::NotEq:
    return "!=";
  case CmpOp::Lt:
    return "<";
  case CmpOp::LtE:
    return "<=";
  case CmpOp::Gt:
    return ">";
  case CmpOp::GtE:
    return ">=";
  case CmpOp::Is:
    return "is";
  case CmpOp::IsNot:
    return "is not";
  case CmpOp::In:
    return "in";
  case CmpOp::NotIn:
    return "not in";
  }
  return "?";
}

bool tilec::frontend::isJitDecorator(const Expr *decorator) {
  if (const auto *call = llvm::dyn_cast<CallExpr>(decorator))
    decorator = call->getCallee();
  if (const auto *name = llvm::dyn_cast<NameExpr>(decorator))
    return name->getName() == "jit";
  if (const auto *attr = llvm::dyn_cast<AttributeExpr>(decorator))
    return attr->getName() == "jit";
  return false;
}

std::string UnsupportedStmt::getMessage() const {
  return (llvm::Twine("'") + construct +
          "' statements are not supported in a kernel")
      .str();
}

llvm::SmallVector<FunctionDef *> ModuleAST::getFunctions() const {
  llvm::SmallVector<FunctionDef *> result;
  for (Stmt *stmt : body)
    if (auto *func = llvm::dyn_cast<FunctionDef>(stmt))
      result.push_back(func);
  return result;
}

FunctionDef *ModuleAST::lookupFunction(StringRef name) const {
  FunctionDef *result = nullptr;
  for (Stmt *stmt : body)
    if (auto *func = llvm::dyn_cast<FunctionDef>(stmt))
      if (func->getName() == name)
        result = func;
  return result;
}

llvm::SmallVector<Stmt *> ModuleAST::getConstants() const {
  llvm::SmallVector<Stmt *> result;
  for (Stmt *stmt : body)
    if (llvm::isa<AssignStmt, AnnAssignStmt>(stmt))
      result.push_back(stmt);
  return result;
}

SkippedStmt *ModuleAST::lookupSkipped(StringRef name) const {
  SkippedStmt *result = nullptr;
  for (Stmt *stmt : body)
    if (auto *skipped = llvm::dyn_cast<SkippedStmt>(stmt))
      if (llvm::is_contained(skipped->getNames(), name))
        result = skipped;
  return result;
}
