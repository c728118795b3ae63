//===- CodeGenStmt.cpp - AST to tile dialect: statements ------------------===//
//
// Part of tilec, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// Statements and structured control flow:
//
// - `if` on a constexpr compiles only the taken branch. On a run-time scalar
//   it becomes `scf.if`, yielding each variable that the branches leave with
//   different values and that is read afterwards; the branches must agree on
//   its type. A variable assigned in only one branch does not exist after the
//   `if`. An `if` whose branch returns (outside loops) is compiled with the
//   rest of the function copied into each branch, so that `scf.if` yields the
//   function's result.
// - `for` over `range`/`tl.range` becomes `scf.for` (i32 bounds, i64 when a
//   bound is i64); variables defined before the loop, reassigned in its body
//   and read again are loop-carried and must keep their type and shape.
//   `tl.static_range` (and iteration over a constexpr tuple) is unrolled.
// - `while` becomes `scf.while` with the same carried-variable rule.
//
//===----------------------------------------------------------------------===//

#include "CodeGen.h"

#include "tilec/Dialect/Tile/IR/Tile.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/SourceMgr.h"

using namespace tilec;
using namespace tilec::frontend;
using llvm::SMLoc;
using llvm::StringRef;
using mlir::failure;
using mlir::FailureOr;
using mlir::LogicalResult;
using mlir::success;
namespace scf = mlir::scf;
namespace arith = mlir::arith;

/// The most iterations of a loop that is unrolled (tl.static_range, or a
/// constexpr tuple).
static constexpr int64_t kMaxUnrolledIterations = 4096;

/// The line of a location, for messages.
static unsigned lineOf(const llvm::SourceMgr &srcMgr, SMLoc loc) {
  return srcMgr.getLineAndColumn(loc).first;
}

//===----------------------------------------------------------------------===//
// Blocks
//===----------------------------------------------------------------------===//

void CodeGen::compileBlock(llvm::ArrayRef<Stmt *> stmts, const Stmt *loopStmt) {
  fn->cursors.push_back({stmts, 0, loopStmt});
  for (size_t i = 0; i < stmts.size() && !fn->returned; ++i) {
    // Past the error limit nothing more is reported: stop compiling.
    if (diags.hasReachedErrorLimit())
      break;
    fn->cursors.back().index = i;
    const Stmt *stmt = stmts[i];
    if (failed(compileStmt(stmt))) {
      // Poison what the statement assigns so that later uses stay quiet.
      NameSet names;
      collectAssignedNames(llvm::ArrayRef<Stmt *>(const_cast<Stmt *>(stmt)),
                           names);
      for (StringRef name : names)
        setVar(name, CGValue::poison(), stmt->getLoc());
    }
  }
  fn->cursors.pop_back();
}

llvm::StringSet<> CodeGen::liveAfterCurrent() {
  llvm::StringSet<> reads, assigned;
  for (int c = static_cast<int>(fn->cursors.size()) - 1; c >= 0; --c) {
    const FunctionState::Cursor &cursor = fn->cursors[c];
    collectExposedReads(cursor.stmts.drop_front(
                            std::min(cursor.index + 1, cursor.stmts.size())),
                        assigned, reads);
    if (!cursor.loop)
      continue;
    // The loop may run again: its header and its whole body.
    llvm::StringSet<> again = assigned;
    if (const auto *whileStmt = llvm::dyn_cast<WhileStmt>(cursor.loop)) {
      collectReads(whileStmt->getCondition(), reads);
      collectExposedReads(whileStmt->getBody(), again, reads);
    } else if (const auto *forStmt = llvm::dyn_cast<ForStmt>(cursor.loop)) {
      collectReads(forStmt->getIter(), reads);
      NameSet targets;
      collectTargetNames(forStmt->getTarget(), targets);
      for (StringRef t : targets)
        again.insert(t);
      collectExposedReads(forStmt->getBody(), again, reads);
    }
  }
  for (const auto &entry : fn->closureReads)
    reads.insert(entry.getKey());
  return reads;
}

//===----------------------------------------------------------------------===//
// Assignments
//===----------------------------------------------------------------------===//

LogicalResult CodeGen::assignTarget(const Expr *target, const CGValue &value,
                                    SMLoc loc, bool sanitize) {
  if (const auto *name = llvm::dyn_cast<NameExpr>(target)) {
    CGValue v = value;
    // As in Triton, assigning a Python number makes a run-time scalar; use
    // `x: tl.constexpr = ...` to keep a constant.
    if (sanitize && v.isNumber()) {
      LocationScope scope(*this, target);
      v = CGValue::assignedNumber(*toRuntime(v, target->getLoc()), v);
    }
    setVar(name->getName(), std::move(v), target->getLoc());
    return success();
  }
  llvm::ArrayRef<Expr *> elements;
  if (const auto *tuple = llvm::dyn_cast<TupleExpr>(target))
    elements = tuple->getElements();
  else if (const auto *list = llvm::dyn_cast<ListExpr>(target))
    elements = list->getElements();
  else if (llvm::isa<SubscriptExpr>(target))
    return error(target->getLoc(),
                 "assigning to an element (x[i] = ...) is not supported: "
                 "tiles are immutable values; build a new tile with "
                 "tl.where instead");
  else if (llvm::isa<AttributeExpr>(target))
    return error(target->getLoc(),
                 "assigning to an attribute is not supported in a tilec "
                 "kernel");
  else
    return error(target->getLoc(), "cannot assign to this expression");
  for (const Expr *element : elements)
    if (llvm::isa<StarredExpr>(element))
      return error(element->getLoc(), "starred assignment targets are not "
                                      "supported in a tilec kernel");
  if (!value.isTuple())
    return error(loc, "cannot unpack " + value.describe() + " into " +
                          std::to_string(elements.size()) + " variables");
  if (value.getElements().size() != elements.size())
    return error(loc, "cannot unpack " +
                          std::to_string(value.getElements().size()) +
                          " values into " + std::to_string(elements.size()) +
                          " variables");
  LogicalResult result = success();
  for (size_t i = 0; i < elements.size(); ++i)
    if (failed(
            assignTarget(elements[i], value.getElements()[i], loc, sanitize)))
      result = failure();
  return result;
}

//===----------------------------------------------------------------------===//
// Merging values at control flow
//===----------------------------------------------------------------------===//

namespace {
/// A value that flows out of a region: the leaves of the variable (or of
/// the return value) in each incoming path.
struct MergeSlot {
  std::string name;
  /// The structure (tuples) of the value; leaves are replaced.
  CGValue templ;
  llvm::SmallVector<CGValue> thenLeaves, elseLeaves;
  /// For each leaf: the index of its scf result, or -1 if it stays a
  /// constexpr (equal on both paths).
  llvm::SmallVector<int> resultIndex;
  SMLoc thenLoc, elseLoc;
};
} // namespace

/// Makes both leaves run-time values of one type where possible, emitting
/// materializations in the blocks the values come from. Returns the yielded
/// type, or failure with a message in `problem`.
static FailureOr<mlir::Type> unifyLeaves(CodeGen &cg, CGValue &a, CGValue &b,
                                         mlir::Block *aBlock,
                                         mlir::Block *bBlock,
                                         std::string &problem) {
  auto materialize = [&](CGValue &v, mlir::Block *block, DType dtype,
                         llvm::ArrayRef<int64_t> shape) {
    mlir::OpBuilder::InsertionGuard guard(cg.builder);
    if (block->mightHaveTerminator())
      cg.builder.setInsertionPoint(block->getTerminator());
    else
      cg.builder.setInsertionPointToEnd(block);
    v = cg.splat(cg.makeConstant(v, dtype), shape);
  };
  if (a.isConstexpr() && !a.isNumber()) {
    problem = a.describe();
    return failure();
  }
  if (b.isConstexpr() && !b.isNumber()) {
    problem = b.describe();
    return failure();
  }
  if (a.isConstexpr() && b.isRuntime() && !b.isBlockLike() &&
      !b.getDType().isPointer())
    materialize(a, aBlock, b.getDType(), b.getShape());
  else if (b.isConstexpr() && a.isRuntime() && !a.isBlockLike() &&
           !a.getDType().isPointer())
    materialize(b, bBlock, a.getDType(), a.getShape());
  if (a.isConstexpr()) {
    DType dtype = a.isBool()  ? DType::get(ScalarType::I1)
                  : a.isInt() ? pythonIntType(a.getInt())
                              : pythonFloatType(a.getFloat());
    materialize(a, aBlock, dtype, {});
  }
  if (b.isConstexpr()) {
    DType dtype = b.isBool()  ? DType::get(ScalarType::I1)
                  : b.isInt() ? pythonIntType(b.getInt())
                              : pythonFloatType(b.getFloat());
    materialize(b, bBlock, dtype, {});
  }
  if (a.getDType() != b.getDType() ||
      a.getValue().getType() != b.getValue().getType()) {
    problem.clear();
    return failure();
  }
  return a.getValue().getType();
}

/// Whether two leaves are the same value.
static bool sameLeaf(const CGValue &a, const CGValue &b) {
  if (a.isRuntime() && b.isRuntime())
    return a.getValue() == b.getValue() && a.getDType() == b.getDType();
  if (a.isConstexpr() && b.isConstexpr())
    return a.getKind() == b.getKind() && a.constexprEquals(b);
  return false;
}

/// Whether two values have the same tuple structure.
static bool sameStructure(const CGValue &a, const CGValue &b) {
  if (a.isTuple() != b.isTuple())
    return false;
  if (!a.isTuple())
    return true;
  if (a.getElements().size() != b.getElements().size())
    return false;
  for (size_t i = 0; i < a.getElements().size(); ++i)
    if (!sameStructure(a.getElements()[i], b.getElements()[i]))
      return false;
  return true;
}

/// Replaces the (result-less) `ifOp` by one that yields `slots`' values, and
/// returns it. Slots get their result indices.
static scf::IfOp rebuildIfWithResults(CodeGen &cg, scf::IfOp ifOp,
                                      llvm::MutableArrayRef<MergeSlot> slots,
                                      llvm::ArrayRef<mlir::Type> types) {
  if (types.empty())
    return ifOp;
  llvm::SmallVector<mlir::Value> thenValues, elseValues;
  for (MergeSlot &slot : slots)
    for (size_t i = 0; i < slot.resultIndex.size(); ++i)
      if (slot.resultIndex[i] >= 0) {
        thenValues.push_back(slot.thenLeaves[i].getValue());
        elseValues.push_back(slot.elseLeaves[i].getValue());
      }
  mlir::OpBuilder::InsertionGuard guard(cg.builder);
  cg.builder.setInsertionPoint(ifOp);
  auto newIf = scf::IfOp::create(cg.builder, ifOp.getLoc(), types,
                                 ifOp.getCondition(), /*addThenBlock=*/false,
                                 /*addElseBlock=*/false);
  newIf.getThenRegion().takeBody(ifOp.getThenRegion());
  newIf.getElseRegion().takeBody(ifOp.getElseRegion());
  for (auto [region, values] :
       {std::pair(&newIf.getThenRegion(), &thenValues),
        std::pair(&newIf.getElseRegion(), &elseValues)}) {
    mlir::Block &block = region->front();
    mlir::Operation *terminator = block.getTerminator();
    cg.builder.setInsertionPoint(terminator);
    scf::YieldOp::create(cg.builder, terminator->getLoc(), *values);
    terminator->erase();
  }
  ifOp.erase();
  return newIf;
}

//===----------------------------------------------------------------------===//
// If
//===----------------------------------------------------------------------===//

namespace {
/// Compiles `if` statements.
class IfCompiler {
public:
  IfCompiler(CodeGen &cg, const IfStmt *stmt) : cg(cg), stmt(stmt) {}

  LogicalResult compile();

private:
  LogicalResult compileMerging(mlir::Value cond);
  LogicalResult compileReturning(mlir::Value cond);

  CodeGen &cg;
  const IfStmt *stmt;
};
} // namespace

LogicalResult IfCompiler::compile() {
  FailureOr<CGValue> cond = cg.eval(stmt->getCondition());
  if (failed(cond))
    return failure();
  if (cond->isConstexpr()) {
    cg.compileBlock(cond->isTruthy() ? stmt->getThenBody()
                                     : stmt->getElseBody());
    return success();
  }
  // (A block pointer or descriptor has no truth value: toBool says so.)
  if (cond->isTile())
    return cg.error(stmt->getCondition()->getLoc(),
                    "the condition of an 'if' must be a scalar, but it is " +
                        cond->describe() +
                        "; use tl.where(cond, a, b) to select element-wise");
  FailureOr<CGValue> flag = cg.toBool(*cond, stmt->getCondition()->getLoc());
  if (failed(flag))
    return failure();
  if (containsReturn(stmt->getThenBody()) ||
      containsReturn(stmt->getElseBody()))
    return compileReturning(flag->getValue());
  return compileMerging(flag->getValue());
}

LogicalResult IfCompiler::compileMerging(mlir::Value cond) {
  Frame &frame = *cg.fn->frame;
  llvm::StringSet<> live = cg.liveAfterCurrent();
  auto saved = frame.vars;
  auto savedUndefined = frame.undefined;

  auto ifOp = scf::IfOp::create(cg.builder, cg.loc(), cond,
                                /*withElseRegion=*/true);
  mlir::Block *thenBlock = &ifOp.getThenRegion().front();
  mlir::Block *elseBlock = &ifOp.getElseRegion().front();

  cg.builder.setInsertionPoint(thenBlock->getTerminator());
  cg.compileBlock(stmt->getThenBody());
  auto thenVars = frame.vars;
  auto thenUndefined = frame.undefined;
  frame.vars = saved;
  frame.undefined = savedUndefined;
  cg.builder.setInsertionPoint(elseBlock->getTerminator());
  cg.compileBlock(stmt->getElseBody());
  auto elseVars = frame.vars;
  auto elseUndefined = frame.undefined;
  frame.vars = saved;
  frame.undefined = savedUndefined;
  cg.builder.setInsertionPointAfter(ifOp);

  NameSet assigned;
  collectAssignedNames(stmt->getThenBody(), assigned);
  collectAssignedNames(stmt->getElseBody(), assigned);
  std::string where =
      "the 'if' at line " + std::to_string(lineOf(cg.srcMgr, stmt->getLoc()));

  llvm::SmallVector<MergeSlot, 4> slots;
  llvm::SmallVector<mlir::Type> types;
  bool ok = true;
  for (StringRef name : assigned) {
    auto t = thenVars.find(name), e = elseVars.find(name);
    bool inThen = t != thenVars.end(), inElse = e != elseVars.end();
    if (!inThen || !inElse) {
      // A failed assignment stays quietly failed.
      if ((inThen && t->second.value.isPoison()) ||
          (inElse && e->second.value.isPoison())) {
        frame.vars[name] = Binding{CGValue::poison(), stmt->getLoc()};
        continue;
      }
      frame.vars.erase(name);
      frame.undefined[name] = {"it is assigned only in the " +
                                   std::string(inThen ? "then" : "else") +
                                   " branch of " + where,
                               inThen ? t->second.loc : e->second.loc,
                               "'" + name.str() + "' is assigned here"};
      continue;
    }
    const CGValue &tv = t->second.value, &ev = e->second.value;
    if (tv.isPoison() || ev.isPoison()) {
      frame.vars[name] = Binding{CGValue::poison(), stmt->getLoc()};
      continue;
    }
    llvm::SmallVector<CGValue> tl, el;
    flattenValue(tv, tl);
    flattenValue(ev, el);
    bool same = sameStructure(tv, ev) && tl.size() == el.size() &&
                llvm::all_of(llvm::seq<size_t>(0, tl.size()),
                             [&](size_t i) { return sameLeaf(tl[i], el[i]); });
    if (same) {
      frame.vars[name] = t->second;
      continue;
    }
    if (!live.contains(name)) {
      frame.vars.erase(name);
      frame.undefined[name] = {
          "it is assigned differently by the branches of " + where,
          stmt->getLoc(), "the 'if' is here"};
      continue;
    }
    auto mismatch = [&](const std::string &thenDesc,
                        const std::string &elseDesc) {
      cg.error(stmt->getLoc(), "variable '" + name + "' is " + thenDesc +
                                   " after the then branch but " + elseDesc +
                                   " after the else branch; both branches "
                                   "of a run-time 'if' must leave it with "
                                   "the same type")
          .note(t->second.loc, "'" + name +
                                   "' is assigned here in the then "
                                   "branch")
          .note(e->second.loc, "'" + name +
                                   "' is assigned here in the else "
                                   "branch");
      ok = false;
      frame.vars[name] = Binding{CGValue::poison(), stmt->getLoc()};
    };
    if (!sameStructure(tv, ev) || tl.size() != el.size()) {
      mismatch(tv.describe(), ev.describe());
      continue;
    }
    MergeSlot slot;
    slot.name = name.str();
    slot.templ = tv;
    slot.thenLoc = t->second.loc;
    slot.elseLoc = e->second.loc;
    bool slotOk = true;
    llvm::SmallVector<mlir::Type> slotTypes;
    for (size_t i = 0; i < tl.size(); ++i) {
      if (sameLeaf(tl[i], el[i])) {
        slot.resultIndex.push_back(-1);
        slot.thenLeaves.push_back(tl[i]);
        slot.elseLeaves.push_back(el[i]);
        continue;
      }
      CGValue a = tl[i], b = el[i];
      std::string problem;
      FailureOr<mlir::Type> type =
          unifyLeaves(cg, a, b, thenBlock, elseBlock, problem);
      if (failed(type)) {
        mismatch(tl[i].describe(), el[i].describe());
        slotOk = false;
        break;
      }
      slot.resultIndex.push_back(types.size() + slotTypes.size());
      slotTypes.push_back(*type);
      slot.thenLeaves.push_back(a);
      slot.elseLeaves.push_back(b);
    }
    if (!slotOk)
      continue;
    types.append(slotTypes);
    slots.push_back(std::move(slot));
  }
  // Names that became undefined in a branch stay undefined.
  for (auto *undefined : {&thenUndefined, &elseUndefined})
    for (auto &entry : *undefined)
      if (!frame.vars.count(entry.getKey()))
        frame.undefined[entry.getKey()] = entry.getValue();

  scf::IfOp result = rebuildIfWithResults(cg, ifOp, slots, types);
  cg.builder.setInsertionPointAfter(result);
  for (MergeSlot &slot : slots) {
    llvm::SmallVector<CGValue> leaves;
    for (size_t i = 0; i < slot.resultIndex.size(); ++i) {
      if (slot.resultIndex[i] < 0)
        leaves.push_back(slot.thenLeaves[i]);
      else
        leaves.push_back(CGValue::runtime(result.getResult(slot.resultIndex[i]),
                                          slot.thenLeaves[i].getDType()));
    }
    size_t index = 0;
    frame.vars[slot.name] =
        Binding{unflattenValue(slot.templ, leaves, index), stmt->getLoc()};
  }
  return ok ? success() : failure();
}

LogicalResult IfCompiler::compileReturning(mlir::Value cond) {
  FunctionState &state = *cg.fn;
  if (state.loopDepth > 0)
    return cg.error(stmt->getLoc(),
                    "a 'return' under an 'if' on a run-time condition is not "
                    "supported inside a loop");
  Frame &frame = *state.frame;
  auto saved = frame.vars;
  auto savedUndefined = frame.undefined;
  // The rest of the function, after this statement, runs in both branches.
  llvm::SmallVector<FunctionState::Cursor> continuation(state.cursors.begin(),
                                                        state.cursors.end());

  auto ifOp = scf::IfOp::create(cg.builder, cg.loc(), cond,
                                /*withElseRegion=*/true);
  mlir::Block *blocks[2] = {&ifOp.getThenRegion().front(),
                            &ifOp.getElseRegion().front()};
  llvm::ArrayRef<Stmt *> bodies[2] = {stmt->getThenBody(), stmt->getElseBody()};
  CGValue returned[2];
  SMLoc returnLocs[2];
  for (int branch = 0; branch < 2; ++branch) {
    frame.vars = saved;
    frame.undefined = savedUndefined;
    state.returned = false;
    state.returnValue = CGValue::none();
    state.returnLoc = stmt->getLoc();
    cg.builder.setInsertionPoint(blocks[branch]->getTerminator());
    cg.compileBlock(bodies[branch]);
    for (int c = static_cast<int>(continuation.size()) - 1;
         c >= 0 && !state.returned; --c) {
      const FunctionState::Cursor &cursor = continuation[c];
      cg.compileBlock(cursor.stmts.drop_front(cursor.index + 1));
    }
    returned[branch] = state.returned ? state.returnValue : CGValue::none();
    returnLocs[branch] = state.returnLoc;
  }
  frame.vars = saved;
  frame.undefined = savedUndefined;
  cg.builder.setInsertionPointAfter(ifOp);

  // Merge the two return values.
  MergeSlot slot;
  slot.templ = returned[0];
  llvm::SmallVector<mlir::Type> types;
  llvm::SmallVector<CGValue> tl, el;
  flattenValue(returned[0], tl);
  flattenValue(returned[1], el);
  auto mismatch = [&]() -> LogicalResult {
    cg.error(stmt->getLoc(),
             "the branches of this 'if' return different types: " +
                 returned[0].describe() + " and " + returned[1].describe())
        .note(returnLocs[0], "the then branch returns here")
        .note(returnLocs[1], "the else branch returns here");
    return failure();
  };
  bool poisoned =
      llvm::any_of(tl, [](const CGValue &v) { return v.isPoison(); }) ||
      llvm::any_of(el, [](const CGValue &v) { return v.isPoison(); });
  if (poisoned) {
    state.returned = true;
    state.returnValue = CGValue::poison();
    return success();
  }
  if (!sameStructure(returned[0], returned[1]) || tl.size() != el.size()) {
    state.returned = true;
    state.returnValue = CGValue::poison();
    return mismatch();
  }
  for (size_t i = 0; i < tl.size(); ++i) {
    if (sameLeaf(tl[i], el[i])) {
      slot.resultIndex.push_back(-1);
      slot.thenLeaves.push_back(tl[i]);
      slot.elseLeaves.push_back(el[i]);
      continue;
    }
    CGValue a = tl[i], b = el[i];
    std::string problem;
    FailureOr<mlir::Type> type =
        unifyLeaves(cg, a, b, blocks[0], blocks[1], problem);
    if (failed(type)) {
      state.returned = true;
      state.returnValue = CGValue::poison();
      return mismatch();
    }
    slot.resultIndex.push_back(types.size());
    types.push_back(*type);
    slot.thenLeaves.push_back(a);
    slot.elseLeaves.push_back(b);
  }
  scf::IfOp result =
      rebuildIfWithResults(cg, ifOp, llvm::MutableArrayRef(slot), types);
  cg.builder.setInsertionPointAfter(result);
  llvm::SmallVector<CGValue> leaves;
  for (size_t i = 0; i < slot.resultIndex.size(); ++i)
    leaves.push_back(
        slot.resultIndex[i] < 0
            ? slot.thenLeaves[i]
            : CGValue::runtime(result.getResult(slot.resultIndex[i]),
                               slot.thenLeaves[i].getDType()));
  size_t index = 0;
  state.returned = true;
  state.returnValue = unflattenValue(slot.templ, leaves, index);
  state.returnLoc = stmt->getLoc();
  return success();
}

//===----------------------------------------------------------------------===//
// Conditional expressions on a run-time condition
//===----------------------------------------------------------------------===//

FailureOr<CGValue> CodeGen::evalRuntimeIfExp(const IfExpr *ifExp,
                                             const CGValue &cond) {
  const Expr *arms[2] = {ifExp->getTrueValue(), ifExp->getFalseValue()};
  if (cond.isTile())
    return error(ifExp->getOpLoc(),
                 "the condition of a conditional expression ('a if c else b') "
                 "must be a scalar, but it is " +
                     cond.describe() +
                     "; use tl.where(c, a, b) to select element-wise");
  NameSet walrus;
  for (const Expr *arm : arms)
    collectWalrusTargets(arm, walrus);
  if (!walrus.empty())
    return error(ifExp->getOpLoc(),
                 "assignment expressions (':=') are not supported in the "
                 "arms of a conditional expression whose condition is a "
                 "run-time value");
  FailureOr<CGValue> flag = toBool(cond, ifExp->getCondition()->getLoc());
  if (failed(flag))
    return failure();

  // Each arm is evaluated in its own region, as Triton does.
  auto ifOp = scf::IfOp::create(builder, loc(), flag->getValue(),
                                /*withElseRegion=*/true);
  mlir::Block *blocks[2] = {&ifOp.getThenRegion().front(),
                            &ifOp.getElseRegion().front()};
  CGValue values[2];
  bool ok = true;
  for (int arm = 0; arm < 2; ++arm) {
    builder.setInsertionPoint(blocks[arm]->getTerminator());
    FailureOr<CGValue> value = eval(arms[arm]);
    if (failed(value))
      ok = false;
    else
      values[arm] = *value;
  }
  builder.setInsertionPointAfter(ifOp);
  auto fail = [&]() -> FailureOr<CGValue> {
    ifOp.erase();
    return failure();
  };
  if (!ok)
    return fail();

  // Both arms must be numbers or run-time values of one promoted type.
  static const char *const armNames[2] = {"the value if true",
                                          "the value if false"};
  auto mismatch = [&](const std::string &problem) {
    error(ifExp->getOpLoc(),
          "the two values of this conditional expression " + problem)
        .note(arms[0]->getLoc(), std::string(armNames[0]) + " is " +
                                     values[0].describe())
        .note(arms[1]->getLoc(),
              std::string(armNames[1]) + " is " + values[1].describe());
    return fail();
  };
  for (int arm = 0; arm < 2; ++arm)
    if (values[arm].isConstexpr() && !values[arm].isNumber())
      return mismatch("must be numbers or run-time values when the condition "
                      "is a run-time value");
  bool pointerLike[2];
  for (int arm = 0; arm < 2; ++arm)
    pointerLike[arm] =
        values[arm].isRuntime() &&
        (values[arm].isBlockLike() || values[arm].getDType().isPointer());
  DType dtype;
  if (pointerLike[0] || pointerLike[1]) {
    if (!values[0].isRuntime() || !values[1].isRuntime() ||
        values[0].getDType() != values[1].getDType() ||
        values[0].getValue().getType() != values[1].getValue().getType())
      return mismatch("have incompatible types");
    dtype = values[0].getDType();
  } else {
    auto typeOf = [](const CGValue &v) {
      if (v.isRuntime())
        return v.getDType();
      return v.isBool()  ? DType::get(ScalarType::I1)
             : v.isInt() ? pythonIntType(v.getInt())
                         : pythonFloatType(v.getFloat());
    };
    std::string reason;
    std::optional<DType> promoted = computationType(
        typeOf(values[0]), values[0].isConstexpr(), typeOf(values[1]),
        values[1].isConstexpr(), /*divOrMod=*/false, reason);
    if (!promoted)
      return mismatch("have incompatible types (" + reason + ")");
    dtype = *promoted;
  }
  llvm::SmallVector<int64_t> shape;
  bool tile[2] = {values[0].isTile(), values[1].isTile()};
  if (tile[0] && tile[1] && values[0].getShape() != values[1].getShape())
    return mismatch("have different shapes");
  if (tile[0] || tile[1])
    shape = values[tile[0] ? 0 : 1].getShape();

  // Convert each arm in its region and yield it.
  mlir::Value results[2];
  for (int arm = 0; arm < 2; ++arm) {
    mlir::OpBuilder::InsertionGuard guard(builder);
    builder.setInsertionPoint(blocks[arm]->getTerminator());
    LocationScope scope(*this, arms[arm]);
    CGValue v = values[arm];
    if (!pointerLike[arm]) {
      FailureOr<CGValue> converted =
          convertTo(v, dtype, arms[arm]->getLoc(), armNames[arm]);
      if (failed(converted))
        return fail();
      v = *converted;
    }
    if (!v.isTile() && !shape.empty())
      v = splat(v, shape);
    results[arm] = v.getValue();
  }
  mlir::Type type = results[0].getType();
  auto newIf = scf::IfOp::create(builder, ifOp.getLoc(), mlir::TypeRange{type},
                                 ifOp.getCondition(), /*addThenBlock=*/false,
                                 /*addElseBlock=*/false);
  newIf.getThenRegion().takeBody(ifOp.getThenRegion());
  newIf.getElseRegion().takeBody(ifOp.getElseRegion());
  for (int arm = 0; arm < 2; ++arm) {
    mlir::Region &region = arm == 0 ? newIf.getThenRegion()
                                    : newIf.getElseRegion();
    mlir::Operation *terminator = region.front().getTerminator();
    mlir::OpBuilder::InsertionGuard guard(builder);
    builder.setInsertionPoint(terminator);
    scf::YieldOp::create(builder, terminator->getLoc(), results[arm]);
    terminator->erase();
  }
  ifOp.erase();
  builder.setInsertionPointAfter(newIf);
  return CGValue::runtime(newIf.getResult(0), dtype);
}

//===----------------------------------------------------------------------===//
// Loops
//===----------------------------------------------------------------------===//

namespace {
/// A loop-carried variable: its initial value's structure and which leaves
/// are carried (run-time) or invariant (non-number constexprs).
struct CarriedVar {
  std::string name;
  CGValue templ;
  SMLoc defLoc;
  llvm::SmallVector<CGValue> initLeaves;
  /// Iteration argument index per leaf, or -1 for an invariant leaf.
  llvm::SmallVector<int> argIndex;
};

/// Shared logic of `for` and `while`.
class LoopCompiler {
public:
  LoopCompiler(CodeGen &cg, const Stmt *stmt, llvm::ArrayRef<Stmt *> body,
               const Expr *cond, llvm::ArrayRef<StringRef> targetNames)
      : cg(cg), stmt(stmt), body(body), cond(cond), targetNames(targetNames) {}

  /// Picks the carried variables and their initial values (materializing
  /// constexpr numbers at the current insertion point).
  void collectCarried();
  /// Types and values of the iteration arguments.
  llvm::SmallVector<mlir::Type> argTypes;
  llvm::SmallVector<mlir::Value> initValues;
  /// Binds the carried variables to `args`.
  void bindArgs(mlir::ValueRange args);
  /// The values to yield at the end of the body (type-checked against the
  /// arguments); `args` are the body's iteration arguments (yielded in place
  /// of a value that failed).
  llvm::SmallVector<mlir::Value> collectYields(mlir::ValueRange args);
  /// Rebinds the variables after the loop to `results`.
  void bindResults(mlir::ValueRange results,
                   const llvm::StringMap<Binding> &before,
                   const llvm::StringMap<Binding> &atEnd);

  CodeGen &cg;
  const Stmt *stmt;
  llvm::ArrayRef<Stmt *> body;
  const Expr *cond;
  llvm::ArrayRef<StringRef> targetNames;
  llvm::SmallVector<CarriedVar, 4> carried;
  NameSet assigned;
  llvm::StringSet<> failedVars;
};
} // namespace

void LoopCompiler::collectCarried() {
  Frame &frame = *cg.fn->frame;
  llvm::StringSet<> live = cg.liveAfterCurrent();
  llvm::StringSet<> reads, bodyAssigned;
  for (StringRef t : targetNames)
    bodyAssigned.insert(t);
  collectExposedReads(body, bodyAssigned, reads);
  if (cond)
    collectReads(cond, reads);
  collectAssignedNames(body, assigned);
  for (StringRef name : assigned) {
    if (llvm::is_contained(targetNames, name))
      continue;
    auto it = frame.vars.find(name);
    if (it == frame.vars.end() || it->second.value.isPoison())
      continue;
    if (!reads.contains(name) && !live.contains(name))
      continue;
    CarriedVar var;
    var.name = name.str();
    var.templ = it->second.value;
    var.defLoc = it->second.loc;
    llvm::SmallVector<CGValue> leaves;
    flattenValue(it->second.value, leaves);
    for (CGValue &leaf : leaves) {
      if (leaf.isConstexpr() && !leaf.isNumber()) {
        var.argIndex.push_back(-1);
        var.initLeaves.push_back(leaf);
        continue;
      }
      if (leaf.isConstexpr())
        leaf = *cg.toRuntime(leaf, var.defLoc);
      var.argIndex.push_back(argTypes.size());
      argTypes.push_back(leaf.getValue().getType());
      initValues.push_back(leaf.getValue());
      var.initLeaves.push_back(leaf);
    }
    carried.push_back(std::move(var));
  }
}

void LoopCompiler::bindArgs(mlir::ValueRange args) {
  Frame &frame = *cg.fn->frame;
  for (CarriedVar &var : carried) {
    llvm::SmallVector<CGValue> leaves;
    for (size_t i = 0; i < var.initLeaves.size(); ++i)
      leaves.push_back(var.argIndex[i] < 0
                           ? var.initLeaves[i]
                           : CGValue::runtime(args[var.argIndex[i]],
                                              var.initLeaves[i].getDType()));
    size_t index = 0;
    frame.vars[var.name] =
        Binding{unflattenValue(var.templ, leaves, index), var.defLoc};
    frame.undefined.erase(var.name);
  }
}

llvm::SmallVector<mlir::Value>
LoopCompiler::collectYields(mlir::ValueRange args) {
  Frame &frame = *cg.fn->frame;
  llvm::SmallVector<mlir::Value> yields(args.begin(), args.end());
  for (CarriedVar &var : carried) {
    auto it = frame.vars.find(var.name);
    if (it == frame.vars.end() || it->second.value.isPoison()) {
      failedVars.insert(var.name);
      continue;
    }
    const CGValue &current = it->second.value;
    SMLoc assignLoc = it->second.loc;
    llvm::SmallVector<CGValue> leaves;
    flattenValue(current, leaves);
    auto changeError = [&](const std::string &now) {
      cg.error(assignLoc, "loop-carried variable '" + var.name +
                              "' changes type in the loop: it is " +
                              var.templ.describe() + " before the loop but " +
                              now + " after this assignment")
          .note(var.defLoc, "'" + var.name +
                                "' is defined here before the "
                                "loop");
      failedVars.insert(var.name);
    };
    if (!sameStructure(var.templ, current) ||
        leaves.size() != var.initLeaves.size()) {
      changeError(current.describe());
      continue;
    }
    bool ok = true;
    llvm::SmallVector<std::pair<int, mlir::Value>> values;
    for (size_t i = 0; i < leaves.size() && ok; ++i) {
      const CGValue &init = var.initLeaves[i];
      CGValue leaf = leaves[i];
      if (var.argIndex[i] < 0) {
        if (!(leaf.isConstexpr() && leaf.constexprEquals(init))) {
          cg.error(assignLoc, "variable '" + var.name +
                                  "' is the "
                                  "compile-time " +
                                  init.describe() +
                                  " before the loop and cannot be "
                                  "reassigned in it (to " +
                                  leaf.describe() + ")")
              .note(var.defLoc, "'" + var.name + "' is defined here");
          failedVars.insert(var.name);
          ok = false;
        }
        continue;
      }
      if (leaf.isConstexpr() && leaf.isNumber() &&
          !init.getDType().isPointer() && !init.isBlockLike())
        leaf =
            cg.splat(cg.makeConstant(leaf, init.getDType()), init.getShape());
      if (!leaf.isRuntime() || leaf.getDType() != init.getDType() ||
          leaf.getValue().getType() != init.getValue().getType()) {
        changeError(leaf.describe());
        ok = false;
        continue;
      }
      values.push_back({var.argIndex[i], leaf.getValue()});
    }
    if (!ok)
      continue;
    for (auto [index, value] : values)
      yields[index] = value;
  }
  return yields;
}

void LoopCompiler::bindResults(mlir::ValueRange results,
                               const llvm::StringMap<Binding> &before,
                               const llvm::StringMap<Binding> &atEnd) {
  Frame &frame = *cg.fn->frame;
  unsigned line = lineOf(cg.srcMgr, stmt->getLoc());
  std::string loopName = llvm::isa<WhileStmt>(stmt) ? "while" : "for";
  // Variables assigned in the body that are not carried do not exist after
  // the loop (unless they are unchanged).
  for (StringRef name : assigned) {
    bool isCarried = llvm::any_of(
        carried, [&](const CarriedVar &v) { return v.name == name; });
    if (isCarried)
      continue;
    auto it = before.find(name);
    auto end = atEnd.find(name);
    if ((it != before.end() && it->second.value.isPoison()) ||
        (end != atEnd.end() && end->second.value.isPoison())) {
      frame.vars[name] = Binding{CGValue::poison(), stmt->getLoc()};
      continue;
    }
    frame.vars.erase(name);
    frame.undefined[name] = {
        it == before.end()
            ? "it is only assigned inside the '" + loopName +
                  "' loop at line " + std::to_string(line) +
                  " (variables first assigned in a loop body do not exist "
                  "after the loop)"
            : "it is reassigned inside the '" + loopName + "' loop at line " +
                  std::to_string(line) +
                  " and its value after the loop was "
                  "not kept",
        stmt->getLoc(), "the loop is here"};
  }
  for (StringRef name : targetNames) {
    frame.vars.erase(name);
    frame.undefined[name] = {"the loop variable of the 'for' at line " +
                                 std::to_string(line) +
                                 " does not exist after the loop",
                             stmt->getLoc(), "the loop is here"};
  }
  for (CarriedVar &var : carried) {
    if (failedVars.contains(var.name)) {
      frame.vars[var.name] = Binding{CGValue::poison(), stmt->getLoc()};
      continue;
    }
    llvm::SmallVector<CGValue> leaves;
    for (size_t i = 0; i < var.initLeaves.size(); ++i)
      leaves.push_back(var.argIndex[i] < 0
                           ? var.initLeaves[i]
                           : CGValue::runtime(results[var.argIndex[i]],
                                              var.initLeaves[i].getDType()));
    size_t index = 0;
    frame.vars[var.name] =
        Binding{unflattenValue(var.templ, leaves, index), var.defLoc};
    frame.undefined.erase(var.name);
  }
}

namespace {
/// The iterable of a `for`: a range, or a constexpr tuple.
struct ForIterable {
  enum class Kind { Range, StaticRange, Tuple };
  Kind kind = Kind::Range;
  CGValue start, stop, step;
  SMLoc startLoc, stopLoc, stepLoc;
  std::optional<int64_t> numStages;
  /// `tl.range(..., warp_specialize=...)`: the loop's
  /// `tile.warp_specialize` (tilegpu-warp-specialize forces it on or off).
  std::optional<bool> warpSpecialize;
  CGValue tuple;
};
} // namespace

/// Evaluates the iterable of a `for`.
static FailureOr<ForIterable> evalIterable(CodeGen &cg, const ForStmt *stmt) {
  const Expr *iter = stmt->getIter();
  ForIterable result;
  if (const auto *call = llvm::dyn_cast<CallExpr>(iter)) {
    FailureOr<CGValue> callee = cg.eval(call->getCallee());
    if (failed(callee))
      return failure();
    bool isRange = callee->isBuiltin("range") || callee->isBuiltin("tl.range");
    bool isStatic = callee->isBuiltin("tl.static_range");
    if (isRange || isStatic) {
      std::string name = cg.describeCallee(call->getCallee());
      FailureOr<CallArgs> args = cg.evalCallArgs(call, name);
      if (failed(args))
        return failure();
      llvm::SmallVector<ParamSpec> params = {
          {"arg1", true}, {"arg2", false}, {"step", false}};
      if (callee->isBuiltin("tl.range"))
        for (StringRef extra :
             {"num_stages", "loop_unroll_factor", "disallow_acc_multi_buffer",
              "flatten", "warp_specialize", "disable_licm"})
          params.push_back({extra, false});
      llvm::SmallVector<const CallArg *> bound;
      if (failed(cg.bindArgs(*args, params, bound)))
        return failure();
      result.kind =
          isStatic ? ForIterable::Kind::StaticRange : ForIterable::Kind::Range;
      if (bound[1]) {
        result.start = bound[0]->value;
        result.startLoc = bound[0]->loc;
        result.stop = bound[1]->value;
        result.stopLoc = bound[1]->loc;
      } else {
        result.start = CGValue::integer(0);
        result.startLoc = bound[0]->loc;
        result.stop = bound[0]->value;
        result.stopLoc = bound[0]->loc;
      }
      if (bound[2]) {
        result.step = bound[2]->value;
        result.stepLoc = bound[2]->loc;
      } else {
        result.step = CGValue::integer(1);
        result.stepLoc = result.stopLoc;
      }
      if (bound.size() > 3 && bound[3] && !bound[3]->value.isNone()) {
        if (!bound[3]->value.isIntLike())
          return cg.error(bound[3]->loc,
                          "num_stages must be a constexpr integer");
        result.numStages = bound[3]->value.getInt();
      }
      // params: arg1 arg2 step num_stages loop_unroll_factor
      // disallow_acc_multi_buffer flatten warp_specialize disable_licm.
      if (bound.size() > 7 && bound[7] && !bound[7]->value.isNone()) {
        if (!bound[7]->value.isIntLike())
          return cg.error(bound[7]->loc,
                          "warp_specialize must be a constexpr bool");
        result.warpSpecialize = bound[7]->value.getBool();
      }
      return result;
    }
  }
  FailureOr<CGValue> value = cg.eval(iter);
  if (failed(value))
    return failure();
  if (value->isTuple()) {
    result.kind = ForIterable::Kind::Tuple;
    result.tuple = *value;
    return result;
  }
  return cg.error(iter->getLoc(),
                  "a 'for' loop in a tilec kernel must iterate over range(), "
                  "tl.range(), tl.static_range() or a constexpr tuple, not " +
                      value->describe());
}

/// Compiles an unrolled loop over constexpr values.
static LogicalResult compileUnrolled(CodeGen &cg, const ForStmt *stmt,
                                     llvm::ArrayRef<CGValue> values) {
  if (values.size() > size_t(kMaxUnrolledIterations))
    return cg.error(stmt->getIter()->getLoc(),
                    "a static loop of " + std::to_string(values.size()) +
                        " iterations is too long to unroll (at most " +
                        std::to_string(kMaxUnrolledIterations) + ")");
  FunctionState &state = *cg.fn;
  ++state.loopDepth;
  LogicalResult result = success();
  for (const CGValue &value : values) {
    if (failed(cg.assignTarget(stmt->getTarget(), value,
                               stmt->getTarget()->getLoc(),
                               /*sanitize=*/false))) {
      result = failure();
      break;
    }
    cg.compileBlock(stmt->getBody(), stmt);
    if (state.returned)
      break;
  }
  --state.loopDepth;
  return result;
}

static LogicalResult compileFor(CodeGen &cg, const ForStmt *stmt) {
  if (!stmt->getElseBody().empty())
    return cg.error(stmt->getLoc(), "'for ... else' is not supported in a "
                                    "tilec kernel");
  FailureOr<ForIterable> iterable = evalIterable(cg, stmt);
  if (failed(iterable))
    return failure();

  if (iterable->kind == ForIterable::Kind::Tuple)
    return compileUnrolled(cg, stmt, iterable->tuple.getElements());

  struct Bound {
    CGValue *value;
    SMLoc loc;
    const char *what;
  } bounds[] = {{&iterable->start, iterable->startLoc, "start"},
                {&iterable->stop, iterable->stopLoc, "end"},
                {&iterable->step, iterable->stepLoc, "step"}};
  std::string rangeName = iterable->kind == ForIterable::Kind::StaticRange
                              ? "tl.static_range"
                              : "range";
  for (Bound &bound : bounds) {
    const CGValue &v = *bound.value;
    bool ok =
        v.isIntLike() || (v.isRuntime() && !v.isTile() && v.getDType().isInt());
    if (!ok)
      return cg.error(bound.loc, "the " + std::string(bound.what) + " of " +
                                     rangeName + "() must be an integer, got " +
                                     v.describe());
  }

  if (iterable->kind == ForIterable::Kind::StaticRange) {
    for (Bound &bound : bounds)
      if (!bound.value->isConstexpr())
        return cg
            .error(bound.loc, "the " + std::string(bound.what) +
                                  " of tl.static_range() must be a "
                                  "compile-time constant, got a run-time " +
                                  bound.value->describe() +
                                  getAssignedNumberHint(*bound.value))
            .constexprHint(*bound.value);
    int64_t start = iterable->start.getInt(), stop = iterable->stop.getInt(),
            step = iterable->step.getInt();
    if (step == 0)
      return cg.error(iterable->stepLoc, "tl.static_range() step must not be "
                                         "zero");
    // The trip count, computed in uint64_t (the distance between two
    // int64_t values always fits).
    bool up = step > 0;
    uint64_t count = 0;
    if (up ? start < stop : start > stop) {
      uint64_t span = up ? uint64_t(stop) - uint64_t(start)
                         : uint64_t(start) - uint64_t(stop);
      uint64_t stride = up ? uint64_t(step) : 0 - uint64_t(step);
      count = (span - 1) / stride + 1;
    }
    if (count > uint64_t(kMaxUnrolledIterations))
      return cg.error(stmt->getIter()->getLoc(),
                      "a static loop of " + std::to_string(count) +
                          " iterations is too long to unroll (at most " +
                          std::to_string(kMaxUnrolledIterations) + ")");
    std::vector<CGValue> values;
    for (uint64_t k = 0; k < count; ++k)
      values.push_back(CGValue::integer(
          static_cast<int64_t>(uint64_t(start) + k * uint64_t(step))));
    return compileUnrolled(cg, stmt, values);
  }

  // A run-time loop.
  NameSet targets;
  collectTargetNames(stmt->getTarget(), targets);
  if (!llvm::isa<NameExpr>(stmt->getTarget()))
    return cg.error(stmt->getTarget()->getLoc(),
                    "the target of a range() loop must be a single name");
  bool negativeStep = false;
  if (iterable->step.isConstexpr()) {
    int64_t step = iterable->step.getInt();
    if (step == 0)
      return cg.error(iterable->stepLoc, "range() step must not be zero");
    if (step < 0) {
      negativeStep = true;
      std::swap(iterable->start, iterable->stop);
      iterable->step = CGValue::integer(-step);
    }
  }
  FailureOr<CGValue> lb = cg.toRuntime(iterable->start, iterable->startLoc);
  FailureOr<CGValue> ub = cg.toRuntime(iterable->stop, iterable->stopLoc);
  FailureOr<CGValue> step = cg.toRuntime(iterable->step, iterable->stepLoc);
  if (failed(lb) || failed(ub) || failed(step))
    return failure();
  DType ivType = integerPromote(integerPromote(lb->getDType(), ub->getDType()),
                                step->getDType());
  if (ivType.getBitWidth() < 32)
    ivType =
        DType::get(ivType.isSigned() || ivType.isBool() ? ScalarType::I32
                                                        : ScalarType::U32);
  lb = cg.cast(*lb, ivType, iterable->startLoc);
  ub = cg.cast(*ub, ivType, iterable->stopLoc);
  step = cg.cast(*step, ivType, iterable->stepLoc);
  if (failed(lb) || failed(ub) || failed(step))
    return failure();

  Frame &frame = *cg.fn->frame;
  llvm::SmallVector<StringRef> targetNames(targets.begin(), targets.end());
  LoopCompiler loop(cg, stmt, stmt->getBody(), nullptr, targetNames);
  loop.collectCarried();
  auto before = frame.vars;

  auto forOp =
      scf::ForOp::create(cg.builder, cg.loc(), lb->getValue(), ub->getValue(),
                         step->getValue(), loop.initValues, nullptr,
                         /*unsignedCmp=*/!ivType.isSigned());
  if (iterable->numStages)
    forOp->setAttr("tile.num_stages",
                   cg.builder.getI32IntegerAttr(*iterable->numStages));
  if (iterable->warpSpecialize)
    forOp->setAttr(tile::kWarpSpecializeAttrName,
                   cg.builder.getBoolAttr(*iterable->warpSpecialize));
  mlir::Block *body = forOp.getBody();
  if (body->mightHaveTerminator())
    body->getTerminator()->erase();
  cg.builder.setInsertionPointToEnd(body);

  CGValue iv = CGValue::runtime(forOp.getInductionVar(), ivType);
  if (negativeStep) {
    // Counting down: iv' = (original start + original end) - iv.
    mlir::Value sum;
    {
      mlir::OpBuilder::InsertionGuard guard(cg.builder);
      cg.builder.setInsertionPoint(forOp);
      sum = arith::AddIOp::create(cg.builder, cg.loc(), lb->getValue(),
                                  ub->getValue());
    }
    iv = CGValue::runtime(
        arith::SubIOp::create(cg.builder, cg.loc(), sum, iv.getValue()),
        ivType);
  }
  cg.setVar(targetNames.front(), iv, stmt->getTarget()->getLoc());
  loop.bindArgs(forOp.getRegionIterArgs());

  ++cg.fn->loopDepth;
  cg.compileBlock(stmt->getBody(), stmt);
  --cg.fn->loopDepth;

  llvm::SmallVector<mlir::Value> yields =
      loop.collectYields(forOp.getRegionIterArgs());
  {
    CodeGen::LocationScope scope(cg, stmt);
    scf::YieldOp::create(cg.builder, cg.loc(), yields);
  }
  cg.builder.setInsertionPointAfter(forOp);
  auto atEnd = frame.vars;
  frame.vars = before;
  loop.bindResults(forOp.getResults(), before, atEnd);
  return success();
}

static LogicalResult compileWhile(CodeGen &cg, const WhileStmt *stmt) {
  if (!stmt->getElseBody().empty())
    return cg.error(stmt->getLoc(), "'while ... else' is not supported in a "
                                    "tilec kernel");
  Frame &frame = *cg.fn->frame;
  LoopCompiler loop(cg, stmt, stmt->getBody(), stmt->getCondition(), {});
  loop.collectCarried();
  auto before = frame.vars;

  auto whileOp = scf::WhileOp::create(cg.builder, cg.loc(), loop.argTypes,
                                      loop.initValues);
  llvm::SmallVector<mlir::Location> locs(loop.argTypes.size(), cg.loc());
  mlir::Block *beforeBlock =
      cg.builder.createBlock(&whileOp.getBefore(), {}, loop.argTypes, locs);
  loop.bindArgs(beforeBlock->getArguments());
  bool ok = true;
  mlir::Value flag;
  {
    FailureOr<CGValue> cond = cg.eval(stmt->getCondition());
    if (succeeded(cond) && (cond->isTile() || cond->isBlockLike())) {
      cg.error(stmt->getCondition()->getLoc(),
               "the condition of a 'while' must be a scalar, but it is " +
                   cond->describe());
      cond = failure();
    }
    FailureOr<CGValue> b =
        succeeded(cond) ? cg.toBool(*cond, stmt->getCondition()->getLoc())
                        : FailureOr<CGValue>(failure());
    if (succeeded(b)) {
      flag = b->getValue();
    } else {
      ok = false;
      flag =
          cg.makeConstant(CGValue::boolean(false), DType::get(ScalarType::I1))
              .getValue();
    }
  }
  {
    CodeGen::LocationScope scope(cg, stmt->getCondition());
    scf::ConditionOp::create(cg.builder, cg.loc(), flag,
                             beforeBlock->getArguments());
  }
  mlir::Block *afterBlock =
      cg.builder.createBlock(&whileOp.getAfter(), {}, loop.argTypes, locs);
  frame.vars = before;
  loop.bindArgs(afterBlock->getArguments());
  ++cg.fn->loopDepth;
  cg.compileBlock(stmt->getBody(), stmt);
  --cg.fn->loopDepth;
  llvm::SmallVector<mlir::Value> yields =
      loop.collectYields(afterBlock->getArguments());
  {
    CodeGen::LocationScope scope(cg, stmt);
    scf::YieldOp::create(cg.builder, cg.loc(), yields);
  }
  cg.builder.setInsertionPointAfter(whileOp);
  auto atEnd = frame.vars;
  frame.vars = before;
  loop.bindResults(whileOp.getResults(), before, atEnd);
  return ok ? success() : failure();
}

//===----------------------------------------------------------------------===//
// Statements
//===----------------------------------------------------------------------===//

/// Whether evaluating `expr` again has no effect: a name or a chain of
/// attributes on one (`tl.exp`, `x.to`).
static bool isSimpleCallee(const Expr *expr) {
  while (const auto *attr = llvm::dyn_cast<AttributeExpr>(expr))
    expr = attr->getBase();
  return llvm::isa<NameExpr>(expr);
}

void CodeGen::warnIfUnused(const Expr *expr, const CGValue &value) {
  if (!value.isRuntime())
    return;
  auto text = [](const Expr *e) {
    return StringRef(e->getRange().Start.getPointer(),
                     e->getRange().End.getPointer() -
                         e->getRange().Start.getPointer());
  };
  if (const auto *call = llvm::dyn_cast<CallExpr>(expr)) {
    // Only calls of `tl` functions without side effects: a @jit helper may
    // store.
    if (!isSimpleCallee(call->getCallee()))
      return;
    unsigned errors = diags.getNumErrors();
    FailureOr<CGValue> callee = eval(call->getCallee());
    if (failed(callee) || diags.getNumErrors() != errors)
      return;
    StringRef builtin;
    if (callee->getKind() == CGValue::Kind::Builtin)
      builtin = callee->getName();
    else if (callee->getKind() == CGValue::Kind::BoundMethod)
      builtin = getMethodBuiltin(callee->getName());
    if (builtin.empty())
      return;
    for (StringRef effect : {"store", "atomic", "print", "assert", "barrier",
                             "inline_asm", "assume"})
      if (builtin.contains(effect))
        return;
    warning(expr->getLoc(), "the result of " + text(call->getCallee()) +
                                "() is unused, and the call has no other "
                                "effect; assign it or remove the call");
    return;
  }
  if (llvm::isa<BinaryExpr, UnaryExpr, CompareExpr, SubscriptExpr,
                AttributeExpr, NameExpr>(expr)) {
    StringRef source = text(expr);
    std::string what = source.size() <= 40 && !source.contains('\n')
                           ? ("'" + source + "'").str()
                           : std::string("this expression");
    warning(expr->getLoc(), "the result of " + what +
                                " is unused, and it has no other effect; "
                                "assign it or remove it");
  }
}

void CodeGen::addNamesOfUnsupportedStmt(const Stmt *stmt) {
  llvm::SMRange range = stmt->getRange();
  StringRef text(range.Start.getPointer(),
                 range.End.getPointer() - range.Start.getPointer());
  for (size_t i = 0; i < text.size();) {
    if (!llvm::isAlpha(text[i]) && text[i] != '_') {
      ++i;
      continue;
    }
    size_t start = i;
    while (i < text.size() && (llvm::isAlnum(text[i]) || text[i] == '_'))
      ++i;
    namesInUnsupportedStmts.insert(text.slice(start, i));
  }
}

LogicalResult CodeGen::compileStmt(const Stmt *stmt) {
  LocationScope scope(*this, stmt);
  switch (stmt->getKind()) {
  case Node::Kind::ExprStmt: {
    const Expr *expr = llvm::cast<ExprStmt>(stmt)->getExpr();
    if (llvm::isa<StringLiteral>(expr))
      return success(); // A docstring.
    FailureOr<CGValue> value = eval(expr);
    if (failed(value))
      return failure();
    warnIfUnused(expr, *value);
    return success();
  }
  case Node::Kind::Assign: {
    const auto *assign = llvm::cast<AssignStmt>(stmt);
    FailureOr<CGValue> value = eval(assign->getValue());
    if (failed(value))
      return failure();
    LogicalResult result = success();
    for (const Expr *target : assign->getTargets())
      if (failed(assignTarget(target, *value, assign->getOpLoc(),
                              /*sanitize=*/true)))
        result = failure();
    return result;
  }
  case Node::Kind::AugAssign: {
    const auto *aug = llvm::cast<AugAssignStmt>(stmt);
    const auto *name = llvm::dyn_cast<NameExpr>(aug->getTarget());
    if (!name)
      return assignTarget(aug->getTarget(), CGValue::none(), aug->getOpLoc(),
                          true);
    FailureOr<CGValue> current = lookupName(name->getName(), name->getLoc());
    FailureOr<CGValue> rhs = eval(aug->getValue());
    if (failed(current) || failed(rhs))
      return failure();
    FailureOr<CGValue> result =
        binaryOp(aug->getOp(), *current, *rhs, aug->getOpLoc(), name->getLoc(),
                 aug->getValue()->getLoc());
    if (failed(result))
      return failure();
    return assignTarget(name, *result, aug->getOpLoc(), /*sanitize=*/true);
  }
  case Node::Kind::AnnAssign: {
    const auto *ann = llvm::cast<AnnAssignStmt>(stmt);
    if (!ann->getValue())
      return success();
    FailureOr<CGValue> annotation = eval(ann->getAnnotation());
    FailureOr<CGValue> value = eval(ann->getValue());
    if (failed(annotation) || failed(value))
      return failure();
    if (annotation->isBuiltin("tl.constexpr")) {
      if (!value->isConstexpr())
        return error(ann->getValue()->getLoc(),
                     "a tl.constexpr variable needs a compile-time value, "
                     "but this is a run-time " +
                         value->describe());
      return assignTarget(ann->getTarget(), *value, ann->getLoc(),
                          /*sanitize=*/false);
    }
    return assignTarget(ann->getTarget(), *value, ann->getLoc(),
                        /*sanitize=*/true);
  }
  case Node::Kind::If:
    return IfCompiler(*this, llvm::cast<IfStmt>(stmt)).compile();
  case Node::Kind::For:
    return compileFor(*this, llvm::cast<ForStmt>(stmt));
  case Node::Kind::While:
    return compileWhile(*this, llvm::cast<WhileStmt>(stmt));
  case Node::Kind::Break:
  case Node::Kind::Continue: {
    StringRef keyword = llvm::isa<BreakStmt>(stmt) ? "break" : "continue";
    return error(stmt->getLoc(),
                 "'" + keyword +
                     "' is not supported in a tilec kernel (Triton kernels "
                     "have no break/continue either); express the exit as "
                     "the loop's condition or guard the body with an 'if'");
  }
  case Node::Kind::Pass:
    return success();
  case Node::Kind::Return: {
    const auto *ret = llvm::cast<ReturnStmt>(stmt);
    if (fn->loopDepth > 0)
      return error(stmt->getLoc(),
                   "'return' inside a loop is not supported in a tilec "
                   "kernel");
    CGValue value = CGValue::none();
    if (ret->getValue()) {
      FailureOr<CGValue> v = eval(ret->getValue());
      if (failed(v)) {
        fn->returned = true;
        fn->returnValue = CGValue::poison();
        return failure();
      }
      value = *v;
    }
    if (fn->isKernel && !value.isNone())
      return error(ret->getValue()->getLoc(),
                   "a kernel cannot return a value; store results through "
                   "a pointer with tl.store");
    // As in Triton, returned Python numbers become run-time scalars.
    llvm::SmallVector<CGValue> leaves;
    flattenValue(value, leaves);
    for (CGValue &leaf : leaves)
      if (leaf.isNumber())
        leaf = *toRuntime(leaf, stmt->getLoc());
    size_t index = 0;
    fn->returnValue = unflattenValue(value, leaves, index);
    fn->returned = true;
    fn->returnLoc = stmt->getLoc();
    return success();
  }
  case Node::Kind::Assert: {
    const auto *assertStmt = llvm::cast<AssertStmt>(stmt);
    FailureOr<CGValue> test = eval(assertStmt->getTest());
    if (failed(test))
      return failure();
    // The message is evaluated in any case, as Triton does (an f-string
    // with a run-time field is an error even when the assertion holds).
    std::string message = "assertion failed";
    std::string deviceMessage;
    if (const Expr *msgExpr = assertStmt->getMessage()) {
      FailureOr<CGValue> msg = eval(msgExpr);
      if (failed(msg))
        return failure();
      message += ": " + msg->str();
      deviceMessage = msg->str();
    }
    // A run-time condition: a device assertion, as in Triton (emitted in
    // debug mode only).
    if (test->isRuntime())
      return emitDeviceAssert(*test, assertStmt->getTest()->getLoc(),
                              deviceMessage, nullptr, SMLoc(),
                              stmt->getLoc());
    if (test->isTruthy())
      return success();
    return error(assertStmt->getTest()->getLoc(), message);
  }
  case Node::Kind::FunctionDef: {
    const auto *def = llvm::cast<FunctionDef>(stmt);
    setVar(def->getName(), CGValue::closure(def, fn->frame), def->getNameLoc());
    return success();
  }
  case Node::Kind::Import:
  case Node::Kind::ImportFrom:
    // The names it would bind are not reported as unknown later.
    addNamesOfUnsupportedStmt(stmt);
    return error(stmt->getLoc(), "imports are not supported inside a tilec "
                                 "kernel; import at module level");
  case Node::Kind::Global:
  case Node::Kind::Nonlocal:
    return error(stmt->getLoc(),
                 "'" +
                     std::string(llvm::cast<GlobalStmt>(stmt)->isNonlocal()
                                     ? "nonlocal"
                                     : "global") +
                     "' statements are not supported in a tilec kernel");
  case Node::Kind::UnsupportedStmt: {
    // Its text is not parsed: the names it may bind are not reported as
    // unknown later (a cascade of "unknown name" errors).
    addNamesOfUnsupportedStmt(stmt);
    return error(stmt->getLoc(),
                 "'" + llvm::cast<UnsupportedStmt>(stmt)->getConstruct() +
                     "' statements are not supported in a tilec kernel");
  }
  default:
    break;
  }
  return error(stmt->getLoc(), "this statement is not supported in a tilec "
                               "kernel");
}
