//===- CodeGenCall.cpp - Inlining @jit functions and lambdas --------------===//
//
// Part of tilec, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// Calls of user functions are inlined, as Triton's inliner eventually does:
// the arguments are bound to the parameters in a fresh frame (whose parent
// is the frame a nested function or lambda closes over), constexpr
// arguments stay constexprs (specializing the body), and the body is
// compiled in place. An error inside reports at the callee's line, followed
// by "in call from here" at every call on the way.
//
//===----------------------------------------------------------------------===//

#include "CodeGen.h"

using namespace tilec;
using namespace tilec::frontend;
using llvm::SMLoc;
using llvm::StringRef;
using mlir::failure;
using mlir::FailureOr;
using mlir::LogicalResult;
using mlir::success;

/// Calls nested deeper than this are reported (runaway recursion).
static constexpr size_t kMaxCallDepth = 64;

FailureOr<CGValue> CodeGen::callFunction(const CGValue &callee,
                                         CallArgs &args) {
  const Node *node = callee.getNode();
  const auto *def = llvm::dyn_cast<FunctionDef>(node);
  const auto *lambda = llvm::dyn_cast<LambdaExpr>(node);
  llvm::ArrayRef<Parameter *> params =
      def ? def->getParams() : lambda->getParams();
  std::string name = def ? def->getName().str() : std::string("<lambda>");
  std::string shown = "'" + name + "'";

  if (callStack.size() >= kMaxCallDepth)
    return error(args.loc, "calls are nested more than " +
                               std::to_string(kMaxCallDepth) + " deep; is " +
                               shown + " recursive?");

  // The scope default values and annotations are evaluated in.
  std::shared_ptr<Frame> definingFrame =
      callee.isClosure() ? callee.getFrame() : moduleFrame;
  auto evalInDefiningScope = [&](const Expr *expr) -> FailureOr<CGValue> {
    FunctionState scopeState;
    scopeState.frame = definingFrame;
    scopeState.name = name;
    FunctionState *saved = fn;
    fn = &scopeState;
    FailureOr<CGValue> value = eval(expr);
    fn = saved;
    return value;
  };

  // Bind the arguments.
  llvm::SmallVector<std::optional<CallArg>> values(params.size());
  size_t nextParam = 0;
  std::vector<CGValue> extraPositional;
  // `**kwargs` collects the keyword arguments no parameter takes.
  std::vector<std::pair<std::string, CGValue>> extraKeywords;
  int varPositional = -1, varKeyword = -1;
  for (auto [i, param] : llvm::enumerate(params))
    if (param->getParamKind() == ParamKind::VarPositional)
      varPositional = static_cast<int>(i);
    else if (param->getParamKind() == ParamKind::VarKeyword)
      varKeyword = static_cast<int>(i);
  size_t numPositionalParams = 0;
  for (const Parameter *param : params)
    if (param->getParamKind() == ParamKind::Normal ||
        param->getParamKind() == ParamKind::PositionalOnly)
      ++numPositionalParams;
  for (CallArg &arg : args.positional) {
    while (nextParam < params.size() &&
           params[nextParam]->getParamKind() != ParamKind::Normal &&
           params[nextParam]->getParamKind() != ParamKind::PositionalOnly)
      ++nextParam;
    if (nextParam < params.size() &&
        (varPositional < 0 || static_cast<int>(nextParam) < varPositional)) {
      values[nextParam++] = arg;
      continue;
    }
    if (varPositional >= 0) {
      extraPositional.push_back(arg.value);
      continue;
    }
    return error(arg.loc,
                 shown + " takes " + std::to_string(numPositionalParams) +
                     " positional argument" +
                     (numPositionalParams == 1 ? "" : "s") + " but " +
                     std::to_string(args.positional.size()) + " were given");
  }
  for (CallArg &arg : args.keywords) {
    int index = -1;
    for (auto [i, param] : llvm::enumerate(params))
      if (param->getName() == arg.keyword &&
          param->getParamKind() != ParamKind::VarPositional &&
          param->getParamKind() != ParamKind::VarKeyword &&
          param->getParamKind() != ParamKind::PositionalOnly)
        index = static_cast<int>(i);
    if (index < 0 && varKeyword >= 0) {
      for (const auto &[name, value] : extraKeywords)
        if (name == arg.keyword)
          return error(arg.keywordLoc, shown +
                                           " got multiple values for "
                                           "argument '" +
                                           arg.keyword + "'");
      extraKeywords.emplace_back(arg.keyword, arg.value);
      continue;
    }
    if (index < 0) {
      llvm::SmallVector<std::string> names;
      for (const Parameter *param : params)
        names.push_back(param->getName().str());
      std::string suggestion = findClosestName(arg.keyword, names);
      return error(
          arg.keywordLoc,
          shown + " got an unexpected keyword argument '" + arg.keyword + "'" +
              (suggestion.empty() ? std::string()
                                  : "; did you mean '" + suggestion + "'?"));
    }
    if (values[index])
      return error(arg.keywordLoc, shown +
                                       " got multiple values for "
                                       "argument '" +
                                       arg.keyword + "'");
    values[index] = arg;
  }

  auto frame = newFrame();
  frame->parent = callee.isClosure() ? callee.getFrame() : nullptr;
  for (auto [i, param] : llvm::enumerate(params)) {
    if (param->getParamKind() == ParamKind::VarPositional) {
      frame->vars[param->getName()] =
          Binding{CGValue::tuple(extraPositional), param->getLoc()};
      continue;
    }
    if (param->getParamKind() == ParamKind::VarKeyword) {
      frame->vars[param->getName()] =
          Binding{CGValue::dict(extraKeywords), param->getLoc()};
      continue;
    }
    CGValue value;
    SMLoc valueLoc = args.loc;
    if (values[i]) {
      value = values[i]->value;
      valueLoc = values[i]->loc;
    } else if (const Expr *dflt = param->getDefault()) {
      FailureOr<CGValue> v = evalInDefiningScope(dflt);
      if (failed(v))
        return failure();
      value = *v;
    } else {
      return error(args.loc,
                   shown + " is missing argument '" + param->getName() + "'")
          .note(param->getLoc(), "'" + param->getName() + "' is declared here");
    }
    // A helper's `tl.constexpr` annotation does not make its argument a
    // constant: as in Triton, what the call site passes decides (Triton's
    // tutorial 06 passes the run-time `offs_m` and `N_CTX` to parameters
    // of `_attn_fwd_inner` annotated tl.constexpr).
    frame->vars[param->getName()] = Binding{value, param->getLoc()};
  }

  // Compile the body in place.
  if (def && !callee.isClosure())
    inlinedFunctions.insert(def->getName());
  FunctionState state;
  state.frame = frame;
  state.name = name;
  if (def)
    collectClosureReads(def->getBody(), state.closureReads);
  callStack.emplace_back(args.loc, name);
  FunctionState *saved = fn;
  fn = &state;
  CGValue result = CGValue::none();
  if (def) {
    compileBlock(def->getBody());
    if (state.returned)
      result = state.returnValue;
  } else {
    FailureOr<CGValue> value = eval(lambda->getBody());
    result = succeeded(value) ? *value : CGValue::poison();
  }
  fn = saved;
  callStack.pop_back();
  if (result.isPoison())
    return failure();
  return result;
}
