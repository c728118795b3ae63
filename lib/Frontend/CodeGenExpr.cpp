//===- CodeGenExpr.cpp - AST to tile dialect: expressions -----------------===//
//
// Part of tilec, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// The expression visitor: literals, names, operators (dispatching to the
// semantic layer), `and`/`or`/`not`, comparison chains, conditional
// expressions, lambdas, calls, attributes and subscripts (`x[:, None]`).
//
//===----------------------------------------------------------------------===//

#include "CodeGen.h"

#include "tilec/Dialect/Tile/IR/Tile.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

using namespace tilec;
using namespace tilec::frontend;
using llvm::SMLoc;
using llvm::StringRef;
using mlir::failure;
using mlir::FailureOr;
using mlir::LogicalResult;
using mlir::success;

std::string CodeGen::describeCallee(const Expr *callee) {
  llvm::SMRange range = callee->getRange();
  if (range.Start.isValid() && range.End.isValid() &&
      range.End.getPointer() > range.Start.getPointer()) {
    StringRef text(range.Start.getPointer(),
                   range.End.getPointer() - range.Start.getPointer());
    if (!text.contains('\n') && text.size() < 60)
      return text.str();
  }
  if (const auto *name = llvm::dyn_cast<NameExpr>(callee))
    return name->getName().str();
  if (const auto *attr = llvm::dyn_cast<AttributeExpr>(callee))
    return attr->getName().str();
  return "function";
}

/// Every attribute name a module has, for suggestions.
static void moduleAttrCandidates(CodeGen &cg, StringRef path,
                                 llvm::SmallVectorImpl<std::string> &names) {
  static constexpr StringRef kProbe[] = {"program_id",
                                         "num_programs",
                                         "arange",
                                         "zeros",
                                         "zeros_like",
                                         "full",
                                         "full_like",
                                         "load",
                                         "store",
                                         "make_block_ptr",
                                         "advance",
                                         "make_tensor_descriptor",
                                         "load_tensor_descriptor",
                                         "store_tensor_descriptor",
                                         "dot",
                                         "sum",
                                         "max",
                                         "min",
                                         "argmax",
                                         "argmin",
                                         "reduce",
                                         "exp",
                                         "exp2",
                                         "log",
                                         "log2",
                                         "sqrt",
                                         "rsqrt",
                                         "sin",
                                         "cos",
                                         "abs",
                                         "floor",
                                         "ceil",
                                         "fma",
                                         "sigmoid",
                                         "maximum",
                                         "minimum",
                                         "where",
                                         "cdiv",
                                         "reshape",
                                         "view",
                                         "trans",
                                         "permute",
                                         "expand_dims",
                                         "broadcast_to",
                                         "broadcast",
                                         "multiple_of",
                                         "max_contiguous",
                                         "max_constancy",
                                         "static_assert",
                                         "static_print",
                                         "static_range",
                                         "range",
                                         "constexpr",
                                         "pointer_type",
                                         "cast",
                                         "clamp",
                                         "float16",
                                         "bfloat16",
                                         "float32",
                                         "float64",
                                         "int1",
                                         "int8",
                                         "int16",
                                         "int32",
                                         "int64",
                                         "uint8",
                                         "uint16",
                                         "uint32",
                                         "uint64",
                                         "float8e4nv",
                                         "float8e5",
                                         "math",
                                         "language",
                                         "jit",
                                         "tanh",
                                         "erf",
                                         "softmax",
                                         "xor_sum",
                                         "umulhi",
                                         "fdiv",
                                         "div_rn",
                                         "sqrt_rn",
                                         "pi",
                                         "e",
                                         "inf",
                                         "nan",
                                         "log10",
                                         "pow",
                                         "ceil",
                                         "floor",
                                         "isqrt",
                                         "next_power_of_2",
                                         "device_print",
                                         "device_assert",
                                         "atomic_add",
                                         "cumsum",
                                         "associative_scan",
                                         "cat",
                                         "join",
                                         "split",
                                         "flip",
                                         "sort",
                                         "interleave",
                                         "histogram",
                                         "debug_barrier",
                                         "inline_asm_elementwise",
                                         "rand",
                                         "randn",
                                         "randint"};
  for (StringRef probe : kProbe)
    if (cg.lookupModuleAttr(path, probe))
      names.push_back(probe.str());
}

FailureOr<CGValue> CodeGen::eval(const Expr *expr) {
  LocationScope scope(*this, expr);
  switch (expr->getKind()) {
  case Node::Kind::Name: {
    const auto *name = llvm::cast<NameExpr>(expr);
    return lookupName(name->getName(), name->getLoc());
  }
  case Node::Kind::IntegerLiteral: {
    const auto *literal = llvm::cast<IntegerLiteral>(expr);
    std::optional<uint64_t> value = literal->getValue();
    if (!value || *value > uint64_t(INT64_MAX))
      return error(literal->getLoc(),
                   "integer literal " + literal->getSpelling() +
                       " does not fit in 64 bits (constexpr integers of a "
                       "tilec kernel are 64-bit)");
    return CGValue::integer(static_cast<int64_t>(*value));
  }
  case Node::Kind::FloatLiteral:
    return CGValue::floating(llvm::cast<FloatLiteral>(expr)->getValue());
  case Node::Kind::ImaginaryLiteral:
    return error(expr->getLoc(),
                 "complex numbers are not supported in a tilec kernel");
  case Node::Kind::StringLiteral: {
    const auto *literal = llvm::cast<StringLiteral>(expr);
    if (literal->isBytes())
      return error(expr->getLoc(),
                   "bytes literals are not supported in a tilec kernel");
    return CGValue::string(literal->getValue());
  }
  case Node::Kind::FString: {
    FailureOr<std::string> text =
        formatFString(llvm::cast<FStringExpr>(expr));
    if (failed(text))
      return failure();
    return CGValue::string(*text);
  }
  case Node::Kind::BoolLiteral:
    return CGValue::boolean(llvm::cast<BoolLiteral>(expr)->getValue());
  case Node::Kind::NoneLiteral:
    return CGValue::none();
  case Node::Kind::EllipsisLiteral:
    return error(expr->getLoc(),
                 "'...' (Ellipsis) is not supported in a tilec kernel");
  case Node::Kind::Unary: {
    const auto *unary = llvm::cast<UnaryExpr>(expr);
    FailureOr<CGValue> operand = eval(unary->getOperand());
    if (failed(operand))
      return failure();
    return unaryOp(unary->getOp(), *operand, unary->getOpLoc());
  }
  case Node::Kind::Binary: {
    const auto *binary = llvm::cast<BinaryExpr>(expr);
    FailureOr<CGValue> lhs = eval(binary->getLHS());
    FailureOr<CGValue> rhs = eval(binary->getRHS());
    if (failed(lhs) || failed(rhs))
      return failure();
    return binaryOp(binary->getOp(), *lhs, *rhs, binary->getOpLoc(),
                    binary->getLHS()->getLoc(), binary->getRHS()->getLoc());
  }
  case Node::Kind::BoolOp: {
    const auto *boolOp = llvm::cast<BoolOpExpr>(expr);
    bool isAnd = boolOp->getOp() == BoolOp::And;
    StringRef opName = isAnd ? "and" : "or";
    StringRef bitwise = isAnd ? "&" : "|";
    FailureOr<CGValue> lhs = eval(boolOp->getLHS());
    if (failed(lhs))
      return failure();
    if (lhs->isConstexpr()) {
      // Python's short circuit: the result is one of the operands.
      bool truth = lhs->isTruthy();
      if (isAnd ? !truth : truth)
        return *lhs;
      return eval(boolOp->getRHS());
    }
    auto tileError = [&](const CGValue &operand, StringRef side) {
      return error(boolOp->getOpLoc(),
                   "'" + opName + "' is not supported on tiles (the " + side +
                       " operand is " + operand.describe() + "); use '" +
                       bitwise + "' for an element-wise logical " + opName);
    };
    if (lhs->isTile() || lhs->isBlockLike())
      return tileError(*lhs, "left");
    FailureOr<CGValue> rhs = eval(boolOp->getRHS());
    if (failed(rhs))
      return failure();
    if (rhs->isTile() || rhs->isBlockLike())
      return tileError(*rhs, "right");
    FailureOr<CGValue> lhsBool = toBool(*lhs, boolOp->getLHS()->getLoc());
    if (failed(lhsBool))
      return failure();
    CGValue rhsBool;
    if (rhs->isConstexpr()) {
      rhsBool = makeConstant(CGValue::boolean(rhs->isTruthy()),
                             DType::get(ScalarType::I1));
    } else {
      FailureOr<CGValue> converted = toBool(*rhs, boolOp->getRHS()->getLoc());
      if (failed(converted))
        return failure();
      rhsBool = *converted;
    }
    mlir::Value result =
        isAnd ? mlir::arith::AndIOp::create(builder, loc(), lhsBool->getValue(),
                                            rhsBool.getValue())
                    .getResult()
              : mlir::arith::OrIOp::create(builder, loc(), lhsBool->getValue(),
                                           rhsBool.getValue())
                    .getResult();
    return CGValue::runtime(result, DType::get(ScalarType::I1));
  }
  case Node::Kind::Compare: {
    const auto *compare = llvm::cast<CompareExpr>(expr);
    FailureOr<CGValue> lhs = eval(compare->getLHS());
    if (failed(lhs))
      return failure();
    const Expr *lhsExpr = compare->getLHS();
    std::optional<CGValue> result;
    for (const Comparison &link : compare->getComparisons()) {
      FailureOr<CGValue> rhs = eval(link.rhs);
      if (failed(rhs))
        return failure();
      FailureOr<CGValue> value =
          compareOp(link.op, *lhs, *rhs, link.opLoc, lhsExpr->getLoc(),
                    link.rhs->getLoc());
      if (failed(value))
        return failure();
      if (!result) {
        result = *value;
      } else if (result->isConstexpr() && value->isConstexpr()) {
        result = CGValue::boolean(result->isTruthy() && value->isTruthy());
      } else {
        FailureOr<CGValue> combined =
            binaryOp(BinaryOp::BitAnd, *result, *value, link.opLoc,
                     compare->getLHS()->getLoc(), link.rhs->getLoc());
        if (failed(combined))
          return failure();
        result = *combined;
      }
      // Python stops at the first false link of a constexpr chain.
      if (result->isConstexpr() && !result->isTruthy())
        return *result;
      lhs = *rhs;
      lhsExpr = link.rhs;
    }
    return *result;
  }
  case Node::Kind::IfExp: {
    const auto *ifExp = llvm::cast<IfExpr>(expr);
    FailureOr<CGValue> cond = eval(ifExp->getCondition());
    if (failed(cond))
      return failure();
    if (cond->isRuntime())
      return evalRuntimeIfExp(ifExp, *cond);
    return eval(cond->isTruthy() ? ifExp->getTrueValue()
                                 : ifExp->getFalseValue());
  }
  case Node::Kind::Lambda:
    return CGValue::closure(expr, fn->frame);
  case Node::Kind::Call: {
    const auto *call = llvm::cast<CallExpr>(expr);
    FailureOr<CGValue> callee = eval(call->getCallee());
    std::string calleeName = describeCallee(call->getCallee());
    FailureOr<CallArgs> args = evalCallArgs(call, calleeName);
    if (failed(callee) || failed(args))
      return failure();
    return callValue(*callee, *args);
  }
  case Node::Kind::Attribute: {
    const auto *attr = llvm::cast<AttributeExpr>(expr);
    FailureOr<CGValue> base = eval(attr->getBase());
    if (failed(base))
      return failure();
    if (base->isModule()) {
      if (std::optional<CGValue> value =
              lookupModuleAttr(base->getName(), attr->getName()))
        return *value;
      StringRef path = base->getName();
      if (!path.starts_with("triton") && path != "math")
        return error(attr->getNameLoc(),
                     "module '" + path +
                         "' cannot be used in a tilec kernel (only "
                         "triton.language, triton and math are available)");
      llvm::SmallVector<std::string> candidates;
      moduleAttrCandidates(*this, path, candidates);
      std::string suggestion = findClosestName(attr->getName(), candidates);
      std::string shown = path == "triton.language" ? "tl" : path.str();
      if (!suggestion.empty())
        return error(attr->getNameLoc(),
                     "'" + shown + "." + attr->getName() +
                         "' is not available in tilec; did you mean '" + shown +
                         "." + suggestion + "'?");
      return error(attr->getNameLoc(), "'" + shown + "." + attr->getName() +
                                           "' is not available in tilec");
    }
    return getValueAttr(*base, attr->getName(), attr->getNameLoc());
  }
  case Node::Kind::Subscript: {
    const auto *subscript = llvm::cast<SubscriptExpr>(expr);
    FailureOr<CGValue> base = eval(subscript->getBase());
    if (failed(base))
      return failure();
    const Expr *index = subscript->getIndex();
    llvm::SmallVector<const Expr *> indices;
    if (const auto *tuple = llvm::dyn_cast<TupleExpr>(index))
      indices.append(tuple->getElements().begin(), tuple->getElements().end());
    else
      indices.push_back(index);

    if (base->isDict()) {
      FailureOr<CGValue> key = eval(index);
      if (failed(key))
        return failure();
      if (!key->isStr())
        return error(index->getLoc(), "the keys of '**kwargs' are strings, "
                                      "not " +
                                          key->describe());
      if (const CGValue *value = base->lookupKey(key->getStr()))
        return *value;
      return error(index->getLoc(), "no keyword argument " + key->repr() +
                                        " was given (the '**kwargs' are " +
                                        base->repr() + ")");
    }
    if (base->isTuple() || base->isStr()) {
      if (indices.size() != 1)
        return error(index->getLoc(),
                     "a tuple can only be indexed with one integer or slice");
      auto constInt = [&](const Expr *e,
                          std::optional<int64_t> &out) -> LogicalResult {
        if (!e)
          return success();
        FailureOr<CGValue> v = eval(e);
        if (failed(v))
          return failure();
        if (!v->isIntLike() && !v->isNone())
          return error(e->getLoc(),
                       "tuple indices must be constexpr integers, got " +
                           v->describe());
        if (v->isIntLike())
          out = v->getInt();
        return success();
      };
      int64_t size = base->isTuple()
                         ? static_cast<int64_t>(base->getElements().size())
                         : static_cast<int64_t>(base->getStr().size());
      auto element = [&](int64_t i) {
        return base->isTuple() ? base->getElements()[i]
                               : CGValue::string(base->getStr().substr(i, 1));
      };
      if (const auto *slice = llvm::dyn_cast<SliceExpr>(indices[0])) {
        std::optional<int64_t> lower, upper, step;
        if (failed(constInt(slice->getLower(), lower)) ||
            failed(constInt(slice->getUpper(), upper)) ||
            failed(constInt(slice->getStep(), step)))
          return failure();
        int64_t s = step.value_or(1);
        if (s == 0)
          return error(indices[0]->getLoc(), "slice step cannot be zero");
        auto clamp = [&](std::optional<int64_t> v, int64_t dflt) {
          if (!v)
            return dflt;
          int64_t x = *v < 0 ? *v + size : *v;
          return std::max<int64_t>(
              s > 0 ? 0 : -1, std::min<int64_t>(x, s > 0 ? size : size - 1));
        };
        int64_t start = clamp(lower, s > 0 ? 0 : size - 1);
        int64_t stop = clamp(upper, s > 0 ? size : -1);
        std::vector<CGValue> elements;
        std::string text;
        for (int64_t i = start; s > 0 ? i < stop : i > stop; i += s) {
          if (base->isTuple())
            elements.push_back(base->getElements()[i]);
          else
            text += base->getStr()[i];
        }
        return base->isTuple() ? CGValue::tuple(std::move(elements))
                               : CGValue::string(text);
      }
      std::optional<int64_t> i;
      if (failed(constInt(indices[0], i)))
        return failure();
      if (!i)
        return error(indices[0]->getLoc(), "tuple index cannot be None");
      int64_t wrapped = *i < 0 ? *i + size : *i;
      if (wrapped < 0 || wrapped >= size)
        return error(indices[0]->getLoc(), "index " + std::to_string(*i) +
                                               " is out of range for " +
                                               base->describe());
      return element(wrapped);
    }

    if (base->getKind() == CGValue::Kind::JitFunction)
      return error(subscript->getOpLoc(),
                   base->describe() +
                       " cannot be launched with a grid from inside a "
                       "kernel; call it without '[...]' to inline it");
    if (!base->isRuntime() || base->isBlockLike())
      return error(subscript->getOpLoc(),
                   base->describe() + " cannot be indexed");

    // A tile: `None` inserts a dimension, `:` keeps one.
    CGValue result = *base;
    int64_t rank = static_cast<int64_t>(base->getShape().size());
    int64_t dim = 0;
    int64_t kept = 0;
    for (const Expr *item : indices) {
      if (const auto *slice = llvm::dyn_cast<SliceExpr>(item)) {
        if (slice->getLower() || slice->getUpper() || slice->getStep())
          return error(item->getLoc(),
                       "slicing a tile is not supported; only ':' (keep a "
                       "dimension) and None (add a dimension) are allowed "
                       "as tile indices");
        // Checked here, before a later None inserts a dimension past the
        // end of the tile.
        if (++kept > rank)
          return error(item->getLoc(), "too many ':' indices for " +
                                           base->describe() + " (rank " +
                                           std::to_string(rank) + ")");
        ++dim;
        continue;
      }
      FailureOr<CGValue> v = eval(item);
      if (failed(v))
        return failure();
      if (!v->isNone())
        return error(item->getLoc(),
                     "indexing a tile with " + v->describe() +
                         " is not supported; only ':' (keep a dimension) "
                         "and None (add a dimension) are allowed as tile "
                         "indices");
      LocationScope itemScope(*this, subscript->getOpLoc());
      result = expandDims(result, dim);
      ++dim;
    }
    return result;
  }
  case Node::Kind::Tuple:
  case Node::Kind::List: {
    llvm::ArrayRef<Expr *> elements =
        llvm::isa<TupleExpr>(expr) ? llvm::cast<TupleExpr>(expr)->getElements()
                                   : llvm::cast<ListExpr>(expr)->getElements();
    std::vector<CGValue> values;
    bool ok = true;
    for (const Expr *element : elements) {
      if (const auto *starred = llvm::dyn_cast<StarredExpr>(element)) {
        FailureOr<CGValue> inner = eval(starred->getValue());
        if (failed(inner)) {
          ok = false;
          continue;
        }
        if (!inner->isTuple()) {
          error(starred->getLoc(), "only tuples can be unpacked with '*', "
                                   "not " +
                                       inner->describe());
          ok = false;
          continue;
        }
        for (const CGValue &v : inner->getElements())
          values.push_back(v);
        continue;
      }
      FailureOr<CGValue> value = eval(element);
      if (failed(value)) {
        ok = false;
        continue;
      }
      values.push_back(*value);
    }
    if (!ok)
      return failure();
    return CGValue::tuple(std::move(values));
  }
  case Node::Kind::Set:
    return error(expr->getLoc(), "sets are not supported in a tilec kernel");
  case Node::Kind::Dict:
    return error(expr->getLoc(),
                 "dictionaries are not supported in a tilec kernel");
  case Node::Kind::Starred:
    return error(expr->getLoc(),
                 "'*' unpacking is only supported in calls and tuples");
  case Node::Kind::Comprehension:
    return error(expr->getLoc(),
                 "comprehensions are not supported in a tilec kernel; use "
                 "tl.static_range in a for loop");
  case Node::Kind::Slice:
    return error(expr->getLoc(), "a slice is only allowed as an index");
  case Node::Kind::NamedExpr: {
    const auto *named = llvm::cast<NamedExpr>(expr);
    FailureOr<CGValue> value = eval(named->getValue());
    if (failed(value))
      return failure();
    if (failed(assignTarget(named->getTarget(), *value, named->getOpLoc(),
                            /*sanitize=*/true)))
      return failure();
    return lookupName(named->getTarget()->getName(), named->getLoc());
  }
  case Node::Kind::UnsupportedExpr: {
    const auto *unsupported = llvm::cast<UnsupportedExpr>(expr);
    return error(expr->getLoc(), "'" + unsupported->getConstruct() +
                                     "' is not supported in a tilec kernel");
  }
  default:
    break;
  }
  return error(expr->getLoc(), "this expression is not supported in a tilec "
                               "kernel");
}

/// The source text of an expression for messages (shortened if long).
static std::string sourceText(const Expr *expr) {
  llvm::SMRange range = expr->getRange();
  if (!range.Start.isValid() || !range.End.isValid() ||
      range.End.getPointer() <= range.Start.getPointer())
    return "expression";
  StringRef text(range.Start.getPointer(),
                 range.End.getPointer() - range.Start.getPointer());
  text = text.trim();
  if (text.contains('\n') || text.size() > 40)
    return (text.take_front(std::min<size_t>(text.find('\n'), 37)) + "...")
        .str();
  return text.str();
}

FailureOr<std::string> CodeGen::formatFString(const FStringExpr *fstring) {
  std::string result;
  bool ok = true;
  for (const FStringPart &part : fstring->getParts()) {
    if (!part.isField()) {
      result += part.text;
      continue;
    }
    FailureOr<CGValue> value = eval(part.expr);
    if (failed(value)) {
      ok = false;
      continue;
    }
    if (value->isRuntime()) {
      error(part.expr->getLoc(), "f-string field '" + sourceText(part.expr) +
                                     "' is a run-time value; f-strings are "
                                     "evaluated at compile time")
          .constexprHint(*value);
      ok = false;
      continue;
    }
    std::string spec;
    if (part.formatSpec) {
      FailureOr<std::string> specText = formatFString(part.formatSpec);
      if (failed(specText)) {
        ok = false;
        continue;
      }
      spec = *specText;
    }
    // `{x=}` shows the repr unless a conversion or a spec is given.
    char conversion = part.conversion;
    if (!conversion && !part.selfDocText.empty() && !part.formatSpec)
      conversion = 'r';
    CGValue converted = *value;
    if (conversion == 'r')
      converted = CGValue::string(value->repr());
    else if (conversion == 's')
      converted = CGValue::string(value->str());
    else if (conversion == 'a')
      converted = CGValue::string(pythonAscii(value->repr()));
    std::string formatted, problem;
    if (!formatConstexpr(converted, spec, formatted, problem)) {
      error(part.formatSpec ? part.formatSpec->getLoc() : part.expr->getLoc(),
            "invalid format spec '" + spec + "' for " + converted.describe() +
                " in f-string: " + problem);
      ok = false;
      continue;
    }
    result += part.selfDocText;
    result += formatted;
  }
  if (!ok)
    return failure();
  return result;
}

FailureOr<CallArgs> CodeGen::evalCallArgs(const CallExpr *call,
                                          StringRef calleeName) {
  CallArgs args;
  args.loc = call->getCallee()->getLoc();
  args.calleeName = calleeName.str();
  bool ok = true;
  for (const Argument &arg : call->getArgs()) {
    switch (arg.kind) {
    case ArgKind::Positional: {
      FailureOr<CGValue> value = eval(arg.value);
      if (failed(value)) {
        ok = false;
        continue;
      }
      args.positional.push_back({*value, arg.value->getLoc(), "", SMLoc()});
      break;
    }
    case ArgKind::Keyword: {
      FailureOr<CGValue> value = eval(arg.value);
      if (failed(value)) {
        ok = false;
        continue;
      }
      for (const CallArg &previous : args.keywords)
        if (previous.keyword == arg.keyword) {
          error(arg.loc,
                "keyword argument '" + arg.keyword + "' is given twice");
          ok = false;
        }
      args.keywords.push_back(
          {*value, arg.value->getLoc(), arg.keyword.str(), arg.loc});
      break;
    }
    case ArgKind::Star: {
      FailureOr<CGValue> value = eval(arg.value);
      if (failed(value)) {
        ok = false;
        continue;
      }
      if (!value->isTuple()) {
        error(arg.loc, "only a tuple can be unpacked with '*' in a call, "
                       "not " +
                           value->describe());
        ok = false;
        continue;
      }
      for (const CGValue &element : value->getElements())
        args.positional.push_back({element, arg.value->getLoc(), "", SMLoc()});
      break;
    }
    case ArgKind::DoubleStar: {
      // `f(**kwargs)`: the keyword arguments a helper's `**kwargs`
      // collected, passed on in order.
      FailureOr<CGValue> value = eval(arg.value);
      if (failed(value)) {
        ok = false;
        continue;
      }
      if (!value->isDict()) {
        error(arg.loc, "only a helper's '**kwargs' can be unpacked with '**' "
                       "in a call, not " +
                           value->describe());
        ok = false;
        continue;
      }
      for (const CGValue &item : value->getElements())
        args.keywords.push_back({item.getElements()[1], arg.value->getLoc(),
                                 item.getElements()[0].getStr().str(),
                                 arg.loc});
      break;
    }
    }
  }
  if (!ok)
    return failure();
  return args;
}

FailureOr<CGValue> CodeGen::callValue(const CGValue &callee, CallArgs &args) {
  switch (callee.getKind()) {
  case CGValue::Kind::Builtin:
    return callBuiltin(callee.getName(), args);
  case CGValue::Kind::JitFunction:
  case CGValue::Kind::Closure:
    return callFunction(callee, args);
  case CGValue::Kind::BoundMethod: {
    const CGValue &receiver = callee.getReceiver();
    StringRef method = callee.getName();
    if (receiver.isDType()) {
      if (!args.positional.empty() || !args.keywords.empty())
        return error(args.loc,
                     "dtype method '" + method + "' takes no arguments");
      DType d = receiver.getDType();
      if (method == "is_floating")
        return CGValue::boolean(d.isFloat());
      if (method == "is_int")
        return CGValue::boolean(d.isInt());
      if (method == "is_int_signed")
        return CGValue::boolean(d.isSigned());
      if (method == "is_int_unsigned")
        return CGValue::boolean(d.isUnsigned());
      if (method == "is_bool")
        return CGValue::boolean(d.isBool());
      if (method == "is_fp8")
        return CGValue::boolean(d.isFP8());
      if (method == "is_fp16")
        return CGValue::boolean(d.isFP16());
      if (method == "is_bf16")
        return CGValue::boolean(d.isBF16());
      if (method == "is_fp32")
        return CGValue::boolean(d.isFP32());
      if (method == "is_fp64")
        return CGValue::boolean(d.isFP64());
      if (method == "is_ptr")
        return CGValue::boolean(d.isPointer());
      if (method == "is_block")
        return CGValue::boolean(false);
      return error(args.loc, "dtype has no method '" + method + "'");
    }
    if (receiver.isTensorDescriptor()) {
      // desc.load(offsets) and desc.store(offsets, value) are
      // tl.load_tensor_descriptor(desc, ...) and
      // tl.store_tensor_descriptor(desc, ...); the others (atomics, gather,
      // scatter) are the builtins tensor_descriptor.NAME(desc, ...).
      args.positional.insert(args.positional.begin(),
                             CallArg{receiver, args.loc, "", SMLoc()});
      if (method == "load")
        return callBuiltin("tl.load_tensor_descriptor", args);
      if (method == "store")
        return callBuiltin("tl.store_tensor_descriptor", args);
      return callBuiltin(("tensor_descriptor." + method).str(), args);
    }
    StringRef builtinName = getMethodBuiltin(method);
    if (builtinName.empty())
      return error(args.loc, "'" + method + "' is not a method of " +
                                 receiver.describe());
    args.positional.insert(args.positional.begin(),
                           CallArg{receiver, args.loc, "", SMLoc()});
    return callBuiltin(builtinName, args);
  }
  default:
    break;
  }
  if (callee.isDType())
    return error(args.loc, "'" + args.calleeName +
                               "' is a dtype and cannot be called; use "
                               "x.to(" +
                               callee.getDType().getSpelling() +
                               ") to convert a value");
  return error(args.loc, "'" + args.calleeName + "' (" + callee.describe() +
                             ") is not callable");
}
