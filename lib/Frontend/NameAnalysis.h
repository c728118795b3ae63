//===- NameAnalysis.h - Which names statements read and write ---*- C++ -*-===//
//
// Part of tilec, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// Syntactic facts about variables that the code generator needs to build
// structured control flow:
//
// - the names a statement list assigns (the candidates for values an
//   `scf.if` yields or an `scf.for` carries);
// - its upward-exposed reads: names read before any assignment that
//   certainly precedes them (a variable that is reassigned before it is read
//   again is dead, and need not be carried or merged);
// - whether it contains a `return`.
//
// Nested `def` and `lambda` bodies are not walked for assignments (they have
// their own scope); every name they read counts as read where they are
// defined, since they can be called anywhere afterwards.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_LIB_FRONTEND_NAMEANALYSIS_H
#define TILEC_LIB_FRONTEND_NAMEANALYSIS_H

#include "tilec/Frontend/AST.h"

#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/StringSet.h"

namespace tilec::frontend {

/// An ordered set of names (deterministic iteration order).
using NameSet = llvm::SetVector<llvm::StringRef>;

/// Adds the names `stmts` assign (assignment targets, `for` targets, nested
/// `def` names, walrus targets), in first-assignment order.
void collectAssignedNames(llvm::ArrayRef<Stmt *> stmts, NameSet &names);
/// Adds the names an assignment target binds (`a`, `(a, b)`, `[a, *b]`).
void collectTargetNames(const Expr *target, NameSet &names);
/// Adds the walrus (`:=`) targets inside an expression.
void collectWalrusTargets(const Expr *expr, NameSet &names);

/// Adds the names `target` binds to `assigned`.
void assignTargetsInto(const Expr *target, llvm::StringSet<> &assigned);

/// Adds to `reads` the names `stmts` read before they are certainly
/// assigned. `assigned` holds the names certainly assigned before `stmts`
/// and is updated with those certainly assigned after them.
void collectExposedReads(llvm::ArrayRef<Stmt *> stmts,
                         llvm::StringSet<> &assigned, llvm::StringSet<> &reads);
/// Adds every name an expression reads (including lambda bodies).
void collectReads(const Expr *expr, llvm::StringSet<> &reads);
/// Adds every name read anywhere in nested `def` bodies and lambdas found in
/// `stmts` (these may run at any later call).
void collectClosureReads(llvm::ArrayRef<Stmt *> stmts,
                         llvm::StringSet<> &reads);

/// The functions of `functions` that no other one of them reads (calls) by
/// name, in order: the candidates for the kernel of a file that defines
/// several `@jit` functions.
llvm::SmallVector<FunctionDef *>
findUncalledFunctions(llvm::ArrayRef<FunctionDef *> functions);

/// Whether `stmts` contain a `return` (outside nested functions).
bool containsReturn(llvm::ArrayRef<Stmt *> stmts);
/// Whether every path through `stmts` ends in a `return` (syntactically).
bool alwaysReturns(llvm::ArrayRef<Stmt *> stmts);

} // namespace tilec::frontend

#endif // TILEC_LIB_FRONTEND_NAMEANALYSIS_H
