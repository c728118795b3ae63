//===- ASTDump.cpp - S-expression printer for the AST ---------------------===//
//
// Part of the tilec project.
//
//===----------------------------------------------------------------------===//
//
// The dump format is stable: tests and `tilec --emit=ast` FileCheck it.
//
// Expressions print on one line, as `(head children...)`:
//
//   (name x)  (int 42)  (float 1e-5)  (imag 2j)  True False None ...
//   (str "a\0A")  (bytes "..")                   -- value, escaped
//   (fstr "text" (field X [= "x="] [!r] [(spec "text" (field ...))]) ...)
//   (unary - X)  (unary not X)  (binop + L R)  (boolop and L R)
//   (compare L < R1 <= R2)  (compare L not in R)  (ifexp COND THEN ELSE)
//   (call CALLEE ARG...) with ARG = X | (kw name X) | (star X) | (dstar X)
//   (attr BASE name)  (subscript BASE INDEX)  (slice LO HI STEP)
//   (tuple X...)  (list X...)  (set X...)  (dict (kv K V) (dstar X))
//   (starred X)  (walrus (name x) X)  (lambda PARAM... BODY)
//   (listcomp|setcomp|genexp ELT CLAUSE...)  (dictcomp K V CLAUSE...)
//     with CLAUSE = (for TARGET ITER (if COND)...) or (async-for ...)
//   (unsupported await X)  (unsupported yield)
//
// A missing optional child prints as `_` (`(slice _ (int 2) _)`). Integers
// print their value in decimal (their spelling if it does not fit in 64
// bits), floats and imaginaries their spelling.
//
// Parameters: `(param NAME [posonly|kwonly|vararg|kwarg] [(ann X)]
// [(default X)])`.
//
// Statements print one per line, children indented by two spaces, closing
// parentheses on the last line:
//
//   (expr X)  (assign TARGET... VALUE)  (augassign += TARGET VALUE)
//   (annassign TARGET ANN [VALUE])  (return [X])  (assert TEST [MSG])
//   (pass)  (break)  (continue)  (global a b)  (nonlocal a)
//   (import (alias a.b c) (alias d))  (from ..m (alias x) (alias *))
//   (if COND
//     (then
//       STMT...)
//     (else                 -- or, for an elif chain, directly
//       STMT...))           -- (elif COND (then ...) ...)
//   (for TARGET ITER (body ...) [(else ...)])   -- body on its own lines
//   (while COND (body ...) [(else ...)])
//   (def NAME (decorator X)... PARAM... [(returns X)] (body ...))
//   (unsupported try)  (skipped def name)  (skipped assignment a b)
//
// A module prints as `(module` followed by its statements. With a SourceMgr,
// each head is suffixed with `@line:col` of the node: `(name@3:5 x)`.
//
//===----------------------------------------------------------------------===//

#include "tilec/Frontend/AST.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

using namespace tilec::frontend;
using llvm::StringRef;

namespace {

class ASTDumper {
public:
  ASTDumper(llvm::raw_ostream &os, const llvm::SourceMgr *srcMgr)
      : os(os), srcMgr(srcMgr) {}

  void printExpr(const Expr *expr);
  void printParam(const Parameter &param);
  /// Prints a statement starting at the current column, which is `indent`.
  void printStmt(const Stmt &stmt, unsigned indent);
  void printModule(const ModuleAST &module);

private:
  void head(StringRef word, const Node &node);
  void optional(const Expr *expr) {
    if (expr)
      printExpr(expr);
    else
      os << '_';
  }
  void newline(unsigned indent) { os << '\n' << std::string(indent, ' '); }
  /// Prints `(label` and the statements on the following lines.
  void printBody(StringRef label, llvm::ArrayRef<Stmt *> body, unsigned indent);
  void printStmts(llvm::ArrayRef<Stmt *> stmts, unsigned indent);
  void printIf(const IfStmt &stmt, unsigned indent);
  void printClauses(llvm::ArrayRef<ComprehensionFor> clauses);
  void printAliases(llvm::ArrayRef<ImportAlias> aliases);
  /// Prints the parts of an f-string, each preceded by a space.
  void printFStringParts(llvm::ArrayRef<FStringPart> parts);

  llvm::raw_ostream &os;
  const llvm::SourceMgr *srcMgr;
};

} // namespace

void ASTDumper::head(StringRef word, const Node &node) {
  os << '(' << word;
  if (srcMgr && node.getLoc().isValid()) {
    auto [line, col] = srcMgr->getLineAndColumn(node.getLoc());
    os << '@' << line << ':' << col;
  }
}

void ASTDumper::printFStringParts(llvm::ArrayRef<FStringPart> parts) {
  for (const FStringPart &part : parts) {
    os << ' ';
    if (!part.isField()) {
      os << '"';
      llvm::printEscapedString(part.text, os);
      os << '"';
      continue;
    }
    os << "(field ";
    printExpr(part.expr);
    if (!part.selfDocText.empty()) {
      os << " = \"";
      llvm::printEscapedString(part.selfDocText, os);
      os << '"';
    }
    if (part.conversion)
      os << " !" << part.conversion;
    if (part.formatSpec) {
      os << " (spec";
      printFStringParts(part.formatSpec->getParts());
      os << ')';
    }
    os << ')';
  }
}

void ASTDumper::printExpr(const Expr *expr) {
  switch (expr->getKind()) {
  case Node::Kind::Name:
    head("name", *expr);
    os << ' ' << llvm::cast<NameExpr>(expr)->getName() << ')';
    return;
  case Node::Kind::IntegerLiteral: {
    const auto *lit = llvm::cast<IntegerLiteral>(expr);
    head("int", *expr);
    if (std::optional<uint64_t> value = lit->getValue())
      os << ' ' << *value << ')';
    else
      os << ' ' << lit->getSpelling() << ')';
    return;
  }
  case Node::Kind::FloatLiteral:
    head("float", *expr);
    os << ' ' << llvm::cast<FloatLiteral>(expr)->getSpelling() << ')';
    return;
  case Node::Kind::ImaginaryLiteral:
    head("imag", *expr);
    os << ' ' << llvm::cast<ImaginaryLiteral>(expr)->getSpelling() << ')';
    return;
  case Node::Kind::StringLiteral: {
    const auto *lit = llvm::cast<StringLiteral>(expr);
    head(lit->isBytes() ? "bytes" : lit->isFormat() ? "fstr" : "str", *expr);
    os << " \"";
    llvm::printEscapedString(lit->getValue(), os);
    os << "\")";
    return;
  }
  case Node::Kind::FString:
    head("fstr", *expr);
    printFStringParts(llvm::cast<FStringExpr>(expr)->getParts());
    os << ')';
    return;
  case Node::Kind::BoolLiteral:
    os << (llvm::cast<BoolLiteral>(expr)->getValue() ? "True" : "False");
    return;
  case Node::Kind::NoneLiteral:
    os << "None";
    return;
  case Node::Kind::EllipsisLiteral:
    os << "...";
    return;
  case Node::Kind::Unary: {
    const auto *unary = llvm::cast<UnaryExpr>(expr);
    head("unary", *expr);
    os << ' ' << getSpelling(unary->getOp()) << ' ';
    printExpr(unary->getOperand());
    os << ')';
    return;
  }
  case Node::Kind::Binary: {
    const auto *binary = llvm::cast<BinaryExpr>(expr);
    head("binop", *expr);
    os << ' ' << getSpelling(binary->getOp()) << ' ';
    printExpr(binary->getLHS());
    os << ' ';
    printExpr(binary->getRHS());
    os << ')';
    return;
  }
  case Node::Kind::BoolOp: {
    const auto *boolOp = llvm::cast<BoolOpExpr>(expr);
    head("boolop", *expr);
    os << ' ' << getSpelling(boolOp->getOp()) << ' ';
    printExpr(boolOp->getLHS());
    os << ' ';
    printExpr(boolOp->getRHS());
    os << ')';
    return;
  }
  case Node::Kind::Compare: {
    const auto *compare = llvm::cast<CompareExpr>(expr);
    head("compare", *expr);
    os << ' ';
    printExpr(compare->getLHS());
    for (const Comparison &c : compare->getComparisons()) {
      os << ' ' << getSpelling(c.op) << ' ';
      printExpr(c.rhs);
    }
    os << ')';
    return;
  }
  case Node::Kind::IfExp: {
    const auto *ifExp = llvm::cast<IfExpr>(expr);
    head("ifexp", *expr);
    os << ' ';
    printExpr(ifExp->getCondition());
    os << ' ';
    printExpr(ifExp->getTrueValue());
    os << ' ';
    printExpr(ifExp->getFalseValue());
    os << ')';
    return;
  }
  case Node::Kind::Lambda: {
    const auto *lambda = llvm::cast<LambdaExpr>(expr);
    head("lambda", *expr);
    for (const Parameter *param : lambda->getParams()) {
      os << ' ';
      printParam(*param);
    }
    os << ' ';
    printExpr(lambda->getBody());
    os << ')';
    return;
  }
  case Node::Kind::Call: {
    const auto *call = llvm::cast<CallExpr>(expr);
    head("call", *expr);
    os << ' ';
    printExpr(call->getCallee());
    for (const Argument &arg : call->getArgs()) {
      os << ' ';
      switch (arg.kind) {
      case ArgKind::Positional:
        printExpr(arg.value);
        continue;
      case ArgKind::Keyword:
        os << "(kw " << arg.keyword << ' ';
        break;
      case ArgKind::Star:
        os << "(star ";
        break;
      case ArgKind::DoubleStar:
        os << "(dstar ";
        break;
      }
      printExpr(arg.value);
      os << ')';
    }
    os << ')';
    return;
  }
  case Node::Kind::Attribute: {
    const auto *attr = llvm::cast<AttributeExpr>(expr);
    head("attr", *expr);
    os << ' ';
    printExpr(attr->getBase());
    os << ' ' << attr->getName() << ')';
    return;
  }
  case Node::Kind::Subscript: {
    const auto *subscript = llvm::cast<SubscriptExpr>(expr);
    head("subscript", *expr);
    os << ' ';
    printExpr(subscript->getBase());
    os << ' ';
    printExpr(subscript->getIndex());
    os << ')';
    return;
  }
  case Node::Kind::Slice: {
    const auto *slice = llvm::cast<SliceExpr>(expr);
    head("slice", *expr);
    os << ' ';
    optional(slice->getLower());
    os << ' ';
    optional(slice->getUpper());
    os << ' ';
    optional(slice->getStep());
    os << ')';
    return;
  }
  case Node::Kind::Tuple:
  case Node::Kind::List:
  case Node::Kind::Set: {
    llvm::ArrayRef<Expr *> elements;
    if (const auto *tuple = llvm::dyn_cast<TupleExpr>(expr)) {
      head("tuple", *expr);
      elements = tuple->getElements();
    } else if (const auto *list = llvm::dyn_cast<ListExpr>(expr)) {
      head("list", *expr);
      elements = list->getElements();
    } else {
      head("set", *expr);
      elements = llvm::cast<SetExpr>(expr)->getElements();
    }
    for (const Expr *element : elements) {
      os << ' ';
      printExpr(element);
    }
    os << ')';
    return;
  }
  case Node::Kind::Dict: {
    head("dict", *expr);
    for (const DictEntry &entry : llvm::cast<DictExpr>(expr)->getEntries()) {
      if (entry.key) {
        os << " (kv ";
        printExpr(entry.key);
        os << ' ';
      } else {
        os << " (dstar ";
      }
      printExpr(entry.value);
      os << ')';
    }
    os << ')';
    return;
  }
  case Node::Kind::Starred:
    head("starred", *expr);
    os << ' ';
    printExpr(llvm::cast<StarredExpr>(expr)->getValue());
    os << ')';
    return;
  case Node::Kind::Comprehension: {
    const auto *comp = llvm::cast<ComprehensionExpr>(expr);
    switch (comp->getComprehensionKind()) {
    case ComprehensionKind::List:
      head("listcomp", *expr);
      break;
    case ComprehensionKind::Set:
      head("setcomp", *expr);
      break;
    case ComprehensionKind::Dict:
      head("dictcomp", *expr);
      break;
    case ComprehensionKind::Generator:
      head("genexp", *expr);
      break;
    }
    os << ' ';
    printExpr(comp->getElement());
    if (comp->getValue()) {
      os << ' ';
      printExpr(comp->getValue());
    }
    printClauses(comp->getClauses());
    os << ')';
    return;
  }
  case Node::Kind::NamedExpr: {
    const auto *named = llvm::cast<NamedExpr>(expr);
    head("walrus", *expr);
    os << ' ';
    printExpr(named->getTarget());
    os << ' ';
    printExpr(named->getValue());
    os << ')';
    return;
  }
  case Node::Kind::UnsupportedExpr: {
    const auto *unsupported = llvm::cast<UnsupportedExpr>(expr);
    head("unsupported", *expr);
    os << ' ' << unsupported->getConstruct();
    if (unsupported->getOperand()) {
      os << ' ';
      printExpr(unsupported->getOperand());
    }
    os << ')';
    return;
  }
  default:
    os << "(?)";
    return;
  }
}

void ASTDumper::printClauses(llvm::ArrayRef<ComprehensionFor> clauses) {
  for (const ComprehensionFor &clause : clauses) {
    os << (clause.isAsync ? " (async-for " : " (for ");
    printExpr(clause.target);
    os << ' ';
    printExpr(clause.iter);
    for (const Expr *condition : clause.conditions) {
      os << " (if ";
      printExpr(condition);
      os << ')';
    }
    os << ')';
  }
}

void ASTDumper::printParam(const Parameter &param) {
  head("param", param);
  os << ' ' << param.getName();
  switch (param.getParamKind()) {
  case ParamKind::Normal:
    break;
  case ParamKind::PositionalOnly:
    os << " posonly";
    break;
  case ParamKind::KeywordOnly:
    os << " kwonly";
    break;
  case ParamKind::VarPositional:
    os << " vararg";
    break;
  case ParamKind::VarKeyword:
    os << " kwarg";
    break;
  }
  if (param.getAnnotation()) {
    os << " (ann ";
    printExpr(param.getAnnotation());
    os << ')';
  }
  if (param.getDefault()) {
    os << " (default ";
    printExpr(param.getDefault());
    os << ')';
  }
  os << ')';
}

void ASTDumper::printStmts(llvm::ArrayRef<Stmt *> stmts, unsigned indent) {
  for (const Stmt *stmt : stmts) {
    newline(indent);
    printStmt(*stmt, indent);
  }
}

void ASTDumper::printBody(StringRef label, llvm::ArrayRef<Stmt *> body,
                          unsigned indent) {
  newline(indent);
  os << '(' << label;
  printStmts(body, indent + 2);
  os << ')';
}

void ASTDumper::printAliases(llvm::ArrayRef<ImportAlias> aliases) {
  for (const ImportAlias &alias : aliases) {
    os << " (alias " << alias.name;
    if (!alias.asName.empty())
      os << ' ' << alias.asName;
    os << ')';
  }
}

void ASTDumper::printIf(const IfStmt &stmt, unsigned indent) {
  head(stmt.isElif() ? "elif" : "if", stmt);
  os << ' ';
  printExpr(stmt.getCondition());
  printBody("then", stmt.getThenBody(), indent + 2);
  llvm::ArrayRef<Stmt *> elseBody = stmt.getElseBody();
  if (elseBody.size() == 1)
    if (const auto *elif = llvm::dyn_cast<IfStmt>(elseBody.front()))
      if (elif->isElif()) {
        newline(indent + 2);
        printIf(*elif, indent + 2);
        os << ')';
        return;
      }
  if (!elseBody.empty())
    printBody("else", elseBody, indent + 2);
  os << ')';
}

void ASTDumper::printStmt(const Stmt &stmt, unsigned indent) {
  switch (stmt.getKind()) {
  case Node::Kind::ExprStmt:
    head("expr", stmt);
    os << ' ';
    printExpr(llvm::cast<ExprStmt>(stmt).getExpr());
    os << ')';
    return;
  case Node::Kind::Assign: {
    const auto &assign = llvm::cast<AssignStmt>(stmt);
    head("assign", stmt);
    for (const Expr *target : assign.getTargets()) {
      os << ' ';
      printExpr(target);
    }
    os << ' ';
    printExpr(assign.getValue());
    os << ')';
    return;
  }
  case Node::Kind::AugAssign: {
    const auto &aug = llvm::cast<AugAssignStmt>(stmt);
    head("augassign", stmt);
    os << ' ' << getSpelling(aug.getOp()) << "= ";
    printExpr(aug.getTarget());
    os << ' ';
    printExpr(aug.getValue());
    os << ')';
    return;
  }
  case Node::Kind::AnnAssign: {
    const auto &ann = llvm::cast<AnnAssignStmt>(stmt);
    head("annassign", stmt);
    os << ' ';
    printExpr(ann.getTarget());
    os << ' ';
    printExpr(ann.getAnnotation());
    if (ann.getValue()) {
      os << ' ';
      printExpr(ann.getValue());
    }
    os << ')';
    return;
  }
  case Node::Kind::If:
    printIf(llvm::cast<IfStmt>(stmt), indent);
    return;
  case Node::Kind::For: {
    const auto &forStmt = llvm::cast<ForStmt>(stmt);
    head("for", stmt);
    os << ' ';
    printExpr(forStmt.getTarget());
    os << ' ';
    printExpr(forStmt.getIter());
    printBody("body", forStmt.getBody(), indent + 2);
    if (!forStmt.getElseBody().empty())
      printBody("else", forStmt.getElseBody(), indent + 2);
    os << ')';
    return;
  }
  case Node::Kind::While: {
    const auto &whileStmt = llvm::cast<WhileStmt>(stmt);
    head("while", stmt);
    os << ' ';
    printExpr(whileStmt.getCondition());
    printBody("body", whileStmt.getBody(), indent + 2);
    if (!whileStmt.getElseBody().empty())
      printBody("else", whileStmt.getElseBody(), indent + 2);
    os << ')';
    return;
  }
  case Node::Kind::Break:
    head("break", stmt);
    os << ')';
    return;
  case Node::Kind::Continue:
    head("continue", stmt);
    os << ')';
    return;
  case Node::Kind::Pass:
    head("pass", stmt);
    os << ')';
    return;
  case Node::Kind::Return: {
    head("return", stmt);
    if (const Expr *value = llvm::cast<ReturnStmt>(stmt).getValue()) {
      os << ' ';
      printExpr(value);
    }
    os << ')';
    return;
  }
  case Node::Kind::Assert: {
    const auto &assertStmt = llvm::cast<AssertStmt>(stmt);
    head("assert", stmt);
    os << ' ';
    printExpr(assertStmt.getTest());
    if (assertStmt.getMessage()) {
      os << ' ';
      printExpr(assertStmt.getMessage());
    }
    os << ')';
    return;
  }
  case Node::Kind::FunctionDef: {
    const auto &func = llvm::cast<FunctionDef>(stmt);
    head("def", stmt);
    os << ' ' << func.getName();
    for (const Expr *decorator : func.getDecorators()) {
      newline(indent + 2);
      os << "(decorator ";
      printExpr(decorator);
      os << ')';
    }
    for (const Parameter *param : func.getParams()) {
      newline(indent + 2);
      printParam(*param);
    }
    if (func.getReturns()) {
      newline(indent + 2);
      os << "(returns ";
      printExpr(func.getReturns());
      os << ')';
    }
    printBody("body", func.getBody(), indent + 2);
    os << ')';
    return;
  }
  case Node::Kind::Import:
    head("import", stmt);
    printAliases(llvm::cast<ImportStmt>(stmt).getNames());
    os << ')';
    return;
  case Node::Kind::ImportFrom: {
    const auto &from = llvm::cast<ImportFromStmt>(stmt);
    head("from", stmt);
    os << ' ' << std::string(from.getLevel(), '.') << from.getModule();
    printAliases(from.getNames());
    os << ')';
    return;
  }
  case Node::Kind::Global:
  case Node::Kind::Nonlocal: {
    const auto &global = llvm::cast<GlobalStmt>(stmt);
    head(global.isNonlocal() ? "nonlocal" : "global", stmt);
    for (StringRef name : global.getNames())
      os << ' ' << name;
    os << ')';
    return;
  }
  case Node::Kind::UnsupportedStmt:
    head("unsupported", stmt);
    os << ' ' << llvm::cast<UnsupportedStmt>(stmt).getConstruct() << ')';
    return;
  case Node::Kind::Skipped: {
    const auto &skipped = llvm::cast<SkippedStmt>(stmt);
    head("skipped", stmt);
    os << ' ' << skipped.getConstruct();
    for (StringRef name : skipped.getNames())
      os << ' ' << name;
    os << ')';
    return;
  }
  default:
    os << "(?)";
    return;
  }
}

void ASTDumper::printModule(const ModuleAST &module) {
  os << "(module";
  printStmts(module.getBody(), 2);
  os << ")\n";
}

void tilec::frontend::dumpAST(const Node &node, llvm::raw_ostream &os,
                              const llvm::SourceMgr *srcMgr) {
  ASTDumper dumper(os, srcMgr);
  if (const auto *expr = llvm::dyn_cast<Expr>(&node))
    dumper.printExpr(expr);
  else if (const auto *stmt = llvm::dyn_cast<Stmt>(&node))
    dumper.printStmt(*stmt, 0);
  else
    dumper.printParam(llvm::cast<Parameter>(node));
  os << '\n';
}

void tilec::frontend::dumpAST(const ModuleAST &module, llvm::raw_ostream &os,
                              const llvm::SourceMgr *srcMgr) {
  ASTDumper(os, srcMgr).printModule(module);
}
