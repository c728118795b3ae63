//===- NameAnalysis.cpp - Which names statements read and write -----------===//
//
// Part of tilec, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#include "NameAnalysis.h"

using namespace tilec::frontend;
using llvm::ArrayRef;
using llvm::StringRef;

//===----------------------------------------------------------------------===//
// Expressions
//===----------------------------------------------------------------------===//

namespace {
/// Walks an expression, calling `onRead` for every name read and `onWalrus`
/// for every walrus target. Lambda parameters shadow the names they bind
/// inside the lambda body.
template <typename ReadFn, typename WalrusFn>
void walkExpr(const Expr *expr, ReadFn &onRead, WalrusFn &onWalrus,
              const llvm::StringSet<> *shadowed = nullptr) {
  if (!expr)
    return;
  auto visit = [&](const Expr *e) { walkExpr(e, onRead, onWalrus, shadowed); };
  switch (expr->getKind()) {
  case Node::Kind::Name: {
    StringRef name = llvm::cast<NameExpr>(expr)->getName();
    if (!shadowed || !shadowed->contains(name))
      onRead(name);
    return;
  }
  case Node::Kind::Unary:
    visit(llvm::cast<UnaryExpr>(expr)->getOperand());
    return;
  case Node::Kind::Binary: {
    const auto *binary = llvm::cast<BinaryExpr>(expr);
    visit(binary->getLHS());
    visit(binary->getRHS());
    return;
  }
  case Node::Kind::BoolOp: {
    const auto *boolOp = llvm::cast<BoolOpExpr>(expr);
    visit(boolOp->getLHS());
    visit(boolOp->getRHS());
    return;
  }
  case Node::Kind::Compare: {
    const auto *compare = llvm::cast<CompareExpr>(expr);
    visit(compare->getLHS());
    for (const Comparison &c : compare->getComparisons())
      visit(c.rhs);
    return;
  }
  case Node::Kind::IfExp: {
    const auto *ifExp = llvm::cast<IfExpr>(expr);
    visit(ifExp->getCondition());
    visit(ifExp->getTrueValue());
    visit(ifExp->getFalseValue());
    return;
  }
  case Node::Kind::Lambda: {
    const auto *lambda = llvm::cast<LambdaExpr>(expr);
    llvm::StringSet<> inner;
    if (shadowed)
      for (const auto &entry : *shadowed)
        inner.insert(entry.getKey());
    for (const Parameter *param : lambda->getParams()) {
      visit(param->getDefault());
      inner.insert(param->getName());
    }
    walkExpr(lambda->getBody(), onRead, onWalrus, &inner);
    return;
  }
  case Node::Kind::Call: {
    const auto *call = llvm::cast<CallExpr>(expr);
    visit(call->getCallee());
    for (const Argument &arg : call->getArgs())
      visit(arg.value);
    return;
  }
  case Node::Kind::Attribute:
    visit(llvm::cast<AttributeExpr>(expr)->getBase());
    return;
  case Node::Kind::Subscript: {
    const auto *subscript = llvm::cast<SubscriptExpr>(expr);
    visit(subscript->getBase());
    visit(subscript->getIndex());
    return;
  }
  case Node::Kind::Slice: {
    const auto *slice = llvm::cast<SliceExpr>(expr);
    visit(slice->getLower());
    visit(slice->getUpper());
    visit(slice->getStep());
    return;
  }
  case Node::Kind::Tuple:
    for (const Expr *e : llvm::cast<TupleExpr>(expr)->getElements())
      visit(e);
    return;
  case Node::Kind::List:
    for (const Expr *e : llvm::cast<ListExpr>(expr)->getElements())
      visit(e);
    return;
  case Node::Kind::Set:
    for (const Expr *e : llvm::cast<SetExpr>(expr)->getElements())
      visit(e);
    return;
  case Node::Kind::Dict:
    for (const DictEntry &entry : llvm::cast<DictExpr>(expr)->getEntries()) {
      visit(entry.key);
      visit(entry.value);
    }
    return;
  case Node::Kind::Starred:
    visit(llvm::cast<StarredExpr>(expr)->getValue());
    return;
  case Node::Kind::Comprehension: {
    const auto *comp = llvm::cast<ComprehensionExpr>(expr);
    visit(comp->getElement());
    visit(comp->getValue());
    for (const ComprehensionFor &clause : comp->getClauses()) {
      visit(clause.iter);
      for (const Expr *cond : clause.conditions)
        visit(cond);
    }
    return;
  }
  case Node::Kind::NamedExpr: {
    const auto *named = llvm::cast<NamedExpr>(expr);
    visit(named->getValue());
    onWalrus(named->getTarget()->getName());
    return;
  }
  case Node::Kind::UnsupportedExpr:
    visit(llvm::cast<UnsupportedExpr>(expr)->getOperand());
    return;
  case Node::Kind::FString:
    for (const FStringPart &part : llvm::cast<FStringExpr>(expr)->getParts()) {
      visit(part.expr);
      visit(part.formatSpec);
    }
    return;
  default:
    return;
  }
}
} // namespace

void tilec::frontend::collectReads(const Expr *expr, llvm::StringSet<> &reads) {
  auto onRead = [&](StringRef name) { reads.insert(name); };
  auto onWalrus = [](StringRef) {};
  walkExpr(expr, onRead, onWalrus);
}

/// Reads of `expr` not preceded by an assignment in `assigned`; walrus
/// targets become assigned.
static void exposedReadsOfExpr(const Expr *expr, llvm::StringSet<> &assigned,
                               llvm::StringSet<> &reads) {
  auto onRead = [&](StringRef name) {
    if (!assigned.contains(name))
      reads.insert(name);
  };
  auto onWalrus = [&](StringRef name) { assigned.insert(name); };
  walkExpr(expr, onRead, onWalrus);
}

//===----------------------------------------------------------------------===//
// Assigned names
//===----------------------------------------------------------------------===//

void tilec::frontend::collectTargetNames(const Expr *target, NameSet &names) {
  if (!target)
    return;
  if (const auto *name = llvm::dyn_cast<NameExpr>(target)) {
    names.insert(name->getName());
    return;
  }
  if (const auto *tuple = llvm::dyn_cast<TupleExpr>(target)) {
    for (const Expr *e : tuple->getElements())
      collectTargetNames(e, names);
    return;
  }
  if (const auto *list = llvm::dyn_cast<ListExpr>(target)) {
    for (const Expr *e : list->getElements())
      collectTargetNames(e, names);
    return;
  }
  if (const auto *starred = llvm::dyn_cast<StarredExpr>(target))
    collectTargetNames(starred->getValue(), names);
}

void tilec::frontend::collectWalrusTargets(const Expr *expr, NameSet &names) {
  auto onRead = [](StringRef) {};
  auto onWalrus = [&](StringRef name) { names.insert(name); };
  walkExpr(expr, onRead, onWalrus);
}

void tilec::frontend::collectAssignedNames(ArrayRef<Stmt *> stmts,
                                           NameSet &names) {
  for (const Stmt *stmt : stmts) {
    switch (stmt->getKind()) {
    case Node::Kind::ExprStmt:
      collectWalrusTargets(llvm::cast<ExprStmt>(stmt)->getExpr(), names);
      break;
    case Node::Kind::Assign: {
      const auto *assign = llvm::cast<AssignStmt>(stmt);
      collectWalrusTargets(assign->getValue(), names);
      for (const Expr *target : assign->getTargets())
        collectTargetNames(target, names);
      break;
    }
    case Node::Kind::AugAssign: {
      const auto *aug = llvm::cast<AugAssignStmt>(stmt);
      collectWalrusTargets(aug->getValue(), names);
      collectTargetNames(aug->getTarget(), names);
      break;
    }
    case Node::Kind::AnnAssign: {
      const auto *ann = llvm::cast<AnnAssignStmt>(stmt);
      collectWalrusTargets(ann->getValue(), names);
      if (ann->getValue())
        collectTargetNames(ann->getTarget(), names);
      break;
    }
    case Node::Kind::If: {
      const auto *ifStmt = llvm::cast<IfStmt>(stmt);
      collectWalrusTargets(ifStmt->getCondition(), names);
      collectAssignedNames(ifStmt->getThenBody(), names);
      collectAssignedNames(ifStmt->getElseBody(), names);
      break;
    }
    case Node::Kind::For: {
      const auto *forStmt = llvm::cast<ForStmt>(stmt);
      collectTargetNames(forStmt->getTarget(), names);
      collectAssignedNames(forStmt->getBody(), names);
      collectAssignedNames(forStmt->getElseBody(), names);
      break;
    }
    case Node::Kind::While: {
      const auto *whileStmt = llvm::cast<WhileStmt>(stmt);
      collectWalrusTargets(whileStmt->getCondition(), names);
      collectAssignedNames(whileStmt->getBody(), names);
      collectAssignedNames(whileStmt->getElseBody(), names);
      break;
    }
    case Node::Kind::FunctionDef:
      names.insert(llvm::cast<FunctionDef>(stmt)->getName());
      break;
    default:
      break;
    }
  }
}

//===----------------------------------------------------------------------===//
// Upward-exposed reads
//===----------------------------------------------------------------------===//

static void collectFunctionReads(const FunctionDef *def,
                                 llvm::StringSet<> &reads);

void tilec::frontend::collectExposedReads(ArrayRef<Stmt *> stmts,
                                          llvm::StringSet<> &assigned,
                                          llvm::StringSet<> &reads) {
  auto assignTargets = [&](const Expr *target) {
    NameSet names;
    collectTargetNames(target, names);
    for (StringRef name : names)
      assigned.insert(name);
  };
  for (const Stmt *stmt : stmts) {
    switch (stmt->getKind()) {
    case Node::Kind::ExprStmt:
      exposedReadsOfExpr(llvm::cast<ExprStmt>(stmt)->getExpr(), assigned,
                         reads);
      break;
    case Node::Kind::Assign: {
      const auto *assign = llvm::cast<AssignStmt>(stmt);
      exposedReadsOfExpr(assign->getValue(), assigned, reads);
      for (const Expr *target : assign->getTargets()) {
        // Subscript / attribute targets read their base.
        if (!llvm::isa<NameExpr, TupleExpr, ListExpr, StarredExpr>(target))
          exposedReadsOfExpr(target, assigned, reads);
        assignTargets(target);
      }
      break;
    }
    case Node::Kind::AugAssign: {
      const auto *aug = llvm::cast<AugAssignStmt>(stmt);
      exposedReadsOfExpr(aug->getValue(), assigned, reads);
      exposedReadsOfExpr(aug->getTarget(), assigned, reads);
      assignTargets(aug->getTarget());
      break;
    }
    case Node::Kind::AnnAssign: {
      const auto *ann = llvm::cast<AnnAssignStmt>(stmt);
      exposedReadsOfExpr(ann->getAnnotation(), assigned, reads);
      if (ann->getValue()) {
        exposedReadsOfExpr(ann->getValue(), assigned, reads);
        assignTargets(ann->getTarget());
      }
      break;
    }
    case Node::Kind::If: {
      const auto *ifStmt = llvm::cast<IfStmt>(stmt);
      exposedReadsOfExpr(ifStmt->getCondition(), assigned, reads);
      llvm::StringSet<> thenAssigned = assigned, elseAssigned = assigned;
      collectExposedReads(ifStmt->getThenBody(), thenAssigned, reads);
      collectExposedReads(ifStmt->getElseBody(), elseAssigned, reads);
      bool thenReturns = alwaysReturns(ifStmt->getThenBody());
      bool elseReturns = alwaysReturns(ifStmt->getElseBody());
      // After the if: assigned on every path that falls through.
      if (thenReturns && !elseReturns)
        assigned = std::move(elseAssigned);
      else if (elseReturns && !thenReturns)
        assigned = std::move(thenAssigned);
      else
        for (const auto &entry : thenAssigned)
          if (elseAssigned.contains(entry.getKey()))
            assigned.insert(entry.getKey());
      break;
    }
    case Node::Kind::For: {
      const auto *forStmt = llvm::cast<ForStmt>(stmt);
      exposedReadsOfExpr(forStmt->getIter(), assigned, reads);
      llvm::StringSet<> bodyAssigned = assigned;
      assignTargetsInto(forStmt->getTarget(), bodyAssigned);
      collectExposedReads(forStmt->getBody(), bodyAssigned, reads);
      llvm::StringSet<> elseAssigned = assigned;
      collectExposedReads(forStmt->getElseBody(), elseAssigned, reads);
      break;
    }
    case Node::Kind::While: {
      const auto *whileStmt = llvm::cast<WhileStmt>(stmt);
      exposedReadsOfExpr(whileStmt->getCondition(), assigned, reads);
      llvm::StringSet<> bodyAssigned = assigned;
      collectExposedReads(whileStmt->getBody(), bodyAssigned, reads);
      llvm::StringSet<> elseAssigned = assigned;
      collectExposedReads(whileStmt->getElseBody(), elseAssigned, reads);
      break;
    }
    case Node::Kind::Return:
      exposedReadsOfExpr(llvm::cast<ReturnStmt>(stmt)->getValue(), assigned,
                         reads);
      return;
    case Node::Kind::Assert: {
      const auto *assertStmt = llvm::cast<AssertStmt>(stmt);
      exposedReadsOfExpr(assertStmt->getTest(), assigned, reads);
      exposedReadsOfExpr(assertStmt->getMessage(), assigned, reads);
      break;
    }
    case Node::Kind::FunctionDef: {
      const auto *def = llvm::cast<FunctionDef>(stmt);
      for (const Parameter *param : def->getParams()) {
        exposedReadsOfExpr(param->getDefault(), assigned, reads);
        exposedReadsOfExpr(param->getAnnotation(), assigned, reads);
      }
      collectFunctionReads(def, reads);
      assigned.insert(def->getName());
      break;
    }
    default:
      break;
    }
  }
}

void tilec::frontend::assignTargetsInto(const Expr *target,
                                        llvm::StringSet<> &assigned) {
  NameSet names;
  collectTargetNames(target, names);
  for (StringRef name : names)
    assigned.insert(name);
}

/// The free reads of a nested function: names its body reads before
/// assigning them (parameters count as reads too, which is conservative).
static void collectFunctionReads(const FunctionDef *def,
                                 llvm::StringSet<> &reads) {
  llvm::StringSet<> assigned;
  collectExposedReads(def->getBody(), assigned, reads);
}

/// Calls `fn` on every top-level expression of `stmts` (not descending into
/// nested function bodies).
template <typename Fn>
static void forEachExpr(ArrayRef<Stmt *> stmts, Fn &&fn) {
  for (const Stmt *stmt : stmts) {
    switch (stmt->getKind()) {
    case Node::Kind::ExprStmt:
      fn(llvm::cast<ExprStmt>(stmt)->getExpr());
      break;
    case Node::Kind::Assign:
      fn(llvm::cast<AssignStmt>(stmt)->getValue());
      break;
    case Node::Kind::AugAssign:
      fn(llvm::cast<AugAssignStmt>(stmt)->getValue());
      break;
    case Node::Kind::AnnAssign:
      fn(llvm::cast<AnnAssignStmt>(stmt)->getValue());
      break;
    case Node::Kind::Return:
      fn(llvm::cast<ReturnStmt>(stmt)->getValue());
      break;
    case Node::Kind::If: {
      const auto *ifStmt = llvm::cast<IfStmt>(stmt);
      fn(ifStmt->getCondition());
      forEachExpr(ifStmt->getThenBody(), fn);
      forEachExpr(ifStmt->getElseBody(), fn);
      break;
    }
    case Node::Kind::For: {
      const auto *forStmt = llvm::cast<ForStmt>(stmt);
      fn(forStmt->getIter());
      forEachExpr(forStmt->getBody(), fn);
      break;
    }
    case Node::Kind::While: {
      const auto *whileStmt = llvm::cast<WhileStmt>(stmt);
      fn(whileStmt->getCondition());
      forEachExpr(whileStmt->getBody(), fn);
      break;
    }
    default:
      break;
    }
  }
}

/// Adds the reads of every lambda inside `expr`.
static void collectLambdaReads(const Expr *expr, llvm::StringSet<> &reads) {
  if (!expr)
    return;
  if (const auto *lambda = llvm::dyn_cast<LambdaExpr>(expr)) {
    collectReads(lambda, reads);
    return;
  }
  // Lambdas are rare: a cheap full walk that records only lambda bodies.
  struct Finder {
    llvm::StringSet<> &reads;
    void visit(const Expr *e) {
      if (!e)
        return;
      if (const auto *lambda = llvm::dyn_cast<LambdaExpr>(e)) {
        collectReads(lambda, reads);
        return;
      }
      if (const auto *call = llvm::dyn_cast<CallExpr>(e)) {
        visit(call->getCallee());
        for (const Argument &arg : call->getArgs())
          visit(arg.value);
      } else if (const auto *binary = llvm::dyn_cast<BinaryExpr>(e)) {
        visit(binary->getLHS());
        visit(binary->getRHS());
      } else if (const auto *tuple = llvm::dyn_cast<TupleExpr>(e)) {
        for (const Expr *element : tuple->getElements())
          visit(element);
      } else if (const auto *ifExp = llvm::dyn_cast<IfExpr>(e)) {
        visit(ifExp->getTrueValue());
        visit(ifExp->getFalseValue());
      }
    }
  } finder{reads};
  finder.visit(expr);
}

void tilec::frontend::collectClosureReads(ArrayRef<Stmt *> stmts,
                                          llvm::StringSet<> &reads) {
  for (const Stmt *stmt : stmts) {
    if (const auto *def = llvm::dyn_cast<FunctionDef>(stmt)) {
      collectFunctionReads(def, reads);
    } else if (const auto *ifStmt = llvm::dyn_cast<IfStmt>(stmt)) {
      collectClosureReads(ifStmt->getThenBody(), reads);
      collectClosureReads(ifStmt->getElseBody(), reads);
    } else if (const auto *forStmt = llvm::dyn_cast<ForStmt>(stmt)) {
      collectClosureReads(forStmt->getBody(), reads);
    } else if (const auto *whileStmt = llvm::dyn_cast<WhileStmt>(stmt)) {
      collectClosureReads(whileStmt->getBody(), reads);
    }
  }
  forEachExpr(stmts, [&](const Expr *e) { collectLambdaReads(e, reads); });
}

//===----------------------------------------------------------------------===//
// Returns
//===----------------------------------------------------------------------===//

llvm::SmallVector<FunctionDef *>
tilec::frontend::findUncalledFunctions(ArrayRef<FunctionDef *> functions) {
  llvm::SmallVector<FunctionDef *> roots;
  for (FunctionDef *candidate : functions) {
    bool called = false;
    for (FunctionDef *other : functions) {
      if (other == candidate)
        continue;
      llvm::StringSet<> reads;
      llvm::StringSet<> assigned;
      collectExposedReads(other->getBody(), assigned, reads);
      collectClosureReads(other->getBody(), reads);
      if (reads.contains(candidate->getName()))
        called = true;
    }
    if (!called)
      roots.push_back(candidate);
  }
  return roots;
}

bool tilec::frontend::containsReturn(ArrayRef<Stmt *> stmts) {
  for (const Stmt *stmt : stmts) {
    if (llvm::isa<ReturnStmt>(stmt))
      return true;
    if (const auto *ifStmt = llvm::dyn_cast<IfStmt>(stmt)) {
      if (containsReturn(ifStmt->getThenBody()) ||
          containsReturn(ifStmt->getElseBody()))
        return true;
    } else if (const auto *forStmt = llvm::dyn_cast<ForStmt>(stmt)) {
      if (containsReturn(forStmt->getBody()) ||
          containsReturn(forStmt->getElseBody()))
        return true;
    } else if (const auto *whileStmt = llvm::dyn_cast<WhileStmt>(stmt)) {
      if (containsReturn(whileStmt->getBody()) ||
          containsReturn(whileStmt->getElseBody()))
        return true;
    }
  }
  return false;
}

bool tilec::frontend::alwaysReturns(ArrayRef<Stmt *> stmts) {
  for (const Stmt *stmt : stmts) {
    if (llvm::isa<ReturnStmt>(stmt))
      return true;
    if (const auto *ifStmt = llvm::dyn_cast<IfStmt>(stmt))
      if (!ifStmt->getElseBody().empty() &&
          alwaysReturns(ifStmt->getThenBody()) &&
          alwaysReturns(ifStmt->getElseBody()))
        return true;
  }
  return false;
}
