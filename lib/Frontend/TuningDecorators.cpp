//===- TuningDecorators.cpp - @triton.autotune / @triton.heuristics -------===//
//
// Part of tilec, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// Reads the autotuning decorators of a kernel into the metadata
// (docs/metadata.md, `autotune` and `heuristics`). Nothing is executed:
// literals (numbers, strings, booleans, None, lists, tuples, dicts, module
// constants bound to literals) and `triton.Config(kwargs, num_warps=…,
// num_stages=…, num_ctas=…, maxnreg=…)` calls are read as values, with
// Triton's defaults filled in; anything else (configs built by a host
// function, a lambda of `@triton.heuristics`, `prune_configs_by`) is kept
// as its source text. A config that sets a name the kernel has no
// parameter of gets a warning, as it would make Triton fail at launch.
//
//===----------------------------------------------------------------------===//

#include "CodeGen.h"

#include "llvm/Support/JSON.h"

using namespace tilec;
using namespace tilec::frontend;

namespace {

/// `text` as a JSON string: the source may hold bytes that are not UTF-8
/// (llvm::json asserts on them), which become U+FFFD.
std::string jsonText(llvm::StringRef text) {
  return llvm::json::isUTF8(text) ? text.str() : llvm::json::fixUTF8(text);
}

llvm::StringRef sourceText(const Expr *expr) {
  llvm::SMRange range = expr->getRange();
  return llvm::StringRef(range.Start.getPointer(),
                         range.End.getPointer() - range.Start.getPointer());
}

/// The last name of a dotted callee: `Config` for `triton.Config`.
llvm::StringRef calleeName(const Expr *callee) {
  if (const auto *name = llvm::dyn_cast<NameExpr>(callee))
    return name->getName();
  if (const auto *attr = llvm::dyn_cast<AttributeExpr>(callee))
    return attr->getName();
  return {};
}

class TuningReader {
public:
  explicit TuningReader(const CodeGen &cg) : cg(cg) {}

  /// The value of a literal expression, or nullopt.
  std::optional<llvm::json::Value> literal(const Expr *expr, unsigned depth = 0) {
    if (depth > 32)
      return std::nullopt;
    if (const auto *i = llvm::dyn_cast<IntegerLiteral>(expr)) {
      if (std::optional<uint64_t> v = i->getValue(); v && *v <= INT64_MAX)
        return llvm::json::Value(int64_t(*v));
      return std::nullopt;
    }
    if (const auto *f = llvm::dyn_cast<FloatLiteral>(expr))
      return llvm::json::Value(f->getValue());
    if (const auto *s = llvm::dyn_cast<StringLiteral>(expr))
      return llvm::json::Value(jsonText(s->getValue()));
    if (const auto *b = llvm::dyn_cast<BoolLiteral>(expr))
      return llvm::json::Value(b->getValue());
    if (llvm::isa<NoneLiteral>(expr))
      return llvm::json::Value(nullptr);
    if (const auto *u = llvm::dyn_cast<UnaryExpr>(expr)) {
      std::optional<llvm::json::Value> v = literal(u->getOperand(), depth + 1);
      if (!v || (u->getOp() != UnaryOp::Minus && u->getOp() != UnaryOp::Plus))
        return std::nullopt;
      bool negate = u->getOp() == UnaryOp::Minus;
      if (std::optional<int64_t> i = v->getAsInteger())
        return llvm::json::Value(negate ? -*i : *i);
      if (std::optional<double> d = v->getAsNumber())
        return llvm::json::Value(negate ? -*d : *d);
      return std::nullopt;
    }
    llvm::ArrayRef<Expr *> elements;
    if (const auto *t = llvm::dyn_cast<TupleExpr>(expr))
      elements = t->getElements();
    else if (const auto *l = llvm::dyn_cast<ListExpr>(expr))
      elements = l->getElements();
    if (llvm::isa<TupleExpr, ListExpr>(expr)) {
      llvm::json::Array array;
      for (const Expr *e : elements) {
        std::optional<llvm::json::Value> v = literal(e, depth + 1);
        if (!v)
          return std::nullopt;
        array.push_back(std::move(*v));
      }
      return llvm::json::Value(std::move(array));
    }
    if (const auto *d = llvm::dyn_cast<DictExpr>(expr)) {
      llvm::json::Object object;
      for (const DictEntry &entry : d->getEntries()) {
        const auto *key = llvm::dyn_cast_if_present<StringLiteral>(entry.key);
        std::optional<llvm::json::Value> v =
            key ? literal(entry.value, depth + 1) : std::nullopt;
        if (!v)
          return std::nullopt;
        object[jsonText(key->getValue())] = std::move(*v);
      }
      return llvm::json::Value(std::move(object));
    }
    if (const auto *name = llvm::dyn_cast<NameExpr>(expr))
      if (const Expr *value = cg.getModuleConstantExpr(name->getName()))
        return literal(value, depth + 1);
    if (const auto *call = llvm::dyn_cast<CallExpr>(expr))
      if (calleeName(call->getCallee()) == "Config")
        return config(call, depth);
    return std::nullopt;
  }

  /// The value of `expr` if it is a literal, else {"source": text}.
  llvm::json::Value valueOrSource(const Expr *expr) {
    if (std::optional<llvm::json::Value> v = literal(expr))
      return std::move(*v);
    return llvm::json::Object{{"source", jsonText(sourceText(expr))}};
  }

  /// `triton.Config(kwargs, num_warps=4, num_stages=3, num_ctas=1,
  /// maxnreg=None, pre_hook=None)`, with Triton's defaults.
  std::optional<llvm::json::Value> config(const CallExpr *call, unsigned depth) {
    llvm::json::Object object{{"kwargs", llvm::json::Object()},
                              {"num_warps", 4},
                              {"num_stages", 3},
                              {"num_ctas", 1},
                              {"maxnreg", nullptr}};
    static constexpr llvm::StringLiteral positional[] = {
        "kwargs", "num_warps", "num_stages", "num_ctas", "maxnreg"};
    unsigned index = 0;
    for (const Argument &arg : call->getArgs()) {
      llvm::StringRef key;
      if (arg.kind == ArgKind::Positional && index < std::size(positional))
        key = positional[index++];
      else if (arg.kind == ArgKind::Keyword)
        key = arg.keyword;
      else
        return std::nullopt;
      if (key == "pre_hook") {
        if (!llvm::isa<NoneLiteral>(arg.value))
          object["pre_hook"] = jsonText(sourceText(arg.value));
        continue;
      }
      std::optional<llvm::json::Value> v = literal(arg.value, depth + 1);
      if (!v || (key == "kwargs" && !v->getAsObject()))
        return std::nullopt;
      object[jsonText(key)] = std::move(*v);
    }
    return llvm::json::Value(std::move(object));
  }

private:
  const CodeGen &cg;
};

} // namespace

std::string CodeGen::readTuningDecorators(const FunctionDef *kernel) {
  TuningReader reader(*this);
  llvm::json::Object result;
  for (const Expr *decorator : kernel->getDecorators()) {
    const auto *call = llvm::dyn_cast<CallExpr>(decorator);
    llvm::StringRef name = call ? calleeName(call->getCallee()) : "";
    if (name == "autotune") {
      llvm::json::Object autotune;
      for (const Argument &arg : call->getArgs()) {
        llvm::StringRef key = arg.kind == ArgKind::Keyword ? arg.keyword : "";
        if (key.empty() && arg.kind == ArgKind::Positional)
          key = autotune.find("configs") == autotune.end() ? "configs" : "key";
        if (key.empty())
          continue;
        autotune[jsonText(key)] = reader.valueOrSource(arg.value);
      }
      result["autotune"] = std::move(autotune);
    } else if (name == "heuristics") {
      // `values`: a dict of parameter name -> function of the arguments
      // (a lambda, kept as its source).
      const Expr *values = nullptr;
      for (const Argument &arg : call->getArgs())
        if (arg.kind == ArgKind::Positional || arg.keyword == "values")
          values = arg.value;
      if (!values)
        continue;
      llvm::json::Object heuristics;
      const auto *dict = llvm::dyn_cast<DictExpr>(values);
      bool literalKeys =
          dict && llvm::all_of(dict->getEntries(), [](const DictEntry &e) {
            return llvm::isa_and_present<StringLiteral>(e.key);
          });
      if (literalKeys) {
        for (const DictEntry &entry : dict->getEntries())
          heuristics[jsonText(llvm::cast<StringLiteral>(entry.key)->getValue())] =
              reader.valueOrSource(entry.value);
        result["heuristics"] = std::move(heuristics);
      } else {
        result["heuristics"] =
            llvm::json::Object{{"source", jsonText(sourceText(values))}};
      }
    }
  }
  if (result.empty())
    return "";

  auto isParameter = [&](llvm::StringRef name) {
    return llvm::any_of(kernel->getParams(), [&](const Parameter *p) {
      return p->getName() == name;
    });
  };
  // A config or heuristic that sets something the kernel does not take:
  // a warning at the dict key.
  auto checkKeys = [&](const Expr *expr, llvm::StringRef what) {
    const auto *dict = llvm::dyn_cast_if_present<DictExpr>(expr);
    if (!dict)
      return;
    for (const DictEntry &entry : dict->getEntries()) {
      const auto *key = llvm::dyn_cast_if_present<StringLiteral>(entry.key);
      if (key && !isParameter(key->getValue()))
        warning(key->getLoc(), what + " sets '" + key->getValue() +
                                   "', which is not a parameter of '" +
                                   kernel->getName() + "'");
    }
  };
  for (const Expr *decorator : kernel->getDecorators()) {
    const auto *call = llvm::dyn_cast<CallExpr>(decorator);
    if (!call)
      continue;
    llvm::StringRef name = calleeName(call->getCallee());
    // autotune's `key`: the arguments whose values select a config.
    if (name == "autotune")
      for (const Argument &arg : call->getArgs()) {
        const auto *keys = llvm::dyn_cast<ListExpr>(arg.value);
        if (arg.keyword != "key" || !keys)
          continue;
        for (const Expr *k : keys->getElements())
          if (const auto *s = llvm::dyn_cast<StringLiteral>(k);
              s && !isParameter(s->getValue()))
            warning(s->getLoc(), "the autotune key '" + s->getValue() +
                                     "' is not a parameter of '" +
                                     kernel->getName() + "'");
      }
    for (const Argument &arg : call->getArgs()) {
      bool first = &arg == &call->getArgs().front();
      if (name == "heuristics" &&
          (arg.keyword == "values" || (first && arg.kind == ArgKind::Positional)))
        checkKeys(arg.value, "a heuristic");
      if (name != "autotune" ||
          !(arg.keyword == "configs" || (first && arg.kind == ArgKind::Positional)))
        continue;
      const Expr *configs = arg.value;
      if (const auto *n = llvm::dyn_cast<NameExpr>(configs))
        if (const Expr *value = getModuleConstantExpr(n->getName()))
          configs = value;
      const auto *list = llvm::dyn_cast<ListExpr>(configs);
      if (!list)
        continue;
      for (const Expr *element : list->getElements()) {
        const auto *config = llvm::dyn_cast<CallExpr>(element);
        if (!config || calleeName(config->getCallee()) != "Config")
          continue;
        for (const Argument &c : config->getArgs()) {
          if (c.keyword == "kwargs" ||
              (&c == &config->getArgs().front() && c.kind == ArgKind::Positional))
            checkKeys(c.value, "an autotune config");
          // Triton's Config takes these keywords (a misspelled one is a
          // TypeError there).
          if (c.kind == ArgKind::Keyword &&
              !llvm::is_contained({"kwargs", "num_warps", "num_stages",
                                   "num_ctas", "maxnreg", "pre_hook",
                                   "ir_override", "num_buffers_warp_spec",
                                   "num_consumer_groups",
                                   "reg_dec_producer", "reg_inc_consumer"},
                                  c.keyword))
            warning(c.loc, "triton.Config() has no parameter '" + c.keyword +
                               "' (it takes kwargs, num_warps, num_stages, "
                               "num_ctas, maxnreg, pre_hook)");
        }
      }
    }
  }
  std::string text;
  llvm::raw_string_ostream os(text);
  os << llvm::json::Value(std::move(result));
  return text;
}
